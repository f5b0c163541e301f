// Constant data of a network: weights, biases and requantization tables.
//
// onnx2hpp emits each as an `inline constexpr` object; node types take them as reference
// template arguments, so a kernel reads them from flash (.rodata) and their sizes are part of
// the type. Word alignment lets SIMD kernels load 4 weights at once.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <tessera/core/dtype.hpp>
#include <tessera/core/requant.hpp>

namespace tessera {

template <class T, std::size_t N>
struct constant {
  alignas(8) std::array<T, N> values;

  using value_type = T;
  static constexpr std::size_t size() { return N; }
  static constexpr std::size_t bytes() { return N * sizeof(T); }
  constexpr const T* data() const { return values.data(); }
};

/// Requantization constants of one layer (the RequantShift fused into it, or standalone).
/// `mul`/`add` are indexed as described by `requant_params` (per tensor, per channel or
/// along any one axis with the given `inner` stride).
template <std::size_t L>
struct requant_constants {
  std::array<std::int32_t, L> mul;
  std::array<std::int32_t, L> add;
  int shift = 0;
  std::int32_t lo = -128;
  std::int32_t hi = 127;
  std::int32_t inner = 1;
  rounding mode = rounding::half_up;  ///< half_even: onnx2hpp's standard-ONNX average pools and means
  std::int32_t zero_point = 0;        ///< half_even ties go to the y with y - zero_point even
  std::int32_t divisor = 0;           ///< exact means (> 1): t / (divisor * 2^shift); 0 or 1: none (core/requant.hpp)

  static constexpr std::size_t length() { return L; }
  static constexpr std::size_t bytes() { return 2 * L * sizeof(std::int32_t); }
  constexpr requant_params params() const {
    return {true, mul.data(), add.data(), static_cast<std::int32_t>(L), inner, shift, lo, hi, mode, zero_point, divisor};
  }
};

/// "No bias" / "no requantization": the defaults of the optional constant arguments.
struct no_constant_t {
  static constexpr std::size_t bytes() { return 0; }
  static constexpr std::size_t size() { return 0; }
  constexpr requant_params params() const { return {}; }
  constexpr const std::int32_t* data() const { return nullptr; }
};
inline constexpr no_constant_t none{};

template <auto const& C>
inline constexpr bool is_none = std::is_same_v<std::remove_cvref_t<decltype(C)>, no_constant_t>;

/// Whether an op's output type suits its requantization: the raw int32 accumulator without
/// one, else a type that holds the clamp range (e.g. [0, 255] needs u8, u16 or s16/s32).
template <auto const& Requant>
constexpr bool output_type_fits(dtype out) {
  if constexpr (is_none<Requant>) return out == dtype::s32;
  else return Requant.lo >= min_of(out) && Requant.hi <= max_of(out);
}

}  // namespace tessera
