// --state IN=OUT and --max-context C: KV caches that stay on the device between calls.
//
// A decoder exported as Deeploy's are takes each cache as a graph input IN [.., N, ..] and
// returns its grown copy OUT = Concat(IN, rows, axis) [.., N + S, ..]. With --state the pair
// becomes one state tensor of C positions (tessera::tensor_desc::state) that the caller owns,
// the Concat a tessera::op::state_append that writes the call's S rows after the cached ones,
// and IN leaves the graph inputs. Two forms (runtime/sequence_executor.hpp):
//
// - a one-step network (N >= 1): what attention computes from the caches grows with the
//   length. The model is lowered twice, at cache lengths C - S and C - S + 1, and the tensors
//   whose extents differ by one along one axis become sequence tensors (their extent the run's
//   length, known at run time). Constants of Add/Sub/Mul/Div that span the length and hold one
//   value along it (the Deeploy export's score offset) are made to broadcast first; a constant
//   that varies along it (a causal mask) cannot grow and is reported.
// - a prefill (N = 0, the `_parallel` export: a whole prompt into empty caches): the shapes
//   stay as exported, the readers of OUT read the rows (the same values when the cache is
//   empty), and the network runs on an empty state only.
//
// The state is read by MatMul only, in place: a Reshape that keeps its shape is dropped and a
// Transpose of its last two axes becomes the MatMul's transposed operand, so no call copies a
// cache.
#pragma once

#include <functional>

#include <onnx/onnx_pb.h>

#include "cli.hpp"
#include "device_ir.hpp"

namespace tessera::onnx2hpp {

/// The converter's pipeline from an ONNX model to the device graph (converter.cpp).
using lower_to_device_fn = std::function<device::graph(onnx::ModelProto)>;

/// The device graph of `model` with its --state pairs kept on the device (see above).
device::graph lower_with_state(const onnx::ModelProto& model, const options& o, const lower_to_device_fn& lower);

}  // namespace tessera::onnx2hpp
