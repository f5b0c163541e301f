// Ops that move or relabel data without arithmetic: Constant, the reshapes (Reshape,
// Flatten, Identity, Squeeze, Unsqueeze), Pad, Concat, Slice and Transpose; and the constant
// plumbing of exporters (Cast, ConstantOfShape).
#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "lower_ops.hpp"
#include "onnx_values.hpp"
#include "quantization.hpp"
#include "shape_math.hpp"

namespace tessera::onnx2hpp {
namespace {

/// Every reshape-like op lowers to the same alias node.
void lower_as_reshape(lowering_context& cx, const onnx::NodeProto& n, const node_context& where, dims y) {
  const dims x = cx.input_shape(n, 0, where);
  const tensor_ref input = cx.tensor_input(n, 0, where, "input");
  if (element_count(x) != element_count(y))
    where.fail("output shape " + to_string(y) + " does not hold the " + std::to_string(element_count(x)) +
               " elements of " + to_string(x));
  const tensor_ref output = cx.define_output(n, 0, std::move(y), where);
  cx.add_node(where, ops::reshape{}, {input}, {output});
}

/// Squeeze/Unsqueeze axes: an attribute before opset 13, an optional constant input after.
std::optional<dims> axes_of(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  if (has_attribute(n, "axes")) return ints_attribute(n, "axes", {});
  if (cx.has_input(n, 1)) return cx.constant_input(n, 1, where, "axes").values;
  return std::nullopt;
}

/// ONNX Slice for one axis: the normalized first index and the element count.
struct slice_range {
  std::int64_t start;
  std::int64_t count;
};
slice_range slice_axis(std::int64_t extent, std::int64_t start, std::int64_t end, std::int64_t step) {
  if (start < 0) start += extent;
  if (end < 0) end += extent;
  if (step > 0) {
    start = std::clamp<std::int64_t>(start, 0, extent);
    end = std::clamp<std::int64_t>(end, 0, extent);
    return {start, end > start ? (end - start + step - 1) / step : 0};
  }
  start = std::clamp<std::int64_t>(start, 0, extent - 1);
  end = std::clamp<std::int64_t>(end, -1, extent - 1);
  return {start, start > end ? (start - end - step - 1) / -step : 0};
}

}  // namespace

void lower_constant(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  if (n.output_size() != 1 || n.output(0).empty()) where.fail("a Constant needs exactly one output");
  cx.define_constant(n.output(0), constant_node_tensor(n));
}

void lower_identity(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  lower_as_reshape(cx, n, where, cx.input_shape(n, 0, where));
}

std::vector<int> normalized_axes(const dims& axes, std::size_t rank, const node_context& where) {
  std::vector<int> out;
  for (auto a : axes) {
    const int axis = normalize_axis(a, rank, where);
    if (std::find(out.begin(), out.end(), axis) != out.end()) where.fail(fmt::format("axis {} is repeated", axis));
    out.push_back(axis);
  }
  return out;
}

void lower_reshape(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  const dims x = cx.input_shape(n, 0, where);
  const int_array target = cx.constant_input(n, 1, where, "shape");
  const bool allow_zero = int_attribute(n, "allowzero", 0) != 0;
  dims y;
  int inferred = -1;
  std::int64_t known = 1;
  for (std::size_t i = 0; i < target.values.size(); ++i) {
    std::int64_t d = target.values[i];
    if (d == 0 && !allow_zero) {
      if (i >= x.size()) where.fail("shape copies a dimension the input does not have");
      d = x[i];  // 0 copies the input's dimension
    }
    if (d == -1) {
      if (inferred >= 0) where.fail("shape has more than one -1");
      inferred = static_cast<int>(i);
      d = 1;
    } else if (d < 1) {
      where.fail("shape " + to_string(target.values) + " is not a valid static shape");
    }
    if (__builtin_mul_overflow(known, d, &known))
      where.fail("shape " + to_string(target.values) + " has too many elements");
    y.push_back(d);
  }
  if (inferred >= 0) {
    if (element_count(x) % known != 0)
      where.fail("shape " + to_string(target.values) + " does not fit " + to_string(x));
    y[static_cast<std::size_t>(inferred)] = element_count(x) / known;
  }
  lower_as_reshape(cx, n, where, std::move(y));
}

void lower_flatten(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  const dims x = cx.input_shape(n, 0, where);
  const std::int64_t raw_axis = int_attribute(n, "axis", 1);
  // Flatten accepts axis == rank (everything goes to the outer dimension).
  const int axis = raw_axis == static_cast<std::int64_t>(x.size()) ? static_cast<int>(x.size())
                                                                   : normalize_axis(raw_axis, x.size(), where);
  const std::int64_t outer = element_count(dims(x.begin(), x.begin() + axis));
  lower_as_reshape(cx, n, where, {outer, element_count(x) / outer});
}

void lower_squeeze(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  const dims x = cx.input_shape(n, 0, where);
  const std::optional<dims> axes = axes_of(cx, n, where);
  std::vector<int> removed;
  if (axes) {
    removed = normalized_axes(*axes, x.size(), where);
    for (int a : removed)
      if (x[static_cast<std::size_t>(a)] != 1) where.fail(fmt::format("cannot squeeze axis {} of extent {}", a, x[a]));
  } else {
    for (std::size_t i = 0; i < x.size(); ++i)
      if (x[i] == 1) removed.push_back(static_cast<int>(i));
  }
  dims y;
  for (std::size_t i = 0; i < x.size(); ++i)
    if (std::find(removed.begin(), removed.end(), static_cast<int>(i)) == removed.end()) y.push_back(x[i]);
  lower_as_reshape(cx, n, where, std::move(y));
}

void lower_unsqueeze(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  const dims x = cx.input_shape(n, 0, where);
  const std::optional<dims> axes = axes_of(cx, n, where);
  if (!axes) where.fail("missing axes");
  const std::size_t rank = x.size() + axes->size();
  const std::vector<int> inserted = normalized_axes(*axes, rank, where);
  dims y;
  auto next = x.begin();
  for (std::size_t i = 0; i < rank; ++i) {
    if (std::find(inserted.begin(), inserted.end(), static_cast<int>(i)) != inserted.end())
      y.push_back(1);
    else
      y.push_back(*next++);
  }
  lower_as_reshape(cx, n, where, std::move(y));
}

void lower_pad(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  const dims x = cx.input_shape(n, 0, where);
  const tensor_ref input = cx.tensor_input(n, 0, where, "input");
  const std::string mode = string_attribute(n, "mode", "constant");
  if (mode != "constant") where.fail("mode '" + mode + "' is not supported (only 'constant')");

  // Before opset 11 pads and value are attributes; from 11 on they are inputs (axes from 18).
  dims pads;
  double value = 0;
  std::vector<int> axes(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) axes[i] = static_cast<int>(i);
  if (cx.opset() < 11) {
    pads = ints_attribute(n, "pads", {});
    value = float_attribute(n, "value", 0.0f);
  } else {
    pads = cx.constant_input(n, 1, where, "pads").values;
    if (cx.has_input(n, 2)) {
      const int_array v = cx.constant_input(n, 2, where, "constant_value");
      if (v.values.size() > 1) where.fail("constant_value must be a scalar");
      if (!v.values.empty()) value = static_cast<double>(v.values[0]);
    }
    if (cx.has_input(n, 3)) axes = normalized_axes(cx.constant_input(n, 3, where, "axes").values, x.size(), where);
  }
  if (pads.size() != 2 * axes.size())
    where.fail(fmt::format("pads has {} values, {} expected", pads.size(), 2 * axes.size()));
  if (std::trunc(value) != value) where.fail(fmt::format("pad value {} is not an integer", value));

  ops::pad op;
  op.before.assign(x.size(), 0);
  op.after.assign(x.size(), 0);
  op.value = static_cast<std::int64_t>(value);
  dims y = x;
  for (std::size_t i = 0; i < axes.size(); ++i) {
    const auto axis = static_cast<std::size_t>(axes[i]);
    op.before[axis] = pads[i];
    op.after[axis] = pads[i + axes.size()];
    if (op.before[axis] < 0 || op.after[axis] < 0) where.fail("negative pads (cropping) are not supported");
    // A fuzzed model's pads can overflow int64 (undefined behaviour): refuse them.
    if (__builtin_add_overflow(y[axis], op.before[axis], &y[axis]) ||
        __builtin_add_overflow(y[axis], op.after[axis], &y[axis]))
      where.fail(fmt::format("pads {} and {} on axis {} make the output extent overflow", op.before[axis],
                             op.after[axis], axis));
  }
  const tensor_ref output = cx.define_output(n, 0, y, where);
  cx.add_node(where, std::move(op), {input}, {output});
}

void lower_concat(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  // tessera::op::max_concat_inputs (include/tessera/ops/concat.hpp)
  constexpr int max_inputs = 8;
  if (n.input_size() < 1) where.fail("no inputs");
  if (n.input_size() > max_inputs)
    where.fail(fmt::format("{} inputs: Tessera's concat takes at most {}", n.input_size(), max_inputs));
  const dims first = cx.input_shape(n, 0, where);
  if (!has_attribute(n, "axis")) where.fail("missing attribute 'axis'");
  ops::concat op;
  op.axis = normalize_axis(int_attribute(n, "axis", 0), first.size(), where);
  std::vector<tensor_ref> inputs;
  dims y = first;
  y[static_cast<std::size_t>(op.axis)] = 0;
  for (int i = 0; i < n.input_size(); ++i) {
    const dims s = cx.input_shape(n, i, where);
    inputs.push_back(cx.tensor_input(n, i, where, "input"));
    bool agrees = s.size() == first.size();
    for (std::size_t d = 0; agrees && d < s.size(); ++d) agrees = static_cast<int>(d) == op.axis || s[d] == first[d];
    if (!agrees) where.fail("inputs " + to_string(first) + " and " + to_string(s) + " differ off the concat axis");
    y[static_cast<std::size_t>(op.axis)] += s[static_cast<std::size_t>(op.axis)];
  }
  // An empty input (see require_only_concat_reads) adds nothing; define_output refuses an empty result.
  const tensor_ref output = cx.define_output(n, 0, y, where);
  cx.add_node(where, std::move(op), std::move(inputs), {output});
}

void lower_slice(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  const dims x = cx.input_shape(n, 0, where);
  const tensor_ref input = cx.tensor_input(n, 0, where, "input");
  // Before opset 10 starts/ends/axes are attributes; from 10 on they are inputs, plus steps.
  dims starts, ends, axes_list, steps;
  if (cx.opset() < 10) {
    starts = ints_attribute(n, "starts", {});
    ends = ints_attribute(n, "ends", {});
    axes_list = ints_attribute(n, "axes", {});
  } else {
    starts = cx.constant_input(n, 1, where, "starts").values;
    ends = cx.constant_input(n, 2, where, "ends").values;
    if (cx.has_input(n, 3)) axes_list = cx.constant_input(n, 3, where, "axes").values;
    if (cx.has_input(n, 4)) steps = cx.constant_input(n, 4, where, "steps").values;
  }
  if (axes_list.empty())
    for (std::size_t i = 0; i < starts.size(); ++i) axes_list.push_back(static_cast<std::int64_t>(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes_list.size() != starts.size() || steps.size() != starts.size())
    where.fail("starts, ends, axes and steps differ in length");
  const std::vector<int> axes = normalized_axes(axes_list, x.size(), where);

  ops::slice op;
  op.start.assign(x.size(), 0);
  op.step.assign(x.size(), 1);
  dims y = x;
  for (std::size_t i = 0; i < axes.size(); ++i) {
    const auto axis = static_cast<std::size_t>(axes[i]);
    if (steps[i] == 0) where.fail("a step of 0 is not allowed");
    const slice_range r = slice_axis(x[axis], starts[i], ends[i], steps[i]);
    if (r.count == 0) where.fail(fmt::format("the slice of axis {} is empty", axis));
    op.start[axis] = r.start;
    op.step[axis] = steps[i];
    y[axis] = r.count;
  }
  const tensor_ref output = cx.define_output(n, 0, y, where);
  cx.add_node(where, std::move(op), {input}, {output});
}

void lower_transpose(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  const dims x = cx.input_shape(n, 0, where);
  const tensor_ref input = cx.tensor_input(n, 0, where, "input");
  dims reversed;
  for (std::size_t i = x.size(); i-- > 0;) reversed.push_back(static_cast<std::int64_t>(i));
  const dims perm_attr = ints_attribute(n, "perm", reversed);
  if (perm_attr.size() != x.size()) where.fail("perm " + to_string(perm_attr) + " does not match the rank");
  ops::transpose op;
  op.perm = normalized_axes(perm_attr, x.size(), where);
  const tensor_ref output = cx.define_output(n, 0, permute_dims(x, op.perm), where);
  cx.add_node(where, std::move(op), {input}, {output});
}

// ---------------------------------------------------------------------------- Cast, ConstantOfShape
// PyTorch's exporter writes both around every quantized op: Cast(QuantizeLinear(..), to = UINT8)
// in front of each DequantizeLinear, and Cast(ConstantOfShape(shape), to = INT32) as a bias zero
// point. onnx2hpp folds them when they are constants and lets a Cast that keeps the type through.

namespace {

bool is_integer_type(int t) {
  using tp = onnx::TensorProto;
  return t == tp::INT8 || t == tp::UINT8 || t == tp::INT16 || t == tp::UINT16 || t == tp::INT32 || t == tp::INT64;
}

/// A constant of ONNX type `type` (integer, FLOAT or DOUBLE) holding `values`, which fit it.
onnx::TensorProto typed_constant(int type, const dims& shape, const std::vector<double>& real,
                                 const std::vector<std::int64_t>& ints) {
  using tp = onnx::TensorProto;
  tp t;
  t.set_data_type(type);
  for (auto d : shape) t.add_dims(d);
  if (type == tp::FLOAT) for (double v : real) t.add_float_data(static_cast<float>(v));
  else if (type == tp::DOUBLE) for (double v : real) t.add_double_data(v);
  else if (type == tp::INT64) for (auto v : ints) t.add_int64_data(v);
  else for (auto v : ints) t.add_int32_data(static_cast<std::int32_t>(v));
  return t;
}

std::int64_t type_min(int type) {
  using tp = onnx::TensorProto;
  switch (type) {
    case tp::INT8: return -128;
    case tp::INT16: return -32768;
    case tp::INT32: return std::numeric_limits<std::int32_t>::min();
    case tp::INT64: return std::numeric_limits<std::int64_t>::min();
    default: return 0;
  }
}
std::int64_t type_max(int type) {
  using tp = onnx::TensorProto;
  switch (type) {
    case tp::INT8: return 127;
    case tp::UINT8: return 255;
    case tp::INT16: return 32767;
    case tp::UINT16: return 65535;
    case tp::INT32: return std::numeric_limits<std::int32_t>::max();
    default: return std::numeric_limits<std::int64_t>::max();
  }
}

}  // namespace

/// Cast. Of a constant: the constant in the target type (integers that fit an integer type, or
/// any number to FLOAT/DOUBLE). Of a run-time tensor: only when `to` is the type the tensor
/// already has, then nothing happens (an alias): Tessera changes types only in arithmetic ops.
void lower_cast(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  using tp = onnx::TensorProto;
  if (!has_attribute(n, "to")) where.fail("missing attribute 'to'");
  const int to = static_cast<int>(int_attribute(n, "to", 0));
  const std::string to_name = tp::DataType_IsValid(to) ? tp::DataType_Name(static_cast<tp::DataType>(to))
                                                       : std::to_string(to);
  if (n.output_size() < 1 || n.output(0).empty()) where.fail("missing output");
  if (const onnx::TensorProto* c = cx.constant_proto(n, 0)) {
    const dims shape(c->dims().begin(), c->dims().end());
    if (to == tp::FLOAT || to == tp::DOUBLE) {
      std::vector<double> real;
      if (c->data_type() == tp::FLOAT || c->data_type() == tp::DOUBLE) {
        real = float_values(*c, where, "input '" + n.input(0) + "'");
      } else {
        for (auto v : integer_tensor(*c, where, "input '" + n.input(0) + "'").values)
          real.push_back(static_cast<double>(v));
      }
      cx.define_constant(n.output(0), typed_constant(to, shape, real, {}));
      return;
    }
    if (!is_integer_type(to)) where.fail("a Cast to " + to_name + " is not supported");
    const int_array values = integer_tensor(*c, where, "input '" + n.input(0) + "'");
    require_range(values, type_min(to), type_max(to), where, "input '" + n.input(0) + "'", to_name);
    cx.define_constant(n.output(0), typed_constant(to, shape, {}, values.values));
    return;
  }
  const int from = cx.element_type(n.input(0));
  if (from != to)
    where.fail("a Cast of a run-time tensor is supported only when it keeps the element type (" + to_name +
               "): Tessera converts types only in its arithmetic ops");
  lower_identity(cx, n, where);
  cx.set_element_type(n.output(0), to);
}

/// ConstantOfShape of a constant shape: a constant (value 0.0f when the attribute is absent).
void lower_constant_of_shape(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  using tp = onnx::TensorProto;
  const int_array shape = cx.constant_input(n, 0, where, "shape");
  std::int64_t count = 1;
  for (auto d : shape.values) {
    if (d < 0) where.fail("shape has a negative dimension");
    count *= d;
    if (count > (std::int64_t{1} << 24)) where.fail("the constant is too large");
  }
  tp value;
  value.set_data_type(tp::FLOAT);
  value.add_float_data(0.0f);
  if (const onnx::AttributeProto* a = find_attribute(n, "value")) value = a->t();
  if (n.output_size() < 1 || n.output(0).empty()) where.fail("missing output");
  const auto u = static_cast<std::size_t>(count);
  if (value.data_type() == tp::FLOAT || value.data_type() == tp::DOUBLE) {
    const std::vector<double> v = float_values(value, where, "value");
    if (v.size() != 1) where.fail("value must hold one element");
    cx.define_constant(n.output(0), typed_constant(value.data_type(), shape.values, std::vector<double>(u, v[0]), {}));
    return;
  }
  if (!is_integer_type(value.data_type())) where.fail("value must be an integer or float tensor");
  const int_array v = integer_tensor(value, where, "value");
  if (v.values.size() != 1) where.fail("value must hold one element");
  cx.define_constant(n.output(0),
                     typed_constant(value.data_type(), shape.values, {}, std::vector<std::int64_t>(u, v.values[0])));
}

}  // namespace tessera::onnx2hpp
