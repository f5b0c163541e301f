// Reference iGELU of Deeploy's integer dialect (I-BERT's integer GELU as QuantLib integerizes
// it), with an optional fused RequantShift (Deeploy's RequantizediGELU).
//
//     q = min(|x|, -b);  d = q + b;  L = sign(x) * (one - d*d);  y = x * ((one + L) >> 1)
//
// `b` is negative; `>>` is an arithmetic shift (floor). All in 64 bits.
// Semantics: ../../../../docs/semantics.md ("iGELU").
#pragma once

#include <cstddef>
#include <cstdint>

#include <tessera/core/requant.hpp>

namespace tessera::kernels::reference {

/// The two integer constants of an iGELU: b < 0 (the clipping point of the erf polynomial,
/// -b its input range) and one (the polynomial's 1.0).
struct gelu_params {
  std::int32_t b = 0;
  std::int32_t one = 0;
};

/// iGELU of one value. |L| <= max(one, b*b - one), so |y| <= |x| * (one + max(one, b*b)) / 2.
constexpr std::int64_t gelu_value(std::int64_t x, const gelu_params& p) {
  const std::int64_t magnitude = x < 0 ? -x : x;
  const std::int64_t q = magnitude < -std::int64_t{p.b} ? magnitude : -std::int64_t{p.b};
  const std::int64_t d = q + p.b;
  const std::int64_t sign = x > 0 ? 1 : x < 0 ? -1 : 0;
  const std::int64_t l = sign * (p.one - d * d);
  return x * ((p.one + l) >> 1);
}

/// Scratch needed by `gelu`: none.
constexpr std::size_t gelu_scratch_bytes(std::int64_t /*count*/) { return 0; }

/// out[i] = rq.apply(gelu_value(in[i]), i) for i < count.
///
/// - `in`:  `count` integers, any layout (elementwise).
/// - `rq`:  a fused RequantShift, or disabled: then `out` is int32 and the caller guarantees
///          the result fits it (op::gelu::check).
/// - `out`: `count` values of TOut. May alias `in` when both have the same type.
template <class TIn, class TOut>
constexpr void gelu(std::int64_t count, const TIn* in, const gelu_params& p, const requant_params& rq, TOut* out) {
  for (std::int64_t i = 0; i < count; ++i)
    out[i] = static_cast<TOut>(rq.apply(gelu_value(static_cast<std::int64_t>(in[i]), p), i));
}

}  // namespace tessera::kernels::reference
