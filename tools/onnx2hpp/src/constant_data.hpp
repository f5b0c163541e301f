// The data of every constant tensor, checked before anything else reads it.
#pragma once

#include <onnx/onnx_pb.h>

namespace tessera::onnx2hpp {

/// Checks every initializer, every Constant node's tensor and every tensor-valued attribute
/// (ConstantOfShape's `value`, RequantShift's one-element tensors; in subgraphs too):
///   - a known element type with a fixed size (not STRING, not UNDEFINED);
///   - dimensions >= 0 whose product, and its size in bytes, do not overflow;
///   - its values in exactly one place: `raw_data` of exactly count * element size bytes, or
///     the typed field ONNX defines for its element type (int32_data for INT8..UINT16, BOOL
///     and FLOAT16, ...) with exactly count values (twice as many for complex types), and no
///     other field;
///   - values held in a wider field fit the element type: an INT8 initializer holding 1000 in
///     int32_data is an error (ONNX reads its low byte, -24);
///   - no sparse tensors (onnx2hpp does not read them); external data must already have been
///     loaded (load_external_data).
/// Runs before the ONNX checker and shape inference: ONNX 1.12's shape inference writes past
/// its buffer for an int64 Reshape shape whose raw_data holds 13 bytes (issue 16). The error
/// names the initializer, or the node and its attribute, and the reason.
void check_constant_data(const onnx::ModelProto& model);

}  // namespace tessera::onnx2hpp
