// Fused depthwise/pointwise blocks (planning/fusion.hpp), both orders: which pairs fuse, what
// the selector chooses under each criterion and override (the best set of non-overlapping
// blocks, checked against every set), the fused plan's bytes against the unfused one, the fused
// tile problem solved exactly (against the exhaustive search), and tiled runs of fused plans
// bit-exact with the flat executor over an L1 sweep, 0 hazards in the simulated DMA and in the
// compile-time proof.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <tessera/dma/simulated_policy.hpp>
#include <tessera/schedule/statistics.hpp>
#include <tessera/report/tiled_plan_table.hpp>
#include <tessera/tessera.hpp>

#include "../support/program_surgery.hpp"
#include "../support/tiny_networks.hpp"

namespace {

using net = tiny::separable::network;
using tessera::fusion_policy;

/// `PointwiseFirst` false: depthwise -> pointwise blocks only (the blocks the first tests pin down).
template <std::size_t L1, fusion_policy Policy = fusion_policy::by_latency, bool ForceFirst = false,
          bool PointwiseFirst = true>
inline constexpr tessera::target_desc sweep_target{
    .name = "sweep",
    .levels = {{{"L1", L1, 8, 2, 10}, {"L2", 64 * 1024, 8, 2, 10}}},
    .level_count = 2,
    .cores = 1,
    .compute = tessera::cost_models::pulp_cluster8,
    .fusion = Policy,
    .fusion_overrides = {{{ForceFirst ? tessera::fixed_name("dw1") : tessera::fixed_name(), true}}},
    .fuse_pointwise_first = PointwiseFirst};
template <std::size_t L1, fusion_policy Policy = fusion_policy::by_latency>
inline constexpr tessera::target_desc dw_first_target = sweep_target<L1, Policy, false, false>;
/// `t` without L1 forwarding: every unfused layer's result goes through L2, so that traffic
/// comparisons show what fusion alone saves, and roomy L1s still fuse (with forwarding, one-tile
/// results stay in L1 without blocks and both criteria keep the layers apart:
/// planning/l1_forwarding.hpp, planning/fusion.hpp).
template <tessera::target_desc T>
inline constexpr tessera::target_desc without_forwarding = [] {
  tessera::target_desc t = T;
  t.l1_forwarding = false;
  return t;
}();
/// The latency objective's tiles: whole-width row tiles, where pointwise -> depthwise blocks carry rows.
template <std::size_t L1, fusion_policy Policy = fusion_policy::by_traffic>
inline constexpr tessera::target_desc latency_tiles_target = [] {
  tessera::target_desc t = sweep_target<L1, Policy>;
  t.objective = tessera::tiling_objective::latency;
  return t;
}();

// Nodes: conv 0, dw1 1, pw1 2, dw2 3, cast 4, pw2 5, pool 6, flatten 7, fc 8.
static_assert(!tessera::fusable(net::summary, sweep_target<4096>, 1));  // conv -> dw1: not a pointwise layer
static_assert(tessera::fused_producer(net::summary, sweep_target<4096>, 2) == 1);
static_assert(tessera::fused_producer(net::summary, sweep_target<4096>, 3) == 2);  // pw1 -> dw2: pointwise first
static_assert(!tessera::fusable(net::summary, dw_first_target<4096>, 3));
static_assert(tessera::fused_producer(net::summary, sweep_target<4096>, 5) == 3);  // through the cast
static_assert(!tessera::fusable(net::summary, sweep_target<4096, fusion_policy::off>, 2));

// The fused geometry: the depthwise window over the block's input, the pointwise output.
constexpr tessera::tile_geometry block2 = tessera::fused_geometry(net::summary.nodes[3].geometry, net::summary.nodes[5].geometry);
static_assert(block2.in_c == 12 && block2.out_c == 16 && block2.intermediate_channels == 12);
static_assert(block2.stride_h == 2 && block2.pad_left == 0 && block2.in_h == 14 && block2.out_h == 7);
static_assert(block2.producer_weight_bytes == 12 * 9 && block2.channel_step == 16);
static_assert(tessera::producer_of(block2).macs_per_output == 9 && tessera::consumer_of(block2).in_c == 12);

// Pointwise first: the depthwise window and output over the pointwise layer's input channels;
// the pointwise layer computes the window's rows (a tile of 2 output rows, stride 2, reads 5).
constexpr tessera::tile_geometry block3 =
    tessera::fused_geometry_pointwise_first(net::summary.nodes[2].geometry, net::summary.nodes[3].geometry);
static_assert(block3.pointwise_first() && block3.in_c == 8 && block3.out_c == 12 && block3.intermediate_channels == 12);
static_assert(block3.stride_h == 2 && block3.in_h == 14 && block3.out_h == 7 && block3.channel_step == 1);
static_assert(block3.producer_weight_bytes == 12 * 8 && !block3.channel_lockstep);
static_assert(tessera::intermediate_rows(block3, 2) == 5 && tessera::intermediate_cols(block3, 5) == 11);
// Its output channels split into blocks: a block of 5 computes 5 intermediate channels and loads
// the pointwise filters of those 5 (8 bytes each, from channel c0's) in front of its own.
static_assert(tessera::intermediate_tile(block3, {2, 5, 5}) == tessera::tile_shape{5, 11, 5});
static_assert(tessera::producer_filter_bytes(block3, 5) == 5 * 8 && tessera::producer_filter_offset(block3, 7) == 7 * 8);
static_assert(tessera::consumer_filter_offset(block3, 5) == 48 && tessera::consumer_filter_offset(block2, 5) == 112);
static_assert(tessera::producer_of(block3).macs_per_output == 8 && tessera::producer_of(block3).out_h == 14);
static_assert(tessera::consumer_of(block3).channel_lockstep && tessera::consumer_of(block3).in_c == 12 &&
              tessera::consumer_of(block3).macs_per_output == block3.macs_per_output);
static_assert(tessera::fused_layout_of(block3, {2, 5, 12}, std::size_t{0}, std::size_t{0}).intermediate_bytes ==
              5 * 11 * 12);

// By traffic with depthwise -> pointwise blocks only, both blocks fuse when L1 is roomy: each
// saves its intermediate map's round trip. Without L1 forwarding: with it, the layers of a
// roomy L1 run as one tile each and keep their results in L1 unfused, and no block moves
// fewer bytes (below).
constexpr auto& traffic_choice = tessera::fusion_choice<net::summary, without_forwarding<dw_first_target<8192, fusion_policy::by_traffic>>>;
static_assert(traffic_choice[2] == 1 && traffic_choice[5] == 2 && traffic_choice[1] == 0 && traffic_choice[3] == 0);
constexpr auto& off_choice = tessera::fusion_choice<net::summary, sweep_target<8192, fusion_policy::off>>;
static_assert(off_choice[2] == 0 && off_choice[3] == 0 && off_choice[5] == 0);
// With both orders the candidates overlap (dw1+pw1, pw1+dw2, dw2+pw2): the pointwise map
// (14x11x12) is the largest, and its block alone beats the two others together.
constexpr auto& both_choice = tessera::fusion_choice<net::summary, without_forwarding<sweep_target<8192, fusion_policy::by_traffic>>>;
static_assert(both_choice[3] == 1 && both_choice[2] == 0 && both_choice[5] == 0);
constexpr auto& forwarding_choice = tessera::fusion_choice<net::summary, sweep_target<8192, fusion_policy::by_traffic>>;
static_assert(forwarding_choice[2] == 0 && forwarding_choice[3] == 0 && forwarding_choice[5] == 0);
// `always` fuses the most layers whatever they cost: dw1+pw1 and dw2+pw2 (four layers), not
// pw1+dw2 (two), forwarding or not.
constexpr auto& always_choice = tessera::fusion_choice<net::summary, sweep_target<8192, fusion_policy::always>>;
static_assert(always_choice[2] == 1 && always_choice[5] == 2 && always_choice[3] == 0);
// The sides of a layer the latency model credits with L1 forwarding (target_plan.hpp
// layer_problems_of) in the fused network: the blocks' first layers (dw1, dw2) and the cast run
// no steps, so the block at pw1 has conv before it and the block at pw2 after it, both CPU
// layers that tile: both sides credited, as for a layer; conv reads the network's input and fc
// writes its output: those sides not.
constexpr auto& always_fused = tessera::fused_summary<net::summary, sweep_target<8192, fusion_policy::always>>;
constexpr auto& always_problems = tessera::layer_problems<always_fused, sweep_target<8192, fusion_policy::always>>;
static_assert(always_fused.nodes[1].absorbed && always_fused.nodes[3].absorbed);
static_assert(always_problems[2].problem.latency.forwarded_input && always_problems[2].problem.latency.forwarded_output);
static_assert(!always_problems[0].problem.latency.forwarded_input && always_problems[0].problem.latency.forwarded_output);
static_assert(always_problems[8].problem.latency.forwarded_input && !always_problems[8].problem.latency.forwarded_output);

// The selection is the best set of non-overlapping blocks for the criterion's cost: the
// programme's result against all 2^3 sets of the three candidates. by_traffic_no_slower: the
// fewest bytes among the sets whose cycles are no more than the unfused network's (both on the
// selector's scales, fusion_cost by traffic and by latency).
template <tessera::target_desc T>
constexpr bool selection_is_optimal() {
  using tessera::fusion_cost;
  constexpr auto& summary = net::summary;
  constexpr auto& layers = tessera::layer_problems<summary, T>;
  constexpr auto& layer_tiles = tessera::layer_solutions<summary, T>;
  constexpr auto& blocks = tessera::block_problems<summary, T>;
  constexpr auto& block_tiles = tessera::solved_layers<tessera::block_problems<summary, T>>;
  constexpr auto& choice = tessera::fusion_choice<summary, T>;
  constexpr std::size_t count = summary.nodes.size();
  const auto neighbours = tessera::one_tile_neighbours_of(summary, layers, layer_tiles);
  struct cost {
    std::uint64_t criterion = 0, bytes = 0, cycles = 0;
  };
  const auto cost_of_set = [&](const std::array<int, count>& set) {
    cost total{};
    for (std::size_t n = 0; n < count; ++n) {
      bool covered = false;  // by a block ending after n
      for (std::size_t e = n + 1; e < count; ++e) covered = covered || (set[e] > 0 && e - static_cast<std::size_t>(set[e]) <= n);
      if (covered) continue;
      const bool block = set[n] > 0;
      if (!block && !(layers[n].tiled && layer_tiles[n].feasible)) continue;
      const tessera::tile_problem& p = block ? blocks[n].problem : layers[n].problem;
      const tessera::tile_solution& s = block ? block_tiles[n] : layer_tiles[n];
      const bool before = neighbours.before[n - static_cast<std::size_t>(set[n])], after = neighbours.after[n];
      if (T.fusion != fusion_policy::by_traffic_no_slower) total.criterion += fusion_cost(T.fusion, p, s, before, after);
      total.bytes += fusion_cost(fusion_policy::by_traffic, p, s, before, after);
      total.cycles += fusion_cost(fusion_policy::by_latency, p, s, before, after);
    }
    if (T.fusion == fusion_policy::by_traffic_no_slower) total.criterion = total.bytes;
    return total;
  };
  const std::uint64_t budget = cost_of_set({}).cycles;  // unfused
  constexpr std::array<std::size_t, 3> ends{2, 3, 5};
  std::uint64_t best = ~std::uint64_t{0};
  for (int mask = 0; mask < 8; ++mask) {
    std::array<int, count> set{};
    bool feasible = true;
    for (std::size_t b = 0; b < ends.size(); ++b) {
      if (((mask >> b) & 1) == 0) continue;
      const std::size_t e = ends[b];
      const int first = tessera::fused_producer(summary, T, e);
      feasible = feasible && first >= 0 && block_tiles[e].feasible;
      set[e] = static_cast<int>(e) - first;
    }
    for (std::size_t a = 0; a < ends.size(); ++a)  // overlapping blocks: a later one starts at or before an earlier end
      for (std::size_t b = a + 1; b < ends.size(); ++b)
        if (set[ends[a]] > 0 && set[ends[b]] > 0 && ends[b] - static_cast<std::size_t>(set[ends[b]]) <= ends[a])
          feasible = false;
    if (T.fusion == fusion_policy::by_traffic_no_slower && cost_of_set(set).cycles > budget) feasible = false;
    if (feasible && cost_of_set(set).criterion < best) best = cost_of_set(set).criterion;
  }
  const cost chosen = cost_of_set(choice);
  return chosen.criterion == best && (T.fusion != fusion_policy::by_traffic_no_slower || chosen.cycles <= budget);
}
static_assert(selection_is_optimal<sweep_target<8192, fusion_policy::by_traffic>>());
static_assert(selection_is_optimal<sweep_target<8192, fusion_policy::by_latency>>());
static_assert(selection_is_optimal<sweep_target<2048, fusion_policy::by_traffic>>());
static_assert(selection_is_optimal<sweep_target<2048, fusion_policy::by_latency>>());
static_assert(selection_is_optimal<sweep_target<1536, fusion_policy::by_latency>>());
static_assert(selection_is_optimal<sweep_target<8192, fusion_policy::by_traffic_no_slower>>());
static_assert(selection_is_optimal<sweep_target<2048, fusion_policy::by_traffic_no_slower>>());
static_assert(selection_is_optimal<sweep_target<1536, fusion_policy::by_traffic_no_slower>>());
static_assert(selection_is_optimal<without_forwarding<sweep_target<8192, fusion_policy::by_traffic_no_slower>>>());

// The fused summary: the depthwise nodes absorbed, the pointwise nodes read their input.
constexpr auto& fused = tessera::fused_summary<net::summary, without_forwarding<dw_first_target<8192, fusion_policy::by_traffic>>>;
static_assert(fused.nodes[1].absorbed && fused.nodes[3].absorbed && fused.nodes[4].absorbed && !fused.nodes[2].absorbed);
static_assert(fused.nodes[2].inputs[0] == 1 && fused.nodes[5].inputs[0] == 3);
static_assert(fused.nodes[2].producer_offset == 1 && fused.nodes[5].producer_offset == 2);
static_assert(fused.nodes[1].input_count == 0 && fused.nodes[4].output_count == 0);

// With both orders: pw1 absorbed into the block at dw2, which reads dw1's output.
constexpr auto& fused_both = tessera::fused_summary<net::summary, without_forwarding<sweep_target<8192, fusion_policy::by_traffic>>>;
static_assert(fused_both.nodes[2].absorbed && !fused_both.nodes[1].absorbed && !fused_both.nodes[5].absorbed);
static_assert(fused_both.nodes[3].geometry.pointwise_first() && fused_both.nodes[3].inputs[0] == 2 &&
              fused_both.nodes[3].producer_offset == 1);

// The fused problems (dw2+pw2 at node 5, pw1+dw2 at node 3) are solved exactly for both
// objectives (against every tile).
template <tessera::tiling_objective Objective, std::size_t L1, bool PointwiseFirst = false>
constexpr bool block_solved_exactly() {
  tessera::target_desc t = sweep_target<L1, fusion_policy::by_traffic, false, PointwiseFirst>;
  t.objective = Objective;
  tessera::tile_problem p =
      PointwiseFirst ? tessera::problem_of(fused_both, t, 3, L1) : tessera::problem_of(fused, t, 5, L1);
  const tessera::tile_solution a = tessera::solve_tiles(p), b = tessera::solve_tiles_exhaustive(p);
  if (a.feasible != b.feasible) return false;
  if (!a.feasible) return true;
  return Objective == tessera::tiling_objective::latency ? a.cycles == b.cycles : a.score == b.score;
}
static_assert(block_solved_exactly<tessera::tiling_objective::dory_l1, 1024>());
static_assert(block_solved_exactly<tessera::tiling_objective::dory_l1, 2048>());
static_assert(block_solved_exactly<tessera::tiling_objective::latency, 1024>());
static_assert(block_solved_exactly<tessera::tiling_objective::latency, 3000>());
// The pointwise -> depthwise block's output channels split too, so its exhaustive search walks
// every channel count: in one constant evaluation that exceeds clang's step limit (at 3,000 B,
// latency), so these run at run time.
TEST_CASE("the pointwise -> depthwise block is solved exactly (against every tile), both objectives", "[fusion]") {
  CHECK(block_solved_exactly<tessera::tiling_objective::dory_l1, 1024, true>());
  CHECK(block_solved_exactly<tessera::tiling_objective::dory_l1, 2048, true>());
  CHECK(block_solved_exactly<tessera::tiling_objective::latency, 1024, true>());
  CHECK(block_solved_exactly<tessera::tiling_objective::latency, 3000, true>());
}

// The sweep's ends: the unfused network's smallest L1 (no block fits there whole-channel, so
// the selector keeps them unfused) and L1 at which every layer, and every block, runs whole.
constexpr std::size_t l1_min = tessera::smallest_l1_bytes(net::summary, sweep_target<0>);
constexpr std::size_t l1_max = 8192;

using tiny::separable::random_image;
using tiny::separable::run_flat;

/// `Net` tiled on `Target` through the simulated DMA (with an L3 buffer where the plan spills to
/// L3), its output in `Output`; `Cores` > 1: on a
/// team whose cores share each tile's rows (serial_team), which splits fused tiles too when
/// their kernels need no scratch.
template <class Net, tessera::target_desc Target, class Output, int Cores = 1>
struct simulated_run {
  using run = tessera::tiled_executor<Net, tessera::target<Target>>;
  Output out{};
  std::uint64_t hazards = 0, l2_to_l1 = 0, l1_to_l2 = 0, cycles = 0;
  int blocks = 0;

  template <class Input>
  explicit simulated_run(const Input& in) {
    alignas(16) static std::byte l3[run::l3_bytes + 16];
    alignas(16) static std::byte l2[run::l2_bytes];
    alignas(16) static std::byte l1[run::l1_bytes];
    tessera::dma::simulated_policy<> dma(Target);
    tessera::serial_team<Cores> team;
    if constexpr (run::l3_bytes > 0) run::run(team, l3, l2, l1, {in.data()}, {out.data()}, dma);
    else run::run(team, l2, l1, {in.data()}, {out.data()}, dma);
    dma.finish();
    hazards = dma.hazard_count();
    l2_to_l1 = dma.stats().levels[1].bytes_in;
    l1_to_l2 = dma.stats().levels[1].bytes_out;
    cycles = dma.stats().total_cycles;
    for (const auto& node : run::summary.nodes) blocks += node.geometry.fused() ? 1 : 0;
  }
};

/// The separable network's tiled run (its logits in `out`). A struct, not an alias template:
/// GCC 12 crashes substituting a target_desc into the alias.
template <tessera::target_desc Target, int Cores = 1>
struct tiled_run : simulated_run<net, Target, std::array<std::int32_t, 5>, Cores> {
  using simulated_run<net, Target, std::array<std::int32_t, 5>, Cores>::simulated_run;
};

}  // namespace

TEMPLATE_TEST_CASE_SIG("fused blocks run bit-exact and hazard-free over an L1 sweep, every policy", "[fusion]",
                       ((std::size_t L1), L1), l1_min, l1_min + 256, 1280, 1536, 2048, 3072, 4096, l1_max) {
  for (std::uint32_t seed : {1u, 2u, 3u}) {
    const auto image = random_image(seed);
    const auto flat = run_flat(image);
    const tiled_run<sweep_target<L1, fusion_policy::by_latency>> latency(image);
    const tiled_run<sweep_target<L1, fusion_policy::by_traffic>> traffic(image);
    const tiled_run<dw_first_target<L1, fusion_policy::by_traffic>> dw_first(image);
    const tiled_run<sweep_target<L1, fusion_policy::off>> unfused(image);
    const tiled_run<latency_tiles_target<L1>> latency_tiles(image);
    const tiled_run<sweep_target<L1, fusion_policy::by_traffic_no_slower>> no_slower(image);
    CHECK(no_slower.out == flat);
    CHECK(no_slower.hazards == 0);
    CHECK(no_slower.cycles <= unfused.cycles);
    CHECK(latency_tiles.out == flat);
    CHECK(latency_tiles.hazards == 0);
    CHECK(latency.out == flat);
    CHECK(traffic.out == flat);
    CHECK(dw_first.out == flat);
    CHECK(unfused.out == flat);
    CHECK(latency.hazards + traffic.hazards + dw_first.hazards + unfused.hazards == 0);
    CHECK(unfused.blocks == 0);
    // Each criterion is never worse than unfused on what it minimises, as the simulator
    // measures it (the models agree on activations; the simulator adds per-transfer costs).
    CHECK(traffic.l2_to_l1 + traffic.l1_to_l2 <= unfused.l2_to_l1 + unfused.l1_to_l2);
    CHECK(dw_first.l2_to_l1 + dw_first.l1_to_l2 <= unfused.l2_to_l1 + unfused.l1_to_l2);
    // The latency criterion is never slower than unfused, as the simulator measures it.
    CHECK(latency.cycles <= unfused.cycles);
  }
}

TEST_CASE("by_traffic_no_slower: the fewest bytes within the unfused time, against every block set", "[fusion]") {
  // Random chains of 12 layers, alternately depthwise and pointwise: a candidate block ends at
  // every layer but the first, each overlapping its neighbours (fibonacci(13) = 233 block sets).
  // Blocks save bytes (0.4x to 1.2x of their two layers') and cost time (0.8x to 1.3x): the
  // selection (fewest_bytes_no_slower: the exact search over Pareto fronts) must be the set of
  // fewest bytes within the unfused cycles; the Lagrangian relaxation alone (the exact search's
  // incumbent) reaches the best set on the (cycles, bytes) hull within them, and misses a set
  // inside the hull that spends the slack better (counted below).
  constexpr std::size_t nodes = 12;
  using candidates = tessera::fusion_detail::fusion_candidates<nodes>;
  using tessera::fusion_detail::priced;
  std::uint64_t state = 12345;
  const auto next = [&](std::uint64_t low, std::uint64_t high) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return low + (state >> 33) % (high - low + 1);
  };
  int relaxed_exact = 0, instances = 300;
  double relaxed_gap = 0;
  for (int instance = 0; instance < instances; ++instance) {
    candidates c{};
    for (std::size_t n = 0; n < nodes; ++n) {
      c.alone[n] = {next(1000, 50000), next(10000, 1000000)};
      c.first[n] = n == 0 ? -1 : static_cast<int>(n) - 1;
    }
    for (std::size_t n = 1; n < nodes; ++n) {
      const priced pair = c.alone[n - 1] + c.alone[n];
      c.block[n] = {pair.bytes * next(40, 120) / 100, pair.cycles * next(80, 130) / 100};
    }
    // Every set of non-overlapping blocks (bit n: the block ending at n).
    std::vector<priced> sets;
    for (std::uint32_t mask = 0; mask < (1u << nodes); mask += 2) {
      if ((mask & (mask >> 1)) != 0) continue;
      priced total{};
      for (std::size_t n = 0; n < nodes; ++n) {
        const bool ends = (mask >> n) & 1, covered = n + 1 < nodes && ((mask >> (n + 1)) & 1);
        if (ends) total = total + c.block[n];
        else if (!covered) total = total + c.alone[n];
      }
      sets.push_back(total);
    }
    REQUIRE(sets.size() == 233);
    const std::uint64_t budget = sets[0].cycles;  // mask 0: unfused
    std::uint64_t best = ~std::uint64_t{0}, best_on_hull = ~std::uint64_t{0};
    for (const priced& a : sets) {
      if (a.cycles > budget) continue;
      best = std::min(best, a.bytes);
      // On the lower hull: the least bytes + lambda x cycles for some lambda > 0, i.e. no pair
      // of sets whose segment passes strictly below it (checked against every pair).
      bool on_hull = true;
      for (const priced& l : sets)
        for (const priced& r : sets) {
          if (!(l.cycles < a.cycles && a.cycles < r.cycles)) continue;
          const double t = double(a.cycles - l.cycles) / double(r.cycles - l.cycles);
          if (double(l.bytes) + t * (double(r.bytes) - double(l.bytes)) < double(a.bytes) - 1e-6) on_hull = false;
        }
      if (on_hull) best_on_hull = std::min(best_on_hull, a.bytes);
    }
    const auto chosen = tessera::fusion_detail::fewest_bytes_no_slower(c);
    const auto relaxed = tessera::fusion_detail::relaxed_fewest_bytes(c, budget);
    INFO("instance " << instance);
    CHECK(tessera::fusion_detail::unfused_cycles(c) == budget);
    CHECK(chosen.total.cycles <= budget);
    CHECK(chosen.total.bytes == best);
    CHECK(relaxed.total.cycles <= budget);
    CHECK(relaxed.total.bytes <= best_on_hull);
    relaxed_exact += relaxed.total.bytes == best;
    relaxed_gap = std::max(relaxed_gap, double(relaxed.total.bytes - best) / double(best));
  }
  // Measured: the relaxation alone is exact on 220 of the 300 chains, at worst 20.4% above.
  WARN("the relaxation alone: exact on " << relaxed_exact << " of " << instances << " chains, at worst "
                                          << 100 * relaxed_gap << "% more bytes");
}

TEMPLATE_TEST_CASE_SIG("every block fused (`always`) runs bit-exact and hazard-free over the L1 sweep", "[fusion]",
                       ((std::size_t L1), L1), l1_min, 1280, 2048, l1_max) {
  const auto image = random_image(11);
  const tiled_run<sweep_target<L1, fusion_policy::always>> always(image);
  const tiled_run<dw_first_target<L1, fusion_policy::always>> dw_first(image);
  CHECK(always.out == run_flat(image));
  CHECK(dw_first.out == run_flat(image));
  CHECK(always.hazards + dw_first.hazards == 0);
  if (L1 == l1_max) CHECK((always.blocks == 2 && dw_first.blocks == 2));
}

TEST_CASE("the latency criterion counts L1 forwarding only between one-tile layers", "[fusion]") {
  // At 4 kB the layers around dw1/pw1 run as one tile each: forwarding keeps the intermediate
  // in L1 without a block, and the block would be slower (a selector that ignored forwarding
  // fused it: 17,192 cycles against 17,000). At 3 kB a one-tile layer meets a tiled one: the
  // round trip forwarding cannot remove is the block's to save (a selector that credited
  // forwarding on both sides always kept it unfused: 19,835 against 19,527).
  const auto image = random_image(1);
  const tiled_run<sweep_target<4096, fusion_policy::by_latency>> roomy(image);
  const tiled_run<sweep_target<4096, fusion_policy::off>> roomy_unfused(image);
  CHECK(roomy.blocks == 0);
  CHECK(roomy.cycles == roomy_unfused.cycles);
  const tiled_run<sweep_target<3072, fusion_policy::by_latency>> tight(image);
  const tiled_run<sweep_target<3072, fusion_policy::off>> tight_unfused(image);
  CHECK(tight.blocks == 1);
  CHECK(tight.cycles < tight_unfused.cycles);
  CHECK(tight.out == run_flat(image));
}

TEMPLATE_TEST_CASE_SIG("fused tiles shared by rows over a team's cores are bit-exact", "[fusion]",
                       ((std::size_t L1), L1), l1_min + 256, 1280, 2048, l1_max) {
  for (std::uint32_t seed : {4u, 5u}) {
    const auto image = random_image(seed);
    const tiled_run<sweep_target<L1, fusion_policy::by_traffic>, 3> three(image);
    const tiled_run<sweep_target<L1, fusion_policy::by_traffic>, 8> eight(image);
    const tiled_run<dw_first_target<L1, fusion_policy::by_traffic>, 3> dw_first(image);
    CHECK(three.out == run_flat(image));
    CHECK(eight.out == run_flat(image));
    CHECK(dw_first.out == run_flat(image));
    CHECK(three.hazards + eight.hazards + dw_first.hazards == 0);
  }
}

// Three levels: the block's depthwise filters are staged L3 -> L2 in front of its filter chunk
// (stage_producer_filters), then move into L1 beside them. At the unfused network's smallest
// L2 the fused plan does not fit (a block stages its filters whole) and the network runs
// unfused; in between, activations spill to L3 around fused blocks.
template <std::size_t L1, std::size_t L2>
inline constexpr tessera::target_desc three_levels{
    .name = "three-levels",
    .levels = {{{"L1", L1, 8, 2, 10}, {"L2", L2, 8, 2, 10}, {"L3", 1 << 20, 1, 50, 50}}},
    .level_count = 3,
    .cores = 1,
    .compute = tessera::cost_models::pulp_cluster8,
    .fusion = fusion_policy::by_traffic,
    .l1_forwarding = false};  // else the one-tile layers of a roomy L1 forward and need no block
constexpr std::size_t l2_min = tessera::smallest_l2_bytes(net::summary, three_levels<l1_max, 0>);

template <std::size_t L1, std::size_t L2>
struct three_level_run : simulated_run<net, three_levels<L1, L2>, std::array<std::int32_t, 5>> {
  using simulated_run<net, three_levels<L1, L2>, std::array<std::int32_t, 5>>::simulated_run;
};

TEMPLATE_TEST_CASE_SIG("fused blocks on three levels: filters staged through L2, activations spilled", "[fusion]",
                       ((std::size_t L1, std::size_t L2), L1, L2), (l1_max, 16384), (2048, 16384), (l1_max, 6144),
                       (l1_max, l2_min + 512), (l1_max, l2_min), (l1_min + 256, l2_min)) {
  const auto image = random_image(21);
  const three_level_run<L1, L2> run(image);
  CHECK(run.out == run_flat(image));
  CHECK(run.hazards == 0);
  if (L1 == l1_max && L2 == 16384) CHECK(run.blocks == 1);  // pw1+dw2 (both_choice)
}

// The hazard proof covers the new steps: a fused tile that reads its first layer's filters
// before their transfer was waited for (the tile moved before the wait), or a block whose first
// layer's filters never arrive, is rejected (block dw1+pw1 at node 2, block pw1+dw2 at node 3).
// (The tile moved, not the wait erased or delayed: a wait missing where it was leaves its queue
// entry in flight, and the next transfer to take the entry, the next layer's filters loading
// during the block, would be flagged first.)
namespace hazards {
namespace s = tessera::schedule;
template <tessera::target_desc Target, int Layer>
constexpr bool producer_hazards_caught() {
  using run = tessera::tiled_executor<net, tessera::target<Target>>;
  constexpr int wait = surgery::find(run::program, surgery::is(s::step_kind::wait, s::transfer_role::producer_filters, Layer));
  constexpr int issue = surgery::find(run::program, surgery::is(s::step_kind::issue, s::transfer_role::producer_filters, Layer));
  constexpr int compute = surgery::find(run::program, surgery::is_compute(Layer, 0));
  static_assert(compute > wait && wait > issue && issue >= 0);
  constexpr auto compute_first = surgery::move(run::program, compute, wait);
  constexpr auto no_load = surgery::erase(surgery::erase(run::program, wait), issue);
  return s::check(run::summary, run::plan, compute_first).kind == s::hazard::read_before_wait &&
         s::check(run::summary, run::plan, no_load).kind == s::hazard::stale_read &&
         s::check(run::summary, run::plan, run::program).ok();
}
static_assert(producer_hazards_caught<without_forwarding<dw_first_target<l1_max, fusion_policy::by_traffic>>, 2>());
static_assert(producer_hazards_caught<without_forwarding<sweep_target<l1_max, fusion_policy::by_traffic>>, 3>());
}  // namespace hazards

/// A team that records how many cores each layer's tiles were forked on.
struct recording_team {
  std::array<int, 9> widest{};
  int cores() const { return 4; }
  template <class F>
  void fork(int layer, int cores, F& f) {
    if (cores > widest[static_cast<std::size_t>(layer)]) widest[static_cast<std::size_t>(layer)] = cores;
    for (int k = 0; k < cores; ++k) f(k);
  }
};

template <tessera::target_desc Target, std::size_t Block>
void check_shared_by_rows() {
  using run = tessera::tiled_executor<net, tessera::target<Target>>;
  static_assert(run::summary.nodes[Block].geometry.fused());
  alignas(16) static std::byte l2[run::l2_bytes];
  alignas(16) static std::byte l1[run::l1_bytes];
  const auto image = random_image(11);
  std::array<std::int32_t, 5> logits{};
  tessera::dma::simulated_policy<> dma(Target);
  recording_team team;
  run::run(team, l2, l1, {image.data()}, {logits.data()}, dma);
  CHECK(logits == run_flat(image));
  const bool scratch_free = run::plan.layers[Block].solution.cost.scratch_bytes ==
                            tessera::fused_layout_of(run::summary.nodes[Block].geometry,
                                                     run::plan.layers[Block].solution.tile, std::size_t{0}, std::size_t{0})
                                .kernel_scratch;
  CHECK(team.widest[Block] == (scratch_free ? 4 : 1));
  CHECK(team.widest[Block - 1] == 0);  // the absorbed first node never runs on its own
}

// Carried rows (tile_geometry.hpp carries_rows): at 1,280 bytes the pointwise -> depthwise block
// pw1 -> dw2 (3x3, stride 2, 14 -> 7 rows) tiles by whole-width rows, one output row a tile, so
// each tile's window (3 rows) shares its first row with the tile above: it computes 2 new rows in
// the pointwise kernel instead of 3 (the first tile 2 as well: its window starts in the padding).
using carrying = tessera::tiled_executor<net, tessera::target<sweep_target<1280, fusion_policy::by_traffic>>>;
constexpr const tessera::tile_geometry& carrying_block = carrying::summary.nodes[3].geometry;
constexpr tessera::tile_shape carrying_tile = carrying::plan.layers[3].solution.tile;
static_assert(carrying_block.pointwise_first() && carrying_tile.h == 1 && carrying_tile.w == carrying_block.out_w);
static_assert(tessera::carries_rows(carrying_block, carrying_tile.w) &&
              !tessera::carries_rows(carrying_block, carrying_tile.w - 1));
static_assert(tessera::carried_rows(carrying_block, 0, 1) == 0 && tessera::carried_rows(carrying_block, 3, 1) == 1);
static_assert(tessera::producer_rows(carrying_block, 0, 1, 1, true) == 2 && tessera::producer_rows(carrying_block, 6, 1, 1, true) == 2);
static_assert(tessera::carried_rows_source(carrying_block, 3, 1) == 2);
static_assert(tessera::producer_rows(carrying_block, 3, 1, 1, true) == 2 &&
              tessera::producer_rows(carrying_block, 3, 1, 1, false) == 3);

TEST_CASE("a pointwise -> depthwise block carries rows from the tile above, bit-exact", "[fusion]") {
  for (std::uint32_t seed : {6u, 7u}) {
    const auto image = random_image(seed);
    const tiled_run<sweep_target<1280, fusion_policy::by_traffic>> one(image);
    const tiled_run<sweep_target<1280, fusion_policy::by_traffic>, 3> three(image);
    CHECK(one.out == run_flat(image));
    CHECK(three.out == run_flat(image));
    CHECK(one.hazards + three.hazards == 0);
  }
}

// Stride 1 (3x3, padding 1): a tile's window shares kernel - stride = 2 rows with the tile above,
// and the last tile of one row computes no new row at all (its window ends in the padding).
namespace stride_one {
using tiny::features::pseudo_random;
using tiny::features::requant;
inline constexpr auto pw_weights = pseudo_random<std::int8_t, 10 * 4>(31, -128, 127);
inline constexpr auto pw_requant = requant<10>(32, 8, -128, 127);
inline constexpr auto dw_weights = pseudo_random<std::int8_t, 10 * 3 * 3>(33, -128, 127);
inline constexpr auto dw_bias = pseudo_random<std::int32_t, 10>(34, -2000, 2000);
inline constexpr auto dw_requant = requant<10>(35, 9, -128, 127);
inline constexpr tessera::tensor_table<3> tensors{{{
    {"image", tessera::dtype::u8, {1, 9, 7, 4}},
    {"pw", tessera::dtype::s8, {1, 9, 7, 10}},
    {"dw", tessera::dtype::s8, {1, 9, 7, 10}},
}}};
using network = tessera::network<
    tensors, tessera::graph_inputs<0>, tessera::graph_outputs<2>,
    tessera::op::conv<"pw", {.input = 0, .output = 1}, pw_weights, tessera::none, pw_requant>,
    tessera::op::conv<"dw",
                      {.input = 1, .output = 2, .kernel_h = 3, .kernel_w = 3, .pad_top = 1, .pad_left = 1,
                       .pad_bottom = 1, .pad_right = 1, .groups = 10},
                      dw_weights, dw_bias, dw_requant>>;
using image = std::array<std::uint8_t, 9 * 7 * 4>;
using output = std::array<std::int8_t, 9 * 7 * 10>;

output run_flat(const image& in) {
  alignas(16) static std::byte arena[tessera::executor<network>::arena_bytes];
  output out{};
  tessera::executor<network>::run(arena, {in.data()}, {out.data()});
  return out;
}

/// The latency objective's tiles at L1 = `L1` (whole-width rows where they fit).
template <std::size_t L1>
inline constexpr tessera::target_desc carrying_target = [] {
  tessera::target_desc t = sweep_target<L1, fusion_policy::by_traffic>;
  t.objective = tessera::tiling_objective::latency;
  return t;
}();
template <std::size_t L1, int Cores = 1>
struct carrying_run : simulated_run<network, carrying_target<L1>, output, Cores> {
  using simulated_run<network, carrying_target<L1>, output, Cores>::simulated_run;
  using run = tessera::tiled_executor<network, tessera::target<carrying_target<L1>>>;
  static constexpr const tessera::tile_geometry& block = run::summary.nodes[1].geometry;
  static constexpr tessera::tile_shape tile = run::plan.layers[1].solution.tile;
};
// The sweep below: at 640 B narrower tiles (overlaps recomputed), at 768, 1,024 and 1,536 B
// whole-width tiles of 1, 2 and 4 rows that carry (each plan's last tile one row), at 2,048 B
// one tile.
static_assert(carrying_run<1024>::block.pointwise_first() && carrying_run<1024>::tile.w == 7);
static_assert(tessera::carries_rows(carrying_run<1024>::block, 7));
static_assert(tessera::carried_rows(carrying_run<1024>::block, 1, 1) == 2);
static_assert(tessera::producer_rows(carrying_run<1024>::block, 8, 1, 1, true) == 0);  // all carried
static_assert(tessera::producer_rows(carrying_run<1024>::block, 4, 1, 1, true) == 1);
static_assert(tessera::producer_rows(carrying_run<1024>::block, 4, 2, 2, true) == 2 &&
              tessera::carried_rows(carrying_run<1024>::block, 4, 2) == 2);
// A carrying tile loads its window less the carried rows (schedule::input_box): the block's
// tiles load each input row once, 9 x 7 x 4 bytes in all (recomputing, as the 640 B plan's
// narrower tiles do, or loading whole windows, the 1-row tiles loaded 2 + 7 x 3 + 2 = 25 rows),
// and the last 1-row tile, all of whose rows are carried, loads none.
template <std::size_t L1>
constexpr std::uint64_t input_bytes =
    tessera::schedule::totals(carrying_run<L1>::run::summary, carrying_run<L1>::run::plan, carrying_run<L1>::run::program)
        .bytes_by_role[static_cast<std::size_t>(tessera::schedule::transfer_role::input)];
static_assert(input_bytes<768> == 9 * 7 * 4 && input_bytes<1024> == 9 * 7 * 4 && input_bytes<1536> == 9 * 7 * 4);
static_assert(input_bytes<640> > 9 * 7 * 4);
static_assert(carrying_run<768>::tile.h == 1 && carrying_run<1024>::tile.h == 2);
template <std::size_t L1>
constexpr tessera::map_box loaded_box(std::int64_t tile) {
  return tessera::schedule::input_box(
      carrying_run<L1>::block, tessera::schedule::loading_position(carrying_run<L1>::block, carrying_run<L1>::tile, tile));
}
static_assert(loaded_box<768>(8).rows == 0 && loaded_box<768>(3).row == 4 && loaded_box<768>(0).rows == 2);
// A plain position (the walk's, every other use) is the tile's window: rows 2 .. 4 for tile 3.
static_assert(tessera::schedule::input_box(carrying_run<768>::block,
                                           tessera::schedule::position(carrying_run<768>::block, carrying_run<768>::tile, 3))
                  .row == 2);
// The model subtracts the same rows (layer_traffic, carried_input_bytes).
static_assert(tessera::carried_rows_over(carrying_run<1024>::block, 1) == 8 * 2 &&
              tessera::carried_rows_over(carrying_run<1024>::block, 2) == 4 * 2);
}  // namespace stride_one

TEMPLATE_TEST_CASE_SIG("a stride-1 pointwise -> depthwise block carries two rows a tile, bit-exact", "[fusion]",
                       ((std::size_t L1), L1), 640, 768, 1024, 1536, 2048) {
  using stride_one::carrying_run;
  INFO("tile " << carrying_run<L1>::tile.h << " x " << carrying_run<L1>::tile.w);
  for (std::uint32_t seed : {8u, 9u}) {
    const auto image = tiny::random_bytes<9 * 7 * 4>(seed);
    const auto flat = stride_one::run_flat(image);
    const carrying_run<L1> one(image);
    const carrying_run<L1, 3> three(image);
    CHECK(one.out == flat);
    CHECK(three.out == flat);
    CHECK(one.hazards + three.hazards == 0);
  }
}

TEST_CASE("a fused block's tiles are shared by rows when its kernels need no scratch", "[fusion]") {
  check_shared_by_rows<without_forwarding<dw_first_target<l1_max, fusion_policy::by_traffic>>, 2>();
  check_shared_by_rows<without_forwarding<sweep_target<l1_max, fusion_policy::by_traffic>>, 3>();  // both kernels' rows shared
}

TEST_CASE("by traffic, a roomy L1 fuses both blocks and moves less", "[fusion]") {
  const auto image = random_image(7);
  const tiled_run<without_forwarding<dw_first_target<l1_max, fusion_policy::by_traffic>>> traffic(image);
  const tiled_run<without_forwarding<sweep_target<l1_max, fusion_policy::off>>> unfused(image);
  CHECK(traffic.blocks == 2);
  CHECK(traffic.out == run_flat(image));
  // The two intermediate maps (14x11x8 and 7x5x12 bytes) are neither stored nor loaded.
  CHECK(unfused.l1_to_l2 - traffic.l1_to_l2 == 14 * 11 * 8 + 7 * 5 * 12);
  CHECK(traffic.l2_to_l1 < unfused.l2_to_l1);
}

TEST_CASE("with both orders, the pointwise map stays in L1 and less moves than with two depthwise-first blocks",
          "[fusion]") {
  const auto image = random_image(8);
  const tiled_run<without_forwarding<sweep_target<l1_max, fusion_policy::by_traffic>>> both(image);
  const tiled_run<without_forwarding<dw_first_target<l1_max, fusion_policy::by_traffic>>> dw_first(image);
  const tiled_run<without_forwarding<sweep_target<l1_max, fusion_policy::off>>> unfused(image);
  CHECK(both.blocks == 1);
  CHECK(both.out == run_flat(image));
  CHECK(both.hazards == 0);
  // pw1's output (14x11x12) is neither stored nor loaded; the block loads dw1's output instead.
  CHECK(unfused.l1_to_l2 - both.l1_to_l2 == 14 * 11 * 12);
  CHECK(both.l2_to_l1 + both.l1_to_l2 < dw_first.l2_to_l1 + dw_first.l1_to_l2);
}

TEST_CASE("a forced block fuses whatever the criterion says", "[fusion]") {
  // `off` never fuses, overrides included; under a criterion a forced block fuses even where
  // the criterion keeps it unfused.
  static_assert(tessera::fusion_choice<net::summary, sweep_target<l1_max, fusion_policy::off, true>>[2] == 0);
  constexpr auto forced = sweep_target<l1_max, fusion_policy::by_latency, true>;
  static_assert(tessera::fusion_choice<net::summary, forced>[2] == 1);
  const auto image = random_image(9);
  const tiled_run<forced> run(image);
  CHECK(run.out == run_flat(image));
  CHECK(run.hazards == 0);
}

// A depthwise node forced unfused leaves every block it belongs to: dw2 ends pw1+dw2 (which
// the criterion picks, both_choice) and begins dw2+pw2; the selector then takes dw1+pw1.
inline constexpr tessera::target_desc dw2_unfused = [] {
  tessera::target_desc t = without_forwarding<sweep_target<l1_max, fusion_policy::by_traffic>>;
  t.fusion_overrides = {{{tessera::fixed_name("dw2"), false}}};
  return t;
}();
static_assert(tessera::fusion_choice<net::summary, dw2_unfused>[3] == 0 &&
              tessera::fusion_choice<net::summary, dw2_unfused>[5] == 0 &&
              tessera::fusion_choice<net::summary, dw2_unfused>[2] == 1);

template <tessera::target_desc Target>
std::string plan_table_of() {
  using run = tessera::tiled_executor<net, tessera::target<Target>>;
  alignas(16) static std::byte l2[run::l2_bytes];
  alignas(16) static std::byte l1[run::l1_bytes];
  const auto image = random_image(3);
  std::array<std::int32_t, 5> logits{};
  const auto sim = tessera::report::simulate<run>(l2, l1, {image.data()}, {logits.data()});
  CHECK(sim.hazards == 0);
  return tessera::report::tiled_plan_table<net, run>(sim);
}

TEST_CASE("the plan table shows a fused block as one row", "[fusion]") {
  const std::string dw_first = plan_table_of<without_forwarding<dw_first_target<l1_max, fusion_policy::by_traffic>>>();
  CHECK(dw_first.find("dw+pw block") != std::string::npos);
  CHECK(dw_first.find("fused next") != std::string::npos);
  const std::string both = plan_table_of<without_forwarding<sweep_target<l1_max, fusion_policy::by_traffic>>>();
  CHECK(both.find("pw+dw block") != std::string::npos);
  CHECK(both.find("fused next") != std::string::npos);
}

// Pointwise -> depthwise blocks over channel blocks (planning/fusion.hpp): the expansion
// network's block expand (4 -> 22) -> dw has a narrow input and a wide intermediate, so a tile
// over the whole 12 x 10 map and a few channels (the third seed's channel-wise variant: the
// intermediate a channel slice of the whole map, nothing recomputed) or whole-width rows and a
// few channels needs far less L1 than whole channels. 22 channels leave a leftover block.
namespace channel_blocks {
using expansion = tiny::expansion::network;
using tessera::tiling_objective;
template <std::size_t L1, fusion_policy Policy, tiling_objective Objective, std::size_t L2 = 0>
inline constexpr tessera::target_desc target = [] {
  tessera::target_desc t = without_forwarding<sweep_target<L1, Policy>>;
  t.objective = Objective;
  if (L2 > 0) {  // three levels, L3 on a DMA engine of its own: filters stream from L3 block by block
    t.levels[1].bytes = L2;
    t.levels[2] = {"L3", 1 << 20, 1, 50, 50};
    t.levels[2].dma_engine = 1;
    t.level_count = 3;
  }
  return t;
}();
template <tessera::target_desc T, int Cores = 1>
struct expansion_run : simulated_run<expansion, T, tiny::expansion::logits, Cores> {
  using simulated_run<expansion, T, tiny::expansion::logits, Cores>::simulated_run;
};
constexpr std::size_t block = 1;  // expand + dw, at the depthwise node

// The latency objective's tiles at 2,560 bytes: the whole map, 4 of the 22 channels (6 blocks,
// the last of 2); at 1,536: whole-width rows (4 of 12) and 6 channels, rows carried within a
// channel block. DORY's objective at 4,096 by latency: the channel-block tile it found beats
// its best tile over whole channels (solve_tiles' two variants). (Aliases of the executor: a
// template alias over the target crashes GCC 12.)
using whole_map =
    tessera::tiled_executor<expansion, tessera::target<target<2560, fusion_policy::by_traffic, tiling_objective::latency>>>;
using rows_and_channels =
    tessera::tiled_executor<expansion, tessera::target<target<1536, fusion_policy::by_traffic, tiling_objective::latency>>>;
using dory_channels =
    tessera::tiled_executor<expansion, tessera::target<target<4096, fusion_policy::by_latency, tiling_objective::dory_l1>>>;
static_assert(whole_map::summary.nodes[block].geometry.pointwise_first());
static_assert(whole_map::plan.layers[block].solution.tile == tessera::tile_shape{12, 10, 4});
static_assert(rows_and_channels::plan.layers[block].solution.tile == tessera::tile_shape{4, 10, 6});
static_assert(tessera::carries_rows(rows_and_channels::summary.nodes[block].geometry, 10));
static_assert(dory_channels::summary.nodes[block].geometry.pointwise_first() &&
              dory_channels::plan.layers[block].solution.tile.c < 22);
// At 5,120 bytes DORY's objective by latency takes the third variant, whole-width rows of every
// channel, carried (solve_tiles): 5 of the 12 rows a tile.
using dory_carrying =
    tessera::tiled_executor<expansion, tessera::target<target<5120, fusion_policy::by_latency, tiling_objective::dory_l1>>>;
static_assert(dory_carrying::plan.layers[block].solution.tile == tessera::tile_shape{5, 10, 22});
static_assert(tessera::carries_rows(dory_carrying::summary.nodes[block].geometry, 10));
// Each block's filter slot: the 4 channels' pointwise filters (4 x 4 bytes, aligned to 16), then
// their depthwise filters.
static_assert(tessera::consumer_filter_offset(whole_map::summary.nodes[block].geometry, 4) == 16);

TEMPLATE_TEST_CASE_SIG("pointwise -> depthwise blocks over channel blocks run bit-exact and hazard-free", "[fusion]",
                       ((std::size_t L1, fusion_policy Policy, tiling_objective Objective, std::size_t L2), L1, Policy,
                        Objective, L2),
                       (1536, fusion_policy::by_traffic, tiling_objective::latency, 0),
                       (2560, fusion_policy::by_traffic, tiling_objective::latency, 0),
                       (4096, fusion_policy::by_latency, tiling_objective::dory_l1, 0),
                       (5120, fusion_policy::by_traffic, tiling_objective::latency, 0),
                       (2560, fusion_policy::by_traffic, tiling_objective::latency, 16384),
                       (4096, fusion_policy::by_latency, tiling_objective::dory_l1, 16384)) {
  using run = tessera::tiled_executor<expansion, tessera::target<target<L1, Policy, Objective, L2>>>;
  static_assert(run::summary.nodes[block].geometry.pointwise_first());
  static_assert(run::plan.layers[block].solution.tile.c < 22);
  if constexpr (L2 > 0)  // the pointwise filters staged chunk by chunk in front of the depthwise ones
    static_assert(run::plan.layers[block].stage_chunks > 1);
  for (std::uint32_t seed : {1u, 2u}) {
    const auto image = tiny::expansion::random_image(seed);
    const expansion_run<target<L1, Policy, Objective, L2>> fused(image);
    const expansion_run<target<L1, fusion_policy::off, Objective, L2>> unfused(image);
    const expansion_run<target<L1, Policy, Objective, L2>, 3> three_cores(image);  // rows shared per tile
    CHECK(fused.out == tiny::expansion::run_flat(image));
    CHECK(unfused.out == fused.out);
    CHECK(three_cores.out == fused.out);
    CHECK(fused.hazards + unfused.hazards + three_cores.hazards == 0);
    CHECK(fused.blocks == 1);
    if (Policy == fusion_policy::by_traffic) CHECK(fused.l2_to_l1 + fused.l1_to_l2 < unfused.l2_to_l1 + unfused.l1_to_l2);
    if (Policy == fusion_policy::by_latency) CHECK(fused.cycles < unfused.cycles);
  }
}
}  // namespace channel_blocks
