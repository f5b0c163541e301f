// What the tile solver needs to know about a layer, in one shape for every op family.
//
// Convolutions and pools tile their output over rows, columns and channels; a Gemm is a 1x1
// convolution over a {M, 1, K} map, a MatMul of two activations the same per image (its B
// read whole by each tile); elementwise ops tile rows of their output. Input channels
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
  /// The stored value a convolution's padding reads when not 0 (its input's zero point).
  int pad_value = 0;
  int in_elem_bytes = 1, out_elem_bytes = 4;
  int in_operands = 1;                       ///< inputs tiled identically (2 for Add/Sub)
  /// A second input that every tile of an image reads whole (MatMul's B: the keys or values
  /// of a head), its bytes per image; 0: none. It loads with each tile, after the first
  /// operand's largest tile in the input slot (schedule/transfers.hpp operand_offset).
  std::size_t whole_operand_bytes = 0;
  std::size_t weight_bytes_per_channel = 0;  ///< filter bytes per output channel
  std::size_t const_bytes_per_channel = 0;   ///< bias + per-channel requant bytes per output channel
  std::size_t const_bytes_fixed = 0;         ///< per-tensor requant and the like
  std::int64_t macs_per_output = 0;          ///< compute model of the simulator
  /// A fused depthwise -> pointwise block (planning/fusion.hpp; 0: a single layer). The fields
  /// above describe the block: the depthwise layer's input window, the pointwise layer's
  /// output and filters. The intermediate map between the two convolutions exists only in L1,
  /// for the tile's rows and columns and all its channels; the depthwise filters load once
  /// beside the pointwise ones.
  int intermediate_channels = 0;
  int intermediate_elem_bytes = 0;
  std::size_t producer_weight_bytes = 0;  ///< the depthwise filters, [C][KH][KW]

  constexpr bool fused() const { return intermediate_channels > 0; }

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

/// L1 buffers start on 16-byte boundaries (SIMD loads, DMA bursts); the tile cost counts it.
inline constexpr std::size_t l1_alignment = 16;
constexpr std::size_t l1_aligned(std::size_t v) { return (v + l1_alignment - 1) / l1_alignment * l1_alignment; }

// --- fused depthwise -> pointwise blocks -----------------------------------------------------
// The two layers of a fused block, seen as their own kernels see them: the depthwise layer
// over the block's input window and all intermediate channels, the pointwise layer (1x1,
// stride 1, no padding) over the intermediate map. Scratch functions and compute costs of the
// two kernels are evaluated on these.

/// The depthwise layer of fused block `g`.
constexpr tile_geometry producer_of(const tile_geometry& g) {
  tile_geometry p = g;
  p.out_c = p.in_c = g.intermediate_channels;
  p.channel_lockstep = true;
  p.channel_step = 1;
  p.out_elem_bytes = g.intermediate_elem_bytes;
  p.weight_bytes_per_channel = g.producer_weight_bytes / static_cast<std::size_t>(g.intermediate_channels);
  p.const_bytes_per_channel = p.const_bytes_fixed = 0;
  p.macs_per_output = std::int64_t{g.kernel_h} * g.kernel_w;
  p.intermediate_channels = p.intermediate_elem_bytes = 0;
  p.producer_weight_bytes = 0;
  return p;
}

/// The pointwise layer of fused block `g`.
constexpr tile_geometry consumer_of(const tile_geometry& g) {
  tile_geometry c = g;
  c.in_h = g.out_h, c.in_w = g.out_w, c.in_c = g.intermediate_channels;
  c.in_elem_bytes = g.intermediate_elem_bytes;
  c.kernel_h = c.kernel_w = c.stride_h = c.stride_w = c.dilation_h = c.dilation_w = 1;
  c.pad_top = c.pad_left = c.pad_bottom = c.pad_right = c.pad_value = 0;
  c.intermediate_channels = c.intermediate_elem_bytes = 0;
  c.producer_weight_bytes = 0;
  return c;
}

/// Where a fused block's tile keeps its parts. In the filter slot: the depthwise filters, then
/// the pointwise block's. In the scratch area: the intermediate tile [h][w][C], then the
/// kernels' own scratch (the depthwise kernel's, then the pointwise kernel's, in the same bytes:
/// they run one after the other).
struct fused_layout {
  std::size_t consumer_filters = 0;  ///< offset of the pointwise filters in the filter slot
  std::size_t intermediate_bytes = 0;
  std::size_t kernel_scratch = 0;    ///< offset of the kernels' scratch in the scratch area
  std::size_t scratch_bytes = 0;     ///< the whole scratch area
};

/// Offset of a layer's own filters in its L1 filter slot (after a fused block's depthwise ones).
constexpr std::size_t consumer_filter_offset(const tile_geometry& g) {
  return g.fused() ? l1_aligned(g.producer_weight_bytes) : 0;
}

constexpr fused_layout fused_layout_of(const tile_geometry& g, const tile_shape& t, std::size_t producer_scratch,
                                       std::size_t consumer_scratch) {
  fused_layout f{};
  f.consumer_filters = consumer_filter_offset(g);
  f.intermediate_bytes = static_cast<std::size_t>(t.h) * static_cast<std::size_t>(t.w) *
                         static_cast<std::size_t>(g.intermediate_channels) *
                         static_cast<std::size_t>(g.intermediate_elem_bytes);
  f.kernel_scratch = l1_aligned(f.intermediate_bytes);
  const std::size_t kernels = producer_scratch > consumer_scratch ? producer_scratch : consumer_scratch;
  f.scratch_bytes = f.kernel_scratch + kernels;
  return f;
}

/// The scratch of a fused block's tile, from its two kernels' scratch functions.
constexpr fused_layout fused_layout_of(const tile_geometry& g, const tile_shape& t, scratch_function producer,
                                       scratch_function consumer) {
  const tile_shape whole_depth{t.h, t.w, g.intermediate_channels};
  return fused_layout_of(g, t, producer != nullptr ? producer(producer_of(g), whole_depth) : 0,
                         consumer != nullptr ? consumer(consumer_of(g), t) : 0);
}

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
  /// `scratch` still holds what this layer's kernel derived from the same filters, bias and
  /// requantization on the previous tile (schedule::step::prepared); kernels may skip it.
  bool prepared = false;
};

}  // namespace tessera
