// Thin wrappers over the x86 SIMD instructions the x86 kernel family uses: SSE4.1 as the
// baseline (PMOVSXBW/PMOVZXBW, PMADDWD, PMULDQ, PBLENDW, PMINSD), AVX2 where the compiler
// targets it. Kernels are written once against the "wide" vector (`vwide`, 16 bytes with
// SSE4.1, 32 bytes with AVX2); reductions end in 128-bit vectors, requantization takes 4 int32
// lanes (SSE4.1) or 8 (AVX2).
//
// Each wrapper is one instruction or a fixed short sequence of them; anything that is an
// algorithm (tiles, epilogues) lives in ../x86/.
#pragma once

#if !defined(__SSE4_1__)
#error "tessera/kernels/arch/x86.hpp needs SSE4.1 (-msse4.1 or newer)"
#endif

// <immintrin.h> declares every x86 extension and costs ~0.4 s of parse time per translation
// unit; the SSE4.1 baseline needs only <smmintrin.h>.
#if defined(__AVX2__)
#include <immintrin.h>
#else
#include <smmintrin.h>
#endif

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace tessera::kernels::arch::x86 {

using v128 = __m128i;

// --- 128-bit loads and stores (unaligned: kernels never assume the caller's alignment) ---------

inline v128 zero128() { return _mm_setzero_si128(); }
inline v128 load128(const void* p) { return _mm_loadu_si128(static_cast<const __m128i*>(p)); }
inline v128 load64(const void* p) { return _mm_loadl_epi64(static_cast<const __m128i*>(p)); }
inline void store128(void* p, v128 v) { _mm_storeu_si128(static_cast<__m128i*>(p), v); }
inline v128 set1_32(std::int32_t x) { return _mm_set1_epi32(x); }

/// The first `bytes` (< 16) bytes at `p` in the low bytes, zeros above: a load that never reads
/// past the end of a buffer (tails of rows and channel blocks).
inline v128 load128_partial(const void* p, int bytes) {
  alignas(16) unsigned char tmp[16] = {};
  std::memcpy(tmp, p, static_cast<std::size_t>(bytes));
  return _mm_load_si128(reinterpret_cast<const __m128i*>(tmp));
}
/// The `bytes` (< 8) bytes at `p` in the low bytes, zeros above, read as the 8 bytes that end
/// at p + bytes: for a tail whose 8 - bytes predecessors are readable (no copy through memory).
inline v128 load64_tail(const void* p, int bytes) {
  const v128 v = load64(static_cast<const unsigned char*>(p) + bytes - 8);
  return _mm_srl_epi64(v, _mm_cvtsi32_si128(8 * (8 - bytes)));
}
/// Stores the low `bytes` (<= 16) bytes of `v`.
inline void store128_partial(void* p, v128 v, int bytes) {
  alignas(16) unsigned char tmp[16];
  _mm_store_si128(reinterpret_cast<__m128i*>(tmp), v);
  std::memcpy(p, tmp, static_cast<std::size_t>(bytes));
}

// --- widening (sign or zero extension by the element type) -------------------------------------

/// The low 8 bytes of `v`, 8-bit elements of type T, as 8 int16 (PMOVSXBW / PMOVZXBW).
template <class T>
inline v128 widen16(v128 v) {
  static_assert(sizeof(T) == 1, "widen16: 8-bit elements only");
  if constexpr (std::is_signed_v<T>) return _mm_cvtepi8_epi16(v);
  else return _mm_cvtepu8_epi16(v);
}
/// The low 4 bytes of `v`, 8-bit elements of type T, as 4 int32 (PMOVSXBD / PMOVZXBD).
template <class T>
inline v128 widen32(v128 v) {
  static_assert(sizeof(T) == 1, "widen32: 8-bit elements only");
  if constexpr (std::is_signed_v<T>) return _mm_cvtepi8_epi32(v);
  else return _mm_cvtepu8_epi32(v);
}

// --- integer arithmetic -------------------------------------------------------------------------

inline v128 add32(v128 a, v128 b) { return _mm_add_epi32(a, b); }
inline v128 add16(v128 a, v128 b) { return _mm_add_epi16(a, b); }
inline v128 sub16(v128 a, v128 b) { return _mm_sub_epi16(a, b); }
/// PMADDWD: int32 lane i = a[2i]*b[2i] + a[2i+1]*b[2i+1] (exact for 8-bit operands).
inline v128 madd16(v128 a, v128 b) { return _mm_madd_epi16(a, b); }
inline v128 min32(v128 a, v128 b) { return _mm_min_epi32(a, b); }
inline v128 max32(v128 a, v128 b) { return _mm_max_epi32(a, b); }

/// The 4 horizontal sums {sum(a), sum(b), sum(c), sum(d)} of int32 vectors (two PHADDD levels).
inline v128 hsum4(v128 a, v128 b, v128 c, v128 d) {
  return _mm_hadd_epi32(_mm_hadd_epi32(a, b), _mm_hadd_epi32(c, d));
}

/// Lane-wise maximum of 16 8-bit elements of type T (PMAXSB / PMAXUB).
template <class T>
inline v128 max8(v128 a, v128 b) {
  if constexpr (std::is_signed_v<T>) return _mm_max_epi8(a, b);
  else return _mm_max_epu8(a, b);
}

// --- 64-bit lanes (requantization) --------------------------------------------------------------

/// PMULDQ: the signed 64-bit products of the even int32 lanes (0 and 2).
inline v128 mul_even_s32(v128 a, v128 b) { return _mm_mul_epi32(a, b); }
/// The odd int32 lanes (1 and 3) moved down to the even positions.
inline v128 odd_to_even(v128 a) { return _mm_srli_epi64(a, 32); }
inline v128 add64(v128 a, v128 b) { return _mm_add_epi64(a, b); }
inline v128 set1_64(std::int64_t x) { return _mm_set1_epi64x(x); }
/// The even int32 lanes (0 and 2) sign-extended to the two int64 lanes.
inline v128 sext_even(v128 a) { return _mm_blend_epi16(a, _mm_slli_epi64(_mm_srai_epi32(a, 31), 32), 0xCC); }
/// The odd int32 lanes (1 and 3) sign-extended to the two int64 lanes.
inline v128 sext_odd(v128 a) { return _mm_blend_epi16(_mm_srli_epi64(a, 32), _mm_srai_epi32(a, 31), 0xCC); }
/// Arithmetic right shift of both int64 lanes by `count` (0..63, in the low 64 bits of
/// `count`). SSE has no PSRAQ: floor(x / 2^s) = ~(~x >> s) for negative x, so the sign is
/// flipped, shifted logically and flipped back.
inline v128 sra64(v128 x, v128 count) {
  const v128 sign = _mm_shuffle_epi32(_mm_srai_epi32(x, 31), _MM_SHUFFLE(3, 3, 1, 1));
  return _mm_xor_si128(_mm_srl_epi64(_mm_xor_si128(x, sign), count), sign);
}
/// Two vectors of int64 lanes {e0, e1} and {o0, o1} to the int32 lanes {e0, o0, e1, o1},
/// each saturated to the int32 range (a value keeps its low half when the high half is its
/// sign extension; otherwise it becomes INT32_MIN or INT32_MAX by its sign).
inline v128 interleave_sat64(v128 even, v128 odd) {
  const v128 lows = _mm_blend_epi16(even, _mm_slli_epi64(odd, 32), 0xCC);
  const v128 highs = _mm_blend_epi16(_mm_srli_epi64(even, 32), odd, 0xCC);
  const v128 fits = _mm_cmpeq_epi32(highs, _mm_srai_epi32(lows, 31));
  const v128 saturated = _mm_xor_si128(_mm_srai_epi32(highs, 31), _mm_set1_epi32(0x7FFFFFFF));
  return _mm_blendv_epi8(saturated, lows, fits);
}

// --- narrowing by truncation (static_cast semantics) --------------------------------------------

/// The low byte of each int32 lane in bytes 0..3 (PSHUFB): static_cast to an 8-bit type.
inline v128 truncate32to8(v128 v) {
  return _mm_shuffle_epi8(v, _mm_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1));
}
/// The low 16 bits of each int32 lane in bytes 0..7: static_cast to a 16-bit type.
inline v128 truncate32to16(v128 v) {
  return _mm_shuffle_epi8(v, _mm_setr_epi8(0, 1, 4, 5, 8, 9, 12, 13, -1, -1, -1, -1, -1, -1, -1, -1));
}

#if defined(__AVX2__)
// --- 256-bit versions of the requantization steps above (same semantics per 128-bit half) ------

using v256 = __m256i;
inline v256 mul_even_s32(v256 a, v256 b) { return _mm256_mul_epi32(a, b); }
inline v256 odd_to_even(v256 a) { return _mm256_srli_epi64(a, 32); }
inline v256 add64(v256 a, v256 b) { return _mm256_add_epi64(a, b); }
inline v256 sext_even(v256 a) {
  return _mm256_blend_epi16(a, _mm256_slli_epi64(_mm256_srai_epi32(a, 31), 32), 0xCC);
}
inline v256 sext_odd(v256 a) { return _mm256_blend_epi16(_mm256_srli_epi64(a, 32), _mm256_srai_epi32(a, 31), 0xCC); }
inline v256 sra64(v256 x, v128 count) {
  const v256 sign = _mm256_shuffle_epi32(_mm256_srai_epi32(x, 31), _MM_SHUFFLE(3, 3, 1, 1));
  return _mm256_xor_si256(_mm256_srl_epi64(_mm256_xor_si256(x, sign), count), sign);
}
inline v256 interleave_sat64(v256 even, v256 odd) {
  const v256 lows = _mm256_blend_epi16(even, _mm256_slli_epi64(odd, 32), 0xCC);
  const v256 highs = _mm256_blend_epi16(_mm256_srli_epi64(even, 32), odd, 0xCC);
  const v256 fits = _mm256_cmpeq_epi32(highs, _mm256_srai_epi32(lows, 31));
  const v256 saturated = _mm256_xor_si256(_mm256_srai_epi32(highs, 31), _mm256_set1_epi32(0x7FFFFFFF));
  return _mm256_blendv_epi8(saturated, lows, fits);
}
inline v256 min32(v256 a, v256 b) { return _mm256_min_epi32(a, b); }
inline v256 max32(v256 a, v256 b) { return _mm256_max_epi32(a, b); }
/// The low byte of each of the 8 int32 lanes in bytes 0..7 (static_cast to an 8-bit type).
inline v128 truncate32to8(v256 v) {
  const v256 per_half = _mm256_shuffle_epi8(
      v, _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 4, 8, 12, -1, -1, -1, -1, -1,
                          -1, -1, -1, -1, -1, -1, -1));
  return _mm_unpacklo_epi32(_mm256_castsi256_si128(per_half), _mm256_extracti128_si256(per_half, 1));
}
/// The low 16 bits of each of the 8 int32 lanes in bytes 0..15 (static_cast to a 16-bit type).
inline v128 truncate32to16(v256 v) {
  const v256 per_half = _mm256_shuffle_epi8(
      v, _mm256_setr_epi8(0, 1, 4, 5, 8, 9, 12, 13, -1, -1, -1, -1, -1, -1, -1, -1, 0, 1, 4, 5, 8, 9, 12, 13, -1, -1,
                          -1, -1, -1, -1, -1, -1));
  return _mm_unpacklo_epi64(_mm256_castsi256_si128(per_half), _mm256_extracti128_si256(per_half, 1));
}
inline v256 set1_32_256(std::int32_t x) { return _mm256_set1_epi32(x); }
inline v256 load256(const void* p) { return _mm256_loadu_si256(static_cast<const __m256i*>(p)); }
inline void store256(void* p, v256 v) { _mm256_storeu_si256(static_cast<__m256i*>(p), v); }
inline v256 load256_partial(const void* p, int bytes) {
  alignas(32) unsigned char tmp[32] = {};
  std::memcpy(tmp, p, static_cast<std::size_t>(bytes));
  return _mm256_load_si256(reinterpret_cast<const __m256i*>(tmp));
}
inline void store256_partial(void* p, v256 v, int bytes) {
  alignas(32) unsigned char tmp[32];
  _mm256_store_si256(reinterpret_cast<__m256i*>(tmp), v);
  std::memcpy(p, tmp, static_cast<std::size_t>(bytes));
}
#endif

// --- the wide vector: 16 bytes (SSE4.1) or 32 bytes (AVX2) ---------------------------------------

#if defined(__AVX2__)
using vwide = __m256i;
inline constexpr int wide_bytes = 32;

inline vwide wide_zero() { return _mm256_setzero_si256(); }
inline vwide wide_load(const void* p) { return _mm256_loadu_si256(static_cast<const __m256i*>(p)); }
inline void wide_store(void* p, vwide v) { _mm256_storeu_si256(static_cast<__m256i*>(p), v); }
/// 16 8-bit elements of type T at `p` as 16 int16 (VPMOVSXBW / VPMOVZXBW ymm).
template <class T>
inline vwide wide_load_widen(const T* p) {
  static_assert(sizeof(T) == 1, "wide_load_widen: 8-bit elements only");
  if constexpr (std::is_signed_v<T>) return _mm256_cvtepi8_epi16(load128(p));
  else return _mm256_cvtepu8_epi16(load128(p));
}
/// As `wide_load_widen`, reading only the first `n` (< 16) elements; the others are 0. With
/// n >= 8 (the k-tail of every reduction over 8 mod 16 channels: MobileNetV2's 8, 24, 56) no
/// byte beyond p + n is read and nothing goes through memory: 8 bytes at p, and the n - 8 after
/// them as the 8 bytes that end at p + n, shifted down. The copy through a stack buffer that
/// other tails take cost a store-forwarding stall per weight row and made AVX2 2.3-4.5x slower
/// than SSE4.1 on those layers (issue 14); n < 8 has no such safe load and keeps the copy.
template <class T>
inline vwide wide_load_widen_partial(const T* p, int n) {
  const v128 bytes = n == 8  ? load64(p)
                     : n > 8 ? _mm_unpacklo_epi64(load64(p), load64_tail(p + 8, n - 8))
                             : load128_partial(p, n);
  if constexpr (std::is_signed_v<T>) return _mm256_cvtepi8_epi16(bytes);
  else return _mm256_cvtepu8_epi16(bytes);
}
inline vwide wide_madd16(vwide a, vwide b) { return _mm256_madd_epi16(a, b); }
inline vwide wide_add32(vwide a, vwide b) { return _mm256_add_epi32(a, b); }
/// Interleaved int16 pairs {a0,b0,a1,b1,..}: per 128-bit half (VPUNPCKLWD / VPUNPCKHWD), so the
/// low result holds elements 0-3 and 8-11, the high one 4-7 and 12-15 (see `wide_unpermute`).
inline vwide wide_unpacklo16(vwide a, vwide b) { return _mm256_unpacklo_epi16(a, b); }
inline vwide wide_unpackhi16(vwide a, vwide b) { return _mm256_unpackhi_epi16(a, b); }
/// The int32 results of PMADDWD on `wide_unpacklo16`/`wide_unpackhi16` pairs back in element
/// order: {0-3, 4-7} in `first`, {8-11, 12-15} in `second`.
inline void wide_unpermute(vwide lo, vwide hi, vwide& first, vwide& second) {
  first = _mm256_permute2x128_si256(lo, hi, 0x20);
  second = _mm256_permute2x128_si256(lo, hi, 0x31);
}
/// {sum(a), sum(b), sum(c), sum(d)} of int32 lanes.
inline v128 wide_hsum4(vwide a, vwide b, vwide c, vwide d) {
  const vwide h = _mm256_hadd_epi32(_mm256_hadd_epi32(a, b), _mm256_hadd_epi32(c, d));
  return _mm_add_epi32(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
}
inline vwide wide_set1_32(std::int32_t x) { return _mm256_set1_epi32(x); }
inline vwide wide_add16(vwide a, vwide b) { return _mm256_add_epi16(a, b); }
inline vwide wide_sub16(vwide a, vwide b) { return _mm256_sub_epi16(a, b); }
inline vwide wide_set1_16(std::int16_t x) { return _mm256_set1_epi16(x); }
/// The low and high halves of 16 int16 lanes, each as 8 int32 lanes (VPMOVSXWD).
inline vwide wide_widen16to32_lo(vwide v) { return _mm256_cvtepi16_epi32(_mm256_castsi256_si128(v)); }
inline vwide wide_widen16to32_hi(vwide v) { return _mm256_cvtepi16_epi32(_mm256_extracti128_si256(v, 1)); }
#else
using vwide = __m128i;
inline constexpr int wide_bytes = 16;

inline vwide wide_zero() { return zero128(); }
inline vwide wide_load(const void* p) { return load128(p); }
inline void wide_store(void* p, vwide v) { store128(p, v); }
/// 8 8-bit elements of type T at `p` as 8 int16.
template <class T>
inline vwide wide_load_widen(const T* p) { return widen16<T>(load64(p)); }
/// As `wide_load_widen`, reading only the first `n` (< 8) elements; the others are 0.
template <class T>
inline vwide wide_load_widen_partial(const T* p, int n) { return widen16<T>(load128_partial(p, n)); }
inline vwide wide_madd16(vwide a, vwide b) { return madd16(a, b); }
inline vwide wide_add32(vwide a, vwide b) { return add32(a, b); }
inline vwide wide_unpacklo16(vwide a, vwide b) { return _mm_unpacklo_epi16(a, b); }
inline vwide wide_unpackhi16(vwide a, vwide b) { return _mm_unpackhi_epi16(a, b); }
inline void wide_unpermute(vwide lo, vwide hi, vwide& first, vwide& second) {
  first = lo;
  second = hi;
}
inline v128 wide_hsum4(vwide a, vwide b, vwide c, vwide d) { return hsum4(a, b, c, d); }
inline vwide wide_set1_32(std::int32_t x) { return set1_32(x); }
inline vwide wide_add16(vwide a, vwide b) { return add16(a, b); }
inline vwide wide_sub16(vwide a, vwide b) { return sub16(a, b); }
inline vwide wide_set1_16(std::int16_t x) { return _mm_set1_epi16(x); }
inline vwide wide_widen16to32_lo(vwide v) { return _mm_cvtepi16_epi32(v); }
inline vwide wide_widen16to32_hi(vwide v) { return _mm_cvtepi16_epi32(_mm_srli_si128(v, 8)); }
#endif

/// int16 elements per wide vector (the step of the PMADDWD loops) and int32 lanes.
inline constexpr int wide_i16 = wide_bytes / 2;
inline constexpr int wide_i32 = wide_bytes / 4;

}  // namespace tessera::kernels::arch::x86
