// The converter's graph IR: the ONNX graph after lowering, in ONNX (logical) terms.
//
// Lowering (lowering.hpp) turns each ONNX node into one or more of the ops below, with every
// attribute, shape and constant already checked and converted to integers. The passes
// (types.hpp, fusion.hpp) work on this IR; the layout pass (to_device.hpp) then turns it into
// the physical device graph (device_ir.hpp) that the emitter prints. Shapes, axes and constants
// here are logical: ONNX order, NCHW for feature maps.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <tessera/core/dtype.hpp>
#include <tessera/core/requant.hpp>
#include <tessera/graph/float_ends.hpp>

namespace tessera::onnx2hpp {

using dims = std::vector<std::int64_t>;
using tensor_ref = int;  ///< index into graph::tensors

/// An integer constant (weights, bias, requant mul/add, a constant operand), row-major.
struct int_array {
  dims shape;
  std::vector<std::int64_t> values;
};

struct tensor {
  std::string onnx_name;  ///< empty for tensors the converter introduces
  std::string producer;   ///< ONNX op type that produced the ONNX tensor; "" for a graph input
  dims shape;             ///< logical (ONNX) shape
  tessera::dtype type = tessera::dtype::s32;
  int onnx_elem_type = 0;          ///< graph inputs: the ONNX element type (TensorProto::DataType)
  bool type_from_samples = false;  ///< graph inputs typed from sample data may be widened (types.cpp)
};

/// The real-valued requantization a standard quantized ONNX op asked for,
/// y = round(scale_in[c] * (x - zero_in) / scale_out) + zero_out, kept beside its integer form
/// so that widen_requant_shifts (quantization.hpp) can redo the integer form with more bits.
struct requant_source {
  std::vector<double> scale_in;
  std::int64_t zero_in = 0;
  double scale_out = 1;
  std::int64_t zero_out = 0;
};

/// RequantShift parameters: y = clamp((x*mul + add + 2^(shift-1)) >> shift, lo, hi).
/// `mul`/`add` have the output's rank and broadcast against it (each dim 1 or the output's).
struct requant {
  int_array mul;
  int_array add;
  int shift = 0;
  std::int64_t lo = 0;
  std::int64_t hi = 0;
  tessera::dtype type = tessera::dtype::s8;
  std::optional<requant_source> source;  ///< set for QDQ/QOperator requantizations
  /// half_up everywhere but the requantization of a standard-ONNX average pool or mean, which
  /// rounds half to even as QuantizeLinear does, ties counted from the output zero point
  /// (docs/semantics.md, "Rounding of means").
  tessera::rounding rounding = tessera::rounding::half_up;
  std::int64_t zero_point = 0;
  /// > 1 only for an exact mean: y = round((acc * mul + add) / (divisor * 2^shift)) (the odd
  /// part of a window count, core/requant.hpp); passes that recompute mul leave such a requant.
  std::int64_t divisor = 1;
};

/// Height/width pairs of a 1D or 2D window op; a 1D op has height 1 (no padding, stride 1).
struct window2d {
  std::array<std::int64_t, 2> kernel{1, 1};
  std::array<std::int64_t, 2> stride{1, 1};
  std::array<std::int64_t, 2> dilation{1, 1};
  std::array<std::int64_t, 2> pad_begin{0, 0};  ///< top, left
  std::array<std::int64_t, 2> pad_end{0, 0};    ///< bottom, right

  bool pads() const {
    return pad_begin != std::array<std::int64_t, 2>{0, 0} || pad_end != std::array<std::int64_t, 2>{0, 0};
  }
};

namespace ops {
struct conv {
  window2d window;
  std::int64_t groups = 1;
  std::int64_t pad_value = 0;     ///< the stored value the padding reads (the input's zero point)
  int_array weights;              ///< device order [F][KH][KW][C/groups], int8
  std::optional<int_array> bias;  ///< [F], int32
};
/// Y = X W^T (+ bias): a Gemm, or a MatMul with a constant right operand.
struct gemm {
  std::int64_t n = 0;
  std::int64_t k = 0;
  int_array weights;              ///< [N][K], K in logical order (the layout pass may permute it)
  std::optional<int_array> bias;  ///< [N], int32
};
struct matmul {};  ///< two run-time operands
enum class binary_kind { add, sub, mul };
struct binary {
  binary_kind kind = binary_kind::add;
  std::int64_t a_offset = 0;  ///< added to every value of a first (a Mul's -za); 0 for Add/Sub
  std::int64_t b_offset = 0;
  std::optional<int_array> constant_b;  ///< right operand when constant, at the output's rank
  /// Add only: the RequantShift each run-time operand went through, folded in by fusion.cpp
  /// (a RequantizedAdd: out = rq(a_rq(a) + b_rq(b)); per tensor or per channel, no broadcast).
  std::optional<requant> a_rq, b_rq;
};
struct pool {
  bool max = true;
  window2d window;
  bool count_include_pad = false;
};
struct pad {
  dims before;
  dims after;
  std::int64_t value = 0;
};
struct reshape {};  ///< Reshape, Flatten, Identity, Squeeze, Unsqueeze: data unchanged
struct concat {
  int axis = 0;
};
struct slice {
  dims start;  ///< per logical axis, normalized into [0, extent)
  dims step;
};
struct transpose {
  std::vector<int> perm;  ///< ONNX semantics: output dim i is input dim perm[i]
};
struct requant_shift {
  requant rq;
};
/// y = table[x - min(input)] for an 8-bit x: a quantized elementwise float function.
struct lookup_table {
  std::vector<std::int64_t> table;  ///< 256 entries; entry k serves input value min(input) + k
  tessera::dtype input = tessera::dtype::s8;   ///< the input type the table is indexed for
  tessera::dtype output = tessera::dtype::s8;  ///< s8 or u8
};
/// Deeploy's iHardswish: y = x * (clamp(x + three, 0, six) * one_over_six), int32.
struct hardswish {
  std::int64_t three = 0, six = 0, one_over_six = 0;
};
/// Deeploy's iGELU (b < 0), int32.
struct gelu {
  std::int64_t b = 0, one = 0;
};
/// ReduceSum (int32) or ReduceMean/IntegerMean (the input's type) over logical `axes`.
struct reduce {
  bool mean = false;
  std::vector<int> axes;  ///< normalized, ascending
  bool keepdims = true;
};
/// Deeploy's IntegerDiv of two run-time tensors (numpy broadcasting), int32.
struct integer_div {
  std::int64_t delta = 1, eps = 0, eta = 1;
};
/// Gather of a run-time tensor along a logical axis with constant indices in [0, extent).
struct gather {
  int axis = 0;
  std::vector<std::int64_t> indices;
};
/// ONNX Resize (modes nearest, linear) over H and W of an (N, C, H, W) map; the output's
/// extents give the scales (exactly output / input). The names follow the library's enums
/// (tessera::op::resize_mode, resize_coordinates, resize_nearest_rounding), whose kernel
/// holds the coordinate and weight formulas.
enum class resize_mode { nearest, linear };
enum class resize_coordinates { half_pixel, pytorch_half_pixel, align_corners, asymmetric };
enum class resize_nearest_rounding { round_prefer_floor, round_prefer_ceil, floor, ceil };
/// The ONNX spelling of each value (mode, coordinate_transformation_mode, nearest_mode), which
/// is also the name of the library's enumerator.
const char* resize_name(resize_mode m);
const char* resize_name(resize_coordinates c);
const char* resize_name(resize_nearest_rounding r);
struct resize {
  resize_mode mode = resize_mode::nearest;
  resize_coordinates coordinates = resize_coordinates::half_pixel;
  resize_nearest_rounding nearest = resize_nearest_rounding::round_prefer_floor;
};
/// iSoftmax, ITAMax, ITAPartialMax over the last axis (kernels/reference/softmax.hpp); uint8 out.
enum class softmax_kind { i_softmax, ita_max, ita_partial_max };
struct softmax {
  softmax_kind kind = softmax_kind::i_softmax;
  std::int64_t coeff_a = 1, coeff_b = 0, coeff_c = 1, log2 = 1;  ///< iSoftmax
  std::int64_t n_levels = 256;
  std::int64_t group_width = 16;  ///< ITAPartialMax
};
/// iRMSNorm, iLayerNorm, iNoNorm over the last axis (kernels/reference/normalization.hpp).
enum class norm_kind { rms, layer, no_norm };
struct normalization {
  norm_kind kind = norm_kind::rms;
  int shift = 0;  ///< D = 2^shift
  std::int64_t lo = -128, hi = 127;
  std::int64_t mul = 1;           ///< iNoNorm
  int_array weight;               ///< int32 [rows][L]; tensor row r reads row r % rows
  std::optional<int_array> bias;  ///< int32 [rows][L]
  tessera::dtype output = tessera::dtype::s8;
};
}  // namespace ops

using any_op = std::variant<ops::conv, ops::gemm, ops::matmul, ops::binary, ops::pool, ops::pad, ops::reshape,
                            ops::concat, ops::slice, ops::transpose, ops::requant_shift, ops::lookup_table,
                            ops::hardswish, ops::gelu, ops::reduce, ops::integer_div, ops::gather, ops::softmax, ops::normalization,
                            ops::resize>;

struct node {
  std::string name;     ///< ONNX node name (possibly empty), the layer name's source
  std::string onnx_op;  ///< ONNX op type, for messages
  any_op operation;
  std::vector<tensor_ref> inputs;  ///< run-time inputs only; constants live in `operation`
  std::vector<tensor_ref> outputs;
  std::optional<requant> fused_requant;  ///< a RequantShift folded into conv/gemm/matmul/binary
};

/// A float end of the model that onnx2hpp took off: a QuantizeLinear of a float graph input
/// (the network takes its integer output) or a DequantizeLinear to a float graph output (the
/// network returns its integer input). real = scale * (q - zero_point).
struct boundary_quantization {
  std::string onnx_name;  ///< the float graph input or output
  bool input = true;
  int index = 0;          ///< position among the network's inputs or outputs
  double scale = 1;
  std::int64_t zero_point = 0;
  tessera::dtype type = tessera::dtype::u8;
  /// A fake-quantized end (fake_quantization.hpp): the model's arithmetic, its float ops
  /// ("Div, Add, Round, Clip") and, for an input, the Clip's bounds. QuantizeLinear /
  /// DequantizeLinear: `linear` and no ops.
  tessera::float_arithmetic arithmetic = tessera::float_arithmetic::linear;
  std::string ops;
  std::int64_t lo = 0, hi = 0;
};

struct graph {
  std::string model_file;  ///< file name of the source model, for the banner
  std::vector<boundary_quantization> boundaries;
  std::vector<tensor> tensors;
  std::vector<node> nodes;  ///< in execution (topological) order
  std::vector<tensor_ref> inputs;
  std::vector<tensor_ref> outputs;

  /// For each tensor, the indices of the nodes that read it (in node order).
  std::vector<std::vector<int>> consumers() const;
  /// For each tensor, the index of the node that writes it (-1: a graph input or a constant).
  std::vector<int> producers() const;
  bool is_graph_output(tensor_ref t) const;
  bool is_graph_input(tensor_ref t) const;
};

/// Whether the op can take a fused RequantShift (its kernel has a requant epilogue).
bool accepts_fused_requant(const any_op& o);

}  // namespace tessera::onnx2hpp
