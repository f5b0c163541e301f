// How a cluster's cores share a tile of one output pixel (runtime/cluster.hpp): by output
// channels, each core its band of channels from its band of filter rows. Which tiles split so,
// the band's arguments, and a fully connected chain run on eight emulated cores (serial_team),
// bit-exact with the flat executor, with a team that records how many parts each layer's
// compute steps were forked into (so the split is seen to happen, not only to be harmless).
#include <array>
#include <cstddef>
#include <cstdint>

#include <catch2/catch.hpp>

#include <tessera/dma/simulated_policy.hpp>
#include <tessera/runtime/cluster.hpp>
#include <tessera/tessera.hpp>

#include "../support/tiny_networks.hpp"

namespace {

// --- which tiles split by channels, and the band's arguments ----------------------------------
constexpr tessera::tile_geometry fully_connected = [] {
  tessera::tile_geometry g{};
  g.kind = tessera::tiling_kind::tiled;
  g.out_c = 128;
  g.in_c = 640;
  g.weight_bytes_per_channel = 640;
  g.macs_per_output = 640;
  g.out_elem_bytes = 1;
  return g;
}();
constexpr tessera::schedule::tile_position one_pixel{.h = 1, .w = 1, .c = 128};
static_assert(tessera::splits_channels(fully_connected, one_pixel));
static_assert(!tessera::splits_channels(fully_connected, {.h = 2, .w = 1, .c = 128}));  // rows to share
static_assert(!tessera::splits_channels(fully_connected, {.h = 1, .w = 1, .c = 1}));
static_assert(![] {  // a depthwise layer's input channel is its output channel
  auto g = fully_connected;
  g.channel_lockstep = true;
  return tessera::splits_channels(g, one_pixel);
}());
static_assert(![] {  // MatMul's B is read by output column
  auto g = fully_connected;
  g.whole_operand_bytes = 640 * 128;
  return tessera::splits_channels(g, one_pixel);
}());
static_assert(![] {  // nothing per channel to split (a pool, an activation)
  auto g = fully_connected;
  g.weight_bytes_per_channel = 0;
  return tessera::splits_channels(g, one_pixel);
}());

// How many cores a one-pixel tile is worth (min_band_macs each, at most the team's).
static_assert(tessera::channel_cores(fully_connected, one_pixel, 8) == 8);  // 81,920 MACs
static_assert(tessera::channel_cores(fully_connected, {.h = 1, .w = 1, .c = 2}, 8) == 2);  // 1,280 MACs
static_assert(tessera::channel_cores(fully_connected, {.h = 1, .w = 1, .c = 5}, 8) == 6);  // 3,200 MACs
static_assert([] {  // 8 x 60 = 480 MACs: not worth a second core
  auto g = fully_connected;
  g.macs_per_output = 60;
  return tessera::channel_cores(g, {.h = 1, .w = 1, .c = 8}, 8) == 1;
}());
static_assert(tessera::channel_cores(fully_connected, one_pixel, 1) == 1);

// --- a fully connected chain on eight cores ---------------------------------------------------
// tiny::mlp: fc1 (16,384 MACs) splits over 8 cores, fc2 (2,560 MACs) over 5, fc3 (280 MACs)
// runs on one.
namespace mlp = tiny::mlp;

/// serial_team<8> that records, per layer, the most parts one of its compute steps was forked
/// into.
struct recording_team : tessera::serial_team<8> {
  std::array<int, 8> parts{};
  template <class F>
  void fork(int layer, int cores, F& f) {
    if (cores > parts[static_cast<std::size_t>(layer)]) parts[static_cast<std::size_t>(layer)] = cores;
    tessera::serial_team<8>::fork(layer, cores, f);
  }
};

std::array<std::int32_t, 7> run_flat(const std::array<std::uint8_t, 256>& in) {
  alignas(16) static std::byte arena[tessera::executor<mlp::network>::arena_bytes];
  std::array<std::int32_t, 7> out{};
  tessera::executor<mlp::network>::run(arena, {in.data()}, {out.data()});
  return out;
}

template <std::size_t L1>
struct eight_core_run {
  using run = tessera::tiled_executor<mlp::network, tessera::target<tiny::sweep_target<L1>>>;
  std::array<std::int32_t, 7> out{};
  std::uint64_t hazards = 0;
  recording_team team;
  explicit eight_core_run(const std::array<std::uint8_t, 256>& in) {
    alignas(16) static std::byte l2[run::l2_bytes];
    alignas(16) static std::byte l1[run::l1_bytes];
    tessera::dma::simulated_policy<> dma(tiny::sweep_target<L1>);
    run::run(team, l2, l1, {in.data()}, {out.data()}, dma);
    dma.finish();
    hazards = dma.hazard_count();
  }
};

// At 32 kB every layer is one tile of one pixel; at 8 kB fc1's filters come in channel blocks
// (several one-pixel tiles of several channels), each block still split over cores.
using roomy = eight_core_run<32768>;
using tight = eight_core_run<8192>;
static_assert(roomy::run::plan.layers[0].solution.cost.tiles == 1);
static_assert(tight::run::plan.layers[0].solution.cost.tiles > 1 && tight::run::plan.layers[0].solution.tile.c >= 8);

}  // namespace

TEST_CASE("a channel band enters the tile at its channels' filter rows and outputs", "[cluster]") {
  static std::array<std::byte, 128 * 640> filters{};
  static std::array<std::int8_t, 128> outputs{};
  tessera::tile_args tile{};
  tile.c0 = 256;  // the tile's first channel in the layer
  tile.c = 128;
  tile.h = tile.w = 1;
  tile.weights = filters.data();
  tile.output = outputs.data();
  const tessera::tile_args band = tessera::channel_band_args(fully_connected, tile, tessera::row_band_of(128, 8, 3));
  CHECK(band.c0 == 256 + 48);
  CHECK(band.c == 16);
  CHECK(band.h == 1);
  CHECK(static_cast<const std::byte*>(band.weights) == filters.data() + 48 * 640);
  CHECK(static_cast<std::int8_t*>(band.output) == outputs.data() + 48);
}

TEST_CASE("one-pixel tiles are shared by output channels, bit-exact", "[cluster]") {
  for (std::uint32_t seed : {1u, 2u, 3u}) {
    const auto in = tiny::random_bytes<256>(seed);
    const auto expected = run_flat(in);
    roomy r(in);
    CHECK(r.hazards == 0);
    CHECK(r.out == expected);
    // fc1: 64 channels in 8 bands of 8; fc2: 40 in 5 bands of 8; fc3 (280 MACs) on one core.
    CHECK(r.team.parts[0] == 8);
    CHECK(r.team.parts[1] == 5);
    CHECK(r.team.parts[2] == 1);
    tight t(in);
    CHECK(t.hazards == 0);
    CHECK(t.out == expected);
    CHECK(t.team.parts[0] > 1);
  }
}
