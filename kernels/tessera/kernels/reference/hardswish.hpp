// Reference iHardswish of Deeploy's integer dialect (QuantLib's integerized Hardswish), with an
// optional fused RequantShift (Deeploy's RequantizediHardswish).
//
//     y = x * (clamp(x + three, 0, six) * one_over_six)      (64-bit)
//
// Semantics: ../../../../docs/semantics.md ("iHardswish"). Tensors hold true values, so the
// `off` that Deeploy's kernel adds to an unsigned input stored shifted is not needed here.
#pragma once

#include <cstddef>
#include <cstdint>

#include <tessera/core/requant.hpp>

namespace tessera::kernels::reference {

/// The three integer constants of an iHardswish (QuantLib: three = 3/eps, six = 6/eps,
/// one_over_six = round(2^k / 6)).
struct hardswish_params {
  std::int32_t three = 0;
  std::int32_t six = 0;
  std::int32_t one_over_six = 0;
};

/// iHardswish of one value; |result| <= |x| * six * one_over_six.
constexpr std::int64_t hardswish_value(std::int64_t x, const hardswish_params& p) {
  std::int64_t gate = x + p.three;
  if (gate < 0) gate = 0;
  if (gate > p.six) gate = p.six;
  return x * (gate * p.one_over_six);
}

/// Scratch needed by `hardswish`: none.
constexpr std::size_t hardswish_scratch_bytes(std::int64_t /*count*/) { return 0; }

/// out[i] = rq.apply(hardswish_value(in[i]), i) for i < count.
///
/// - `in`:  `count` integers (int8/uint8/int16/uint16/int32), any layout (elementwise).
/// - `rq`:  a fused RequantShift, or disabled: then `out` is int32 and the caller guarantees
///          the result fits it (op::hardswish::check).
/// - `out`: `count` values of TOut. May alias `in` when both have the same type.
template <class TIn, class TOut>
constexpr void hardswish(std::int64_t count, const TIn* in, const hardswish_params& p, const requant_params& rq,
                         TOut* out) {
  for (std::int64_t i = 0; i < count; ++i)
    out[i] = static_cast<TOut>(rq.apply(hardswish_value(static_cast<std::int64_t>(in[i]), p), i));
}

}  // namespace tessera::kernels::reference
