// arm_dsp conv2d (groups == 1, any kernel, stride, dilation, padding; 1x1 included): im2col of
// 4 output pixels at a time into int16, then the 1x4 micro-kernel for every output channel.
//
// Cost per 4 pixels and group of 4 reduction elements: 11 instructions for 16 MACs in the
// micro-kernel when the layer's weights fit the expanded-weight cache (conv2d_weight_cache_bytes,
// expanded once per call), 13 otherwise (detail/mat_mult.hpp); plus the block's expansion
// (about 1.3 instructions per element, shared by all output channels) and the epilogue (5.5
// per 8-bit output). Measured under QEMU on a Cortex-M4 (guest instructions per MAC, -O2):
// 3x3 16->16 on 32x32 0.99, 3x3 64->64 on 8x8 (no cache) 0.93, 1x1 32->64 on 48x48 1.05.
// A 1x1 convolution takes the same path: its "im2col" is a plain expansion of each pixel's
// channels (no gather, no padding checks beyond one row test), so no separate kernel is needed.
#pragma once

#include <cstddef>
#include <cstdint>

#include <tessera/core/requant.hpp>
#include <tessera/kernels/arm_dsp/detail/expand.hpp>
#include <tessera/kernels/arm_dsp/detail/mat_mult.hpp>
#include <tessera/kernels/arm_dsp/epilogue.hpp>
#include <tessera/kernels/arm_dsp/traits.hpp>
#include <tessera/kernels/reference/conv2d.hpp>

namespace tessera::kernels::arm_dsp {

namespace detail {

/// Short byte runs (a few taps' channels). The empty asm keeps GCC from turning the loops into
/// memset/memcpy calls, which cost more than the copy itself at these lengths.
inline std::uint8_t* zero_bytes(std::uint8_t* dst, int n) {
  for (int i = 0; i < n; ++i) {
    *dst++ = 0;
    asm("" : "+r"(dst));
  }
  return dst;
}
inline std::uint8_t* copy_bytes(std::uint8_t* dst, const std::uint8_t* src, int n) {
  for (int i = 0; i < n; ++i) {
    *dst++ = *src++;
    asm("" : "+r"(dst));
  }
  return dst;
}

/// One kernel row of taps (kernel_w taps of in_c bytes, zeros outside the input) into
/// `staging`. Without dilation the valid taps are one contiguous run of the input row.
inline std::uint8_t* stage_taps(const reference::conv2d_dims& d, const std::uint8_t* row, int ix0,
                                std::uint8_t* staging) {
  const int cin = d.in_c;
  if (row == nullptr) return zero_bytes(staging, d.kernel_w * cin);
  if (d.dilation_w == 1) {
    const int j0 = ix0 >= 0 ? 0 : (-ix0 < d.kernel_w ? -ix0 : d.kernel_w);
    int j1 = d.in_w - ix0 < d.kernel_w ? d.in_w - ix0 : d.kernel_w;
    if (j1 < j0) j1 = j0;
    staging = zero_bytes(staging, j0 * cin);
    staging = copy_bytes(staging, row + std::int64_t{ix0 + j0} * cin, (j1 - j0) * cin);
    return zero_bytes(staging, (d.kernel_w - j1) * cin);
  }
  for (int j = 0; j < d.kernel_w; ++j) {
    const int ix = ix0 + j * d.dilation_w;
    staging = ix >= 0 && ix < d.in_w ? copy_bytes(staging, row + std::int64_t{ix} * cin, cin)
                                     : zero_bytes(staging, cin);
  }
  return staging;
}

/// im2col of output pixel (oy, ox) into its slot of a 4-pixel block (`dst`: the slot's first
/// group; groups are 8 words apart). When a kernel row's kernel_w*in_c bytes split into whole
/// words, rows are expanded straight from the input (or from a staged copy at the borders);
/// otherwise the whole pixel is staged as bytes first.
template <class TIn>
void im2col_pixel(const reference::conv2d_dims& d, const TIn* in, int oy, int ox, std::uint32_t* dst,
                  std::uint8_t* staging) {
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(in);
  const int segment = d.kernel_w * d.in_c;
  const int ix0 = ox * d.stride_w - d.pad_left;
  const bool contiguous = d.dilation_w == 1 && ix0 >= 0 && ix0 + d.kernel_w <= d.in_w;
  if (segment % 4 == 0) {
    for (int i = 0; i < d.kernel_h; ++i) {
      const int iy = oy * d.stride_h + i * d.dilation_h - d.pad_top;
      if (iy < 0 || iy >= d.in_h) {
        dst = zero_groups<8>(segment / 4, dst);
        continue;
      }
      const std::uint8_t* row = bytes + std::int64_t{iy} * d.in_w * d.in_c;
      const std::uint8_t* src = staging;
      if (contiguous) src = row + std::int64_t{ix0} * d.in_c;
      else stage_taps(d, row, ix0, staging);
      dst = expand_groups<TIn, 8>(reinterpret_cast<const TIn*>(src), segment / 4, dst);
    }
    return;
  }
  std::uint8_t* s = staging;
  for (int i = 0; i < d.kernel_h; ++i) {
    const int iy = oy * d.stride_h + i * d.dilation_h - d.pad_top;
    const bool valid = iy >= 0 && iy < d.in_h;
    s = stage_taps(d, valid ? bytes + std::int64_t{iy} * d.in_w * d.in_c : nullptr, ix0, s);
  }
  expand_row<TIn, 8>(reinterpret_cast<const TIn*>(staging), d.kernel_h * segment, dst);
}

/// The 4-pixel block starting at flat output pixel `pix0` (`count` <= 4 of them real; the
/// other slots are zeroed so the micro-kernel reads defined values).
template <class TIn>
[[gnu::noinline]] void im2col_block(const reference::conv2d_dims& d, const TIn* in, int pix0, int count, int groups,
                                    std::uint32_t* col, std::uint8_t* staging) {
  int oy = pix0 / d.out_w;
  int ox = pix0 - oy * d.out_w;
  for (int p = 0; p < tile_pixels; ++p) {
    if (p < count) {
      im2col_pixel(d, in, oy, ox, col + 2 * p, staging);
      if (++ox == d.out_w) ox = 0, ++oy;
    } else {
      zero_groups<8>(groups, col + 2 * p);
    }
  }
}

}  // namespace detail

/// Standard convolution, NHWC.
/// - `input`:   [batch][in_h][in_w][in_c], int8 or uint8.
/// - `weights`: [out_c][kernel_h][kernel_w][in_c] int8 (groups == 1).
/// - `bias`:    [out_c] int32 or nullptr.
/// - `rq`:      disabled (TOut = int32 accumulators), per tensor, or per output channel.
/// - `output`:  [batch][out_h][out_w][out_c].
/// - `scratch`: conv2d_scratch_bytes(d) bytes, any alignment.
/// Bit-exact with reference::conv2d whenever the int32 sum does not overflow (the reference's
/// own precondition).
template <class TIn, class TOut>
void conv2d_im2col(const reference::conv2d_dims& d, const TIn* input, const std::int8_t* weights,
                   const std::int32_t* bias, const requant_params& rq, TOut* output, void* scratch) {
  const int k = d.kernel_h * d.kernel_w * d.in_c;
  const int groups = (k + 3) / 4;
  auto* base = static_cast<std::uint8_t*>(align8(scratch));
  auto* col = reinterpret_cast<std::uint32_t*>(base);
  auto* staging = base + std::size_t(groups) * 8 * tile_pixels;
  auto* acc = reinterpret_cast<std::int32_t*>(staging + std::size_t(groups) * 4);
  auto* table = reinterpret_cast<rq_entry*>(acc + std::size_t(tile_pixels) * d.out_c);
  auto* cache = reinterpret_cast<std::uint32_t*>(table + d.out_c);
  const epilogue_plan plan = make_epilogue<TOut>(rq, d.out_c, table, bias, product_bound<TIn, std::int8_t>(k));
  const detail::weight_rows rows{reinterpret_cast<const std::uint8_t*>(weights), k / 4, k % 4};
  const bool cached = conv2d_weight_cache_bytes(d) != 0 && groups > 0;
  if (cached) {
    std::uint32_t* dst = cache;
    for (int c = 0; c < d.out_c; ++c) dst = detail::expand_row<std::int8_t, 2>(weights + std::int64_t{c} * k, k, dst);
  }

  const int pixels = d.out_h * d.out_w;
  for (int n = 0; n < d.batch; ++n) {
    const TIn* in = input + std::int64_t{n} * d.in_h * d.in_w * d.in_c;
    TOut* out = output + std::int64_t{n} * pixels * d.out_c;
    for (int pix0 = 0; pix0 < pixels; pix0 += tile_pixels) {
      const int count = pixels - pix0 < tile_pixels ? pixels - pix0 : tile_pixels;
      detail::im2col_block(d, in, pix0, count, groups, col, staging);
      const auto* block = reinterpret_cast<const std::int16_t*>(col);
      if (cached) detail::block_1x4_expanded(cache, groups, d.out_c, block, acc);
      else detail::block_1x4<true>(rows, d.out_c, block, acc);
      for (int p = 0; p < count; ++p) {
        store_channels<tile_pixels>(acc + p, plan, 0, d.out_c, out + std::int64_t{pix0 + p} * d.out_c);
      }
    }
  }
}

}  // namespace tessera::kernels::arm_dsp
