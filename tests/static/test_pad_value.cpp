// Convolutions whose padding reads a pad value (the input's zero point). (1) The tile solver sizes a
// tile's kernel scratch from the layer's kernel variant on the tile's shape without its bottom
// and right padding (op::conv::tile_scratch), so no family's scratch may grow when a tile at
// the bottom border reads that padding. Compile-only: every family's traits compile on every
// host. (2) A layer tells its kernels at compile time whether any window reads a nonzero pad
// value (op::conv::reads_pad_value, passed as ReadsPadValue), so that zero-padded networks carry
// no pad-value code (benchmarks/qemu/check_zero_pad_code.cmake checks the firmware).
#include <cstdint>

#include <tessera/graph/constant.hpp>
#include <tessera/kernels/dispatch.hpp>
#include <tessera/tessera.hpp>

namespace {

using tessera::kernels::kernel_family;
using tessera::kernels::reference::conv2d_dims;

inline constexpr tessera::requant_constants<1> to_u8{{1 << 30}, {0}, 31, 0, 255, 1};

// Two output rows of a 1x1 conv (8 -> 8 channels, 4 wide) and of a 3x3 depthwise conv, inside
// the map and at its bottom border (the second row reads only padding), pad value 5.
constexpr conv2d_dims pointwise_inside{1, 2, 4, 8, 2, 4, 8, 1, 1, 1, 1, 1, 1, 0, 0, 1, 5};
constexpr conv2d_dims pointwise_bottom{1, 1, 4, 8, 2, 4, 8, 1, 1, 1, 1, 1, 1, 0, 0, 1, 5};
constexpr conv2d_dims depthwise_inside{1, 4, 4, 8, 2, 4, 8, 3, 3, 1, 1, 1, 1, 0, 1, 8, 5};
constexpr conv2d_dims depthwise_bottom{1, 3, 4, 8, 2, 4, 8, 3, 3, 1, 1, 1, 1, 0, 1, 8, 5};

static_assert(!tessera::kernels::reference::reads_pad_value(pointwise_inside) &&
              tessera::kernels::reference::reads_pad_value(pointwise_bottom));
static_assert(tessera::kernels::reference::reads_pad_value(depthwise_bottom));

template <kernel_family F>
constexpr bool border_needs_no_more_scratch(const conv2d_dims& inside, const conv2d_dims& bottom) {
  const auto v = tessera::kernels::choose_conv2d<F, std::uint8_t, std::int8_t, std::uint8_t>(inside, to_u8.params());
  return tessera::kernels::conv2d_scratch_bytes<F>(v, bottom) <= tessera::kernels::conv2d_scratch_bytes<F>(v, inside);
}

template <kernel_family F>
constexpr bool holds() {
  return border_needs_no_more_scratch<F>(pointwise_inside, pointwise_bottom) &&
         border_needs_no_more_scratch<F>(depthwise_inside, depthwise_bottom);
}
static_assert(holds<kernel_family::reference>());
static_assert(holds<kernel_family::x86>());
static_assert(holds<kernel_family::arm_dsp>());
static_assert(holds<kernel_family::arm_mve>());
static_assert(holds<kernel_family::rv32>());
static_assert(holds<kernel_family::rvv>());

// (2) Three 3x3 convolutions over a uint8 map: padded with the zero point 5, padded with 0, and
// with zero point 5 but no padding (no window reads it).
inline constexpr tessera::constant<std::int8_t, 8 * 3 * 3 * 8> weights{};
inline constexpr tessera::tensor_table<4> tensors{{{
    {"in", tessera::dtype::u8, {1, 6, 6, 8}},
    {"a", tessera::dtype::u8, {1, 6, 6, 8}},
    {"b", tessera::dtype::u8, {1, 6, 6, 8}},
    {"c", tessera::dtype::u8, {1, 4, 4, 8}},
}}};
template <tessera::fixed_name Name, int In, int Pad, int PadValue>
using conv3x3 = tessera::op::conv<Name,
                                  {.input = In, .output = In + 1, .kernel_h = 3, .kernel_w = 3, .pad_top = Pad,
                                   .pad_left = Pad, .pad_bottom = Pad, .pad_right = Pad, .pad_value = PadValue},
                                  weights, tessera::none, to_u8>;
using zero_point_padded = conv3x3<"a", 0, 1, 5>;
using zero_padded = conv3x3<"b", 1, 1, 0>;
using unpadded = conv3x3<"c", 2, 0, 5>;
using net = tessera::network<tensors, tessera::graph_inputs<0>, tessera::graph_outputs<3>, zero_point_padded,
                             zero_padded, unpadded>;
static_assert(net::layers_valid);
static_assert(zero_point_padded::reads_pad_value<tensors>);
static_assert(!zero_padded::reads_pad_value<tensors> && !unpadded::reads_pad_value<tensors>);
static_assert(zero_point_padded::tile_geometry_of<tensors>().pad_value == 5);
static_assert(unpadded::tile_geometry_of<tensors>().pad_value == 0);

}  // namespace
