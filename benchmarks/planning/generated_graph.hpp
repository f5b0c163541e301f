// A generated N-operator graph for the planning benchmark (bench_planning.py): a chain of
// residual blocks as in small vision networks - 3x3 conv, 3x3 depthwise, 1x1 pointwise, Add of
// the block's input - with a 2x2 max pool halving the map and a pointwise conv doubling the
// channels every 16 operators (32x32x16 down to 4x4x128, then it stays there). Only the plain
// data the planner reads (graph_summary) is built: no constants, no kernels.
#pragma once

#include <cstddef>

#include <tessera/graph/network.hpp>

namespace tessera::bench {

constexpr tile_geometry feature_op(int h, int w, int in_c, int out_c, int k, int stride, bool depthwise,
                                   bool filters, int operands) {
  tile_geometry g{};
  g.kind = tiling_kind::tiled;
  g.in_h = h, g.in_w = w, g.in_c = in_c;
  g.kernel_h = g.kernel_w = k;
  g.stride_h = g.stride_w = stride;
  const int pad = k == 3 ? 1 : 0;
  g.pad_top = g.pad_left = g.pad_bottom = g.pad_right = pad;
  g.out_h = (h + 2 * pad - k) / stride + 1;
  g.out_w = (w + 2 * pad - k) / stride + 1;
  g.out_c = out_c;
  g.channel_lockstep = depthwise;
  g.in_operands = operands;
  g.in_elem_bytes = g.out_elem_bytes = 1;
  if (filters) {
    g.weight_bytes_per_channel = static_cast<std::size_t>(k * k * (depthwise ? 1 : in_c));
    g.const_bytes_per_channel = 8;
  }
  g.macs_per_output = filters ? k * k * (depthwise ? 1 : in_c) : k * k;
  return g;
}

template <std::size_t N>
constexpr graph_summary<N + 1, 1, 1, N> generated_graph() {
  graph_summary<N + 1, 1, 1, N> g{};
  int h = 32, w = 32, c = 16;
  g.tensors[0].dims = shape{1, h, w, c};
  g.inputs[0] = 0;
  int block_input = 0;
  for (std::size_t i = 0; i < N; ++i) {
    node_summary& n = g.nodes[i];
    const int in = static_cast<int>(i);
    n.inputs[0] = in;
    n.input_count = 1;
    n.outputs[0] = in + 1;
    n.output_count = 1;
    const std::size_t step = i % 16;
    tile_geometry geo{};
    if (step == 14 && h > 4) {  // downsample
      n.kind = op_kind::max_pool;
      geo = feature_op(h, w, c, c, 2, 2, true, false, 1);
      geo.pad_top = geo.pad_left = geo.pad_bottom = geo.pad_right = 0;
      geo.out_h = h / 2, geo.out_w = w / 2;
    } else if (step == 15 && c < 128) {  // widen
      n.kind = op_kind::conv;
      geo = feature_op(h, w, c, 2 * c, 1, 1, false, true, 1);
    } else {
      switch (step % 4) {
        case 0: block_input = in; geo = feature_op(h, w, c, c, 3, 1, false, true, 1); n.kind = op_kind::conv; break;
        case 1: geo = feature_op(h, w, c, c, 3, 1, true, true, 1); n.kind = op_kind::conv; break;
        case 2: geo = feature_op(h, w, c, c, 1, 1, false, true, 1); n.kind = op_kind::conv; break;
        default:
          geo = feature_op(h, w, c, c, 1, 1, true, false, 2);
          n.kind = op_kind::add;
          n.inputs[1] = block_input;
          n.input_count = 2;
      }
    }
    h = geo.out_h, w = geo.out_w, c = geo.out_c;
    n.geometry = geo;
    n.macs = static_cast<std::int64_t>(h) * w * c * geo.macs_per_output;
    n.constant_bytes = static_cast<std::size_t>(c) * (geo.weight_bytes_per_channel + geo.const_bytes_per_channel);
    g.tensors[i + 1].dims = shape{1, h, w, c};
  }
  g.outputs[0] = static_cast<int>(N);
  return g;
}

}  // namespace tessera::bench
