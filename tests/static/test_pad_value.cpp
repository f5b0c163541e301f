// Convolutions whose padding reads a pad value (the input's zero point): the tile solver sizes a
// tile's kernel scratch from the layer's kernel variant on the tile's shape without its bottom
// and right padding (op::conv::tile_scratch), so no family's scratch may grow when a tile at
// the bottom border reads that padding. Compile-only: every family's traits compile on every
// host.
#include <cstdint>

#include <tessera/graph/constant.hpp>
#include <tessera/kernels/dispatch.hpp>

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

}  // namespace
