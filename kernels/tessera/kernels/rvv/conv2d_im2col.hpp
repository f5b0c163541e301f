// rvv convolution (groups == 1): the generic pixel-block loop (algorithm/conv2d.hpp) over blocks
// of 6 output pixels, each im2col'd interleaved ([t][pixel]: the generic walk of
// algorithm/im2col.hpp with a strided Pack, vsse8), then the channels-in-lanes micro-kernel
// (mat_mult.hpp) with the bias as the accumulators' start, then each pixel's requantization
// (requant.hpp). Weights are read in place ([out_c][kh][kw][in_c] int8, a strided load per
// reduction index), so the scratch is one block's im2col and accumulators.
#pragma once

#include <cstdint>

#include <tessera/core/requant.hpp>
#include <tessera/kernels/algorithm/conv2d.hpp>
#include <tessera/kernels/algorithm/im2col.hpp>
#include <tessera/kernels/arch/rvv.hpp>
#include <tessera/kernels/reference/conv2d.hpp>
#include <tessera/kernels/rvv/mat_mult.hpp>
#include <tessera/kernels/rvv/requant.hpp>
#include <tessera/kernels/rvv/traits.hpp>

namespace tessera::kernels::rvv {

namespace detail {

/// im2col's `Pack` (algorithm/im2col.hpp): values as they are, block_rows bytes apart (one
/// pixel's row of an interleaved block); padding as 0.
template <class TIn>
struct interleaved_pack {
  static TIn* zero(TIn* dst, int n) {
    if (n > 0) arch::rvv::fill_strided(reinterpret_cast<std::uint8_t*>(dst), 0, block_rows, n);
    return dst + std::ptrdiff_t(n) * block_rows;
  }
  static TIn* copy(TIn* dst, const TIn* src, int n) {
    if (n > 0)
      arch::rvv::copy_strided(reinterpret_cast<std::uint8_t*>(dst), reinterpret_cast<const std::uint8_t*>(src),
                              block_rows, n);
    return dst + std::ptrdiff_t(n) * block_rows;
  }
};

/// The same with the padding as the stored byte `pad` (the input's zero point, d.pad_value),
/// which the micro-kernel then multiplies like any input value. A separate type, so that a
/// layer whose padding is 0 or never read keeps the constant fill (a member read per call cost
/// about 3 instructions per pixel of a 1x1 layer).
template <class TIn>
struct interleaved_pad_pack : interleaved_pack<TIn> {
  std::uint8_t pad;
  TIn* zero(TIn* dst, int n) const {
    if (n > 0) arch::rvv::fill_strided(reinterpret_cast<std::uint8_t*>(dst), pad, block_rows, n);
    return dst + std::ptrdiff_t(n) * block_rows;
  }
};

/// The convolution's atom (algorithm/conv2d.hpp); `ReadsPadValue` as conv2d_im2col's.
template <bool ReadsPadValue, class TIn, class TOut>
struct conv2d_atom {
  static constexpr int pixels = block_rows;
  const reference::conv2d_dims& d;
  weight_view<std::int8_t> w;
  int k;
  const std::int32_t* bias;
  row_requant rq;
  std::int32_t* acc;
  TIn* cols;
  bool pads;  ///< some window reads a padding whose value is not 0
  int oy = 0, ox = 0;  ///< the next pixel to expand

  template <class Pack>
  [[gnu::always_inline]] void expand(const TIn* image, int count, const Pack& packer) {
    for (int r = 0; r < count; ++r) {
      algorithm::im2col_pixel(d, image, oy, ox, cols + r, packer);
      if (++ox == d.out_w) ox = 0, ++oy;
    }
  }
  [[gnu::always_inline]] void pack(const TIn* image, int p0, int count) {
    if (p0 == 0) oy = ox = 0;
    if (!pads) expand(image, count, interleaved_pack<TIn>{});
    else if constexpr (ReadsPadValue)
      expand(image, count, interleaved_pad_pack<TIn>{{}, static_cast<std::uint8_t>(d.pad_value)});
  }
  void compute(int count, TOut* out, std::ptrdiff_t) {
    const int n = d.out_c;
    mac_block<false, true>(cols, count, k, w, bias, n, acc);
    for (int r = 0; r < count; ++r) requant_row(rq, acc + r * n, n, out + r * n);
  }
};

}  // namespace detail

/// Convolution, groups == 1, NHWC (reference::conv2d's contract, bit-exact).
///
/// - `in`: [batch][in_h][in_w][in_c] int8 or uint8; `w`: [out_c][kernel_h][kernel_w][in_c] int8.
/// - `bias`: [out_c] int32 or null; `rq`: disabled, per tensor or per output channel.
/// - `out`: [batch][out_h][out_w][out_c]; 8/16-bit outputs requantized, int32 raw when disabled.
/// - `scratch`: conv2d_scratch(d).total bytes, any alignment.
/// - `ReadsPadValue`: false when no call reads a nonzero pad value (concepts.hpp): the pad
///   value's pack is then not instantiated.
template <bool ReadsPadValue = true, class TIn, class TOut>
void conv2d_im2col(const reference::conv2d_dims& d, const TIn* in, const std::int8_t* w, const std::int32_t* bias,
                   const requant_params& rq, TOut* out, void* scratch) {
  const int k = d.kernel_h * d.kernel_w * d.in_c;
  const auto layout = conv2d_scratch(d);
  detail::conv2d_atom<ReadsPadValue, TIn, TOut> atom{d,
                                      {w, k, 1},
                                      k,
                                      bias,
                                      channel_requant_of(rq),
                                      layout.part<std::int32_t>(scratch, 1),
                                      layout.part<TIn>(scratch, 0),
                                      ReadsPadValue && reference::reads_pad_value(d)};
  algorithm::conv2d_pixel_blocks(d, in, out, atom);
}

}  // namespace tessera::kernels::rvv
