// Conv and the pools: 1D (N, C, W) and 2D (N, C, H, W) windows. A 1D op is stored as a 2D
// one of height 1, which is how the device kernels see it.
#include <limits>

#include <fmt/format.h>

#include <tessera/core/window.hpp>

#include "lower_ops.hpp"
#include "onnx_values.hpp"
#include "shape_math.hpp"

namespace tessera::onnx2hpp {
namespace {

/// ONNX output extent (floor rule), e.g. (32 + 1 + 1 - 1*(3-1) - 1) / 2 + 1 = 16.
std::int64_t window_extent(std::int64_t in, std::int64_t pad_begin, std::int64_t pad_end, std::int64_t dilation,
                           std::int64_t kernel, std::int64_t stride) {
  return window::output_extent(in, pad_begin, pad_end, kernel, stride, dilation);
}

}  // namespace

/// Reads kernel_shape/strides/pads/dilations/auto_pad for a window op over `spatial` dims.
/// `kernel_from_weights` is used when kernel_shape is absent (Conv infers it from W).
window2d read_window(const onnx::NodeProto& n, const node_context& where, std::size_t spatial,
                     const dims& kernel_from_weights) {
  const auto s = static_cast<std::int64_t>(spatial);
  const dims kernel = ints_attribute(n, "kernel_shape", kernel_from_weights);
  const dims strides = ints_attribute(n, "strides", dims(spatial, 1));
  const dims dilations = ints_attribute(n, "dilations", dims(spatial, 1));
  dims pads = ints_attribute(n, "pads", dims(2 * spatial, 0));
  const std::string auto_pad = string_attribute(n, "auto_pad", "NOTSET");
  if (auto_pad == "VALID") {
    pads.assign(2 * spatial, 0);
  } else if (auto_pad != "NOTSET") {
    where.fail("auto_pad '" + auto_pad + "' is not supported (use explicit pads)");
  }
  if (static_cast<std::int64_t>(kernel.size()) != s || static_cast<std::int64_t>(strides.size()) != s ||
      static_cast<std::int64_t>(dilations.size()) != s || static_cast<std::int64_t>(pads.size()) != 2 * s)
    where.fail(fmt::format("kernel_shape/strides/dilations/pads do not match the {} spatial dimensions", spatial));
  for (std::size_t i = 0; i < spatial; ++i) {
    if (kernel[i] < 1 || strides[i] < 1 || dilations[i] < 1)
      where.fail("kernel sizes, strides and dilations must be positive");
    if (pads[i] < 0 || pads[i + spatial] < 0) where.fail("negative pads are not supported");
    // Bounded so that window_extent's sums and products stay far inside int64 (fuzzed models).
    constexpr std::int64_t limit = std::numeric_limits<std::int32_t>::max();
    if (kernel[i] > limit || strides[i] > limit || dilations[i] > limit || pads[i] > limit ||
        pads[i + spatial] > limit)
      where.fail("kernel sizes, strides, dilations and pads must be below 2^31");
  }
  window2d w;
  const std::size_t first = 2 - spatial;  // 1D fills the width slot only
  for (std::size_t i = 0; i < spatial; ++i) {
    w.kernel[first + i] = kernel[i];
    w.stride[first + i] = strides[i];
    w.dilation[first + i] = dilations[i];
    w.pad_begin[first + i] = pads[i];
    w.pad_end[first + i] = pads[i + spatial];
  }
  return w;
}

/// Input of a window op: (N, C, W) or (N, C, H, W).
dims feature_map_shape(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  const dims x = cx.input_shape(n, 0, where);
  if (x.size() != 3 && x.size() != 4)
    where.fail("input must be a 1D (N, C, W) or 2D (N, C, H, W) feature map, got " + to_string(x));
  return x;
}

/// Output shape (N, F, [Ho,] Wo) of a window op; fails on an empty output.
dims window_output(const dims& x, std::int64_t channels, const window2d& w, const node_context& where) {
  const std::int64_t h = x.size() == 4 ? x[2] : 1;
  const std::int64_t width = x.back();
  if (h > std::numeric_limits<std::int32_t>::max() || width > std::numeric_limits<std::int32_t>::max())
    where.fail("spatial extents of " + to_string(x) + " must be below 2^31");
  const std::int64_t ho = window_extent(h, w.pad_begin[0], w.pad_end[0], w.dilation[0], w.kernel[0], w.stride[0]);
  const std::int64_t wo = window_extent(width, w.pad_begin[1], w.pad_end[1], w.dilation[1], w.kernel[1], w.stride[1]);
  if (ho < 1 || wo < 1) where.fail("the window is larger than the padded input " + to_string(x));
  if (x.size() == 3) return {x[0], channels, wo};
  return {x[0], channels, ho, wo};
}

void require_single_output(const onnx::NodeProto& n, const node_context& where) {
  for (int i = 1; i < n.output_size(); ++i)
    if (!n.output(i).empty()) where.fail("only the first output is supported ('" + n.output(i) + "' is requested)");
}

/// ceil_mode = 1 as explicit padding: when the last stride step is partial, ONNX adds one more
/// output (unless that window would start in the end padding, the rule torch and ONNX Runtime
/// apply), and the cells it reads beyond the padded input are padding at the end. A max pool
/// ignores padded cells and an average pool without count_include_pad does not count them, so
/// both stay exact; with count_include_pad those cells would count, which ONNX excludes.
/// Example: MaxPool 3x3/2 of 112 (torchvision GoogLeNet): floor (112 - 3) / 2 + 1 = 55, ceil 56,
/// pad_end += 1.
void apply_ceil_mode(const onnx::NodeProto& n, const node_context& where, const dims& x, window2d& w,
                     bool padding_counts) {
  if (int_attribute(n, "ceil_mode", 0) == 0) return;
  const std::int64_t h = x.size() == 4 ? x[2] : 1;
  for (int axis = 0; axis < 2; ++axis) {
    const std::int64_t in = axis == 0 ? h : x.back();
    const std::int64_t span = window::span<std::int64_t>(1, 1, w.kernel[axis], w.dilation[axis]);
    const std::int64_t room = in + w.pad_begin[axis] + w.pad_end[axis] - span;
    if (room < 0 || room % w.stride[axis] == 0) continue;
    std::int64_t out = room / w.stride[axis] + 2;
    if ((out - 1) * w.stride[axis] >= in + w.pad_begin[axis]) --out;
    const std::int64_t extra = (out - 1) * w.stride[axis] + span - (in + w.pad_begin[axis] + w.pad_end[axis]);
    if (extra <= 0) continue;
    if (padding_counts)
      where.fail("ceil_mode = 1 with count_include_pad = 1 is not supported when it changes the output size "
                 "(the cells beyond the padding must not count)");
    w.pad_end[axis] += extra;
  }
}

namespace {

void lower_pool(lowering_context& cx, const onnx::NodeProto& n, const node_context& where, bool max) {
  require_single_output(n, where);
  const dims x = feature_map_shape(cx, n, where);
  const tensor_ref input = cx.tensor_input(n, 0, where, "input");
  if (!has_attribute(n, "kernel_shape")) where.fail("missing attribute 'kernel_shape'");
  ops::pool op;
  op.max = max;
  op.window = read_window(n, where, x.size() - 2, {});
  if (op.window.dilation[0] != 1 || op.window.dilation[1] != 1) where.fail("dilated pooling is not supported");
  op.count_include_pad = !max && int_attribute(n, "count_include_pad", 0) != 0;
  apply_ceil_mode(n, where, x, op.window, op.count_include_pad);
  if (max && int_attribute(n, "storage_order", 0) != 0) where.fail("storage_order = 1 is not supported");
  const dims y = window_output(x, x[1], op.window, where);
  const tensor_ref output = cx.define_output(n, 0, y, where);
  cx.add_node(where, std::move(op), {input}, {output});
}

/// Global pooling: one window covering the whole map.
void lower_global_pool(lowering_context& cx, const onnx::NodeProto& n, const node_context& where, bool max) {
  const dims x = feature_map_shape(cx, n, where);
  const tensor_ref input = cx.tensor_input(n, 0, where, "input");
  ops::pool op;
  op.max = max;
  op.window.kernel = {x.size() == 4 ? x[2] : 1, x.back()};
  dims y = x;
  for (std::size_t i = 2; i < y.size(); ++i) y[i] = 1;
  const tensor_ref output = cx.define_output(n, 0, y, where);
  cx.add_node(where, std::move(op), {input}, {output});
}

}  // namespace

void lower_conv(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  const dims x = feature_map_shape(cx, n, where);
  const tensor_ref input = cx.tensor_input(n, 0, where, "input");
  if (!cx.is_constant_input(n, 1)) where.fail("weights must be a constant (initializer or Constant node)");
  const int_array w = cx.constant_input(n, 1, where, "weights");
  const std::size_t spatial = x.size() - 2;
  if (w.shape.size() != x.size()) where.fail("weights " + to_string(w.shape) + " do not match the input rank");
  require_fits(w, tessera::dtype::s8, where, "weights");

  ops::conv op;
  op.groups = int_attribute(n, "group", 1);
  const std::int64_t channels = x[1], filters = w.shape[0];
  if (op.groups < 1 || channels % op.groups != 0 || filters % op.groups != 0)
    where.fail(
        fmt::format("group = {} does not divide the {} input and {} output channels", op.groups, channels, filters));
  if (w.shape[1] != channels / op.groups)
    where.fail(
        fmt::format("weights have {} input channels per group, the input gives {}", w.shape[1], channels / op.groups));
  op.window = read_window(n, where, spatial, dims(w.shape.begin() + 2, w.shape.end()));
  for (std::size_t i = 0; i < spatial; ++i)
    if (op.window.kernel[2 - spatial + i] != w.shape[2 + i])
      where.fail("kernel_shape does not match the weights " + to_string(w.shape));

  // ONNX [F][C/g][KH][KW] -> device [F][KH][KW][C/g]: each output reads its taps channel-innermost.
  const dims w4 = spatial == 1 ? dims{w.shape[0], w.shape[1], 1, w.shape[2]} : w.shape;
  op.weights.shape = {w4[0], w4[2], w4[3], w4[1]};
  op.weights.values = transpose_values(w.values, w4, {0, 2, 3, 1});

  std::vector<tensor_ref> inputs{input};
  if (cx.has_input(n, 2)) {
    int_array bias = cx.constant_input(n, 2, where, "bias");
    if (element_count(bias.shape) != filters)
      where.fail("bias " + to_string(bias.shape) + " must have one value per filter");
    require_fits(bias, tessera::dtype::s32, where, "bias");
    bias.shape = {filters};
    op.bias = std::move(bias);
  }
  const dims y = window_output(x, filters, op.window, where);
  const tensor_ref output = cx.define_output(n, 0, y, where);
  cx.add_node(where, std::move(op), std::move(inputs), {output});
}

void lower_max_pool(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  lower_pool(cx, n, where, true);
}
void lower_average_pool(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  lower_pool(cx, n, where, false);
}
void lower_global_average_pool(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  lower_global_pool(cx, n, where, false);
}
void lower_global_max_pool(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  lower_global_pool(cx, n, where, true);
}

}  // namespace tessera::onnx2hpp
