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

/// How a layer that touches a tensor with a run-time sequence length (graph/sequence.hpp) grows
/// with it: its geometry is declared at the capacity, and each extent below is linear in the
/// run's length, less this much per position short of the capacity (graph/network.hpp measures
/// it by planning the node one position shorter: node_summary::growth). Only extents a tile
/// never splits grow, so a run's tiles are the capacity's tiles, each clipped to the live length.
/// Kept beside the geometry, not in it: firmware without state carries no growth per node.
struct sequence_growth {
  int capacity = 0;  ///< 0: the layer does not follow a run-time length
  int out_c = 0, in_c = 0, channel_step = 0;
  std::int64_t macs_per_output = 0;
  std::size_t whole_operand_bytes = 0;
  /// The whole operand is a state tensor: its images keep the capacity's stride in memory.
  bool whole_operand_is_state = false;

  friend constexpr bool operator==(const sequence_growth&, const sequence_growth&) = default;
};

/// The layers of a fused block in execution order (tile_geometry::order).
enum class fused_order : std::uint8_t {
  depthwise_first,  ///< DW -> PW: the pointwise layer reads the depthwise tile's outputs
  pointwise_first,  ///< PW -> DW: the depthwise window reads the pointwise layer's outputs
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
  /// A fused block of a depthwise and a pointwise convolution (planning/fusion.hpp; 0: a single
  /// layer), in the order `order` says. The fields above describe the block: the depthwise
  /// layer's window (kernel, stride, padding) over the block's input, the second layer's output
  /// and filters, the first layer's input channels. The intermediate map between the two
  /// convolutions exists only in L1, for the tile's pixels (depthwise first: the output tile's;
  /// pointwise first: the depthwise window's, halo included) and channels (depthwise first: all
  /// of them; pointwise first: the tile's, since a depthwise channel reads only its own); the
  /// first layer's filters (the producer's) load with each of the second's filter blocks, for
  /// the channels the tile's intermediate holds (producer_filter_bytes).
  int intermediate_channels = 0;
  int intermediate_elem_bytes = 0;
  std::size_t producer_weight_bytes = 0;  ///< the first layer's filters, all ([C][KH][KW] or [C][Cin])
  fused_order order = fused_order::depthwise_first;

  constexpr bool fused() const { return intermediate_channels > 0; }
  constexpr bool pointwise_first() const { return fused() && order == fused_order::pointwise_first; }
  friend constexpr bool operator==(const tile_geometry&, const tile_geometry&) = default;

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

/// A run over `length` positions of a layer that grows by `growth` (none: the plan's own extents).
struct live_extent {
  const sequence_growth* growth = nullptr;
  int length = -1;
  constexpr bool applies() const { return growth != nullptr && growth->capacity > 0 && length >= 0; }
};

/// The geometry `g` (at the capacity) of a run over `run.length` positions (run.applies()).
constexpr tile_geometry at_length(const tile_geometry& g, const live_extent& run) {
  const sequence_growth& d = *run.growth;
  const int fewer = d.capacity - run.length;
  tile_geometry live = g;
  live.out_c -= fewer * d.out_c;
  live.in_c -= fewer * d.in_c;
  live.channel_step -= fewer * d.channel_step;
  live.macs_per_output -= fewer * d.macs_per_output;
  live.whole_operand_bytes -= static_cast<std::size_t>(fewer) * d.whole_operand_bytes;
  return live;
}

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

/// A layer's planned tile `t` at a run-time length (run.applies()), `live` its geometry there
/// (at_length): the output channels follow the length where they grow (they are never split
/// there: sequence_growth).
constexpr tile_shape at_length(tile_shape t, const tile_geometry& live, const live_extent& run) {
  if (run.growth->out_c != 0) t.c = live.out_c;
  return t;
}

/// A kernel's scratch bytes for one tile of a layer (each node forwards to its kernel's
/// scratch-size function, so the formula has one home).
using scratch_function = std::size_t (*)(const tile_geometry&, const tile_shape&);

/// L1 buffers start on 16-byte boundaries (SIMD loads, DMA bursts); the tile cost counts it.
inline constexpr std::size_t l1_alignment = 16;
constexpr std::size_t l1_aligned(std::size_t v) { return (v + l1_alignment - 1) / l1_alignment * l1_alignment; }

// --- fused blocks ----------------------------------------------------------------------------
// The two layers of a fused block, seen as their own kernels see them. Depthwise first: the
// depthwise layer over the block's input window and all intermediate channels, then the
// pointwise layer (1x1, stride 1, no padding) over the intermediate tile. Pointwise first: the
// pointwise layer over the depthwise window's pixels (the rows and columns the tile's outputs
// read, recomputed where neighbouring tiles' windows overlap), then the depthwise layer over
// that intermediate window, padding as the unfused layer does. Scratch functions and compute
// costs of the two kernels are evaluated on these.

/// The intermediate pixels a tile of `rows` x `cols` outputs of fused block `g` computes.
constexpr int intermediate_rows(const tile_geometry& g, int rows) { return g.pointwise_first() ? g.input_rows(rows) : rows; }
constexpr int intermediate_cols(const tile_geometry& g, int cols) { return g.pointwise_first() ? g.input_cols(cols) : cols; }
/// The intermediate channels a tile of `channels` output channels of fused block `g` computes:
/// depthwise first, all of them (each output reads every one; so its output channels are never
/// split, see fusion.hpp); pointwise first, the tile's own (depthwise channel c reads only
/// intermediate channel c: the third seed's channel-wise variant when a tile spans the map).
constexpr int intermediate_channels_of(const tile_geometry& g, int channels) {
  return g.pointwise_first() ? channels : g.intermediate_channels;
}
/// The producer's filter bytes that a filter block of `channels` output channels of fused block
/// `g` loads (beside its own): those of the intermediate channels it computes.
constexpr std::size_t producer_filter_bytes(const tile_geometry& g, int channels) {
  if (!g.fused()) return 0;
  if (!g.pointwise_first()) return g.producer_weight_bytes;
  return g.producer_weight_bytes / static_cast<std::size_t>(g.intermediate_channels) * static_cast<std::size_t>(channels);
}
/// The producer's filter bytes a layer of `blocks` filter blocks loads in all (producer_filter_bytes
/// over its blocks: pointwise first, each channel's once; depthwise first, all with each block).
constexpr std::size_t producer_filter_bytes_over(const tile_geometry& g, std::int64_t blocks) {
  return g.pointwise_first() ? g.producer_weight_bytes
                             : static_cast<std::size_t>(blocks) * producer_filter_bytes(g, g.out_c);
}
/// Where the producer's filters of intermediate channel `c` begin in its filter tensor.
constexpr std::size_t producer_filter_offset(const tile_geometry& g, int c) {
  return g.pointwise_first() ? producer_filter_bytes(g, c) : 0;
}

/// Pointwise -> depthwise blocks whose tiles span the whole width carry rows: the tile below
/// reuses the intermediate rows its window shares with the tile above (kernel - stride rows for
/// a 3x3 stride-1 depthwise) instead of recomputing them in the pointwise kernel (the third
/// seed's carried variant). Tiles then run in row order over one scratch area, which the
/// executor's walk guarantees (channel blocks, images, row blocks, column blocks). Only where
/// no window but the last row block's reaches past the input's bottom, so that every middle
/// tile computes the same rows (the latency model's row kinds: first, middle, last).
constexpr bool carries_rows(const tile_geometry& g, int tile_w) {
  if (!g.pointwise_first() || tile_w != g.out_w) return false;
  if (g.out_h < 2) return true;
  return window::origin(g.out_h - 2, g.stride_h, g.pad_top) + window::span(1, g.stride_h, g.kernel_h, g.dilation_h) <=
         g.in_h;
}

/// The intermediate rows a tile at output row `y0` of a carrying block (carries_rows) takes from
/// the tile above it, whose extent is the layer's tile height `tile_h`: where their windows
/// overlap (0 for the first row block).
constexpr int carried_rows(const tile_geometry& g, int y0, int tile_h) {
  if (y0 == 0) return 0;
  const int above_begin = window::origin(y0 - tile_h, g.stride_h, g.pad_top);
  int above_end = above_begin + window::span(tile_h, g.stride_h, g.kernel_h, g.dilation_h);
  above_end = above_end < g.in_h ? above_end : g.in_h;
  int begin = window::origin(y0, g.stride_h, g.pad_top);
  begin = begin > 0 ? begin : 0;
  return above_end > begin ? above_end - begin : 0;
}

/// carried_rows summed over the row blocks of a carrying block tiled `tile_h` rows high (the
/// first carries none). Once a block's window begins inside the map, every block after it but
/// the last carries the same rows (the windows of all blocks but the last end inside the map:
/// carries_rows), so the sum takes a few steps whatever the block count.
constexpr std::int64_t carried_rows_over(const tile_geometry& g, int tile_h) {
  const int blocks = (g.out_h + tile_h - 1) / tile_h;
  std::int64_t sum = 0;
  for (int b = 1; b < blocks; ++b) {
    const int rows = carried_rows(g, b * tile_h, tile_h);
    if (b + 1 < blocks && window::origin(b * tile_h, g.stride_h, g.pad_top) >= 0) {
      sum += std::int64_t{rows} * (blocks - 1 - b);  // blocks b .. blocks - 2
      b = blocks - 2;                                 // then the last
      continue;
    }
    sum += rows;
  }
  return sum;
}

/// Where the rows a tile at `y0` carries (carried_rows) lie in the intermediate of the tile
/// above: the row of its window where this tile's window begins.
constexpr int carried_rows_source(const tile_geometry& g, int y0, int tile_h) {
  const int above = window::origin(y0 - tile_h, g.stride_h, g.pad_top);
  const int begin = window::origin(y0, g.stride_h, g.pad_top);
  return (begin > 0 ? begin : 0) - (above > 0 ? above : 0);
}

/// The intermediate rows the first kernel of a tile of `h` rows at `y0` computes: its window's
/// (intermediate_rows, clipped to the map) less what it carries (`carry`: carries_rows).
constexpr int producer_rows(const tile_geometry& g, int y0, int h, int tile_h, bool carry) {
  const int origin = window::origin(y0, g.stride_h, g.pad_top);
  const int end = origin + window::span(h, g.stride_h, g.kernel_h, g.dilation_h);
  const int rows = (end < g.in_h ? end : g.in_h) - (origin > 0 ? origin : 0);
  return rows - (carry ? carried_rows(g, y0, tile_h) : 0);
}

/// The first layer of fused block `g` (its producer).
constexpr tile_geometry producer_of(const tile_geometry& g) {
  tile_geometry p = g;
  p.out_c = g.intermediate_channels;
  p.channel_step = 1;
  p.out_elem_bytes = g.intermediate_elem_bytes;
  p.weight_bytes_per_channel = g.producer_weight_bytes / static_cast<std::size_t>(g.intermediate_channels);
  p.const_bytes_per_channel = p.const_bytes_fixed = 0;
  p.intermediate_channels = p.intermediate_elem_bytes = 0;
  p.producer_weight_bytes = 0;
  p.order = fused_order::depthwise_first;
  if (g.order == fused_order::pointwise_first) {  // 1x1 over the whole input map
    p.out_h = g.in_h, p.out_w = g.in_w;
    p.kernel_h = p.kernel_w = p.stride_h = p.stride_w = p.dilation_h = p.dilation_w = 1;
    p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = p.pad_value = 0;
    p.channel_lockstep = false;
    p.macs_per_output = g.in_c;
  } else {
    p.in_c = g.intermediate_channels;
    p.channel_lockstep = true;
    p.macs_per_output = std::int64_t{g.kernel_h} * g.kernel_w;
  }
  return p;
}

/// The second layer of fused block `g` (its consumer).
constexpr tile_geometry consumer_of(const tile_geometry& g) {
  tile_geometry c = g;
  c.in_c = g.intermediate_channels;
  c.in_elem_bytes = g.intermediate_elem_bytes;
  if (g.order == fused_order::pointwise_first) {  // the depthwise window over the intermediate map
    c.channel_lockstep = true;
    c.channel_step = 1;
  } else {
    c.in_h = g.out_h, c.in_w = g.out_w;
    c.kernel_h = c.kernel_w = c.stride_h = c.stride_w = c.dilation_h = c.dilation_w = 1;
    c.pad_top = c.pad_left = c.pad_bottom = c.pad_right = c.pad_value = 0;
  }
  c.intermediate_channels = c.intermediate_elem_bytes = 0;
  c.producer_weight_bytes = 0;
  c.order = fused_order::depthwise_first;
  return c;
}

/// Where a fused block's tile keeps its parts. In the filter slot: the producer's filters, then
/// the consumer's block. In the scratch area: the intermediate tile [rows][cols][C] (see
/// intermediate_rows, intermediate_channels_of), then the kernels' own scratch (the producer's,
/// then the consumer's, in the same bytes: they run one after the other).
struct fused_layout {
  std::size_t consumer_filters = 0;  ///< offset of the consumer's filters in the filter slot
  std::size_t intermediate_bytes = 0;
  std::size_t kernel_scratch = 0;    ///< offset of the kernels' scratch in the scratch area
  std::size_t scratch_bytes = 0;     ///< the whole scratch area
};

/// Offset of a layer's own filters in a filter slot (in L1, or an L2 staging slot) planned for
/// blocks of `channels` output channels: after a fused block's producer's filters for them.
constexpr std::size_t consumer_filter_offset(const tile_geometry& g, int channels) {
  return g.fused() ? l1_aligned(producer_filter_bytes(g, channels)) : 0;
}

/// The intermediate tile of a tile `t` of fused block `g`: rows, columns, channels.
constexpr tile_shape intermediate_tile(const tile_geometry& g, const tile_shape& t) {
  return {intermediate_rows(g, t.h), intermediate_cols(g, t.w), intermediate_channels_of(g, t.c)};
}

/// `t`: the layer's planned tile (its filter slot's channels) or one of its tiles.
constexpr fused_layout fused_layout_of(const tile_geometry& g, const tile_shape& t, std::size_t producer_scratch,
                                       std::size_t consumer_scratch) {
  fused_layout f{};
  f.consumer_filters = consumer_filter_offset(g, t.c);
  const tile_shape i = intermediate_tile(g, t);
  f.intermediate_bytes = static_cast<std::size_t>(i.h) * static_cast<std::size_t>(i.w) *
                         static_cast<std::size_t>(i.c) * static_cast<std::size_t>(g.intermediate_elem_bytes);
  f.kernel_scratch = l1_aligned(f.intermediate_bytes);
  const std::size_t kernels = producer_scratch > consumer_scratch ? producer_scratch : consumer_scratch;
  f.scratch_bytes = f.kernel_scratch + kernels;
  return f;
}

/// The scratch of a fused block's tile, from its two kernels' scratch functions.
constexpr fused_layout fused_layout_of(const tile_geometry& g, const tile_shape& t, scratch_function producer,
                                       scratch_function consumer) {
  return fused_layout_of(g, t, producer != nullptr ? producer(producer_of(g), intermediate_tile(g, t)) : 0,
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
