// A decoder-shaped network, conv -> bilinear Resize x2 -> conv -> nearest Resize to an odd
// size: the tiled executor (the Resizes run on their L2 buffers, the convs tile through L1) is
// bit-exact with the flat one and hazard-free on the simulated DMA, from the smallest L1 that
// plans to the one that runs every layer whole.
#include <array>
#include <cstddef>
#include <cstdint>

#include <catch2/catch.hpp>

#include <tessera/dma/simulated_policy.hpp>
#include <tessera/tessera.hpp>

namespace {

using tessera::op::resize_coordinates;
using tessera::op::resize_mode;
using tessera::op::resize_nearest_rounding;

template <std::size_t N>
constexpr tessera::constant<std::int8_t, N> pseudo_random_weights(std::uint32_t seed) {
  tessera::constant<std::int8_t, N> w{};
  for (auto& v : w.values) {
    seed = seed * 1664525u + 1013904223u;
    v = static_cast<std::int8_t>(static_cast<int>(seed >> 27) - 16);  // [-16, 15]
  }
  return w;
}

inline constexpr auto weights1 = pseudo_random_weights<6 * 3 * 3 * 3>(11);
inline constexpr auto weights2 = pseudo_random_weights<4 * 3 * 3 * 6>(12);
inline constexpr tessera::requant_constants<1> rq{{3}, {128 << 6}, 8, 0, 255, 1};

inline constexpr tessera::tensor_table<5> tensors{{{
    {"in", tessera::dtype::u8, {1, 5, 7, 3}},
    {"c1", tessera::dtype::u8, {1, 5, 7, 6}},
    {"up", tessera::dtype::u8, {1, 10, 14, 6}},
    {"c2", tessera::dtype::u8, {1, 10, 14, 4}},
    {"out", tessera::dtype::u8, {1, 13, 17, 4}},
}}};
using net = tessera::network<
    tensors, tessera::graph_inputs<0>, tessera::graph_outputs<4>,
    tessera::op::conv<"c1", {.input = 0, .output = 1, .kernel_h = 3, .kernel_w = 3, .pad_top = 1, .pad_left = 1,
                             .pad_bottom = 1, .pad_right = 1},
                      weights1, tessera::none, rq>,
    tessera::op::resize<"up", {.input = 1, .output = 2, .mode = resize_mode::linear,
                               .coordinates = resize_coordinates::half_pixel}>,
    tessera::op::conv<"c2", {.input = 2, .output = 3, .kernel_h = 3, .kernel_w = 3, .pad_top = 1, .pad_left = 1,
                             .pad_bottom = 1, .pad_right = 1},
                      weights2, tessera::none, rq>,
    tessera::op::resize<"to_odd", {.input = 3, .output = 4, .coordinates = resize_coordinates::half_pixel,
                                   .nearest = resize_nearest_rounding::round_prefer_ceil}>>;

template <std::size_t L1>
inline constexpr tessera::target_desc sweep_target{.name = "sweep",
                                                   .levels = {{{"L1", L1, 8, 2, 10}, {"L2", 64 * 1024, 8, 2, 10}}},
                                                   .level_count = 2,
                                                   .cores = 2};
constexpr std::size_t l1_min = tessera::smallest_l1_bytes(net::summary, sweep_target<0>);
constexpr std::size_t l1_max = tessera::untiled_l1_bytes(net::summary, sweep_target<0>);
static_assert(l1_min < l1_max, "the sweep tiles the convolutions at its small end");

using image = std::array<std::uint8_t, 5 * 7 * 3>;
using output = std::array<std::uint8_t, 13 * 17 * 4>;

image random_image(std::uint32_t seed) {
  image x{};
  for (auto& v : x) {
    seed = seed * 1664525u + 1013904223u;
    v = static_cast<std::uint8_t>(seed >> 24);
  }
  return x;
}

output run_flat(const image& x) {
  alignas(16) static std::byte arena[tessera::executor<net>::arena_bytes];
  output y{};
  tessera::executor<net>::run(arena, {x.data()}, {y.data()});
  return y;
}

template <std::size_t L1>
std::uint64_t run_tiled(const image& x, output& y) {
  using run = tessera::tiled_executor<net, tessera::target<sweep_target<L1>>>;
  static_assert(!run::plan.layers[1].tiled && !run::plan.layers[3].tiled, "the Resizes run on their L2 buffers");
  alignas(16) static std::byte l2[run::l2_bytes];
  alignas(16) static std::byte l1[run::l1_bytes];
  tessera::dma::simulated_policy<> dma(sweep_target<L1>);
  run::run(l2, l1, {x.data()}, {y.data()}, dma);
  dma.finish();
  return dma.hazard_count();
}

}  // namespace

TEMPLATE_TEST_CASE_SIG("resize: tiled execution around Resize layers is bit-exact and hazard-free", "[resize][tiling]",
                       ((std::size_t L1), L1), l1_min, (l1_min + l1_max) / 2, l1_max) {
  for (std::uint32_t seed : {1u, 2u, 3u}) {
    const image x = random_image(seed);
    output tiled{};
    CHECK(run_tiled<L1>(x, tiled) == 0);
    const output flat = run_flat(x);
    CHECK(tiled == flat);
    // Not a constant map: the layers do compute something.
    bool varies = false;
    for (std::uint8_t v : flat) varies = varies || v != flat[0];
    CHECK(varies);
  }
}
