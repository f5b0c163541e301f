// The tiled executor against the flat one: bit-exact over a sweep of L1 sizes (from the
// smallest that plans to untiled), zero hazards on the simulated DMA, and a pipeline with a
// missing wait caught by the hazard detector.
#include <array>
#include <cstddef>
#include <cstdint>

#include <catch2/catch.hpp>

#include <tessera/dma/simulated_policy.hpp>
#include <tessera/tessera.hpp>

#include "../support/tiny_networks.hpp"

namespace {

using net = tiny::features::network;
using tiny::sweep_target;

// The ends of the sweep, computed by the planner itself: 672 and 1552 bytes for this network.
constexpr std::size_t l1_min = tessera::smallest_l1_bytes(net::summary, sweep_target<0>);
constexpr std::size_t l1_max = tessera::untiled_l1_bytes(net::summary, sweep_target<0>);
static_assert(l1_min == 672 && l1_max == 1552);
constexpr std::size_t l1_a = l1_min + 16, l1_b = l1_min + 128, l1_c = (l1_min + l1_max) / 2, l1_d = l1_max - 16;

std::array<std::uint8_t, 12 * 10 * 3> random_image(std::uint32_t seed) { return tiny::random_bytes<12 * 10 * 3>(seed); }

std::array<std::int32_t, 6> run_flat(const std::array<std::uint8_t, 360>& image) {
  alignas(16) static std::byte arena[tessera::executor<net>::arena_bytes];
  std::array<std::int32_t, 6> logits{};
  tessera::executor<net>::run(arena, {image.data()}, {logits.data()});
  return logits;
}

template <std::size_t L1, tessera::pipeline_options Options = {}>
struct tiled_run {
  using run = tessera::tiled_executor<net, tessera::target<sweep_target<L1>>, Options>;
  std::array<std::int32_t, 6> logits{};
  std::uint64_t hazards = 0;
  std::int64_t tiles = 0;
  double overlap = 0;

  explicit tiled_run(const std::array<std::uint8_t, 360>& image) {
    alignas(16) static std::byte l2[run::l2_bytes];
    alignas(16) static std::byte l1[run::l1_bytes];
    tessera::dma::simulated_policy<> dma(sweep_target<L1>);
    run::run(l2, l1, {image.data()}, {logits.data()}, dma);
    dma.finish();
    hazards = dma.hazard_count();
    overlap = dma.stats().overlap();
    for (const auto& layer : run::plan.layers) tiles += layer.tiled ? layer.solution.cost.tiles : 0;
  }
};

}  // namespace

TEMPLATE_TEST_CASE_SIG("tiled execution is bit-exact and hazard-free over an L1 sweep", "[tiling]",
                       ((std::size_t L1), L1), l1_min, l1_a, l1_b, l1_c, l1_d, l1_max, 4096) {
  for (std::uint32_t seed : {1u, 2u, 3u}) {
    const auto image = random_image(seed);
    const tiled_run<L1> tiled(image);
    CHECK(tiled.logits == run_flat(image));
    CHECK(tiled.hazards == 0);
    CHECK(tiled.overlap >= 0.0);
    CHECK(tiled.overlap <= 1.0);
  }
}

TEST_CASE("small L1 sizes tile every tiled layer, large ones run layers whole", "[tiling]") {
  const auto image = random_image(9);
  CHECK(tiled_run<l1_min>(image).tiles > tiled_run<l1_max>(image).tiles);
  using roomy = tessera::tiled_executor<net, tessera::target<sweep_target<l1_max>>>;
  for (const auto& layer : roomy::plan.layers)
    if (layer.tiled) CHECK(layer.solution.cost.tiles == 1);
}

// Three levels: filters come from L3 through L2. An L2 that barely holds the activations
// forces the filters of the Gemm (160 B per output channel, L1 tiles of 2 channels) into
// double-buffered chunks of 2 or 4 channels; a roomier L2 stages them whole.
template <std::size_t L2>
inline constexpr tessera::target_desc three_levels{
    .name = "three",
    .levels = {{{"L1", 1024, 8, 2, 10}, {"L2", L2, 8, 2, 10}, {"L3", 1 << 20, 1, 50, 40}}},
    .level_count = 3,
    .cores = 2};
constexpr std::size_t l2_activations = 1200 + 384;  // arena + caller buffers (see plan below)

/// Runs the network on three-level target `T` over the simulated DMA: bit-exact, no hazard, and
/// every filter byte crosses L3 -> L2 exactly once.
template <const tessera::target_desc& T>
void run_staged(const decltype(random_image(0))& image) {
  using run = tessera::tiled_executor<net, tessera::target<T>>;
  alignas(16) static std::byte l2[run::l2_bytes];
  alignas(16) static std::byte l1[run::l1_bytes];
  std::array<std::int32_t, 6> logits{};
  tessera::dma::simulated_policy<> dma(T);
  run::run(l2, l1, {image.data()}, {logits.data()}, dma);
  dma.finish();
  CHECK(logits == run_flat(image));
  CHECK(dma.hazard_count() == 0);
  CHECK(dma.stats().levels[2].bytes_in == net::summary.nodes[0].constant_bytes - 8 * 4 - 8 * 8 +
                                              net::summary.nodes[1].constant_bytes - 8 * 8 + 6 * 160);
}

TEMPLATE_TEST_CASE_SIG("three-level targets stage filters through L2, in chunks when L2 is short", "[tiling][l3]",
                       ((std::size_t L2), L2), l2_activations + 2 * 320, l2_activations + 1300,
                       l2_activations + 2048) {
  using run = tessera::tiled_executor<net, tessera::target<three_levels<L2>>>;
  static_assert(run::plan.l2.arena_bytes + run::plan.io_bytes == l2_activations);
  run_staged<three_levels<L2>>(random_image(11));
  const auto& fc = run::plan.layers[4];
  if (L2 < l2_activations + 960) CHECK(fc.stage_chunks > 1);
  else CHECK(fc.stage_chunks == 1);
}

// L3 on a DMA engine of its own (gap8's micro-DMA): the MLP's fc1, whose 16 kB of filters (at
// 1 B/cycle) take far longer to come from L3 than it computes, streams them one L1 filter block
// per chunk; bit-exact, no hazard, sooner than with one engine for every level (where they come
// whole), and no sooner than L3 can deliver the filters.
template <std::uint8_t L3Engine>
inline constexpr tessera::target_desc slow_l3{
    .name = "slow-l3",
    .levels = {{{"L1", 4096, 8, 10, 30}, {"L2", 64 * 1024, 8, 10, 30}, {"L3", 1 << 20, 1, 150, 100, L3Engine}}},
    .level_count = 3,
    .cores = 8,
    .macs_per_cycle_x16 = 128};
/// Runs a network of one input and one int32 output (`Outputs` values) on a two- or
/// three-level target over the simulated DMA, checks it bit-exact with the flat executor and
/// free of hazards, and returns what the simulator measured.
template <class Net, const tessera::target_desc& Target, std::size_t Outputs, std::size_t Inputs>
tessera::dma::dma_stats run_checked(const std::array<std::uint8_t, Inputs>& x) {
  using run = tessera::tiled_executor<Net, tessera::target<Target>>;
  alignas(16) static std::byte l2[run::l2_bytes];
  alignas(16) static std::byte l1[run::l1_bytes];
  std::array<std::int32_t, Outputs> tiled{}, flat{};
  tessera::dma::simulated_policy<> dma(Target);
  run::run(l2, l1, {x.data()}, {tiled.data()}, dma);
  dma.finish();
  alignas(16) static std::byte arena[tessera::executor<Net>::arena_bytes];
  tessera::executor<Net>::run(arena, {x.data()}, {flat.data()});
  CHECK(tiled == flat);
  CHECK(dma.hazard_count() == 0);
  return dma.stats();
}
template <std::uint8_t L3Engine>
tessera::dma::dma_stats run_mlp(const std::array<std::uint8_t, 256>& x) {
  const auto stats = run_checked<tiny::mlp::network, slow_l3<L3Engine>, 7>(x);
  CHECK(stats.levels[2].bytes_in == 64 * 256 + 40 * 64 + 7 * 40);  // each filter byte from L3 once
  return stats;
}
TEST_CASE("L3 on an engine of its own streams an L3-bound layer's filters block by block", "[tiling][l3]") {
  using streamed = tessera::tiled_executor<tiny::mlp::network, tessera::target<slow_l3<1>>>;
  using whole = tessera::tiled_executor<tiny::mlp::network, tessera::target<slow_l3<0>>>;
  static_assert(streamed::plan.layers[0].stage_chunks > 1 && whole::plan.layers[0].stage_chunks == 1);
  const auto x = tiny::random_bytes<256>(21);
  const auto two_engines = run_mlp<1>(x), one_engine = run_mlp<0>(x);
  CHECK(two_engines.total_cycles < one_engine.total_cycles);
  CHECK(two_engines.total_cycles >= two_engines.busiest_engine_cycles());
}

// The latency objective with cross-layer prefetch (`first_load_hidden`): a layer's first filters
// load while the layer before computes its last tile, so the model charges that much less of its
// fill (planning/target_plan.hpp with_prefetch), and fc2 and fc3 of the dense chain keep fewer
// tiles (fewer per-tile overheads) than without; at 32 kB of L1 fc3's fewer tiles would not fit
// beside fc2's, the prefetch would not happen, and fc3 keeps the tiles planned without it.
template <bool Prefetch, std::size_t L1>
inline constexpr tessera::target_desc siracusa_latency = [] {
  tessera::target_desc t = tessera::targets::siracusa;
  t.objective = tessera::tiling_objective::latency;
  t.first_load_hidden = Prefetch;
  t.levels[0].bytes = L1;
  return t;
}();
template <bool Prefetch, std::size_t L1>
std::uint64_t run_dense_chain() {
  return run_checked<tiny::dense_chain::network, siracusa_latency<Prefetch, L1>, 128>(tiny::random_bytes<128>(23))
      .total_cycles;
}
TEMPLATE_TEST_CASE_SIG("the latency objective models cross-layer prefetch of a layer's first filters",
                       "[tiling][latency]", ((std::size_t L1), L1), 256 * 1024, 32 * 1024) {
  constexpr auto& summary = tiny::dense_chain::network::summary;
  constexpr auto& target = siracusa_latency<true, L1>;
  constexpr auto& problems = tessera::layer_problems<summary, target>;
  constexpr auto& tiles = tessera::layer_solutions<summary, target>;
  constexpr auto& plain = tessera::layer_solutions<summary, siracusa_latency<false, L1>>;
  // fc1 has no layer before it; fc2's first filters load during fc1's last tile, its input only
  // after fc1 stored it.
  static_assert(problems[0].problem.latency.hidden_fill == 0);
  static_assert(problems[1].problem.latency.hidden_fill ==
                    tessera::last_tile_compute(problems[0].problem, tiles[0].tile) &&
                problems[1].problem.latency.input_waits);
  static_assert(tiles[1].cost.tiles < plain[1].cost.tiles);
  if constexpr (L1 == 32 * 1024) {
    static_assert(problems[2].problem.latency.hidden_fill == 0 && tiles[2].tile == plain[2].tile);
    static_assert(tiles[1].cost.total_bytes + tessera::solve_tiles([] {
                                                auto p = problems[2].problem;
                                                p.latency.hidden_fill = tessera::last_tile_compute(
                                                    problems[1].problem, tiles[1].tile);
                                                p.latency.input_waits = true;
                                                return p;
                                              }()).cost.total_bytes >
                  L1);
  } else {
    static_assert(tiles[2].cost.tiles < plain[2].cost.tiles);
  }
  // The same tiles in one evaluation (solve_layers, which plan_for's callers use).
  constexpr auto once = tessera::solve_layers(summary, target);
  static_assert(once[0].tile == tiles[0].tile && once[1].tile == tiles[1].tile && once[2].tile == tiles[2].tile);
  CHECK(run_dense_chain<true, L1>() < run_dense_chain<false, L1>());
}

// Activations that do not fit L2 spill to L3 (DORY's "L3-tile x/y"): with a 1800-byte L2 the
// conv output (960 B) moves to L3, is written there tile by tile through L2 and read back by
// the depthwise layer the same way.
inline constexpr tessera::target_desc tight_l2{
    .name = "tight",
    .levels = {{{"L1", 700, 8, 2, 10}, {"L2", 1800, 8, 2, 10}, {"L3", 1 << 20, 1, 50, 40}}},
    .level_count = 3,
    .cores = 2};

TEST_CASE("activations that do not fit L2 spill to L3 and stay bit-exact", "[tiling][l3]") {
  constexpr const tessera::target_desc& tight = tight_l2;
  using run = tessera::tiled_executor<net, tessera::target<tight_l2>>;
  static_assert(run::plan.in_l3[1] && !run::plan.in_l3[2], "the conv output spills, nothing else");
  static_assert(run::l3_bytes == 960);
  static_assert(tessera::smallest_l2_bytes(net::summary, tight) < 1800);
  alignas(16) static std::byte l3[run::l3_bytes];
  alignas(16) static std::byte l2[run::l2_bytes];
  alignas(16) static std::byte l1[run::l1_bytes];
  for (std::uint32_t seed : {5u, 6u}) {
    const auto image = random_image(seed);
    std::array<std::int32_t, 6> logits{};
    tessera::dma::simulated_policy<> dma(tight);
    run::run(l3, l2, l1, {image.data()}, {logits.data()}, dma);
    dma.finish();
    CHECK(logits == run_flat(image));
    CHECK(dma.hazard_count() == 0);
    CHECK(dma.stats().levels[2].bytes_out == 960);  // the spilled tensor is written to L3 once
  }
}

TEST_CASE("a pipeline without its input waits fires the hazard detector and computes garbage", "[tiling]") {
  const auto image = random_image(4);
  const tiled_run<l1_b, tessera::pipeline_options{.skip_input_wait = true}> broken(image);
  CHECK(broken.hazards > 0);
  CHECK(broken.logits != run_flat(image));
}
