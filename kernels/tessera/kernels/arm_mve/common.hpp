// Small helpers shared by the arm_mve kernels: the uint8 correction, row copies.
//
// uint8 activations: MVE multiplies int8 by int8 or uint8 by uint8, never mixed. The kernels
// feed x - 128 (the byte XOR 0x80) as int8 and add 128 * sum(weights of the channel) back in
// the requantization table, once per call: sum x*w = sum (x - 128)*w + 128 * sum w.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <tessera/kernels/arch/arm_mve.hpp>
#include <tessera/kernels/arm_mve/traits.hpp>

namespace tessera::kernels::arm_mve {

/// No correction (int8 activations).
struct no_correction {
  std::int64_t operator()(int) const { return 0; }
};

/// 128 * the sum of row c of [rows][k] int8 weights: the correction of uint8 activations.
struct weight_sum_correction {
  const std::int8_t* w;
  int k;
  std::int64_t operator()(int c) const { return 128 * std::int64_t{arch::mve::sum_s8(w + std::ptrdiff_t(c) * k, k)}; }
};

/// Copies n 8-bit values into an int8 row: as they are, or as x - 128 for uint8 values.
template <class T>
inline void copy_as_s8(std::int8_t* dst, const T* src, int n) {
  if constexpr (std::is_signed_v<T>) arch::mve::copy_bytes(dst, src, n);
  else arch::mve::copy_bytes_flip(dst, src, n);
}

/// The int8 byte that stands for the true value 0 in a row written by `copy_as_s8`.
template <class T>
inline constexpr std::uint8_t zero_as_s8 = std::is_signed_v<T> ? 0x00 : 0x80;

/// The int8 byte that stands for the stored value `v` (a T) in a row written by `copy_as_s8`:
/// what the padding holds for a pad value v. Example: uint8 200 -> 0x48 (72 = 200 - 128).
template <class T>
constexpr std::uint8_t as_s8(int v) { return static_cast<std::uint8_t>(static_cast<std::uint8_t>(v) ^ zero_as_s8<T>); }

}  // namespace tessera::kernels::arm_mve
