// The lowering of each supported ONNX op (see lowering.hpp), grouped by family.
#pragma once

#include "lowering.hpp"

namespace tessera::onnx2hpp {

// lower_conv_pool.cpp
void lower_conv(lowering_context&, const onnx::NodeProto&, const node_context&);
void lower_max_pool(lowering_context&, const onnx::NodeProto&, const node_context&);
void lower_average_pool(lowering_context&, const onnx::NodeProto&, const node_context&);
void lower_global_average_pool(lowering_context&, const onnx::NodeProto&, const node_context&);
void lower_global_max_pool(lowering_context&, const onnx::NodeProto&, const node_context&);

// lower_linear.cpp
void lower_gemm(lowering_context&, const onnx::NodeProto&, const node_context&);
void lower_matmul(lowering_context&, const onnx::NodeProto&, const node_context&);

// lower_elementwise.cpp
void lower_add(lowering_context&, const onnx::NodeProto&, const node_context&);
void lower_sub(lowering_context&, const onnx::NodeProto&, const node_context&);
void lower_requant_shift(lowering_context&, const onnx::NodeProto&, const node_context&);

// lower_data_movement.cpp
void lower_constant(lowering_context&, const onnx::NodeProto&, const node_context&);
void lower_identity(lowering_context&, const onnx::NodeProto&, const node_context&);
void lower_reshape(lowering_context&, const onnx::NodeProto&, const node_context&);
void lower_flatten(lowering_context&, const onnx::NodeProto&, const node_context&);
void lower_squeeze(lowering_context&, const onnx::NodeProto&, const node_context&);
void lower_unsqueeze(lowering_context&, const onnx::NodeProto&, const node_context&);
void lower_pad(lowering_context&, const onnx::NodeProto&, const node_context&);
void lower_concat(lowering_context&, const onnx::NodeProto&, const node_context&);
void lower_slice(lowering_context&, const onnx::NodeProto&, const node_context&);
void lower_transpose(lowering_context&, const onnx::NodeProto&, const node_context&);

}  // namespace tessera::onnx2hpp
