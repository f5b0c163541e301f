// Reference IntegerDiv of Deeploy's integer dialect (QuantLib's integer division of two
// tensors), with numpy broadcasting and an optional fused RequantShift (RQIntegerDiv).
//
//     num = Delta * eta * a;  den = eta * b + eps;  y = divide_round_half_away(num, den)
//
// all in 64 bits (<tessera/core/integer_division.hpp>: (num + sign(num) * (den >> 1)) / den,
// C division). A zero denominator gives 0 (QuantLib's float division would give inf).
// Semantics: ../../../../docs/semantics.md ("IntegerDiv").
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include <tessera/core/integer_division.hpp>
#include <tessera/core/requant.hpp>
#include <tessera/kernels/reference/binary.hpp>

namespace tessera::kernels::reference {

struct integer_div_params {
  std::int32_t delta = 1;
  std::int32_t eps = 0;
  std::int32_t eta = 1;
};

/// IntegerDiv of one pair of values.
constexpr std::int64_t integer_div_value(std::int64_t a, std::int64_t b, const integer_div_params& p) {
  const std::int64_t num = std::int64_t{p.delta} * p.eta * a;
  const std::int64_t den = std::int64_t{p.eta} * b + p.eps;
  return den == 0 ? 0 : divide_round_half_away(num, den);
}

/// Scratch needed by `integer_div`: none.
constexpr std::size_t integer_div_scratch_bytes(const binary_dims&) { return 0; }

/// out[idx] = rq.apply(integer_div_value(a[idx . a_stride], b[idx . b_stride]), flat idx).
///
/// - `a`, `b`: described by per-output-dim strides as for `binary` (offsets unused), any
///             integer type.
/// - `out`:    contiguous row-major over `d.out`; int32 when `rq` is disabled (the caller
///             guarantees the quotient fits: op::integer_div::check).
template <class TA, class TB, class TOut>
constexpr void integer_div(const binary_dims& d, const TA* a, const TB* b, const integer_div_params& p,
                           const requant_params& rq, TOut* out) {
  std::int64_t total = 1;
  for (int ax = 0; ax < d.rank; ++ax) total *= d.out[ax];
  std::array<int, max_rank> idx{};  // output coordinate, advanced like an odometer
  for (std::int64_t o = 0; o < total; ++o) {
    std::int64_t a_off = 0;
    std::int64_t b_off = 0;
    for (int ax = 0; ax < d.rank; ++ax) {
      a_off += idx[ax] * d.a_stride[ax];
      b_off += idx[ax] * d.b_stride[ax];
    }
    out[o] = static_cast<TOut>(rq.apply(integer_div_value(a[a_off], b[b_off], p), o));
    for (int ax = d.rank - 1; ax >= 0; --ax) {
      if (++idx[ax] < d.out[ax]) break;
      idx[ax] = 0;
    }
  }
}

}  // namespace tessera::kernels::reference
