// The ONNX checker and ONNX shape inference, run on a copy of the model.
#pragma once

#include <string>
#include <unordered_map>

#include <onnx/onnx_pb.h>

#include "ir.hpp"

namespace tessera::onnx2hpp {

/// Fully static shapes that ONNX shape inference found (or that the model declares), by
/// tensor name: the converter computes every shape itself and cross-checks against these.
using shape_map = std::unordered_map<std::string, dims>;

/// Runs onnx::checker::check_model and onnx::shape_inference::InferShapes.
///
/// The dialect's custom ops (RequantShift in the default domain, iSoftmax, ...) make the
/// checker fail with "No Op registered"; they are moved to a private domain in the copy that
/// is checked, so the checker still judges every standard node, the graph and the
/// initializers. A checker failure is a conversion_error.
shape_map check_and_infer_shapes(const onnx::ModelProto& model);

}  // namespace tessera::onnx2hpp
