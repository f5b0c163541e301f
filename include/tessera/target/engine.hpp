// Compute engines besides the CPU (seeds/004, HTVM): an accelerator with its own memories,
// rule set, cost model and tiling, described as plain data in the target.
//
// An accelerator takes a layer when every rule of its table holds for it (planning/dispatch.hpp
// picks the first such engine, else the CPU). Its tiles run out of its own memories: input and
// output tiles in its activation memory, filters in its weight memory, each filled from L2 by
// DMA with the costs of that memory's `memory_level`. Its compute time is its `compute_model`,
// whose `channel_granule` / `width_granule` round a tile up to the PE array (a 16 x 16 array
// computes 16 output channels of 16 output columns at once). The tile solver takes the same
// granules as its micro-tile: DORY's objective then prefers tile widths and channel blocks
// that are multiples of the array, which is HTVM's tiling heuristic.
//
// Transfers between L2 and an engine's memories take the engine's DMA path (`engine_desc::dma`:
// its transfer costs and the DMA engine that serves it), which the tile solver's latency model
// and the DMA simulator both read through target_desc::transfer_path; an engine without a path
// of its own uses the target's L2 DMA. On DIANA the accelerators' memories are filled by a DMA
// channel of their own, so an engine layer's transfers do not queue behind the CPU's.
//
// Every default is zero (so a target without accelerators mangles as before).
#pragma once

#include <cstdint>

#include <tessera/core/fixed_name.hpp>
#include <tessera/graph/network.hpp>
#include <tessera/kernels/reference/analog_conv2d.hpp>
#include <tessera/target/cost_model.hpp>
#include <tessera/target/memory_level.hpp>

namespace tessera {

/// What an engine sees a layer as.
enum class engine_op : std::uint8_t {
  convolution,  ///< dense convolution (groups == 1)
  depthwise,    ///< one filter per channel
  dense,        ///< fully connected (Gemm, MatMul with constant weights)
  pool,         ///< window without filters
  elementwise,  ///< one output per input element
  other,        ///< grouped convolutions, fused blocks, everything else
};
inline constexpr int engine_op_count = 6;

constexpr std::uint8_t op_bit(engine_op op) { return static_cast<std::uint8_t>(1u << static_cast<unsigned>(op)); }

/// The engine's rule table: what a layer must be for the engine to run it. Masks are sets of
/// allowed values (bit k: value k); 0 in a limit means "no limit".
struct engine_rules {
  std::uint8_t ops = 0;            ///< op_bit(...) of the ops the engine runs
  std::uint16_t kernel_sizes = 0;  ///< bit k: k x k kernels (square only) for convolutions and depthwise
  std::uint8_t strides = 0;        ///< bit s: stride s (equal in both directions)
  int max_padding = 0;             ///< per side (convolutions and depthwise)
  bool asymmetric_padding = false; ///< padding may differ between top/bottom or left/right
  int channel_multiple = 0;        ///< output channels divisible by this (0: any)
  int width_multiple = 0;          ///< output width divisible by this (0: any)
  int max_array_rows = 0;          ///< C * FX * FY at most (weight-stationary arrays)
  int max_array_cols = 0;          ///< output channels at most
  bool ternary_weights = false;    ///< the array stores -1 / 0 / 1 (node_summary::ternary_weights)
};

/// Which rule of the table a layer breaks (`holds`: none).
enum class rule : std::uint8_t {
  holds,
  op_kind,           ///< the engine does not run this kind of layer
  activation_bits,   ///< inputs or outputs are not 8-bit
  weight_format,     ///< filters are not one int8 per weight (or not ternary where the engine needs it)
  kernel_size,       ///< not a supported square kernel
  stride,            ///< not a supported stride, or different in x and y
  dilation,          ///< dilated kernel
  padding,           ///< more padding than the engine adds, asymmetric, or not zeros
  channel_multiple,  ///< output channels not a multiple of the array
  width_multiple,    ///< output width not a multiple of the array
  array_rows,        ///< C * FX * FY beyond the array's rows
  array_cols,        ///< output channels beyond the array's columns
  no_engine,         ///< a forced assignment names an engine the target does not have
};

constexpr const char* name_of(rule r) {
  constexpr const char* names[] = {"holds",        "op kind",          "activation bits", "weight format",
                                   "kernel size",  "stride",           "dilation",        "padding",
                                   "channel multiple", "width multiple", "array rows",    "array cols",
                                   "no such engine"};
  return names[static_cast<int>(r)];
}

/// An accelerator (see the header comment). Engine 0 of a target is always its CPU (cluster);
/// accelerators are engines 1, 2, ...
struct engine_desc {
  fixed_name name;
  memory_level activations{};  ///< input/output tiles (name and capacity)
  memory_level weights{};      ///< filter tiles (bias and requantisation constants included)
  /// The DMA path between L2 and both memories: its costs (bytes_per_cycle, latency_cycles,
  /// setup_cycles, memory_level::transfer_cycles) and the DMA engine that serves it
  /// (`dma_engine`: another than the CPU's L2 <-> L1 engine runs beside it). Its name and
  /// capacity are unused. bytes_per_cycle 0 (the default): no path of its own, the target's
  /// L2 DMA (levels[1]) moves the engine's tiles.
  memory_level dma{{}, 0, 0};
  engine_rules rules{};
  compute_model compute{};     ///< cycles per tile, per op kind (granules: the PE array)
  /// The integers it computes: exact (the CPU's, the default) or an analog array's own
  /// (kernels/reference/analog_conv2d.hpp; docs/semantics.md, "Analog-like engine").
  kernels::reference::analog_numerics numerics{};
  bool single_buffered = false;
  /// Tile for the most memory used only (DORY's objective without the array heuristics): the
  /// "naive tiling" the benchmarks compare against.
  bool naive_tiling = false;
};

/// A user's choice for one layer, by node name: engine 0 = the CPU, k = accelerator k.
struct engine_override {
  fixed_name layer{};
  int engine = 0;
};

/// How layers that several engines could run are assigned (the rules decide who can):
/// - first_match: the first accelerator whose rules all hold, else the CPU;
/// - mixed: HTVM's "mixed" policy for a digital + analog pair: the first and last layers
///   with filters and every depthwise layer go to the first accelerator that takes them (the
///   digital one, listed first), the others as first_match from the second accelerator on
///   (falling back to the first, then the CPU).
enum class dispatch_policy : std::uint8_t { first_match, mixed };

/// What a layer is to an engine, read off its summary.
constexpr engine_op engine_op_of(const node_summary& n) {
  const tile_geometry& g = n.geometry;
  if (g.fused()) return engine_op::other;
  if (n.kind == op_kind::conv) {
    if (g.channel_lockstep) return engine_op::depthwise;
    const std::int64_t dense_macs = std::int64_t{g.kernel_h} * g.kernel_w * g.in_c;
    return g.macs_per_output == dense_macs ? engine_op::convolution : engine_op::other;
  }
  if (n.kind == op_kind::gemm) return engine_op::dense;
  if (n.kind == op_kind::matmul) return engine_op::other;  // two activations: no weights to hold
  if (n.kind == op_kind::max_pool || n.kind == op_kind::average_pool) return engine_op::pool;
  if (g.kind == tiling_kind::tiled && g.weight_bytes_per_channel == 0 && g.kernel_h * g.kernel_w == 1)
    return engine_op::elementwise;
  return engine_op::other;
}

/// The first rule of `e`'s table that layer `n` breaks (`rule::holds` if none). Only layers
/// the tile solver tiles are candidates: the rest move data in L2.
constexpr rule first_broken_rule(const engine_desc& e, const node_summary& n) {
  const tile_geometry& g = n.geometry;
  const engine_rules& r = e.rules;
  const engine_op op = engine_op_of(n);
  if (g.kind != tiling_kind::tiled || n.absorbed || (r.ops & op_bit(op)) == 0) return rule::op_kind;
  // An analog array's numerics are modelled for convolutions only (kernels/reference/analog_conv2d.hpp).
  if (!e.numerics.exact() && op != engine_op::convolution) return rule::op_kind;
  if (g.in_elem_bytes != 1 || g.out_elem_bytes != 1) return rule::activation_bits;
  const bool filtered = op == engine_op::convolution || op == engine_op::depthwise || op == engine_op::dense;
  if (filtered && g.weight_bytes_per_channel != static_cast<std::size_t>(g.macs_per_output)) return rule::weight_format;
  if (filtered && r.ternary_weights && !n.ternary_weights) return rule::weight_format;
  if (op == engine_op::convolution || op == engine_op::depthwise || op == engine_op::pool) {
    if (g.kernel_h != g.kernel_w || g.kernel_h >= 16 || (r.kernel_sizes & (1u << g.kernel_h)) == 0)
      return rule::kernel_size;
    if (g.stride_h != g.stride_w || g.stride_h >= 8 || (r.strides & (1u << g.stride_h)) == 0) return rule::stride;
    if (g.dilation_h != 1 || g.dilation_w != 1) return rule::dilation;
    const int most = g.pad_top > g.pad_bottom ? g.pad_top : g.pad_bottom;
    const int most_x = g.pad_left > g.pad_right ? g.pad_left : g.pad_right;
    if ((most > most_x ? most : most_x) > r.max_padding) return rule::padding;
    if (!r.asymmetric_padding && (g.pad_top != g.pad_bottom || g.pad_left != g.pad_right)) return rule::padding;
    if (g.pad_value != 0) return rule::padding;  // engines pad with 0, not a zero point
  }
  if (r.channel_multiple > 0 && g.out_c % r.channel_multiple != 0) return rule::channel_multiple;
  if (r.width_multiple > 0 && g.out_w % r.width_multiple != 0) return rule::width_multiple;
  if (filtered && r.max_array_rows > 0 && op != engine_op::depthwise && g.macs_per_output > r.max_array_rows)
    return rule::array_rows;
  if (filtered && r.max_array_cols > 0 && g.out_c > r.max_array_cols) return rule::array_cols;
  return rule::holds;
}

}  // namespace tessera
