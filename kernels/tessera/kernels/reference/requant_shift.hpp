// Reference standalone RequantShift (domains '', PACTOps, ai.onnx.contrib).
//
// The rule itself lives in tessera::requantize (<tessera/core/requant.hpp>); this kernel only
// walks the tensor. Semantics: ../../../../docs/semantics.md ("RequantShift").
#pragma once

#include <cstddef>
#include <cstdint>

#include <tessera/core/requant.hpp>

namespace tessera::kernels::reference {

/// Scratch needed by `requant_shift`: none.
constexpr std::size_t requant_shift_scratch_bytes(std::int64_t /*count*/) { return 0; }

/// out[i] = rq.apply(in[i], i) for i < count.
///
/// - `in`:  `count` elements in physical row-major order, usually the int32 output of a
///          Conv/Gemm/MatMul/Add; any integer type whose values fit int64.
/// - `rq`:  mul/add indexed by (i / rq.inner) % rq.length (per-tensor or per-channel);
///          lo/hi are the output range, e.g. [-128, 127] for s8 or [0, 255] for u8.
/// - `out`: `count` elements; TOut must hold [rq.lo, rq.hi]. May alias `in` only when both
///          have the same element type.
template <class TIn, class TOut>
constexpr void requant_shift(std::int64_t count, const TIn* in, const requant_params& rq, TOut* out) {
  for (std::int64_t i = 0; i < count; ++i) out[i] = static_cast<TOut>(rq.apply(static_cast<std::int64_t>(in[i]), i));
}

}  // namespace tessera::kernels::reference
