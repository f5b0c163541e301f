// Reference integer normalizations over the last axis: the dialect's iRMSNorm, iLayerNorm and
// iNoNorm. Each row of `length` values is normalized on its own (iNoNorm is elementwise, but
// shares the row form), so a tile must hold whole rows (the node tiles rows only).
//
// Semantics: ../../../../docs/semantics.md ("iRMSNorm, iLayerNorm, iNoNorm").
// Tensors: input int8 or uint8 (true values), output int8 (or any type holding [lo, hi]);
// row-major [rows][length]. Constants int32: `weight` [weight_rows][length], `bias`
// [bias_rows][length] (or nullptr for none); row r of the tensor reads weight row
// r % weight_rows, so a (length,) vector serves every row and a (rows, length) matrix one each.
#pragma once

#include <cstddef>
#include <cstdint>

#include <tessera/core/integer_math.hpp>

namespace tessera::kernels::reference {

enum class norm_kind : std::uint8_t {
  rms,      ///< iRMSNorm: weight
  layer,    ///< iLayerNorm: weight, bias
  no_norm,  ///< iNoNorm: weight, bias, mul
};

/// The scalars of one normalization (a node's template argument). `shift` is k of D = 2^k.
/// onnx2hpp checks that every 64-bit intermediate below fits.
struct norm_params {
  norm_kind kind = norm_kind::rms;
  int shift = 0;
  std::int32_t lo = -128, hi = 127;
  std::int32_t mul = 1;  ///< iNoNorm only
  std::int32_t weight_rows = 1, bias_rows = 1;
};

/// Scratch needed by `integer_norm`: none.
constexpr std::size_t norm_scratch_bytes(std::int64_t /*count*/) { return 0; }

namespace detail {
constexpr std::int64_t clamp(std::int64_t v, std::int64_t lo, std::int64_t hi) { return v < lo ? lo : (v > hi ? hi : v); }
}  // namespace detail

/// One normalization per row, rows [first_row, first_row + rows) of the tensor (first_row picks
/// the weight and bias rows of a tile). With L = length, all sums and products in int64,
/// `/` floor division and k = shift:
/// - iRMSNorm:   r = isqrt(sum(x^2)/L + 1),                         y = clamp((x*w / r) >> k)
/// - iLayerNorm: mu = sum(x)/L, d = x - mu, r = isqrt(sum(d^2)/L + 1), y = clamp((d*w / r + b) >> k)
/// - iNoNorm:    y = clamp(((x*w + b) * mul) >> k)
template <class TIn, class TOut>
constexpr void integer_norm(std::int64_t rows, std::int32_t length, std::int64_t first_row, const TIn* x,
                            const std::int32_t* weight, const std::int32_t* bias, const norm_params& p, TOut* y) {
  for (std::int64_t r = 0; r < rows; ++r, x += length, y += length) {
    const std::int32_t* w = weight + (first_row + r) % p.weight_rows * length;
    const std::int32_t* b = bias == nullptr ? nullptr : bias + (first_row + r) % p.bias_rows * length;
    const auto store = [&](std::int32_t j, std::int64_t v) {
      y[j] = static_cast<TOut>(detail::clamp(v >> p.shift, p.lo, p.hi));
    };
    if (p.kind == norm_kind::no_norm) {
      for (std::int32_t j = 0; j < length; ++j)
        store(j, (std::int64_t{x[j]} * w[j] + (b == nullptr ? 0 : b[j])) * p.mul);
      continue;
    }
    std::int64_t mean = 0;
    if (p.kind == norm_kind::layer) {
      std::int64_t sum = 0;
      for (std::int32_t j = 0; j < length; ++j) sum += x[j];
      mean = floor_div(sum, length);
    }
    std::int64_t squares = 0;
    for (std::int32_t j = 0; j < length; ++j) squares += (x[j] - mean) * (x[j] - mean);
    const auto root = static_cast<std::int64_t>(isqrt(static_cast<std::uint64_t>(squares / length + 1)));
    for (std::int32_t j = 0; j < length; ++j)
      store(j, floor_div((x[j] - mean) * w[j], root) + (b == nullptr ? 0 : b[j]));
  }
}

}  // namespace tessera::kernels::reference
