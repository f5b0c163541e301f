// Thin wrappers over the RVV 1.0 intrinsics (riscv_vector.h, v0.12: clang 16 or later) for the
// rvv family: the int8 x int8 -> int32 multiply-accumulate at two register groupings, named
// after what they do. Vector-length agnostic: every loop asks vsetvli how many lanes it gets.
//
// The multiply-accumulate is vwmacc.vx at SEW 16: int32 accumulators += an int16 scalar (one
// activation, sign- or zero-extended by its scalar load) x int16 lanes (weights of consecutive
// output channels, loaded as bytes and widened by vsext/vzext). One instruction per activation
// and register group of channels; no 16-bit partial sums, so nothing can overflow before the
// int32 accumulator (whose wrap-around is the reference's). uint8 operands need no correction:
// 0..255 is an exact int16.
#pragma once

#include <riscv_vector.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace tessera::kernels::arch::rvv {

/// The multiply-accumulate with int16 operands at LMUL 2: bytes at m1, int32 accumulators at m4
/// (4 registers each). VLEN/8 channels per register group: 16 at VLEN 128, 32 at 256.
struct lmul2 {
  using i16 = vint16m2_t;
  using i32 = vint32m4_t;
  static std::size_t setvl(std::size_t n) { return __riscv_vsetvl_e16m2(n); }
  static std::size_t vlmax() { return __riscv_vsetvlmax_e16m2(); }
  /// vl bytes, `stride` apart (1: contiguous), widened to int16.
  template <bool Contiguous, class T>
  static i16 load_widened(const T* p, std::ptrdiff_t stride, std::size_t vl) {
    if constexpr (std::is_signed_v<T>) {
      const auto* q = reinterpret_cast<const std::int8_t*>(p);
      const vint8m1_t v = Contiguous ? __riscv_vle8_v_i8m1(q, vl) : __riscv_vlse8_v_i8m1(q, stride, vl);
      return __riscv_vsext_vf2_i16m2(v, vl);
    } else {
      const auto* q = reinterpret_cast<const std::uint8_t*>(p);
      const vuint8m1_t v = Contiguous ? __riscv_vle8_v_u8m1(q, vl) : __riscv_vlse8_v_u8m1(q, stride, vl);
      return __riscv_vreinterpret_v_u16m2_i16m2(__riscv_vzext_vf2_u16m2(v, vl));
    }
  }
  static i16 load16(const std::int16_t* p, std::size_t vl) { return __riscv_vle16_v_i16m2(p, vl); }
  static i32 zero(std::size_t vl) { return __riscv_vmv_v_x_i32m4(0, vl); }
  static i32 load32(const std::int32_t* p, std::size_t vl) { return __riscv_vle32_v_i32m4(p, vl); }
  static void store32(std::int32_t* p, i32 v, std::size_t vl) { __riscv_vse32_v_i32m4(p, v, vl); }
};

/// The same at LMUL 4: bytes at m2, int32 accumulators at m8 (8 registers each). VLEN/4 channels
/// per register group: 32 at VLEN 128, 64 at 256.
struct lmul4 {
  using i16 = vint16m4_t;
  using i32 = vint32m8_t;
  static std::size_t setvl(std::size_t n) { return __riscv_vsetvl_e16m4(n); }
  static std::size_t vlmax() { return __riscv_vsetvlmax_e16m4(); }
  template <bool Contiguous, class T>
  static i16 load_widened(const T* p, std::ptrdiff_t stride, std::size_t vl) {
    if constexpr (std::is_signed_v<T>) {
      const auto* q = reinterpret_cast<const std::int8_t*>(p);
      const vint8m2_t v = Contiguous ? __riscv_vle8_v_i8m2(q, vl) : __riscv_vlse8_v_i8m2(q, stride, vl);
      return __riscv_vsext_vf2_i16m4(v, vl);
    } else {
      const auto* q = reinterpret_cast<const std::uint8_t*>(p);
      const vuint8m2_t v = Contiguous ? __riscv_vle8_v_u8m2(q, vl) : __riscv_vlse8_v_u8m2(q, stride, vl);
      return __riscv_vreinterpret_v_u16m4_i16m4(__riscv_vzext_vf2_u16m4(v, vl));
    }
  }
  static i16 load16(const std::int16_t* p, std::size_t vl) { return __riscv_vle16_v_i16m4(p, vl); }
  static i32 zero(std::size_t vl) { return __riscv_vmv_v_x_i32m8(0, vl); }
  static i32 load32(const std::int32_t* p, std::size_t vl) { return __riscv_vle32_v_i32m8(p, vl); }
  static void store32(std::int32_t* p, i32 v, std::size_t vl) { __riscv_vse32_v_i32m8(p, v, vl); }
};

/// acc += x * w: int32 lanes += an int16 scalar times int16 lanes (vwmacc.vx).
template <class V16, class V32>
inline V32 mac(V32 acc, std::int16_t x, V16 w, std::size_t vl) {
  return __riscv_vwmacc(acc, x, w, vl);
}
/// acc += x * w lane by lane (vwmacc.vv).
template <class V16, class V32>
inline V32 mac(V32 acc, V16 x, V16 w, std::size_t vl) {
  return __riscv_vwmacc(acc, x, w, vl);
}

/// Writes `n` copies of `value`, `stride` bytes apart, from `dst` (vsse8).
inline void fill_strided(std::uint8_t* dst, std::uint8_t value, std::ptrdiff_t stride, int n) {
  for (int i = 0; i < n;) {
    const std::size_t vl = __riscv_vsetvl_e8m4(std::size_t(n - i));
    __riscv_vsse8_v_u8m4(dst + std::ptrdiff_t(i) * stride, stride, __riscv_vmv_v_x_u8m4(value, vl), vl);
    i += int(vl);
  }
}

/// Copies n bytes from `src` (contiguous) to `dst`, `stride` bytes apart (vle8 + vsse8).
inline void copy_strided(std::uint8_t* dst, const std::uint8_t* src, std::ptrdiff_t stride, int n) {
  for (int i = 0; i < n;) {
    const std::size_t vl = __riscv_vsetvl_e8m4(std::size_t(n - i));
    __riscv_vsse8_v_u8m4(dst + std::ptrdiff_t(i) * stride, stride, __riscv_vle8_v_u8m4(src + i, vl), vl);
    i += int(vl);
  }
}

/// Copies n int32 values.
inline void copy_s32(std::int32_t* dst, const std::int32_t* src, int n) {
  for (int i = 0; i < n;) {
    const std::size_t vl = __riscv_vsetvl_e32m8(std::size_t(n - i));
    __riscv_vse32_v_i32m8(dst + i, __riscv_vle32_v_i32m8(src + i, vl), vl);
    i += int(vl);
  }
}

}  // namespace tessera::kernels::arch::rvv
