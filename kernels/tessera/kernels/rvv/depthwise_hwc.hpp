// rvv depthwise convolution in the channels-last layout, for every kernel shape, stride,
// dilation and padding: channels in lanes (int32 accumulators at LMUL 4, the bias as their
// start), per tap inside the input one 8-bit load widened to int16 (vsext/vzext: uint8 needs no
// correction), one int16 load of the tap's weights (widened to [tap][channel] in scratch once
// per call) and one vwmacc.vv. Then the pixel's requantization (requant.hpp). Taps in the
// padding are skipped; when the padding's value (the input's zero point, d.pad_value) is not 0,
// a border pixel adds it times each skipped tap's weights (one vwmacc.vx per tap), so interior
// pixels and zero padding pay one branch per pixel and group of channels.
#pragma once

#include <riscv_vector.h>

#include <cstdint>
#include <type_traits>

#include <tessera/core/requant.hpp>
#include <tessera/core/window.hpp>
#include <tessera/kernels/arch/rvv.hpp>
#include <tessera/kernels/reference/conv2d.hpp>
#include <tessera/kernels/rvv/requant.hpp>
#include <tessera/kernels/rvv/traits.hpp>

namespace tessera::kernels::rvv {

namespace detail {

/// Every output pixel of a depthwise convolution, from weights widened to [tap][channel] int16
/// (`wt`), through one pixel's int32 sums (`acc`). `Pads`: the padding's value is not 0, so a
/// border pixel adds it times each skipped tap's weights; a separate instantiation, so that
/// zero padding pays nothing for it (the test and the value held in a register cost 4% on a
/// 3x3 layer of 64 channels).
template <bool Pads, class TIn, class TOut>
void depthwise_pixels(const reference::conv2d_dims& d, const TIn* in, const std::int16_t* wt,
                      const std::int32_t* bias, const row_requant& q, std::int32_t* acc, TOut* out) {
  using L = arch::rvv::lmul4;
  const int channels = d.out_c;
  const std::ptrdiff_t pitch = std::ptrdiff_t(d.in_w) * channels;
  const std::ptrdiff_t tap_w = std::ptrdiff_t(d.dilation_w) * channels;
  // The stored padding value as vwmacc.vx's int16 scalar: -128..255 is exact.
  const auto pad = static_cast<std::int16_t>(d.pad_value);
  for (int b = 0; b < d.batch; ++b) {
    const TIn* in_b = in + std::ptrdiff_t(b) * d.in_h * pitch;
    for (int y = 0; y < d.out_h; ++y) {
      const int iy0 = window::origin(y, d.stride_h, d.pad_top);
      const auto ti = window::taps_inside(iy0, d.kernel_h, d.dilation_h, d.in_h);
      for (int x = 0; x < d.out_w; ++x, out += channels) {
        const int ix0 = window::origin(x, d.stride_w, d.pad_left);
        const auto tj = window::taps_inside(ix0, d.kernel_w, d.dilation_w, d.in_w);
        const bool pads = Pads && (ti.count() < d.kernel_h || tj.count() < d.kernel_w);
        for (int c = 0; c < channels;) {
          const std::size_t vl = L::setvl(std::size_t(channels - c));
          typename L::i32 a = bias != nullptr ? L::load32(bias + c, vl) : L::zero(vl);
          for (int i = ti.begin; i < ti.end; ++i) {
            const TIn* cell = in_b + std::ptrdiff_t(iy0 + i * d.dilation_h) * pitch +
                              std::ptrdiff_t(ix0 + tj.begin * d.dilation_w) * channels + c;
            const std::int16_t* wp = wt + std::ptrdiff_t(i * d.kernel_w + tj.begin) * channels + c;
            for (int j = tj.begin; j < tj.end; ++j, cell += tap_w, wp += channels)
              a = arch::rvv::mac(a, L::load_widened<true>(cell, 1, vl), L::load16(wp, vl), vl);
          }
          if (pads) {
            const std::int16_t* wrow = wt + c;
            for (int i = 0; i < d.kernel_h; ++i, wrow += std::ptrdiff_t(d.kernel_w) * channels) {
              // The row's taps in the padding: [0, j0) and [j1, kernel_w) (all of them outside ti).
              const bool row_inside = i >= ti.begin && i < ti.end;
              const int j0 = row_inside ? tj.begin : d.kernel_w, j1 = row_inside ? tj.end : d.kernel_w;
              for (int j = 0; j < j0; ++j)
                a = arch::rvv::mac(a, pad, L::load16(wrow + std::ptrdiff_t(j) * channels, vl), vl);
              for (int j = j1; j < d.kernel_w; ++j)
                a = arch::rvv::mac(a, pad, L::load16(wrow + std::ptrdiff_t(j) * channels, vl), vl);
            }
          }
          L::store32(acc + c, a, vl);
          c += int(vl);
        }
        requant_row(q, acc, channels, out);
      }
    }
  }
}

}  // namespace detail

/// Depthwise convolution (groups == in_c == out_c), NHWC, reference::conv2d's contract, bit-exact.
///
/// - `in`: [batch][in_h][in_w][C] int8 or uint8; `w`: [C][kernel_h][kernel_w] int8.
/// - `bias`: [C] int32 or null; `rq`: disabled, per tensor or per channel.
/// - `out`: [batch][out_h][out_w][C]; `scratch`: depthwise_scratch(d).total bytes.
/// - `ReadsPadValue`: false when no call reads a nonzero pad value (concepts.hpp): the padded
///   pixel loop is then not instantiated.
template <bool ReadsPadValue = true, class TIn, class TOut>
void depthwise_hwc(const reference::conv2d_dims& d, const TIn* in, const std::int8_t* w, const std::int32_t* bias,
                   const requant_params& rq, TOut* out, void* scratch) {
  using L = arch::rvv::lmul4;
  const auto layout = depthwise_scratch(d);
  auto* wt = layout.part<std::int16_t>(scratch, 0);
  auto* acc = layout.part<std::int32_t>(scratch, 1);
  const int channels = d.out_c;
  const int taps = d.kernel_h * d.kernel_w;
  // [c][tap] int8 -> [tap][c] int16: one strided load per tap.
  for (int t = 0; t < taps; ++t)
    for (int c = 0; c < channels;) {
      const std::size_t vl = L::setvl(std::size_t(channels - c));
      __riscv_vse16_v_i16m4(wt + std::ptrdiff_t(t) * channels + c,
                            L::load_widened<false>(w + std::ptrdiff_t(c) * taps + t, taps, vl), vl);
      c += int(vl);
    }
  const row_requant q = channel_requant_of(rq);
  if constexpr (ReadsPadValue) {
    if (reference::reads_pad_value(d)) return detail::depthwise_pixels<true>(d, in, wt, bias, q, acc, out);
  }
  detail::depthwise_pixels<false>(d, in, wt, bias, q, acc, out);
}

}  // namespace tessera::kernels::rvv
