// The lowering of each supported ONNX op (see lowering.hpp), grouped by family.
#pragma once

#include "lowering.hpp"

namespace tessera::onnx2hpp {

// lower_conv_pool.cpp: window helpers shared with lower_quantized.cpp
/// Reads kernel_shape/strides/pads/dilations/auto_pad for a window op over `spatial` dims.
window2d read_window(const onnx::NodeProto& n, const node_context& where, std::size_t spatial,
                     const dims& kernel_from_weights);
/// Input of a window op: (N, C, W) or (N, C, H, W).
dims feature_map_shape(lowering_context& cx, const onnx::NodeProto& n, const node_context& where);
/// Output shape (N, F, [Ho,] Wo) of a window op; fails on an empty output.
dims window_output(const dims& x, std::int64_t channels, const window2d& w, const node_context& where);
/// ceil_mode = 1 as extra end padding (fails when count_include_pad would count those cells).
void apply_ceil_mode(const onnx::NodeProto& n, const node_context& where, const dims& x, window2d& w,
                     bool padding_counts);

// lower_data_movement.cpp: helpers shared with lower_shape.cpp
/// Axes normalized to [0, rank), each at most once.
std::vector<int> normalized_axes(const dims& axes, std::size_t rank, const node_context& where);

// lower_shape.cpp: shape computations folded into constants
void lower_shape(lowering_context&, const onnx::NodeProto&, const node_context&);
void lower_gather(lowering_context&, const onnx::NodeProto&, const node_context&);
/// Unsqueeze/Squeeze/Concat/Slice/Add/Sub/Mul of integer constants, folded; false otherwise.
bool fold_shape_arithmetic(lowering_context&, const onnx::NodeProto&, const node_context&);

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
void lower_mul(lowering_context&, const onnx::NodeProto&, const node_context&);
void lower_requant_shift(lowering_context&, const onnx::NodeProto&, const node_context&);
/// An attribute that must hold an exact integer (int or float attribute).
std::int64_t integer_attribute(const onnx::NodeProto& n, const node_context& where, const std::string& name);

// lower_transformer.cpp: Deeploy's integer transformer ops
void lower_ihardswish(lowering_context&, const onnx::NodeProto&, const node_context&);
void lower_igelu(lowering_context&, const onnx::NodeProto&, const node_context&);
void lower_integer_div(lowering_context&, const onnx::NodeProto&, const node_context&);
void lower_true_integer_div(lowering_context&, const onnx::NodeProto&, const node_context&);
/// ReduceMean and IntegerMean of an integer tensor (a dequantized one goes to lower_on_dequantized).
void lower_reduce_mean(lowering_context&, const onnx::NodeProto&, const node_context&);
void lower_reduce_sum(lowering_context&, const onnx::NodeProto&, const node_context&);

// lower_row_ops.cpp: the dialect's softmaxes and normalizations over the last axis
void lower_i_softmax(lowering_context&, const onnx::NodeProto&, const node_context&);
void lower_ita_max(lowering_context&, const onnx::NodeProto&, const node_context&);
void lower_ita_partial_max(lowering_context&, const onnx::NodeProto&, const node_context&);
void lower_i_rms_norm(lowering_context&, const onnx::NodeProto&, const node_context&);
void lower_i_layer_norm(lowering_context&, const onnx::NodeProto&, const node_context&);
void lower_i_no_norm(lowering_context&, const onnx::NodeProto&, const node_context&);

// lower_quantized.cpp: standard quantized ONNX (QOperator and QDQ)
void lower_quantize_linear(lowering_context&, const onnx::NodeProto&, const node_context&);
/// A float graph input taken off (`b.onnx_name`; a QuantizeLinear's or a fake quantization's):
/// the network takes the integer tensor `integer_tensor` instead, the graph input's own tensor
/// retyped to `b.type`; `b` is recorded with the input's index (meta::input_quantization).
void take_float_input(lowering_context& cx, boundary_quantization b, const std::string& integer_tensor);
void lower_dequantize_linear(lowering_context&, const onnx::NodeProto&, const node_context&);
void lower_qlinear_conv(lowering_context&, const onnx::NodeProto&, const node_context&);
void lower_qlinear_matmul(lowering_context&, const onnx::NodeProto&, const node_context&);
void lower_conv_integer(lowering_context&, const onnx::NodeProto&, const node_context&);
void lower_matmul_integer(lowering_context&, const onnx::NodeProto&, const node_context&);
void lower_qgemm(lowering_context&, const onnx::NodeProto&, const node_context&);
void lower_qlinear_add(lowering_context&, const onnx::NodeProto&, const node_context&);
void lower_qlinear_concat(lowering_context&, const onnx::NodeProto&, const node_context&);
void lower_qlinear_average_pool(lowering_context&, const onnx::NodeProto&, const node_context&);
void lower_qlinear_global_average_pool(lowering_context&, const onnx::NodeProto&, const node_context&);
void lower_qlinear_mul(lowering_context&, const onnx::NodeProto&, const node_context&);
/// QLinearSigmoid, QLinearLeakyRelu: a lookup table computed from the float function.
void lower_qlinear_function(lowering_context&, const onnx::NodeProto&, const node_context&);
void lower_relu_clip(lowering_context&, const onnx::NodeProto&, const node_context&);
/// Sigmoid, Tanh, HardSigmoid, HardSwish, LeakyRelu: only on a dequantized tensor (QDQ), where
/// the QuantizeLinear that reads the result makes them a lookup table.
void lower_float_function(lowering_context&, const onnx::NodeProto&, const node_context&);
/// A node of the default domain with at least one dequantized (QDQ) float input: lowered on
/// the integers, or rejected naming the op when onnx2hpp cannot fold it.
void lower_on_dequantized(lowering_context&, const onnx::NodeProto&, const node_context&, lowering_function plain);

// lower_resize.cpp
void lower_resize(lowering_context&, const onnx::NodeProto&, const node_context&);
/// A linear Resize of a dequantized tensor (scale, zero point) must be read only by
/// QuantizeLinear nodes to the same scale and zero point; fails naming the reader otherwise.
void require_resize_keeps_quantization(lowering_context&, const onnx::NodeProto&, const node_context&, double scale,
                                       std::int64_t zero_point);

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
void lower_cast(lowering_context&, const onnx::NodeProto&, const node_context&);
void lower_constant_of_shape(lowering_context&, const onnx::NodeProto&, const node_context&);

}  // namespace tessera::onnx2hpp
