// x86 average pooling, channels-last: int32 window sums over 8 channels at a time, then the
// reference's round-half-up division floor((2*sum + count) / (2*count)) in double precision.
//
// Why double is exact: |2*sum + count| < 2^53 and the divisor is a positive integer D, so the
// correctly rounded quotient differs from the true one by less than |q| * 2^-53 < 1/D, while
// a non-integer quotient lies at least 1/D away from any integer: floor() of the rounded
// quotient is floor() of the true one. The result is within T's range (an average of T
// values); packing with saturation would clamp it like the reference anyway.
//
// Scratch: none (average_pool2d_scratch_bytes is 0).
#pragma once

#include <cstdint>

#include <tessera/kernels/arch/x86.hpp>
#include <tessera/kernels/x86/max_pool2d_hwc.hpp>
#include <tessera/kernels/x86/traits.hpp>

namespace tessera::kernels::x86 {

namespace ax = arch::x86;

/// floor((2*sum + count) / (2*count)) for 4 int32 sums and count > 0 (see the header comment).
inline ax::v128 rounded_average4(ax::v128 sum, int count) {
  const __m128d two = _mm_set1_pd(2.0), c = _mm_set1_pd(count), div = _mm_set1_pd(2.0 * count);
  const __m128d lo = _mm_cvtepi32_pd(sum), hi = _mm_cvtepi32_pd(_mm_srli_si128(sum, 8));
  const __m128d qlo = _mm_floor_pd(_mm_div_pd(_mm_add_pd(_mm_mul_pd(lo, two), c), div));
  const __m128d qhi = _mm_floor_pd(_mm_div_pd(_mm_add_pd(_mm_mul_pd(hi, two), c), div));
  return _mm_unpacklo_epi64(_mm_cvttpd_epi32(qlo), _mm_cvttpd_epi32(qhi));
}

/// 8 int32 lanes (two vectors) to 8 T values with saturation, in the low 8 bytes.
template <class T>
inline ax::v128 pack_to_8bit(ax::v128 a, ax::v128 b) {
  const ax::v128 w = _mm_packs_epi32(a, b);
  if constexpr (std::is_signed_v<T>) return _mm_packs_epi16(w, w);
  else return _mm_packus_epi16(w, w);
}

/// Average pooling (semantics: reference::average_pool2d, including count_include_pad).
/// - in:  NHWC [batch][in_h][in_w][channels], 8-bit;  out: NHWC [batch][out_h][out_w][channels]
template <class T>
void average_pool2d_hwc(const reference::pool2d_dims& d, bool count_include_pad, const T* in, T* out) {
  constexpr int lanes = 8;
  const int channels = d.channels;
  for (int n = 0; n < d.batch; ++n) {
    const T* image = in + std::int64_t(n) * d.in_h * d.in_w * channels;
    for (int y = 0; y < d.out_h; ++y) {
      const window_range rows = clip_window(y, d.stride_h, d.pad_top, d.kernel_h, d.in_h);
      // With count_include_pad the cells inside the padded extent count, padding included.
      const window_range prow = clip_window(y, d.stride_h, 0, d.kernel_h, d.in_h + d.pad_top + d.pad_bottom);
      for (int x = 0; x < d.out_w; ++x) {
        const window_range cols = clip_window(x, d.stride_w, d.pad_left, d.kernel_w, d.in_w);
        const window_range pcol = clip_window(x, d.stride_w, 0, d.kernel_w, d.in_w + d.pad_left + d.pad_right);
        const int count = count_include_pad ? (prow.hi - prow.lo) * (pcol.hi - pcol.lo)
                                            : (rows.hi - rows.lo) * (cols.hi - cols.lo);
        T* o = out + ((std::int64_t(n) * d.out_h + y) * d.out_w + x) * channels;
        if (count == 0) {
          for (int c = 0; c < channels; ++c) o[c] = T{};
          continue;
        }
        for (int c = 0; c < channels; c += lanes) {
          const int nc = channels - c < lanes ? channels - c : lanes;
          ax::v128 s0 = ax::zero128(), s1 = ax::zero128();
          for (int iy = rows.lo; iy < rows.hi; ++iy) {
            for (int ix = cols.lo; ix < cols.hi; ++ix) {
              const T* p = image + (std::int64_t(iy) * d.in_w + ix) * channels + c;
              const ax::v128 v = nc == lanes ? ax::load64(p) : ax::load128_partial(p, nc);
              s0 = ax::add32(s0, ax::widen32<T>(v));
              s1 = ax::add32(s1, ax::widen32<T>(_mm_srli_si128(v, 4)));
            }
          }
          const ax::v128 packed = pack_to_8bit<T>(rounded_average4(s0, count), rounded_average4(s1, count));
          if (nc == lanes) _mm_storel_epi64(reinterpret_cast<__m128i*>(o + c), packed);
          else ax::store128_partial(o + c, packed, nc);
        }
      }
    }
  }
}

}  // namespace tessera::kernels::x86
