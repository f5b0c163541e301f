// ONNX Resize (opset 11 and later), modes nearest and linear over H and W of an (N, C, H, W)
// map, with constant scales or sizes: what torch exports for nn.Upsample / F.interpolate and
// ONNX Runtime's quantizer writes around it. The coordinate and weight formulas live in the
// library's kernel (kernels/reference/resize.hpp); here the attributes are validated and the
// output extents fixed, each scale being exactly output / input.
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "lower_ops.hpp"
#include "onnx_values.hpp"
#include "quantization.hpp"
#include "shape_math.hpp"

namespace tessera::onnx2hpp {
namespace {

constexpr ops::resize_mode all_modes[] = {ops::resize_mode::nearest, ops::resize_mode::linear};
constexpr ops::resize_coordinates all_coordinates[] = {
    ops::resize_coordinates::half_pixel, ops::resize_coordinates::pytorch_half_pixel,
    ops::resize_coordinates::align_corners, ops::resize_coordinates::asymmetric};
constexpr ops::resize_nearest_rounding all_roundings[] = {
    ops::resize_nearest_rounding::round_prefer_floor, ops::resize_nearest_rounding::round_prefer_ceil,
    ops::resize_nearest_rounding::floor, ops::resize_nearest_rounding::ceil};

/// The enumerator an attribute names, or a failure listing the supported values.
template <class Enum, std::size_t N>
Enum named_value(const onnx::NodeProto& n, const node_context& where, const std::string& attribute,
                 const std::string& fallback, const Enum (&values)[N]) {
  const std::string given = string_attribute(n, attribute, fallback);
  std::string supported;
  for (Enum v : values) {
    if (given == resize_name(v)) return v;
    supported += (supported.empty() ? "'" : ", '") + std::string(resize_name(v)) + "'";
  }
  where.fail(fmt::format("{} '{}' is not supported (supported: {})", attribute, given, supported));
}

/// Whether optional input `i` is given: present and not an empty constant.
bool given(lowering_context& cx, const onnx::NodeProto& n, int i) {
  if (!cx.has_input(n, i)) return false;
  const onnx::TensorProto* t = cx.constant_proto(n, i);
  if (t == nullptr) return true;  // a run-time tensor: reported by the caller
  for (auto d : t->dims())
    if (d == 0) return false;  // an empty tensor stands for an absent input
  return true;
}

}  // namespace

void lower_resize(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  if (cx.opset() < 11)
    where.fail(fmt::format("Resize of opset {} is not supported (its coordinates follow other rules): export with "
                           "opset 11 or later",
                           cx.opset()));
  const dims x = cx.input_shape(n, 0, where);
  const tensor_ref input = cx.tensor_input(n, 0, where, "input");
  if (x.size() != 4)
    where.fail(fmt::format("input {} has rank {}: onnx2hpp resizes (N, C, H, W) maps only", to_string(x), x.size()));

  ops::resize op;
  op.mode = named_value(n, where, "mode", "nearest", all_modes);
  op.coordinates = named_value(n, where, "coordinate_transformation_mode", "half_pixel", all_coordinates);
  if (op.mode == ops::resize_mode::nearest)
    op.nearest = named_value(n, where, "nearest_mode", "round_prefer_floor", all_roundings);
  if (int_attribute(n, "antialias", 0) != 0) where.fail("antialias = 1 is not supported");
  if (int_attribute(n, "exclude_outside", 0) != 0) where.fail("exclude_outside = 1 is not supported");

  // Opset 18's `axes`: scales or sizes then list only these axes.
  std::vector<int> axes{0, 1, 2, 3};
  if (has_attribute(n, "axes")) axes = normalized_axes(ints_attribute(n, "axes", {}), x.size(), where);

  const bool has_scales = given(cx, n, 2);
  const bool has_sizes = given(cx, n, 3);
  if (has_scales == has_sizes)
    where.fail(has_scales ? "both scales and sizes are given; ONNX allows one of them"
                          : "neither scales nor sizes is given");
  dims y = x;
  if (has_scales) {
    const onnx::TensorProto* t = cx.constant_proto(n, 2);
    if (t == nullptr) where.fail("scales '" + n.input(2) + "' must be a constant (initializer or Constant node)");
    const std::vector<double> scales = float_values(*t, where, "scales '" + n.input(2) + "'");
    if (scales.size() != axes.size())
      where.fail(fmt::format("scales has {} values for {} axes", scales.size(), axes.size()));
    for (std::size_t i = 0; i < axes.size(); ++i) {
      const auto axis = static_cast<std::size_t>(axes[i]);
      if (!std::isfinite(scales[i]) || scales[i] <= 0)
        where.fail(fmt::format("scale {} on axis {} is not a positive finite number", scales[i], axis));
      // ONNX takes floor(extent * scale) and still uses the scale itself for the coordinates;
      // the integer rule needs the scale to be exactly output / input.
      const double extent = static_cast<double>(x[axis]) * scales[i];
      if (extent > std::numeric_limits<int>::max() / 4)
        where.fail(fmt::format("scale {} on axis {} makes an output extent of {}, out of range", scales[i], axis, extent));
      if (std::floor(extent) != extent)
        where.fail(fmt::format("scale {} on axis {} makes {} x {} = {}, not a whole extent: onnx2hpp needs each scale "
                               "to be exactly output / input (give sizes instead)",
                               scales[i], axis, x[axis], scales[i], extent));
      y[axis] = static_cast<std::int64_t>(extent);
    }
  } else {
    if (string_attribute(n, "keep_aspect_ratio_policy", "stretch") != "stretch")
      where.fail("keep_aspect_ratio_policy '" + string_attribute(n, "keep_aspect_ratio_policy", "") +
                 "' is not supported (only 'stretch')");
    const int_array sizes = cx.constant_input(n, 3, where, "sizes");
    if (sizes.values.size() != axes.size())
      where.fail(fmt::format("sizes has {} values for {} axes", sizes.values.size(), axes.size()));
    for (std::size_t i = 0; i < axes.size(); ++i) y[static_cast<std::size_t>(axes[i])] = sizes.values[i];
  }
  for (std::size_t axis = 0; axis < 2; ++axis)
    if (y[axis] != x[axis])
      where.fail(fmt::format("resizes axis {} ({} of {} to {}): onnx2hpp resizes H and W (axes 2 and 3) only", axis,
                             axis == 0 ? "the batch" : "the channels", x[axis], y[axis]));
  for (std::size_t axis = 2; axis < 4; ++axis)
    if (y[axis] < 1 || y[axis] > std::numeric_limits<int>::max() / 4)
      where.fail(fmt::format("output extent {} on axis {} is out of range", y[axis], axis));

  const tensor_ref output = cx.define_output(n, 0, y, where);
  cx.add_node(where, op, {input}, {output});
}

void require_resize_keeps_quantization(lowering_context& cx, const onnx::NodeProto& n, const node_context& where,
                                       double scale, std::int64_t zero_point) {
  if (n.output_size() < 1) return;
  // Linear Resize interpolates the integers and rounds once (docs/semantics.md); a reader that
  // wanted another scale would see a second rounding, so every reader must quantize again to
  // the input's scale and zero point (as torch and ONNX Runtime's quantizer export it).
  const std::string& out = n.output(0);
  const std::string why = "a linear Resize on a dequantized tensor must be read only by QuantizeLinear nodes with its "
                          "input's scale and zero point (onnx2hpp interpolates the integers and rounds once)";
  if (cx.is_graph_output(out)) where.fail(why + "; its output is a graph output");
  for (const onnx::NodeProto* reader : cx.readers(out)) {
    const node_context at{reader->name().empty() ? reader->output(0) : reader->name(), reader->op_type()};
    if (reader->op_type() != "QuantizeLinear" || reader->input_size() < 2)
      where.fail(fmt::format("{}; it is read by {} '{}'", why, at.op, at.name));
    const onnx::TensorProto* s = cx.constant_ahead(reader->input(1));
    const onnx::TensorProto* z = reader->input_size() > 2 && !reader->input(2).empty()
                                     ? cx.constant_ahead(reader->input(2))
                                     : nullptr;
    const std::vector<double> scales = s ? float_values(*s, at, "y_scale") : std::vector<double>{};
    const std::vector<std::int64_t> zero =
        z ? integer_tensor(*z, at, "y_zero_point").values : std::vector<std::int64_t>{0};
    if (scales.size() != 1 || zero.size() != 1 || scales[0] != scale || zero[0] != zero_point)
      where.fail(fmt::format("{}; QuantizeLinear '{}' quantizes to another scale or zero point (input: {:g} and {})",
                             why, at.name, scale, zero_point));
  }
}

}  // namespace tessera::onnx2hpp
