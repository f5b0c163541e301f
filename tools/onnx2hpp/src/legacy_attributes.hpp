// Repair of a common exporter slip: attributes of an older opset in a newer-opset model.
#pragma once

#include <onnx/onnx_pb.h>

namespace tessera::onnx2hpp {

/// Rewrites nodes that use an older opset's attribute form in a model whose opset made them
/// inputs (Pad's pads/value before opset 11, Slice's starts/ends/axes before 10,
/// Squeeze/Unsqueeze's axes before 13): the values become initializers. Deeploy exports its
/// Pad test cases that way; the checker (rightly) rejects them, but their meaning is clear.
void upgrade_legacy_attributes(onnx::ModelProto& model);

}  // namespace tessera::onnx2hpp
