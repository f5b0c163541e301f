// Static memory plan of the activation arena: an offset for every intermediate tensor and
// every node's kernel scratch, computed from lifetimes at compile time.
//
// The buffers (arena_buffers.hpp) are rectangles of steps by bytes, each rounded up to the
// 16-byte alignment; the arena must hold them so that two buffers live at the same step never
// share a byte. No plan is lower than `aligned_bound_bytes`, the largest total of rounded
// buffers live at one step. The planner tries, cheapest first, and stops at the first plan
// that reaches that bound:
//   1. greedy by size (TFLite Micro's plan: largest first, lowest offset that fits);
//   2. the same first fit in three other orders (area, lifetime length, birth);
//   3. DORY's bidirectional stack (bidirectional_stack.hpp);
//   4. an exact branch and bound (packing::search) from the best of those, within a budget.
// The result is the lowest of them, so it is never above greedy by size nor DORY's stack, and
// it is the bound wherever the search reaches it. docs/planning.md states the cost.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include <tessera/graph/network.hpp>
#include <tessera/planning/arena_buffers.hpp>
#include <tessera/planning/arena_packing.hpp>
#include <tessera/planning/bidirectional_stack.hpp>

namespace tessera {

/// Which candidate the arena plan is (the first, in this order, that reached the lowest peak).
enum class arena_method : std::uint8_t {
  greedy_size,       ///< first fit, largest first (TFLite Micro's plan)
  first_fit_area,    ///< first fit, bytes x steps first
  first_fit_length,  ///< first fit, longest lifetime first
  first_fit_birth,   ///< first fit, in the order buffers are born
  dory_stack,        ///< DORY's bidirectional stack
  search,            ///< the branch and bound improved on all of them
};

constexpr const char* name_of(arena_method m) {
  switch (m) {
    case arena_method::greedy_size: return "greedy";
    case arena_method::first_fit_area: return "ff-area";
    case arena_method::first_fit_length: return "ff-length";
    case arena_method::first_fit_birth: return "ff-birth";
    case arena_method::dory_stack: return "dory";
    case arena_method::search: return "search";
  }
  return "?";
}

/// The work budget of the branch and bound (items and steps visited, packing::search), per
/// plan. A visit costs about 80 GCC constexpr operations and 2 us of compile time, so 2^16
/// visits are ~5 M operations (GCC allows 2^25 per constant evaluation) and ~0.15 s. Only
/// plans that the heuristics and DORY's stack leave above the bound spend it; the L3 spill
/// loop, which re-plans the arena once per spilled tensor in one evaluation, searches only
/// its final arena (target_plan.hpp).
inline constexpr std::size_t arena_search_budget = std::size_t{1} << 16;

namespace planning_detail {
/// The most bytes of `a`'s buffers live at one step, unrounded, and the first step (node index)
/// where they are: no arena of these buffers is smaller (O(buffer-steps)).
struct live_peak {
  std::size_t bytes = 0;
  int step = 0;
};
/// The bytes of `a`'s buffers live at each step, each rounded up to `alignment` (1: as they are).
template <std::size_t NT, std::size_t NN>
constexpr std::array<std::size_t, NN> live_per_step(const arena_buffers<NT, NN>& a, std::size_t alignment = 1) {
  std::array<std::size_t, NN> live{};
  for (const auto& b : a.buffers)
    if (b.used)
      for (int s = b.first; s <= b.last; ++s) live[static_cast<std::size_t>(s)] += align_up(b.bytes, alignment);
  return live;
}
template <std::size_t NT, std::size_t NN>
constexpr live_peak live_peak_of(const arena_buffers<NT, NN>& a) {
  const std::array<std::size_t, NN> live = live_per_step(a);
  live_peak peak{};
  for (std::size_t s = 0; s < NN; ++s)
    if (live[s] > peak.bytes) peak = {live[s], static_cast<int>(s)};
  return peak;
}
}  // namespace planning_detail

template <std::size_t NT, std::size_t NN>
struct arena_plan {
  static constexpr std::int64_t caller_buffer = -1;
  std::array<std::int64_t, NT> tensor_offset{};   ///< byte offset in the arena, or caller_buffer
  std::array<std::int64_t, NN> scratch_offset{};  ///< offset of node n's scratch (0 if none)
  std::size_t arena_bytes = 0;                     ///< bytes the caller must provide
  std::size_t lower_bound_bytes = 0;               ///< max over steps of live bytes
  std::size_t aligned_bound_bytes = 0;             ///< the same with every buffer rounded up to 16 B
  std::size_t greedy_bytes = 0;                    ///< greedy by size alone (the plan before issue 15)
  int peak_step = 0;                                ///< node index where the live bytes peak
  arena_method method = arena_method::greedy_size;  ///< the candidate that won
  bool optimal = false;                             ///< arena_bytes is proven the least possible
  std::size_t search_work = 0;                      ///< budget the branch and bound spent
  layer_choices<NN> choices{};                      ///< lean variants and in-place outputs it assumes
};

/// Plans the arena of `g`. Tensors marked in `elsewhere` (another memory level) are left out
/// like caller buffers; `with_scratch` adds every node's kernel scratch (the L2 arena has it,
/// an L3 arena of spilled activations does not), as the kernels of `family` need it.
/// `search_budget` bounds the branch and bound (0: heuristics and DORY's stack only).
/// `choices`: nodes that run their least-scratch variant and in-place outputs (layer_choices;
/// planning/ram_budget.hpp makes them); the executor that runs the plan must follow them.
template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN>
constexpr arena_plan<NT, NN> plan_arena(const graph_summary<NT, NI, NO, NN>& g,
                                        const std::array<bool, NT>& elsewhere = {}, bool with_scratch = true,
                                        kernels::kernel_family family = kernels::native_family,
                                        std::size_t search_budget = arena_search_budget,
                                        const layer_choices<NN>& choices = {}) {
  using planning_detail::align_up;
  constexpr std::size_t B = NT + NN;
  arena_plan<NT, NN> plan{};
  plan.choices = choices;
  auto a = planning_detail::collect_buffers(g, elsewhere, with_scratch, family, choices);

  // The lower bound, raw: the largest sum of live bytes at any step (O(buffer-steps)).
  const planning_detail::live_peak peak = planning_detail::live_peak_of(a);
  plan.lower_bound_bytes = peak.bytes;
  plan.peak_step = peak.step;

  // The packing items: used buffers of non-zero size, rounded up to the alignment (offsets are
  // then sums of rounded sizes, so aligned), in buffer order (greedy's last tie-break).
  std::array<packing::item, B> items{};
  std::array<std::size_t, B> buffer_of{};
  std::size_t count = 0;
  for (std::size_t b = 0; b < B; ++b) {
    const auto& buf = a.buffers[b];
    if (!buf.used || buf.bytes == 0) continue;
    items[count] = {align_up(buf.bytes, arena_alignment), buf.first, buf.last};
    buffer_of[count++] = b;
  }
  const std::size_t target = packing::live_bound<NN>(items, count);
  plan.aligned_bound_bytes = target;

  const packing::conflict_rows<B> conflicts(items, count);
  packing::search_result<B> best{};
  best.peak = packing::first_fit(items, count, conflicts, packing::ordered(items, count, packing::order_key::size),
                                 best.offset);
  plan.greedy_bytes = best.peak;
  constexpr std::array other_orders{packing::order_key::area, packing::order_key::length, packing::order_key::birth};
  for (std::size_t k = 0; k < other_orders.size() && best.peak > target; ++k) {
    std::array<std::size_t, B> offset{};
    const std::size_t peak =
        packing::first_fit(items, count, conflicts, packing::ordered(items, count, other_orders[k]), offset);
    if (peak < best.peak) {
      best.peak = peak;
      best.offset = offset;
      plan.method = static_cast<arena_method>(k + 1);
    }
  }
  if (best.peak > target) {
    // DORY's stack packs the same buffers (its peak is at least the aligned bound too).
    auto stacked = a;
    const std::size_t peak = bidirectional_stack_place(g, stacked);
    if (peak < best.peak) {
      best.peak = peak;
      for (std::size_t k = 0; k < count; ++k) best.offset[k] = stacked.buffers[buffer_of[k]].offset;
      plan.method = arena_method::dory_stack;
    }
  }
  if (best.peak > target && search_budget > 0) {
    packing::search<NN>(items, count, target, search_budget, best);
    if (best.improved) plan.method = arena_method::search;
    plan.search_work = best.work;
  }
  plan.optimal = best.peak <= target || best.complete;
  plan.arena_bytes = align_up(best.peak, arena_alignment);

  for (std::size_t k = 0; k < count; ++k) a.buffers[buffer_of[k]].offset = best.offset[k];
  for (std::size_t t = 0; t < NT; ++t)
    plan.tensor_offset[t] = a.outside[t] ? arena_plan<NT, NN>::caller_buffer
                                         : static_cast<std::int64_t>(a.buffers[a.root[t]].offset);
  for (std::size_t n = 0; n < NN; ++n)
    plan.scratch_offset[n] = a.buffers[NT + n].used ? static_cast<std::int64_t>(a.buffers[NT + n].offset) : 0;
  return plan;
}

/// The arena plan of a network type.
template <class Net>
inline constexpr auto arena_plan_of = plan_arena(Net::summary);

}  // namespace tessera
