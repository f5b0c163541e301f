// Thin wrappers over the Armv7E-M DSP extension (Cortex-M4, M7, M33, and the M55's scalar core).
//
// Only what the arm_dsp kernels use. ACLE (arm_acle.h) covers most of it; the forms it lacks
// (SXTB16/UXTB16 with a rotation, PKHBT/PKHTB) are one-instruction asm statements, so that the
// compiler neither emits a separate ROR nor falls back to shifts and masks. Naming: the
// instruction in lower case; halfword lanes are written [lo, hi].
//
// The expansion convention every kernel relies on: for a word holding bytes b0 b1 b2 b3,
// `sxtb16(x)` = [b0, b2] and `sxtb16_ror8(x)` = [b1, b3]. When both operands of a dot product
// are expanded the same way, SMLAD(lane pairs) adds b0*c0 + b2*c2 and b1*c1 + b3*c3, so no
// PKHBT is needed to restore the original order.
#pragma once

#if !defined(__ARM_FEATURE_DSP)
#error "tessera/kernels/arch/arm_dsp.hpp needs the Arm DSP extension (-mcpu=cortex-m4 or later)"
#endif

#include <arm_acle.h>

#include <cstdint>
#include <cstring>

namespace tessera::kernels::arch::arm_dsp {

using u32 = std::uint32_t;
using s32 = std::int32_t;

/// [sign-extended b0, sign-extended b2]
[[gnu::always_inline]] inline u32 sxtb16(u32 x) { return static_cast<u32>(__sxtb16(static_cast<s32>(x))); }
/// [sign-extended b1, sign-extended b3]
[[gnu::always_inline]] inline u32 sxtb16_ror8(u32 x) {
  u32 r;
  asm("sxtb16 %0, %1, ror #8" : "=r"(r) : "r"(x));
  return r;
}
/// [zero-extended b0, zero-extended b2]
[[gnu::always_inline]] inline u32 uxtb16(u32 x) { return static_cast<u32>(__uxtb16(x)); }
/// [zero-extended b1, zero-extended b3]
[[gnu::always_inline]] inline u32 uxtb16_ror8(u32 x) {
  u32 r;
  asm("uxtb16 %0, %1, ror #8" : "=r"(r) : "r"(x));
  return r;
}

/// The two expansions of an 8-bit word of type T (signed: SXTB16, unsigned: UXTB16). Values
/// 0..255 stay positive in 16 bits, so SMLAD against signed weights is exact for both.
template <class T>
[[gnu::always_inline]] inline u32 expand_even(u32 x) {
  if constexpr (static_cast<T>(-1) < T{0}) return sxtb16(x);
  else return uxtb16(x);
}
template <class T>
[[gnu::always_inline]] inline u32 expand_odd(u32 x) {
  if constexpr (static_cast<T>(-1) < T{0}) return sxtb16_ror8(x);
  else return uxtb16_ror8(x);
}

/// acc + a.lo*b.lo + a.hi*b.hi (wraps like an int32 sum)
[[gnu::always_inline]] inline s32 smlad(u32 a, u32 b, s32 acc) {
  return __smlad(static_cast<s32>(a), static_cast<s32>(b), acc);
}
/// acc + a.lo*b.hi + a.hi*b.lo
[[gnu::always_inline]] inline s32 smladx(u32 a, u32 b, s32 acc) {
  return __smladx(static_cast<s32>(a), static_cast<s32>(b), acc);
}
/// acc + a.lo*b.lo
[[gnu::always_inline]] inline s32 smlabb(u32 a, u32 b, s32 acc) {
  return __smlabb(static_cast<s32>(a), static_cast<s32>(b), acc);
}
/// acc + a.lo*b.hi
[[gnu::always_inline]] inline s32 smlabt(u32 a, u32 b, s32 acc) {
  return __smlabt(static_cast<s32>(a), static_cast<s32>(b), acc);
}
/// acc + a.hi*b.lo
[[gnu::always_inline]] inline s32 smlatb(u32 a, u32 b, s32 acc) {
  return __smlatb(static_cast<s32>(a), static_cast<s32>(b), acc);
}
/// acc + a.hi*b.hi
[[gnu::always_inline]] inline s32 smlatt(u32 a, u32 b, s32 acc) {
  return __smlatt(static_cast<s32>(a), static_cast<s32>(b), acc);
}

/// [a.lo, (b << Shift).hi]: bytes a0 a1 b0 b1 for Shift = 16.
template <int Shift>
[[gnu::always_inline]] inline u32 pkhbt(u32 a, u32 b) {
  static_assert(Shift >= 0 && Shift < 32, "pkhbt: shift out of range");
  u32 r;
  asm("pkhbt %0, %1, %2, lsl %3" : "=r"(r) : "r"(a), "r"(b), "I"(Shift));
  return r;
}
/// [(b >> Shift).lo, a.hi] (arithmetic shift): bytes b2 b3 a2 a3 for Shift = 16.
template <int Shift>
[[gnu::always_inline]] inline u32 pkhtb(u32 a, u32 b) {
  static_assert(Shift > 0 && Shift <= 32, "pkhtb: shift out of range");
  u32 r;
  asm("pkhtb %0, %1, %2, asr %3" : "=r"(r) : "r"(a), "r"(b), "I"(Shift));
  return r;
}

/// Per-byte GE flags from a - b (signed or unsigned lanes), then SEL picks per byte: the
/// byte-wise maximum of four lanes in two instructions.
[[gnu::always_inline]] inline u32 max_s8x4(u32 a, u32 b) {
  u32 r;
  asm("ssub8 %0, %1, %2\n\tsel %0, %1, %2" : "=&r"(r) : "r"(a), "r"(b) : "cc");
  return r;
}
[[gnu::always_inline]] inline u32 max_u8x4(u32 a, u32 b) {
  u32 r;
  asm("usub8 %0, %1, %2\n\tsel %0, %1, %2" : "=&r"(r) : "r"(a), "r"(b) : "cc");
  return r;
}

/// [a.lo + sext(b0), a.hi + sext(b2)] and the unsigned/odd variants: halfword sums of bytes.
[[gnu::always_inline]] inline u32 sxtab16(u32 a, u32 b) {
  return static_cast<u32>(__sxtab16(static_cast<s32>(a), static_cast<s32>(b)));
}
[[gnu::always_inline]] inline u32 sxtab16_ror8(u32 a, u32 b) {
  u32 r;
  asm("sxtab16 %0, %1, %2, ror #8" : "=r"(r) : "r"(a), "r"(b));
  return r;
}
[[gnu::always_inline]] inline u32 uxtab16(u32 a, u32 b) { return static_cast<u32>(__uxtab16(a, b)); }
[[gnu::always_inline]] inline u32 uxtab16_ror8(u32 a, u32 b) {
  u32 r;
  asm("uxtab16 %0, %1, %2, ror #8" : "=r"(r) : "r"(a), "r"(b));
  return r;
}

/// Saturating 32-bit subtraction (QSUB).
[[gnu::always_inline]] inline s32 qsub(s32 a, s32 b) { return __qsub(a, b); }

/// Signed saturation to Bits bits (SSAT), unsigned saturation to [0, 2^Bits - 1] (USAT).
template <int Bits>
[[gnu::always_inline]] inline s32 ssat(s32 x) {
  static_assert(Bits >= 1 && Bits <= 32, "ssat: bit count out of range");
  return __ssat(x, Bits);
}
template <int Bits>
[[gnu::always_inline]] inline s32 usat(s32 x) {
  static_assert(Bits >= 0 && Bits <= 31, "usat: bit count out of range");
  return static_cast<s32>(__usat(x, Bits));
}

/// Unaligned 32-bit load and store (LDR/STR handle unaligned addresses on Armv7-M; the
/// memcpy is how C++ says so without undefined behaviour, and compiles to one instruction).
[[gnu::always_inline]] inline u32 load32(const void* p) {
  u32 v;
  std::memcpy(&v, p, 4);
  return v;
}
[[gnu::always_inline]] inline void store32(void* p, u32 v) { std::memcpy(p, &v, 4); }

}  // namespace tessera::kernels::arch::arm_dsp
