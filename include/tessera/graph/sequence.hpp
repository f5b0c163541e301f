// Rules for tensors whose extent along one axis is the sequence length, known at run time
// (a KV cache and what attention computes from it; runtime/sequence_executor.hpp).
//
// Such a tensor is declared at its largest extent (`tensor_desc::sequence_axis`, `dims` at the
// capacity) and a run over `length` positions uses `live_dims(t, length)`. A `state` tensor (the
// cache itself, caller-owned) keeps the capacity's layout; every other sequence tensor is stored
// compactly at the live extents, so that elementwise and row kernels run on it unchanged. The
// nodes that can run so have `run_at(length, ...)`; these checks are what their `check()` adds.
#pragma once

#include <tessera/core/requant.hpp>
#include <tessera/graph/tensor.hpp>

namespace tessera::detail {

/// `in` (of shape `in_dims`, broadcast from the back against `out`) follows `out`'s sequence
/// axis: both have none, or `in` has it at the aligned axis, or `in` is 1 there and has none
/// (it broadcasts along the sequence). A state tensor is never an elementwise operand: only
/// MatMul and the in-place append read or write the capacity's layout.
constexpr bool follows_sequence(const tensor_desc& in, const shape& in_dims, const tensor_desc& out) {
  if (in.state) return false;
  if (out.sequence_axis < 0) return in.sequence_axis < 0;
  const int aligned = out.sequence_axis - out.dims.rank + in_dims.rank;
  if (aligned < 0) return in.sequence_axis < 0;
  if (in.sequence_axis >= 0) return in.sequence_axis == aligned;
  return in_dims[aligned] == 1;
}
constexpr bool follows_sequence(const tensor_desc& in, const tensor_desc& out) {
  return follows_sequence(in, in.dims, out);
}

/// A requantization of a sequence tensor is per tensor: per-channel constants are indexed by
/// the capacity's extents.
constexpr bool requant_fits_sequence(const requant_params& rq, const tensor_desc& out) {
  return out.sequence_axis < 0 || !rq.enabled || rq.length == 1;
}

/// Whether the node reads or writes a tensor with a run-time sequence length.
template <auto const& Tensors, class Node>
constexpr bool touches_sequence() {
  for (tensor_id t : Node::inputs)
    if (Tensors[t].sequence_axis >= 0) return true;
  for (tensor_id t : Node::outputs)
    if (Tensors[t].sequence_axis >= 0) return true;
  return false;
}

}  // namespace tessera::detail
