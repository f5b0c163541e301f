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

#include "../support/tiny_networks.hpp"

namespace {

using tessera::op::resize_coordinates;
using tessera::op::resize_mode;
using tessera::op::resize_nearest_rounding;

inline constexpr auto weights1 = tiny::features::pseudo_random<std::int8_t, 6 * 3 * 3 * 3>(11, -16, 15);
inline constexpr auto weights2 = tiny::features::pseudo_random<std::int8_t, 4 * 3 * 3 * 6>(12, -16, 15);
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

using tiny::sweep_target;
constexpr std::size_t l1_min = tessera::smallest_l1_bytes(net::summary, sweep_target<0>);
constexpr std::size_t l1_max = tessera::untiled_l1_bytes(net::summary, sweep_target<0>);
static_assert(l1_min < l1_max, "the sweep tiles the convolutions at its small end");

using image = std::array<std::uint8_t, 5 * 7 * 3>;
using output = std::array<std::uint8_t, 13 * 17 * 4>;

image random_image(std::uint32_t seed) { return tiny::random_bytes<5 * 7 * 3>(seed); }

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
