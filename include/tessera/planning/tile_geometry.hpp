// What the tile solver needs to know about a layer, in one shape for every op family.
//
// Convolutions and pools tile their output over rows, columns and channels; a Gemm is a 1x1
// convolution over a {M, 1, K} map; elementwise ops tile rows of their output. Input channels
// and filter extents are never tiled (DORY 4.2.2: no long-lived partial sums). Each node type
// returns its geometry from `tile_geometry_of<Tensors>()` next to its kernel call, so the
// formula lives with the op.
#pragma once

#include <cstddef>
#include <cstdint>

#include <tessera/core/window.hpp>

namespace tessera {

enum class tiling_kind : std::uint8_t {
  tiled,     ///< tiled through L1 by the solver
  in_place,  ///< runs on its L2 buffers directly (data movement, aliases, broadcasting ops)
};

struct tile_geometry {
  tiling_kind kind = tiling_kind::in_place;
  int batch = 1;
  int out_h = 1, out_w = 1, out_c = 1;  ///< output map (the search space)
  int in_h = 1, in_w = 1, in_c = 1;     ///< input map
  /// Input channels follow the output channel tile (depthwise conv, pools, elementwise).
  bool channel_lockstep = false;
  /// Output channels may only be tiled in multiples of this (grouped convs: out_c, no tiling).
  int channel_step = 1;
  int kernel_h = 1, kernel_w = 1, stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  int pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  int in_elem_bytes = 1, out_elem_bytes = 4;
  int in_operands = 1;                       ///< inputs tiled identically (2 for Add/Sub)
  std::size_t weight_bytes_per_channel = 0;  ///< filter bytes per output channel
  std::size_t const_bytes_per_channel = 0;   ///< bias + per-channel requant bytes per output channel
  std::size_t const_bytes_fixed = 0;         ///< per-tensor requant and the like
  std::int64_t macs_per_output = 0;          ///< compute model of the simulator

  /// Input rows a tile of `rows` output rows reads (halo included), at most the padded input.
  constexpr int input_rows(int rows) const {
    const int span = window::span(rows, stride_h, kernel_h, dilation_h);
    return span < in_h ? span : in_h;
  }
  constexpr int input_cols(int cols) const {
    const int span = window::span(cols, stride_w, kernel_w, dilation_w);
    return span < in_w ? span : in_w;
  }
};

/// An elementwise op over `elements` values whose last dimension holds `channels`: rows of
/// {elements / channels, channels}, each output element read from the same index of every input.
constexpr tile_geometry elementwise_rows(std::int64_t elements, int channels, tiling_kind kind, int in_elem_bytes,
                                         int out_elem_bytes, int in_operands = 1) {
  tile_geometry g{};
  g.kind = kind;
  g.out_h = g.in_h = static_cast<int>(elements / channels);
  g.out_c = g.in_c = channels;
  g.channel_lockstep = true;
  g.in_operands = in_operands;
  g.in_elem_bytes = in_elem_bytes;
  g.out_elem_bytes = out_elem_bytes;
  return g;
}

/// An output tile: rows, columns and channels of the output map.
struct tile_shape {
  int h = 1, w = 1, c = 1;
  friend constexpr bool operator==(const tile_shape&, const tile_shape&) = default;
};

/// A kernel's scratch bytes for one tile of a layer (each node forwards to its kernel's
/// scratch-size function, so the formula has one home).
using scratch_function = std::size_t (*)(const tile_geometry&, const tile_shape&);

}  // namespace tessera

namespace tessera {

/// What a node's `run_tile` receives: the L1 buffers of one tile and where the tile lies.
/// Input tiles are dense [rows][cols][channels] (one per operand); the loaded region excludes
/// padding, which `pad_*` describe relative to it (border tiles get their share of the
/// layer's padding). The output tile is dense [h][w][c].
struct tile_args {
  const void* input[2] = {nullptr, nullptr};
  int in_rows = 0, in_cols = 0, in_channels = 0;
  int pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  const void* weights = nullptr;  ///< L1 filter tile [c][kh][kw][cin/groups], or nullptr
  void* output = nullptr;
  int n = 0, y0 = 0, x0 = 0, c0 = 0;  ///< tile origin in the output map
  int h = 0, w = 0, c = 0;            ///< tile extents
  void* scratch = nullptr;
};

}  // namespace tessera
