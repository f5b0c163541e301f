// The x86 kernels' epilogue: int32 accumulators of consecutive outputs -> requantized and
// stored as TOut, 4 (SSE4.1) or 8 (AVX2) lanes at a time.
//
// The rule is `tessera::requantize` exactly, with its 64-bit intermediate: PMULDQ gives the
// 64-bit products of the even lanes (the odd lanes are shifted down first), the 64-bit sum
// with add + 2^(shift-1) is shifted arithmetically (emulated: SSE/AVX2 have no PSRAQ), then
// saturated to int32 and clamped to [lo, hi] in int32 (saturating first cannot change a clamp
// to int32 bounds). The store truncates like the reference's static_cast<TOut>.
#pragma once

#include <cstdint>
#include <cstring>

#include <tessera/core/requant.hpp>
#include <tessera/kernels/arch/x86.hpp>

namespace tessera::kernels::x86 {

namespace ax = arch::x86;

/// Which `mul`/`add` entry each output uses (see `requant_params`). Outputs are addressed as
/// (row, channel) of a row-major {rows, channels} matrix, plus their flat index for `generic`.
enum class requant_mode : std::uint8_t {
  none,     ///< disabled: the int32 accumulator is stored
  tensor,   ///< length 1
  channel,  ///< one entry per channel (inner 1, length == channels)
  row,      ///< one entry per row (inner == channels, length == rows)
  generic,  ///< any other layout: scalar `requant_params::apply` on the flat index
};

constexpr requant_mode classify_requant(const requant_params& rq, int rows, int channels) {
  if (!rq.enabled) return requant_mode::none;
  if (rq.length == 1) return requant_mode::tensor;
  if (rq.inner == 1 && rq.length == channels) return requant_mode::channel;
  if (rows > 0 && rq.inner == channels && rq.length == rows) return requant_mode::row;
  return requant_mode::generic;
}

/// Stores the low `n` int32 lanes of `v` as TOut (static_cast semantics), n <= 4.
template <class TOut>
inline void store_lanes(TOut* out, ax::v128 v, int n) {
  if constexpr (sizeof(TOut) == 4) {
    if (n == 4) ax::store128(out, v);
    else ax::store128_partial(out, v, 4 * n);
  } else if constexpr (sizeof(TOut) == 2) {
    ax::store128_partial(out, ax::truncate32to16(v), 2 * n);
  } else {
    const ax::v128 b = ax::truncate32to8(v);
    if (n == 4) {
      const int word = _mm_cvtsi128_si32(b);
      std::memcpy(out, &word, 4);
    } else {
      ax::store128_partial(out, b, n);
    }
  }
}

#if defined(__AVX2__)
/// Stores the low `n` int32 lanes of `v` as TOut, n <= 8.
template <class TOut>
inline void store_lanes(TOut* out, ax::v256 v, int n) {
  if constexpr (sizeof(TOut) == 4) {
    if (n == 8) ax::store256(out, v);
    else ax::store256_partial(out, v, 4 * n);
  } else if constexpr (sizeof(TOut) == 2) {
    const ax::v128 h = ax::truncate32to16(v);
    if (n == 8) ax::store128(out, h);
    else ax::store128_partial(out, h, 2 * n);
  } else {
    const ax::v128 b = ax::truncate32to8(v);
    if (n == 8) _mm_storel_epi64(reinterpret_cast<__m128i*>(out), b);
    else ax::store128_partial(out, b, n);
  }
}
#endif

/// The exact requantization of int32 lanes with per-lane `mul` and `add`.
struct vector_requant {
  ax::v128 rounding;  ///< 2^(shift-1) in both int64 lanes (0 when shift is 0)
  ax::v128 count;     ///< the shift, as PSRLQ's count operand
  std::int32_t lo, hi;

  explicit vector_requant(const requant_params& rq)
      : rounding(ax::set1_64(rq.shift > 0 ? (std::int64_t{1} << (rq.shift - 1)) : 0)),
        count(_mm_cvtsi32_si128(rq.shift)),
        lo(rq.lo),
        hi(rq.hi) {}

  ax::v128 operator()(ax::v128 acc, ax::v128 mul, ax::v128 add) const {
    using namespace ax;
    v128 even = add64(mul_even_s32(acc, mul), add64(sext_even(add), rounding));
    v128 odd = add64(mul_even_s32(odd_to_even(acc), odd_to_even(mul)), add64(sext_odd(add), rounding));
    even = sra64(even, count);
    odd = sra64(odd, count);
    return min32(max32(interleave_sat64(even, odd), set1_32(lo)), set1_32(hi));
  }
#if defined(__AVX2__)
  ax::v256 operator()(ax::v256 acc, ax::v256 mul, ax::v256 add) const {
    using namespace ax;
    const v256 round = _mm256_broadcastq_epi64(rounding);
    v256 even = add64(mul_even_s32(acc, mul), add64(sext_even(add), round));
    v256 odd = add64(mul_even_s32(odd_to_even(acc), odd_to_even(mul)), add64(sext_odd(add), round));
    even = sra64(even, count);
    odd = sra64(odd, count);
    return min32(max32(interleave_sat64(even, odd), set1_32_256(lo)), set1_32_256(hi));
  }
#endif
};

/// Requantizes and stores runs of consecutive outputs of one row: the accumulators of
/// channels c0 .. c0+n-1 of row `row`, whose flat output index starts at `flat`.
template <class TOut>
struct epilogue {
  requant_params rq;
  requant_mode mode;
  vector_requant vrq;

  /// `rows` <= 0 when the output has no row structure that per-row parameters could follow.
  epilogue(const requant_params& r, int rows, int channels)
      : rq(r), mode(classify_requant(r, rows, channels)), vrq(r) {}

  /// Up to 4 lanes.
  void store(TOut* out, ax::v128 acc, int row, int c0, int n, std::int64_t flat) const {
    switch (mode) {
      case requant_mode::none: store_lanes(out, acc, n); return;
      case requant_mode::tensor: store_lanes(out, vrq(acc, ax::set1_32(rq.mul[0]), ax::set1_32(rq.add[0])), n); return;
      case requant_mode::row:
        store_lanes(out, vrq(acc, ax::set1_32(rq.mul[row]), ax::set1_32(rq.add[row])), n);
        return;
      case requant_mode::channel: {
        const ax::v128 m = n == 4 ? ax::load128(rq.mul + c0) : ax::load128_partial(rq.mul + c0, 4 * n);
        const ax::v128 a = n == 4 ? ax::load128(rq.add + c0) : ax::load128_partial(rq.add + c0, 4 * n);
        store_lanes(out, vrq(acc, m, a), n);
        return;
      }
      case requant_mode::generic: {
        alignas(16) std::int32_t lanes[4];
        ax::store128(lanes, acc);
        for (int i = 0; i < n; ++i) out[i] = static_cast<TOut>(rq.apply(lanes[i], flat + i));
        return;
      }
    }
  }

  /// The same n <= 4 channels c0.. of two rows (a 2-row micro-tile): with AVX2 both rows are
  /// requantized as one 8-lane vector, which halves the epilogue's cost.
  void store_pair(TOut* out0, TOut* out1, ax::v128 acc0, ax::v128 acc1, int row0, int c0, int n, std::int64_t flat0,
                  std::int64_t flat1) const {
#if defined(__AVX2__)
    if (mode == requant_mode::tensor || mode == requant_mode::channel || mode == requant_mode::row) {
      ax::v256 m, a;
      if (mode == requant_mode::tensor) {
        m = ax::set1_32_256(rq.mul[0]);
        a = ax::set1_32_256(rq.add[0]);
      } else if (mode == requant_mode::channel) {
        m = _mm256_broadcastsi128_si256(n == 4 ? ax::load128(rq.mul + c0) : ax::load128_partial(rq.mul + c0, 4 * n));
        a = _mm256_broadcastsi128_si256(n == 4 ? ax::load128(rq.add + c0) : ax::load128_partial(rq.add + c0, 4 * n));
      } else {
        m = _mm256_set_m128i(ax::set1_32(rq.mul[row0 + 1]), ax::set1_32(rq.mul[row0]));
        a = _mm256_set_m128i(ax::set1_32(rq.add[row0 + 1]), ax::set1_32(rq.add[row0]));
      }
      const ax::v256 y = vrq(_mm256_set_m128i(acc1, acc0), m, a);
      store_lanes(out0, _mm256_castsi256_si128(y), n);
      store_lanes(out1, _mm256_extracti128_si256(y, 1), n);
      return;
    }
#endif
    store(out0, acc0, row0, c0, n, flat0);
    store(out1, acc1, row0 + 1, c0, n, flat1);
  }

  /// Lanes that all belong to channel `c` (a CHW kernel's run of pixels): writes n <= lanes
  /// values to out[0..n) contiguously; their flat output indices are flat + i * flat_stride.
  template <class V>
  void store_channel(TOut* out, V acc, int c, int n, std::int64_t flat, std::int64_t flat_stride) const {
    if (mode == requant_mode::generic) {
      alignas(32) std::int32_t lanes[sizeof(V) / 4];
      std::memcpy(lanes, &acc, sizeof(V));
      for (int i = 0; i < n; ++i) out[i] = static_cast<TOut>(rq.apply(lanes[i], flat + i * flat_stride));
      return;
    }
    if (mode == requant_mode::none) {
      store_lanes(out, acc, n);
      return;
    }
    const int k = mode == requant_mode::tensor ? 0 : c;
    store_lanes(out, vrq(acc, splat<V>(rq.mul[k]), splat<V>(rq.add[k])), n);
  }

  template <class V>
  static V splat(std::int32_t x) {
#if defined(__AVX2__)
    if constexpr (sizeof(V) == 32) return ax::set1_32_256(x);
    else return ax::set1_32(x);
#else
    return ax::set1_32(x);
#endif
  }

#if defined(__AVX2__)
  /// Up to 8 lanes.
  void store(TOut* out, ax::v256 acc, int row, int c0, int n, std::int64_t flat) const {
    switch (mode) {
      case requant_mode::none: store_lanes(out, acc, n); return;
      case requant_mode::tensor:
        store_lanes(out, vrq(acc, ax::set1_32_256(rq.mul[0]), ax::set1_32_256(rq.add[0])), n);
        return;
      case requant_mode::row:
        store_lanes(out, vrq(acc, ax::set1_32_256(rq.mul[row]), ax::set1_32_256(rq.add[row])), n);
        return;
      case requant_mode::channel: {
        const ax::v256 m = n == 8 ? ax::load256(rq.mul + c0) : ax::load256_partial(rq.mul + c0, 4 * n);
        const ax::v256 a = n == 8 ? ax::load256(rq.add + c0) : ax::load256_partial(rq.add + c0, 4 * n);
        store_lanes(out, vrq(acc, m, a), n);
        return;
      }
      case requant_mode::generic: {
        alignas(32) std::int32_t lanes[8];
        ax::store256(lanes, acc);
        for (int i = 0; i < n; ++i) out[i] = static_cast<TOut>(rq.apply(lanes[i], flat + i));
        return;
      }
    }
  }
#endif
};

}  // namespace tessera::kernels::x86
