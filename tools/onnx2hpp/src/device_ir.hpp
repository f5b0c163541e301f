// The device graph: what the generated header declares, in physical terms.
//
// Every struct mirrors a node type of the library (include/tessera/ops/*.hpp): tensor ids,
// physical axes and shapes, constants in the order the kernels read them. The layout pass
// (to_device.hpp) builds it; the emitter (emitter.hpp) only prints it.
#pragma once

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <tessera/core/dtype.hpp>

#include "ir.hpp"
#include "layout_math.hpp"

namespace tessera::onnx2hpp::device {

using tensor_id = int;

/// Where a device tensor comes from in the ONNX model (tessera::tensor_origin).
struct origin {
  std::string onnx_name;
  std::string producer;  ///< ONNX op type, "" for a graph input
  dims logical;
  layout where;  ///< view and perm
};

struct tensor {
  std::string name;  ///< raw name; the emitter sanitizes it
  tessera::dtype type = tessera::dtype::s8;
  dims shape;                    ///< physical
  std::optional<origin> source;  ///< absent for tensors the converter adds (layout copies, ...)
  /// With --state (state.hpp): the physical axis whose extent is the run's sequence length,
  /// -1 for none, and whether the tensor is a state buffer (tessera::tensor_desc).
  int sequence_axis = -1;
  bool state = false;
};

/// tessera::requant_constants: entry (i / inner) % length of mul/add serves flat index i.
struct requant_table {
  std::vector<std::int64_t> mul;
  std::vector<std::int64_t> add;
  int shift = 0;
  std::int64_t lo = 0;
  std::int64_t hi = 0;
  std::int64_t inner = 1;
  tessera::rounding rounding = tessera::rounding::half_up;
  std::int64_t zero_point = 0;  ///< half_even ties go to the y with y - zero_point even
  std::int64_t divisor = 1;     ///< exact means: t / (divisor * 2^shift)
};

struct conv {
  tensor_id input = 0, output = 0;
  window2d window;
  std::int64_t groups = 1;
  std::vector<std::int64_t> weights;  ///< [F][KH][KW][C/groups]
  std::int64_t pad_value = 0;         ///< the stored value the padding reads
  std::optional<std::vector<std::int64_t>> bias;
  std::optional<requant_table> rq;
};
struct gemm {
  tensor_id input = 0, output = 0;
  std::int64_t n = 0, k = 0;
  std::vector<std::int64_t> weights;  ///< [N][K], K in the input's physical order
  std::optional<std::vector<std::int64_t>> bias;
  std::optional<requant_table> rq;
};
struct matmul {
  tensor_id a = 0, b = 0, output = 0;
  std::optional<requant_table> rq;
  bool b_transposed = false;  ///< b is {..., N, K}: a Transpose folded in (state.hpp)
};
struct binary {
  ops::binary_kind kind = ops::binary_kind::add;
  std::int64_t a_offset = 0, b_offset = 0;
  tensor_id a = 0, b = -1, output = 0;  ///< b == -1: the constant operand
  dims b_shape;                         ///< physical shape of the constant operand
  std::vector<std::int64_t> constant_b;
  std::optional<requant_table> rq;
  std::optional<requant_table> a_rq, b_rq;  ///< a RequantizedAdd's operand requantizations
};
struct pool {
  bool max = true;
  tensor_id input = 0, output = 0;
  window2d window;
  bool count_include_pad = false;
};
struct pad {
  tensor_id input = 0, output = 0;
  dims before, after;  ///< physical axes
  std::int64_t value = 0;
};
struct reshape {
  tensor_id input = 0, output = 0;
};
struct concat {
  std::vector<tensor_id> inputs;
  tensor_id output = 0;
  int axis = 0;  ///< physical axis
};
struct slice {
  tensor_id input = 0, output = 0;
  dims start, step;  ///< physical axes
};
/// A Concat(cache, rows) of a --state pair, in place (tessera::op::state_append).
struct state_append {
  tensor_id rows = 0, state = 0;
  int axis = 0;  ///< physical
};
struct transpose {
  tensor_id input = 0, output = 0;
  permutation perm;  ///< physical: output dim i is input dim perm[i]
};
struct requant_shift {
  tensor_id input = 0, output = 0;
  requant_table rq;
};
struct lookup_table {
  tensor_id input = 0, output = 0;
  std::vector<std::int64_t> table;  ///< 256 entries of the output's type
};

struct hardswish {
  tensor_id input = 0, output = 0;
  ops::hardswish params;
  std::optional<requant_table> rq;
};
struct gelu {
  tensor_id input = 0, output = 0;
  ops::gelu params;
  std::optional<requant_table> rq;
};
struct reduce {
  tensor_id input = 0, output = 0;
  bool mean = false;
  std::vector<int> axes;  ///< physical
  bool keepdims = true;
};
struct integer_div {
  tensor_id a = 0, b = 0, output = 0;
  ops::integer_div params;
  std::optional<requant_table> rq;
};
struct gather {
  tensor_id input = 0, output = 0;
  int axis = 0;  ///< physical
  std::vector<std::int64_t> indices;
};

struct resize {
  tensor_id input = 0, output = 0;  ///< both channels-last
  ops::resize params;
};

struct softmax {
  tensor_id input = 0, output = 0;
  ops::softmax params;
};
struct normalization {
  tensor_id input = 0, output = 0;
  ops::normalization params;  ///< weight and bias [rows][L]: the logical order is the physical one
};

using any_op = std::variant<conv, gemm, matmul, binary, pool, pad, reshape, concat, slice, transpose, requant_shift,
                            lookup_table, hardswish, gelu, reduce, integer_div, gather,
                            softmax, normalization, resize, state_append>;

struct node {
  std::string name;  ///< raw layer name; the emitter sanitizes it
  any_op operation;
};

struct graph {
  std::string model_file;
  std::vector<boundary_quantization> boundaries;
  std::vector<tensor> tensors;  ///< graph inputs first, then in order of definition
  std::vector<node> nodes;      ///< execution order
  std::vector<tensor_id> inputs;
  std::vector<tensor_id> outputs;
};

}  // namespace tessera::onnx2hpp::device
