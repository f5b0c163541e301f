// Fused depthwise -> pointwise blocks (planning/fusion.hpp): which pairs fuse, what the
// selector chooses under each criterion and override, the fused plan's bytes against the
// unfused one, the fused tile problem solved exactly (against the exhaustive search), and
// tiled runs of fused plans bit-exact with the flat executor over an L1 sweep, 0 hazards in
// the simulated DMA and in the compile-time proof.
#include <array>
#include <cstddef>
#include <cstdint>

#include <catch2/catch.hpp>

#include <tessera/dma/simulated_policy.hpp>
#include <tessera/report/tiled_plan_table.hpp>
#include <tessera/tessera.hpp>

#include "../support/program_surgery.hpp"
#include "../support/tiny_networks.hpp"

namespace {

using net = tiny::separable::network;
using tessera::fusion_policy;

template <std::size_t L1, fusion_policy Policy = fusion_policy::by_latency, bool ForceFirst = false>
inline constexpr tessera::target_desc sweep_target{
    .name = "sweep",
    .levels = {{{"L1", L1, 8, 2, 10}, {"L2", 64 * 1024, 8, 2, 10}}},
    .level_count = 2,
    .cores = 1,
    .compute = tessera::cost_models::pulp_cluster8,
    .fusion = Policy,
    .fusion_overrides = {{{ForceFirst ? tessera::fixed_name("dw1") : tessera::fixed_name(), true}}}};

// Nodes: conv 0, dw1 1, pw1 2, dw2 3, cast 4, pw2 5, pool 6, flatten 7, fc 8.
static_assert(!tessera::fusable(net::summary, sweep_target<4096>, 1));  // conv -> dw1: not a pointwise reader
static_assert(tessera::fused_producer(net::summary, sweep_target<4096>, 2) == 1);
static_assert(!tessera::fusable(net::summary, sweep_target<4096>, 3));
static_assert(tessera::fused_producer(net::summary, sweep_target<4096>, 5) == 3);  // through the cast
static_assert(!tessera::fusable(net::summary, sweep_target<4096, fusion_policy::off>, 2));

// The fused geometry: the depthwise window over the block's input, the pointwise output.
constexpr tessera::tile_geometry block2 = tessera::fused_geometry(net::summary.nodes[3].geometry, net::summary.nodes[5].geometry);
static_assert(block2.in_c == 12 && block2.out_c == 16 && block2.intermediate_channels == 12);
static_assert(block2.stride_h == 2 && block2.pad_left == 0 && block2.in_h == 14 && block2.out_h == 7);
static_assert(block2.producer_weight_bytes == 12 * 9 && block2.channel_step == 16);
static_assert(tessera::producer_of(block2).macs_per_output == 9 && tessera::consumer_of(block2).in_c == 12);

// By traffic, both blocks fuse when L1 is roomy: each saves the intermediate map's round trip.
constexpr auto& traffic_choice = tessera::fusion_choice<net::summary, sweep_target<8192, fusion_policy::by_traffic>>;
static_assert(traffic_choice[2] == 1 && traffic_choice[5] == 2 && traffic_choice[1] == 0 && traffic_choice[3] == 0);
constexpr auto& off_choice = tessera::fusion_choice<net::summary, sweep_target<8192, fusion_policy::off>>;
static_assert(off_choice[2] == 0 && off_choice[5] == 0);

// The fused summary: the depthwise nodes absorbed, the pointwise nodes read their input.
constexpr auto& fused = tessera::fused_summary<net::summary, sweep_target<8192, fusion_policy::by_traffic>>;
static_assert(fused.nodes[1].absorbed && fused.nodes[3].absorbed && fused.nodes[4].absorbed && !fused.nodes[2].absorbed);
static_assert(fused.nodes[2].inputs[0] == 1 && fused.nodes[5].inputs[0] == 3);
static_assert(fused.nodes[2].producer_offset == 1 && fused.nodes[5].producer_offset == 2);
static_assert(fused.nodes[1].input_count == 0 && fused.nodes[4].output_count == 0);

// The fused problem is solved exactly for both objectives (against every tile).
template <tessera::tiling_objective Objective, std::size_t L1>
constexpr bool block_solved_exactly() {
  tessera::target_desc t = sweep_target<L1, fusion_policy::by_traffic>;
  t.objective = Objective;
  tessera::tile_problem p = tessera::problem_of(fused, t, 5, L1);
  const tessera::tile_solution a = tessera::solve_tiles(p), b = tessera::solve_tiles_exhaustive(p);
  if (a.feasible != b.feasible) return false;
  if (!a.feasible) return true;
  return Objective == tessera::tiling_objective::latency ? a.cycles == b.cycles : a.score == b.score;
}
static_assert(block_solved_exactly<tessera::tiling_objective::dory_l1, 1024>());
static_assert(block_solved_exactly<tessera::tiling_objective::dory_l1, 2048>());
static_assert(block_solved_exactly<tessera::tiling_objective::latency, 1024>());
static_assert(block_solved_exactly<tessera::tiling_objective::latency, 3000>());

// The sweep's ends: the unfused network's smallest L1 (no block fits there whole-channel, so
// the selector keeps them unfused) and L1 at which every layer, and every block, runs whole.
constexpr std::size_t l1_min = tessera::smallest_l1_bytes(net::summary, sweep_target<0>);
constexpr std::size_t l1_max = 8192;

using tiny::separable::random_image;
using tiny::separable::run_flat;

/// A tiled run; `Cores` > 1: on a team whose cores share each tile's rows (serial_team), which
/// splits fused tiles too when their kernels need no scratch.
template <tessera::target_desc Target, int Cores = 1>
struct tiled_run {
  using run = tessera::tiled_executor<net, tessera::target<Target>>;
  std::array<std::int32_t, 5> logits{};
  std::uint64_t hazards = 0, l2_to_l1 = 0, l1_to_l2 = 0, cycles = 0;
  int blocks = 0;

  explicit tiled_run(const std::array<std::uint8_t, 14 * 11 * 3>& image) {
    alignas(16) static std::byte l2[run::l2_bytes];
    alignas(16) static std::byte l1[run::l1_bytes];
    tessera::dma::simulated_policy<> dma(Target);
    tessera::serial_team<Cores> team;
    run::run(team, l2, l1, {image.data()}, {logits.data()}, dma);
    dma.finish();
    hazards = dma.hazard_count();
    l2_to_l1 = dma.stats().levels[1].bytes_in;
    l1_to_l2 = dma.stats().levels[1].bytes_out;
    cycles = dma.stats().total_cycles;
    for (const auto& node : run::summary.nodes) blocks += node.geometry.fused() ? 1 : 0;
  }
};

}  // namespace

TEMPLATE_TEST_CASE_SIG("fused blocks run bit-exact and hazard-free over an L1 sweep, every policy", "[fusion]",
                       ((std::size_t L1), L1), l1_min, l1_min + 256, 1536, 2048, 3072, l1_max) {
  for (std::uint32_t seed : {1u, 2u, 3u}) {
    const auto image = random_image(seed);
    const auto flat = run_flat(image);
    const tiled_run<sweep_target<L1, fusion_policy::by_latency>> latency(image);
    const tiled_run<sweep_target<L1, fusion_policy::by_traffic>> traffic(image);
    const tiled_run<sweep_target<L1, fusion_policy::off>> unfused(image);
    CHECK(latency.logits == flat);
    CHECK(traffic.logits == flat);
    CHECK(unfused.logits == flat);
    CHECK(latency.hazards + traffic.hazards + unfused.hazards == 0);
    CHECK(unfused.blocks == 0);
    // Each criterion is never worse than unfused on what it minimises, as the simulator
    // measures it (the models agree on activations; the simulator adds per-transfer costs).
    CHECK(traffic.l2_to_l1 + traffic.l1_to_l2 <= unfused.l2_to_l1 + unfused.l1_to_l2);
  }
}

TEMPLATE_TEST_CASE_SIG("fused tiles shared by rows over a team's cores are bit-exact", "[fusion]",
                       ((std::size_t L1), L1), l1_min + 256, 2048, l1_max) {
  for (std::uint32_t seed : {4u, 5u}) {
    const auto image = random_image(seed);
    const tiled_run<sweep_target<L1, fusion_policy::by_traffic>, 3> three(image);
    const tiled_run<sweep_target<L1, fusion_policy::by_traffic>, 8> eight(image);
    CHECK(three.logits == run_flat(image));
    CHECK(eight.logits == run_flat(image));
    CHECK(three.hazards + eight.hazards == 0);
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
    .fusion = fusion_policy::by_traffic};
constexpr std::size_t l2_min = tessera::smallest_l2_bytes(net::summary, three_levels<l1_max, 0>);

template <std::size_t L1, std::size_t L2>
struct three_level_run {
  using run = tessera::tiled_executor<net, tessera::target<three_levels<L1, L2>>>;
  std::array<std::int32_t, 5> logits{};
  std::uint64_t hazards = 0;
  int blocks = 0;
  explicit three_level_run(const std::array<std::uint8_t, 14 * 11 * 3>& image) {
    alignas(16) static std::byte l3[run::l3_bytes + 16];
    alignas(16) static std::byte l2[run::l2_bytes];
    alignas(16) static std::byte l1[run::l1_bytes];
    tessera::dma::simulated_policy<> dma(three_levels<L1, L2>);
    run::run(l3, l2, l1, {image.data()}, {logits.data()}, dma);
    dma.finish();
    hazards = dma.hazard_count();
    for (const auto& node : run::summary.nodes) blocks += node.geometry.fused() ? 1 : 0;
  }
};

TEMPLATE_TEST_CASE_SIG("fused blocks on three levels: filters staged through L2, activations spilled", "[fusion]",
                       ((std::size_t L1, std::size_t L2), L1, L2), (l1_max, 16384), (2048, 16384), (l1_max, 6144),
                       (l1_max, l2_min + 512), (l1_max, l2_min), (l1_min + 256, l2_min)) {
  const auto image = random_image(21);
  const three_level_run<L1, L2> run(image);
  CHECK(run.logits == run_flat(image));
  CHECK(run.hazards == 0);
  if (L1 == l1_max && L2 == 16384) CHECK(run.blocks == 2);
}

// The hazard proof covers the new steps: a fused tile that reads its depthwise filters before
// their transfer was waited for, or a block whose depthwise filters never arrive, is rejected.
namespace hazards {
namespace s = tessera::schedule;
using run = tessera::tiled_executor<net, tessera::target<sweep_target<l1_max, fusion_policy::by_traffic>>>;
constexpr int producer_wait = surgery::find(run::program, surgery::is(s::step_kind::wait, s::transfer_role::producer_filters, 2));
constexpr int producer_issue = surgery::find(run::program, surgery::is(s::step_kind::issue, s::transfer_role::producer_filters, 2));
static_assert(producer_wait > producer_issue && producer_issue >= 0);
constexpr auto no_wait = surgery::erase(run::program, producer_wait);
static_assert(s::check(run::summary, run::plan, no_wait).kind == s::hazard::read_before_wait);
constexpr auto no_load = surgery::erase(surgery::erase(run::program, producer_wait), producer_issue);
static_assert(s::check(run::summary, run::plan, no_load).kind == s::hazard::stale_read);
static_assert(s::check(run::summary, run::plan, run::program).ok());
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

TEST_CASE("a fused block's tiles are shared by rows when its kernels need no scratch", "[fusion]") {
  constexpr auto target = sweep_target<l1_max, fusion_policy::by_traffic>;
  using run = tessera::tiled_executor<net, tessera::target<target>>;
  static_assert(run::summary.nodes[2].geometry.fused());
  alignas(16) static std::byte l2[run::l2_bytes];
  alignas(16) static std::byte l1[run::l1_bytes];
  const auto image = random_image(11);
  std::array<std::int32_t, 5> logits{};
  tessera::dma::simulated_policy<> dma(target);
  recording_team team;
  run::run(team, l2, l1, {image.data()}, {logits.data()}, dma);
  CHECK(logits == run_flat(image));
  const bool scratch_free = run::plan.layers[2].solution.cost.scratch_bytes ==
                            tessera::fused_layout_of(run::summary.nodes[2].geometry, run::plan.layers[2].solution.tile,
                                                     std::size_t{0}, std::size_t{0})
                                .kernel_scratch;
  CHECK(team.widest[2] == (scratch_free ? 4 : 1));
  CHECK(team.widest[1] == 0);  // the absorbed depthwise node never runs on its own
}

TEST_CASE("by traffic, a roomy L1 fuses both blocks and moves less", "[fusion]") {
  const auto image = random_image(7);
  const tiled_run<sweep_target<l1_max, fusion_policy::by_traffic>> traffic(image);
  const tiled_run<sweep_target<l1_max, fusion_policy::off>> unfused(image);
  CHECK(traffic.blocks == 2);
  CHECK(traffic.logits == run_flat(image));
  // The two intermediate maps (14x11x8 and 7x5x12 bytes) are neither stored nor loaded.
  CHECK(unfused.l1_to_l2 - traffic.l1_to_l2 == 14 * 11 * 8 + 7 * 5 * 12);
  CHECK(traffic.l2_to_l1 < unfused.l2_to_l1);
}

TEST_CASE("a forced block fuses whatever the criterion says", "[fusion]") {
  // `off` never fuses, overrides included; under a criterion a forced block fuses even where
  // the criterion keeps it unfused.
  static_assert(tessera::fusion_choice<net::summary, sweep_target<l1_max, fusion_policy::off, true>>[2] == 0);
  constexpr auto forced = sweep_target<l1_max, fusion_policy::by_latency, true>;
  static_assert(tessera::fusion_choice<net::summary, forced>[2] == 1);
  const auto image = random_image(9);
  const tiled_run<forced> run(image);
  CHECK(run.logits == run_flat(image));
  CHECK(run.hazards == 0);
}

TEST_CASE("the plan table shows a fused block as one row", "[fusion]") {
  using run = tessera::tiled_executor<net, tessera::target<sweep_target<l1_max, fusion_policy::by_traffic>>>;
  alignas(16) static std::byte l2[run::l2_bytes];
  alignas(16) static std::byte l1[run::l1_bytes];
  const auto image = random_image(3);
  std::array<std::int32_t, 5> logits{};
  const auto sim = tessera::report::simulate<run>(l2, l1, {image.data()}, {logits.data()});
  const std::string table = tessera::report::tiled_plan_table<net, run>(sim);
  CHECK(table.find("dw+pw block") != std::string::npos);
  CHECK(table.find("fused next") != std::string::npos);
  CHECK(sim.hazards == 0);
}
