// Shape computations folded offline. Exporters compute reshape targets at run time from the
// input's shape (torch's `x.view(x.size(0), -1)` and `flatten(2)` write Shape -> Gather ->
// Unsqueeze -> Concat -> Reshape); every shape is static in a Tessera network, so these become
// int64 constants and the Reshape reads a constant shape.
#include <algorithm>

#include <fmt/format.h>

#include "lower_ops.hpp"
#include "onnx_values.hpp"
#include "shape_math.hpp"

namespace tessera::onnx2hpp {
namespace {

onnx::TensorProto int64_constant(const dims& shape, const std::vector<std::int64_t>& values) {
  onnx::TensorProto t;
  t.set_data_type(onnx::TensorProto::INT64);
  for (std::int64_t d : shape) t.add_dims(d);
  for (std::int64_t v : values) t.add_int64_data(v);
  return t;
}

bool is_shape_type(int type) { return type == onnx::TensorProto::INT64 || type == onnx::TensorProto::INT32; }

/// All inputs present are integer (INT64/INT32) constants: the node is shape arithmetic.
bool all_shape_constants(lowering_context& cx, const onnx::NodeProto& n) {
  bool any = false;
  for (int i = 0; i < n.input_size(); ++i) {
    if (n.input(i).empty()) continue;
    const onnx::TensorProto* t = cx.constant_proto(n, i);
    if (t == nullptr || !is_shape_type(t->data_type())) return false;
    any = true;
  }
  return any;
}

dims axes_input(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  if (cx.opset() < 13) return ints_attribute(n, "axes", {});
  if (!cx.has_input(n, 1)) return {};
  return cx.constant_input(n, 1, where, "axes").values;
}

void define(lowering_context& cx, const onnx::NodeProto& n, const node_context& where, const dims& shape,
            const std::vector<std::int64_t>& values) {
  if (n.output_size() < 1 || n.output(0).empty()) where.fail("missing output");
  cx.define_constant(n.output(0), int64_constant(shape, values));
}

}  // namespace

/// Shape of a tensor whose shape is known (every tensor of a static graph): an int64 constant,
/// with opset 15's `start` and `end`.
void lower_shape(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  const dims x = cx.input_shape(n, 0, where);
  const auto rank = static_cast<std::int64_t>(x.size());
  const auto clamp_axis = [rank](std::int64_t a) { return std::clamp(a < 0 ? a + rank : a, std::int64_t{0}, rank); };
  const std::int64_t start = clamp_axis(int_attribute(n, "start", 0));
  const std::int64_t end = clamp_axis(int_attribute(n, "end", rank));
  std::vector<std::int64_t> values;
  for (std::int64_t i = start; i < end; ++i) values.push_back(x[static_cast<std::size_t>(i)]);
  define(cx, n, where, {static_cast<std::int64_t>(values.size())}, values);
}

namespace {
/// Gather of a run-time tensor with constant indices: a gather node (a CCT's class token).
void lower_runtime_gather(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  if (!cx.is_constant_input(n, 1))
    where.fail("Gather is supported with constant indices only (the indices are a run-time tensor)");
  const dims x = cx.input_shape(n, 0, where);
  const tensor_ref input = cx.tensor_input(n, 0, where, "data");
  const int_array indices = cx.constant_input(n, 1, where, "indices");
  if (x.empty()) where.fail("data must have rank >= 1");
  ops::gather op;
  op.axis = normalize_axis(int_attribute(n, "axis", 0), x.size(), where);
  const std::int64_t extent = x[static_cast<std::size_t>(op.axis)];
  for (std::int64_t index : indices.values) {
    const std::int64_t k = index < 0 ? index + extent : index;
    if (k < 0 || k >= extent) where.fail(fmt::format("index {} is out of range for extent {}", index, extent));
    op.indices.push_back(k);
  }
  dims y(x.begin(), x.begin() + op.axis);
  y.insert(y.end(), indices.shape.begin(), indices.shape.end());
  y.insert(y.end(), x.begin() + op.axis + 1, x.end());
  if (y.empty()) where.fail("the output would be a scalar, which is not supported");
  const tensor_ref output = cx.define_output(n, 0, y, where);
  cx.add_node(where, std::move(op), {input}, {output});
}
}  // namespace

/// Gather of a constant (a shape vector) with constant indices, along `axis`, folded; of a
/// run-time tensor, a gather node.
void lower_gather(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  if (!all_shape_constants(cx, n)) return lower_runtime_gather(cx, n, where);
  const int_array data = cx.constant_input(n, 0, where, "data");
  const int_array indices = cx.constant_input(n, 1, where, "indices");
  if (data.shape.empty()) where.fail("data must have rank >= 1");
  const int axis = normalize_axis(int_attribute(n, "axis", 0), data.shape.size(), where);
  const std::int64_t extent = data.shape[static_cast<std::size_t>(axis)];
  const std::int64_t outer = element_count(dims(data.shape.begin(), data.shape.begin() + axis));
  const std::int64_t inner = element_count(dims(data.shape.begin() + axis + 1, data.shape.end()));
  dims shape(data.shape.begin(), data.shape.begin() + axis);
  shape.insert(shape.end(), indices.shape.begin(), indices.shape.end());
  shape.insert(shape.end(), data.shape.begin() + axis + 1, data.shape.end());
  std::vector<std::int64_t> values;
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t index : indices.values) {
      const std::int64_t k = index < 0 ? index + extent : index;
      if (k < 0 || k >= extent) where.fail(fmt::format("index {} is out of range for extent {}", index, extent));
      for (std::int64_t i = 0; i < inner; ++i)
        values.push_back(data.values[static_cast<std::size_t>((o * extent + k) * inner + i)]);
    }
  define(cx, n, where, shape, values);
}

/// Unsqueeze, Squeeze, Concat (rank 1), Slice (rank 1), Add, Sub, Mul of integer constants: the
/// plumbing between Shape and Reshape. Returns false when `n` is not such a node.
bool fold_shape_arithmetic(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  const std::string& op = n.op_type();
  static const char* const folded[] = {"Unsqueeze", "Squeeze", "Concat", "Slice", "Add", "Sub", "Mul"};
  if (!n.domain().empty() && n.domain() != "ai.onnx") return false;
  if (std::none_of(std::begin(folded), std::end(folded), [&](const char* s) { return op == s; })) return false;
  if (!all_shape_constants(cx, n)) return false;
  const int_array x = cx.constant_input(n, 0, where, "input");
  if (op == "Unsqueeze" || op == "Squeeze") {
    dims shape = x.shape;
    dims axes = axes_input(cx, n, where);
    if (op == "Unsqueeze") {
      const std::size_t rank = shape.size() + axes.size();
      std::vector<int> at = normalized_axes(axes, rank, where);
      std::sort(at.begin(), at.end());
      for (int a : at) shape.insert(shape.begin() + a, 1);
    } else {
      if (axes.empty())
        for (std::size_t d = 0; d < shape.size(); ++d)
          if (shape[d] == 1) axes.push_back(static_cast<std::int64_t>(d));
      std::vector<int> at = normalized_axes(axes, shape.size(), where);
      std::sort(at.rbegin(), at.rend());
      for (int a : at) {
        if (shape[static_cast<std::size_t>(a)] != 1) where.fail(fmt::format("cannot squeeze axis {}", a));
        shape.erase(shape.begin() + a);
      }
    }
    define(cx, n, where, shape, x.values);
    return true;
  }
  if (op == "Concat") {
    std::vector<std::int64_t> values;
    for (int i = 0; i < n.input_size(); ++i) {
      const int_array part = cx.constant_input(n, i, where, "input");
      if (part.shape.size() != 1) return false;
      values.insert(values.end(), part.values.begin(), part.values.end());
    }
    define(cx, n, where, {static_cast<std::int64_t>(values.size())}, values);
    return true;
  }
  if (op == "Slice") {
    if (x.shape.size() != 1 || cx.opset() < 10) return false;
    const auto extent = static_cast<std::int64_t>(x.values.size());
    // One value each (a 1-D shape vector has one axis); an empty one was std::out_of_range
    // from .at(0), an error naming no node (structure-aware fuzzer finding).
    const auto single = [&](int i, const char* role) {
      const int_array v = cx.constant_input(n, i, where, role);
      if (v.values.size() != 1)
        where.fail(fmt::format("{} of a 1-D shape vector must hold one value, not {}", role, v.values.size()));
      return v.values[0];
    };
    const std::int64_t step = cx.has_input(n, 4) ? single(4, "steps") : 1;
    if (step == 0) where.fail("step 0");
    auto start = single(1, "starts");
    auto end = single(2, "ends");
    const auto norm = [&](std::int64_t v, std::int64_t lo, std::int64_t hi) {
      if (v < 0) v += extent;
      return std::clamp(v, lo, hi);
    };
    start = step > 0 ? norm(start, 0, extent) : norm(start, -1, extent - 1);
    end = step > 0 ? norm(end, 0, extent) : norm(end, -1, extent - 1);
    std::vector<std::int64_t> values;
    for (std::int64_t i = start; step > 0 ? i < end : i > end;) {
      values.push_back(x.values[static_cast<std::size_t>(i)]);
      if (__builtin_add_overflow(i, step, &i)) break;  // a huge step: one value, no signed overflow
    }
    define(cx, n, where, {static_cast<std::int64_t>(values.size())}, values);
    return true;
  }
  // Add, Sub, Mul: equal sizes, or one side a single value.
  const int_array y = cx.constant_input(n, 1, where, "input B");
  const std::size_t size = std::max(x.values.size(), y.values.size());
  if ((x.values.size() != size && x.values.size() != 1) || (y.values.size() != size && y.values.size() != 1))
    return false;
  std::vector<std::int64_t> values;
  for (std::size_t i = 0; i < size; ++i) {
    const std::int64_t a = x.values[x.values.size() == 1 ? 0 : i], b = y.values[y.values.size() == 1 ? 0 : i];
    std::int64_t r = 0;
    const bool overflow = op == "Add"   ? __builtin_add_overflow(a, b, &r)
                          : op == "Sub" ? __builtin_sub_overflow(a, b, &r)
                                        : __builtin_mul_overflow(a, b, &r);
    if (overflow) where.fail("integer overflow in a shape computation");
    values.push_back(r);
  }
  define(cx, n, where, x.values.size() == size ? x.shape : y.shape, values);
  return true;
}

}  // namespace tessera::onnx2hpp
