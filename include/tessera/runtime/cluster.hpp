// Running a tile on a cluster: the cores of a team share every compute step of the tiled
// executor by output rows (planning/row_split.hpp), as DORY's PULP-NN backend does. A tile of
// one output pixel (a fully connected layer, a decoder's one-token projection) has one row to
// share: its cores share its output channels instead, each computing its band of channels from
// its band of filters (splits_channels, channel_band_args), as many cores as the tile has work
// for (channel_cores: a one-token projection of a small decoder is not worth a fork).
//
// A team is what the platform offers to fork work over its cores and join:
//
//   struct my_team {
//     int cores() const;                                      // cores the tiles are split over
//     template <class F> void fork(int layer, int cores, F& f);  // f(core) for core < cores, joined
//   };
//
// `layer` lets a team attribute the work (the RISC-V platform's profile counts instructions per
// layer and hart). A compute step that is not split (layers run whole on their L2 buffers, or
// tiles whose kernel needs scratch: one scratch area is planned per tile, not per core) is
// forked on one core. `single_core` is the default team (the call runs inline); `serial_team<N>`
// runs the N bands one after the other on the calling core, which checks the split on any host.
// QEMU's riscv32 cluster is tessera_qemu/cluster.hpp (platform/riscv).
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>

#include <tessera/planning/row_split.hpp>
#include <tessera/planning/tile_geometry.hpp>
#include <tessera/schedule/tile_walk.hpp>

namespace tessera {

/// What the tiled executor needs from a cluster (see the header comment).
template <class T>
concept Team = requires(T& team, const T& c, void (*f)(int)) {
  { c.cores() } -> std::convertible_to<int>;
  team.fork(0, 1, f);
};

/// One core, no fork: the default of tiled_executor::run.
struct single_core {
  constexpr int cores() const { return 1; }
  template <class F>
  void fork(int /*layer*/, int /*cores*/, F& f) {
    f(0);
  }
};

/// `Cores` cores emulated on the calling one: the bands run in core order. Bit-exact with a
/// real cluster, since the cores write disjoint output rows and only read shared inputs.
template <int Cores>
struct serial_team {
  static_assert(Cores >= 1, "serial_team: at least one core");
  constexpr int cores() const { return Cores; }
  template <class F>
  void fork(int /*layer*/, int cores, F& f) {
    for (int k = 0; k < cores; ++k) f(k);
  }
};

/// The arguments of the band of output rows `band` (relative to the tile) of the tile `tile`
/// (at position `p` of a layer with geometry `g`): the same L1 buffers, entered at the band's
/// first input and output row, with the band's own share of the layer's padding. A band is a
/// tile of its own whose input lies inside its tile's input (dense [rows][cols][channels] in L1):
/// the tile's whole window, so `p` carries no rows (tile_position::carried is 0).
constexpr tile_args band_args(const tile_geometry& g, const schedule::tile_position& p, const tile_args& tile,
                              row_band band) {
  tile_args b = tile;
  schedule::tile_position q = p;
  q.y0 = p.y0 + band.begin;
  q.h = band.rows();
  const map_box tile_in = schedule::input_box(g, p);
  const map_box band_in = schedule::input_box(g, q, &b);
  const auto in_row_bytes = static_cast<std::ptrdiff_t>(tile.in_cols) * tile.in_channels * g.in_elem_bytes;
  const std::ptrdiff_t in_skip = static_cast<std::ptrdiff_t>(band_in.row - tile_in.row) * in_row_bytes;
  for (int k = 0; k < g.in_operands && k < 2; ++k)  // a whole operand (MatMul's B) is every band's
    if (tile.input[k] != nullptr) b.input[k] = static_cast<const std::byte*>(tile.input[k]) + in_skip;
  const auto out_row_bytes = static_cast<std::ptrdiff_t>(p.w) * p.c * g.out_elem_bytes;
  b.output = static_cast<std::byte*>(tile.output) + band.begin * out_row_bytes;
  b.y0 = q.y0;
  b.h = q.h;
  return b;
}

/// Whether the cores share tile `p` of a layer with geometry `g` by output channels: one output
/// pixel (a row band would be the whole tile), filters per output channel (a band's filters are
/// its channels' rows of the tile's [c][...] block), and nothing that ties an input to an output
/// channel (depthwise, pools, elementwise: channel_lockstep) or reads a second operand by
/// channel (MatMul's B). Each output channel is computed as the whole tile computes it (its
/// filters, bias and requantization entry), so a split is bit-exact.
constexpr bool splits_channels(const tile_geometry& g, const schedule::tile_position& p) {
  return p.h == 1 && p.w == 1 && p.c > 1 && g.weight_bytes_per_channel > 0 && !g.channel_lockstep &&
         g.channel_step == 1 && !g.fused() && g.whole_operand_bytes == 0 && g.in_operands == 1;
}

/// The fewest MACs worth a core of a channel split. On QEMU's riscv32 cluster (rv32 family,
/// about 3 instructions a MAC) a fork/join costs about 1,200 instructions, so a band of fewer
/// than about 500 MACs keeps a hart busier being forked than computing. Measured there (machine
/// instructions, every hart's, of the benchmark decoder's step on 8 harts, whose one-token
/// projections have 1,024-2,048 MACs; and the 8-hart critical path of AnomalyDetection's layers,
/// 16,384 to 81,920 MACs and two of 1,024, on gap8): split over every core, 549,677 and 6.85x
/// the one-hart count; 512 MACs a core, 513,343 and 6.52x; 1,024, 503,295 and 6.09x (one hart:
/// 460,682). 512 keeps most of the speed-up for a tenth of the added work.
inline constexpr std::int64_t min_band_macs = 512;

/// The cores that share a one-pixel tile `p` by channels (splits_channels): at most `cores`,
/// each with at least min_band_macs of work; 1: the tile runs on one core.
constexpr int channel_cores(const tile_geometry& g, const schedule::tile_position& p, int cores) {
  if (cores <= 1 || !splits_channels(g, p)) return 1;
  const std::int64_t macs = static_cast<std::int64_t>(p.c) * (g.macs_per_output > 0 ? g.macs_per_output : 1);
  const std::int64_t worth = macs / min_band_macs;
  return worth < 1 ? 1 : worth < cores ? static_cast<int>(worth) : cores;
}

/// The arguments of the band of output channels `band` (relative to the tile) of a one-pixel
/// tile (splits_channels): the same input, the band's filter rows and output elements, its
/// channel origin (which the kernels index bias and requantization by).
constexpr tile_args channel_band_args(const tile_geometry& g, const tile_args& tile, row_band band) {
  tile_args b = tile;
  b.c0 = tile.c0 + band.begin;
  b.c = band.rows();
  b.weights = static_cast<const std::byte*>(tile.weights) +
              static_cast<std::ptrdiff_t>(band.begin) * static_cast<std::ptrdiff_t>(g.weight_bytes_per_channel);
  b.output = static_cast<std::byte*>(tile.output) + static_cast<std::ptrdiff_t>(band.begin) * g.out_elem_bytes;
  return b;
}

}  // namespace tessera
