// Thin wrappers over the Armv8.1-M MVE (Helium) instructions the arm_mve kernels use.
//
// Two kinds of wrapper:
//   - typed intrinsics (`widen_s32`, `load16`, `max16`, ...) that pick the signed or unsigned
//     form of an instruction from the element type, so a kernel is written once for int8 and
//     uint8;
//   - short tail-predicated loops (WLSTP/LETP) in inline assembly: GCC 12 does not emit
//     tail-predicated loops from intrinsics and spills the predicate register through a core
//     register (VMRS/SXTH/VMSR) around every VCMP, about 3 extra instructions per predicated
//     operation; a WLSTP loop predicates its last iteration for free.
//
// Build: -mcpu=cortex-m55 -mfloat-abi=hard (GCC 12 enables MVE only with the hard-float ABI).
//
// Notes for the assembly in this family: VMLADAV/VADDV/VMAXV accumulate into even core registers
// ("Te" or a pinned register variable); widening loads and narrowing stores (VLDRB.S32,
// VSTRB.32, VSTRB.16, ...) encode their base in 3 bits, so those pointers take "l" (r0-r7);
// vector operands of an asm statement ("w") must not be among its clobbered Q registers.
#pragma once

#include <cstdint>
#include <type_traits>

#if !(defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1))
#error "tessera/kernels/arch/arm_mve.hpp needs integer MVE (e.g. -mcpu=cortex-m55 -mfloat-abi=hard)"
#endif

#include <arm_mve.h>

namespace tessera::kernels::arch::mve {

// ---- predicates -------------------------------------------------------------------------------

/// Lanes [0, n) of a 16 x 8-bit vector (n >= 16: all of them).
inline mve_pred16_t tail8(int n) { return vctp8q(static_cast<std::uint32_t>(n)); }
/// Lanes [0, n) of a 4 x 32-bit vector.
inline mve_pred16_t tail32(int n) { return vctp32q(static_cast<std::uint32_t>(n)); }

// ---- typed loads and arithmetic on int8 / uint8 elements ---------------------------------------

/// 4 consecutive 8-bit elements widened to int32 lanes (sign- or zero-extended by type).
template <class T>
inline int32x4_t widen_s32(const T* p) {
  if constexpr (std::is_signed_v<T>) return vldrbq_s32(reinterpret_cast<const std::int8_t*>(p));
  else return vreinterpretq_s32_u32(vldrbq_u32(reinterpret_cast<const std::uint8_t*>(p)));
}
/// The same with lanes >= n zeroed and not read.
template <class T>
inline int32x4_t widen_s32(const T* p, mve_pred16_t pred) {
  if constexpr (std::is_signed_v<T>) return vldrbq_z_s32(reinterpret_cast<const std::int8_t*>(p), pred);
  else return vreinterpretq_s32_u32(vldrbq_z_u32(reinterpret_cast<const std::uint8_t*>(p), pred));
}
/// 16 consecutive 8-bit elements, as they are typed.
inline int8x16_t load16(const std::int8_t* p) { return vldrbq_s8(p); }
inline uint8x16_t load16(const std::uint8_t* p) { return vldrbq_u8(p); }
inline int8x16_t load16(const std::int8_t* p, mve_pred16_t pred) { return vldrbq_z_s8(p, pred); }
inline uint8x16_t load16(const std::uint8_t* p, mve_pred16_t pred) { return vldrbq_z_u8(p, pred); }
inline void store16(std::int8_t* p, int8x16_t v) { vstrbq_s8(p, v); }
inline void store16(std::uint8_t* p, uint8x16_t v) { vstrbq_u8(p, v); }
inline void store16(std::int8_t* p, int8x16_t v, mve_pred16_t pred) { vstrbq_p_s8(p, v, pred); }
inline void store16(std::uint8_t* p, uint8x16_t v, mve_pred16_t pred) { vstrbq_p_u8(p, v, pred); }
/// Lane-wise maximum with the comparison of the element type.
inline int8x16_t max16(int8x16_t a, int8x16_t b) { return vmaxq_s8(a, b); }
inline uint8x16_t max16(uint8x16_t a, uint8x16_t b) { return vmaxq_u8(a, b); }

/// Stores the low byte of each int32 lane (lanes in `pred`).
template <class T>
inline void narrow_store(T* p, int32x4_t v, mve_pred16_t pred) {
  vstrbq_p_s32(reinterpret_cast<std::int8_t*>(p), v, pred);
}

// ---- tail-predicated byte loops -------------------------------------------------------------

/// dst[i] = src[i] for i < n (n >= 0). 3 instructions per 16 bytes.
inline void copy_bytes(void* dst, const void* src, int n) {
  asm volatile(
      "wlstp.8 lr, %[n], 2f\n"
      "1:\n"
      "vldrb.8 q0, [%[s]], #16\n"
      "vstrb.8 q0, [%[d]], #16\n"
      "letp lr, 1b\n"
      "2:\n"
      : [d] "+r"(dst), [s] "+r"(src)
      : [n] "r"(n)
      : "lr", "q0", "memory");
}

/// dst[i] = src[i] ^ 0x80 for i < n: uint8 true values x become int8 x - 128.
inline void copy_bytes_flip(void* dst, const void* src, int n) {
  asm volatile(
      "vmov.i8 q1, #0x80\n"
      "wlstp.8 lr, %[n], 2f\n"
      "1:\n"
      "vldrb.8 q0, [%[s]], #16\n"
      "veor q0, q0, q1\n"
      "vstrb.8 q0, [%[d]], #16\n"
      "letp lr, 1b\n"
      "2:\n"
      : [d] "+r"(dst), [s] "+r"(src)
      : [n] "r"(n)
      : "lr", "q0", "q1", "memory");
}

/// dst[i] = value for i < n.
inline void fill_bytes(void* dst, std::uint8_t value, int n) {
  asm volatile(
      "vdup.8 q0, %[v]\n"
      "wlstp.8 lr, %[n], 2f\n"
      "1:\n"
      "vstrb.8 q0, [%[d]], #16\n"
      "letp lr, 1b\n"
      "2:\n"
      : [d] "+r"(dst)
      : [n] "r"(n), [v] "r"(static_cast<std::uint32_t>(value))
      : "lr", "q0", "memory");
}

/// sum of p[0..n) as int8 values (VADDVA: 16 elements per instruction).
inline std::int32_t sum_s8(const std::int8_t* p, int n) {
  std::int32_t sum = 0;
  asm volatile(
      "wlstp.8 lr, %[n], 2f\n"
      "1:\n"
      "vldrb.8 q0, [%[p]], #16\n"
      "vaddva.s8 %[sum], q0\n"
      "letp lr, 1b\n"
      "2:\n"
      : [p] "+r"(p), [sum] "+Te"(sum)
      : [n] "r"(n)
      : "lr", "q0", "memory");
  return sum;
}

}  // namespace tessera::kernels::arch::mve
