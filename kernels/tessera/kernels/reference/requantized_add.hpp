// Reference RequantizedAdd: an Add whose operands are each requantized first (Deeploy's
// RequantizedAdd; onnx2hpp folds the RequantShift nodes that bring two operands of different
// scales onto a common one into the Add they feed).
//
// Semantics: ../../../../docs/semantics.md ("RequantizedAdd"): exactly the standalone
// RequantShift nodes followed by the Add and its requantization, without the two intermediate
// tensors and their passes.
#pragma once

#include <cstddef>
#include <cstdint>

#include <tessera/core/requant.hpp>

namespace tessera::kernels::reference {

/// Scratch needed by `requantized_add`: none.
constexpr std::size_t requantized_add_scratch_bytes(std::int64_t /*count*/) { return 0; }

/// out[i] = rq.apply(rq_a.apply(a[i], i) + rq_b.apply(b[i], i), i) for i < count: each
/// operand's requantization clamps it to its own range (the intermediate tensor's type in the
/// unfused graph); a disabled one passes the operand's value through.
///
/// - `a`, `b`, `out`: `count` elements each, the same shape and physical order (no broadcast).
/// - each requantization: per tensor, or per channel of a channels-last tensor (inner 1,
///   indexed by the flat element index).
/// The sum must fit int32: the operands' ranges (the op checks them) bound it.
template <class TA, class TB, class TOut>
constexpr void requantized_add(std::int64_t count, const TA* a, const TB* b, const requant_params& rq_a,
                               const requant_params& rq_b, const requant_params& rq, TOut* out) {
  for (std::int64_t i = 0; i < count; ++i) {
    const std::int32_t x = rq_a.apply(static_cast<std::int64_t>(a[i]), i);
    const std::int32_t y = rq_b.apply(static_cast<std::int64_t>(b[i]), i);
    out[i] = static_cast<TOut>(rq.apply(std::int64_t{x} + y, i));
  }
}

}  // namespace tessera::kernels::reference
