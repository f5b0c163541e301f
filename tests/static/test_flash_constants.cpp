// A whole layer's kernel constants in flash (kernels::conv2d_layer, arm_dsp/flash_constants.hpp):
// on a family that takes them, the flat plan sizes each convolution's scratch without the parts
// the compiler computes into flash (the epilogue table, conv2d's expanded-weight cache,
// depthwise_hwc's weight pairs), while a tile, whose filters a DMA brings to L1, keeps the full
// layout. Compile-only: the arm_dsp traits compile on every host, so an x86 build plans the
// Cortex-M4 arena. The QEMU kernel equivalence runs the kernels with such constants, and the
// keyword-spotting firmware checks the whole network bit-exact.
#include <cstddef>
#include <type_traits>

#include <tessera/kernels/dispatch.hpp>
#include <tessera/tessera.hpp>

#include "../../benchmarks/qemu/kws_network.hpp"

namespace {

namespace k = tessera::kernels;
using k::conv_variant;
using k::kernel_family;
constexpr auto dsp = kernel_family::arm_dsp;

// The keyword-spotting DS-CNN: 64 channels on a 25 x 5 map (8,000 bytes per activation).
using conv0 = typename std::remove_cvref_t<decltype(boost::hana::at_c<0>(kws::network::node_types{}))>::type;
using dw1 = kws::depthwise<1, "dw1">;
using pw1 = kws::pointwise<1, "pw1">;
constexpr auto& tensors = kws::tensors;

// Which kernels the Cortex-M4 runs: im2col for conv0 and the pointwise layers, the CHW
// depthwise kernel (k::arm_dsp::depthwise_prefers_chw on 25 x 5 maps).
static_assert(conv0::variant<tensors, dsp> == conv_variant::im2col);
static_assert(pw1::variant<tensors, dsp> == conv_variant::im2col);
static_assert(dw1::variant<tensors, dsp> == conv_variant::depthwise_chw);

// The whole layer's scratch is the flash layout; the full layout is what a tile plans.
constexpr auto pw_dims = pw1::dims<tensors>();
constexpr auto dw_dims = dw1::dims<tensors>();
static_assert(pw1::scratch_bytes<tensors, dsp>() == k::arm_dsp::conv2d_scratch(pw_dims, true).total);
static_assert(dw1::scratch_bytes<tensors, dsp>() == k::arm_dsp::depthwise_chw_scratch(dw_dims, true).total);
static_assert(conv0::scratch_bytes<tensors, dsp>() ==
              k::arm_dsp::conv2d_scratch(conv0::dims<tensors>(), true).total);
// Pointwise 64 -> 64: the 4-pixel im2col block (512), the byte staging row (64) and the
// accumulators (1,024) stay; the table (768) and the 64 x 16 x 8 = 8,192-byte weight cache go.
static_assert(k::arm_dsp::conv2d_scratch(pw_dims).total == 512 + 64 + 1024 + 768 + 8192 + 7);
static_assert(k::arm_dsp::conv2d_scratch(pw_dims, true).total == 512 + 64 + 1024 + 7);
// Depthwise CHW: four transposed 7 x 28 int16 planes (1,728), one channel's parameters (64), a
// row of accumulators (24) and the taps (20) stay; the table (768) goes.
static_assert(k::arm_dsp::depthwise_chw_scratch(dw_dims, true).total == 1728 + 64 + 24 + 20 + 7);
// A tile of the same layer keeps the table and the cache (its filters come through L1).
static_assert(pw1::tile_scratch<tensors, dsp>(pw1::tile_geometry_of<tensors>(), {25, 5, 64}) ==
              k::arm_dsp::conv2d_scratch(pw_dims).total);

// The arena without in-place outputs: two activations live at once plus the largest scratch,
// the CHW depthwise layer's 1,843 bytes, aligned to 16: 16,000 + 1,856 = 17,856 (26,576 with
// the per-call table and cache). The executor's plan writes in place: 9,856 (test_ram_budget.cpp).
static_assert(tessera::plan_arena(kws::network::summary, {}, true, dsp).arena_bytes == 17856);

// The fully connected layer (64 -> 12, int32 logits): its table would be empty anyway; a
// requantized one drops 12 bytes per output feature the same way (gemm_layer).
using fc = typename std::remove_cvref_t<decltype(boost::hana::at_c<11>(kws::network::node_types{}))>::type;
static_assert(fc::scratch_bytes<tensors, dsp>() == k::arm_dsp::gemm_scratch(fc::dims<tensors>(), true).total);
static_assert(k::arm_dsp::gemm_scratch({1, 128, 640}, true).total + 12 * 128 ==
              k::arm_dsp::gemm_scratch({1, 128, 640}).total);

// A split tile's scratch (op::conv::tile_scratch when the tile has fewer channels than the layer)
// covers every channel block of the layer, its narrower last block included:
// the expanded-weight cache is dropped above its budget (12 KiB by default), so a narrower block
// can need more scratch than a full one. The torch MobileNetV1-0.25's 128 -> 256 pointwise layer
// through 32 kB runs blocks of 106 channels (no cache: 27,136 bytes would exceed the budget) and
// a last block of 44 (11,264 bytes of cache); planned from 106 alone, that block wrote past L1
// (found by qemu/bench/mobilenet_tiled on the Cortex-M4).
constexpr k::reference::conv2d_dims pw_106{1, 1, 3, 128, 1, 3, 106, 1, 1, 1, 1, 1, 1, 0, 0, 1};
constexpr k::reference::conv2d_dims pw_44 = [] {
  auto d = pw_106;
  d.out_c = 44;
  return d;
}();
static_assert(k::arm_dsp::conv2d_weight_cache_bytes(pw_106) == 0 && k::arm_dsp::conv2d_weight_cache_bytes(pw_44) == 11264);
static_assert(k::arm_dsp::conv2d_scratch(pw_44).total > k::arm_dsp::conv2d_scratch(pw_106).total);
static_assert(k::conv2d_blocks_scratch_bytes<dsp>(conv_variant::im2col, pw_106) >=
              k::arm_dsp::conv2d_scratch(pw_44).total);
// A layer that is not split keeps its exact scratch (no narrower block exists).
static_assert(k::conv2d_scratch_bytes<dsp>(conv_variant::im2col, pw_106) == k::arm_dsp::conv2d_scratch(pw_106).total);
constexpr bool covers_every_narrower_block(k::reference::conv2d_dims d) {
  const std::size_t planned = k::conv2d_blocks_scratch_bytes<dsp>(conv_variant::im2col, d);
  for (int c = 1; c <= d.out_c; ++c) {
    auto block = d;
    block.out_c = c;
    if (k::arm_dsp::conv2d_scratch(block).total > planned) return false;
  }
  return true;
}
static_assert(covers_every_narrower_block(pw_106) && covers_every_narrower_block(pw_dims) &&
              covers_every_narrower_block({1, 3, 3, 256, 1, 1, 300, 3, 3, 1, 1, 1, 1, 0, 0, 1}));

// A family without flash constants plans the same scratch for a whole layer as for a tile.
static_assert(pw1::scratch_bytes<tensors, kernel_family::rv32>() ==
              k::conv2d_scratch_bytes<kernel_family::rv32>(pw1::variant<tensors, kernel_family::rv32>, pw_dims));

}  // namespace
