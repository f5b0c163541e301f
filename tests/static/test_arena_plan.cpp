// Compile-only tests of the arena planner on crafted lifetime sets: where greedy by size loses
// (the corpus' miniMobileNet and ToyADMOS buffers), where every heuristic and DORY's stack
// lose and only the branch and bound reaches the bound, and where the bound is unreachable.
// Every plan is also checked buffer against buffer (arena_cases::valid_plan).
#include <tessera/planning/arena_plan.hpp>
#include <tessera/planning/bidirectional_stack.hpp>

#include "../support/arena_cases.hpp"

namespace {

using arena_cases::lifetime;
using arena_cases::lifetime_graph;
using arena_cases::valid_plan;
using tessera::arena_method;

// miniMobileNet (corpus, fused): conv 512 B -> conv 512 B -> conv 1024 B -> conv 256 B (read
// by the Gemm two nodes later, through a Flatten) with 128/672/1344 B of kernel scratch.
// Greedy by size puts the 1344 B scratch at 0, the 1024 B map on top of it, and the 256 B map
// (live with both) at 2368 + 256 -> 2880 B; DORY's stack and the bound: 2624 B.
namespace minimobilenet {
constexpr auto g = lifetime_graph<4, 6>({{{512, 0, 1}, {512, 1, 2}, {1024, 2, 3}, {256, 3, 5}}}, {128, 672, 0, 1344, 0, 0});
constexpr auto plan = tessera::plan_arena(g);
static_assert(plan.greedy_bytes == 2880);
static_assert(tessera::bidirectional_stack_peak(g) == 2624);
static_assert(plan.lower_bound_bytes == 2624 && plan.aligned_bound_bytes == 2624);
static_assert(plan.arena_bytes == 2624 && plan.optimal);
static_assert(plan.method == arena_method::first_fit_area);  // the first that reaches it
static_assert(valid_plan(g, plan));
}  // namespace minimobilenet

// ToyADMOS (corpus): a chain of 128 B Gemm outputs with an 8 B bottleneck in the middle.
// Greedy by size alternates the 128 B buffers between 0 and 128 and then finds the bottleneck
// live with one at each: 256 + 16 = 272 B. DORY's stack flips sides at the bottleneck: 256 B.
namespace toyadmos {
constexpr auto g = lifetime_graph<9, 10>({{{128, 0, 1}, {128, 1, 2}, {128, 2, 3}, {128, 3, 4}, {8, 4, 5},
                                          {128, 5, 6}, {128, 6, 7}, {128, 7, 8}, {128, 8, 9}}});
constexpr auto plan = tessera::plan_arena(g);
static_assert(plan.greedy_bytes == 272);
static_assert(tessera::bidirectional_stack_peak(g) == 256);
static_assert(plan.arena_bytes == 256 && plan.optimal && valid_plan(g, plan));
}  // namespace toyadmos

// Found by the random tests: greedy 272 B, the other first-fit orders no better, DORY 272 B;
// the bound, 256 B, is reachable and only the search finds it. Without a budget the plan
// stays at the heuristics' 272 B.
namespace search_wins {
constexpr auto g = lifetime_graph<7, 5>(
    {{{64, 2, 2}, {32, 1, 2}, {96, 4, 4}, {48, 2, 3}, {80, 3, 4}, {16, 0, 1}, {48, 1, 3}}}, {16, 16, 64, 0, 0});
constexpr auto plan = tessera::plan_arena(g);
static_assert(plan.greedy_bytes == 272 && tessera::bidirectional_stack_peak(g) == 272);
static_assert(plan.aligned_bound_bytes == 256);
static_assert(plan.arena_bytes == 256 && plan.method == arena_method::search && plan.optimal);
static_assert(plan.search_work > 0 && plan.search_work <= tessera::arena_search_budget);
static_assert(valid_plan(g, plan));
constexpr auto no_search = tessera::plan_arena(g, {}, true, tessera::kernels::native_family, 0);
static_assert(no_search.arena_bytes == 272 && !no_search.optimal && no_search.search_work == 0);
static_assert(valid_plan(g, no_search));
}  // namespace search_wins

// Another: greedy 160 B, DORY's stack 192 B, bound 144 B (reached by the search).
namespace search_wins_2 {
constexpr auto g = lifetime_graph<7, 5>(
    {{{16, 2, 4}, {96, 4, 4}, {64, 1, 1}, {32, 3, 4}, {16, 1, 2}, {32, 2, 2}, {64, 0, 2}}}, {0, 0, 0, 16, 0});
constexpr auto plan = tessera::plan_arena(g);
static_assert(plan.greedy_bytes == 160 && tessera::bidirectional_stack_peak(g) == 192);
static_assert(plan.arena_bytes == 144 && plan.aligned_bound_bytes == 144 && plan.method == arena_method::search);
static_assert(valid_plan(g, plan));
}  // namespace search_wins_2

// The bound is not always reachable: here 112 B are live at most, but every placement needs
// 128 B. The search exhausts its tree within the budget and so proves greedy's 128 B optimal.
namespace unreachable {
constexpr auto g = lifetime_graph<8, 10>(
    {{{32, 3, 7}, {16, 3, 4}, {48, 9, 9}, {16, 4, 7}, {48, 1, 1}, {48, 6, 9}, {64, 1, 3}, {16, 4, 6}}});
constexpr auto plan = tessera::plan_arena(g);
static_assert(plan.aligned_bound_bytes == 112);
static_assert(plan.arena_bytes == 128 && plan.optimal && plan.method == arena_method::greedy_size);
static_assert(plan.search_work > 0 && plan.search_work < tessera::arena_search_budget);
static_assert(valid_plan(g, plan));
// With too small a budget the same plan stands, unproven.
constexpr auto cut = tessera::plan_arena(g, {}, true, tessera::kernels::native_family, 64);
static_assert(cut.arena_bytes == 128 && !cut.optimal && valid_plan(g, cut));
}  // namespace unreachable

// Alignment: two 8 B buffers live together need two 16 B slots. The raw bound (16 B) is not
// reachable by any plan with aligned buffers; the aligned bound (32 B) is, and it is what the
// planner aims at (DORY's stack is 32 B too).
namespace alignment {
constexpr auto g = lifetime_graph<2, 2>({{{8, 0, 1}, {8, 0, 1}}});
constexpr auto plan = tessera::plan_arena(g);
static_assert(plan.lower_bound_bytes == 16 && plan.aligned_bound_bytes == 32);
static_assert(plan.arena_bytes == 32 && plan.optimal && tessera::bidirectional_stack_peak(g) == 32);
static_assert(valid_plan(g, plan));
}  // namespace alignment

// The packing layer alone: the same unreachable set as items, searched from greedy's plan.
namespace packing_search {
using tessera::packing::item;
constexpr std::array<item, 8> items{{{32, 3, 7}, {16, 3, 4}, {48, 9, 9}, {16, 4, 7}, {48, 1, 1}, {48, 6, 9}, {64, 1, 3}, {16, 4, 6}}};
static_assert(tessera::packing::live_bound<10>(items, 8) == 112);
constexpr auto result = [] {
  tessera::packing::search_result<8> r{};
  r.peak = tessera::packing::first_fit(items, 8, tessera::packing::ordered(items, 8, tessera::packing::order_key::size),
                                       r.offset);
  tessera::packing::search<10>(items, 8, 112, std::size_t{1} << 20, r);
  return r;
}();
static_assert(result.peak == 128 && result.complete && !result.improved);
}  // namespace packing_search

}  // namespace
