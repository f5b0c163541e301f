// The L2-to-L1 tile solver: for one layer, the output tile (rows x columns x channels) to run
// through L1, under one of two objectives (target_desc::objective).
//
// DORY's objective (dory_l1; DORY eq. 7), maximise
//     alpha * L1 bytes used
//   + beta_ch  * tile channels                (HIDE_IM2COL)
//   + beta_par * ((tile rows - 1) mod cores)  (PAR_BALANCE: row_balance_term, planning/row_split.hpp)
//   + beta_w   * ((tile cols - 1) mod micro_w)(MATMUL_W)
//   + beta_c   * ((tile chans - 1) mod micro_c)(MATMUL_CH)
// The latency objective (latency), minimise the modelled time of the layer (layer_cycles):
//   pipeline fill (first tile's loads; 0 with cross-layer prefetch)
//   + sum over tiles of max(compute of the tile, DMA while it computes)
//   + drain (last tile's store).
// Both subject to  L1 bytes = k * (input tile + output tile) + k' * constants tile + scratch <= L1,
// k = 2 when double buffered and the layer has more than one tile, k' = 2 when double
// buffered and there is more than one channel block, each buffer 16-byte aligned, the input
// tile derived from the output tile through stride, kernel and dilation (halo included).
// DORY's objective runs a layer that fits L1 whole as one tile; the latency objective compares
// that with every tiling.
//
// Why the search is exact, and cheap (see `search_frontier`):
// (1) Feasibility is downward closed within a region. The bytes are non-decreasing in rows,
//     columns and channels (the kernels' scratch functions are, too - an assumption the solver
//     relies on and tests/static/test_tile_solver.cpp exercises) as long as the doubling
//     factors k and k' do not change. k' changes only at channels == out_c, so the channel
//     range splits into two regions, c < out_c and c == out_c; k changes only at the whole
//     layer (one tile), which is handled first: if it fits, DORY returns it, and if it does not,
//     it is infeasible in either accounting, so within each region "fits" is monotone.
// (2) Name the dimension with the largest extent z, the other two x and y. For every pair
//     (x, y) the largest feasible z, zmax(x, y), is non-increasing in x and in y, so a walk over
//     the pairs finds each zmax by galloping down from its neighbour's (one evaluation on a
//     plateau, O(log) at a step) and stops a row of pairs at the first infeasible one. The work
//     is about the product of the two smaller extents, not of all three; the largest (often the
//     rows of a big feature map) costs only galloping.
// (3) DORY: for a fixed pair, the objective depends on z through the bytes (non-decreasing) and
//     through a term periodic in z with period p (cores for rows, micro_w for columns, micro_c
//     for channels) plus, for channels, beta_ch * c (increasing). So z' < zmax - p + 1 is
//     dominated by z' + p (same periodic term, at least as many bytes and channels, no more
//     tiles): the optimum of the pair is among the p largest feasible z. Candidates are further
//     skipped when even zmax's bytes with the candidate's heuristics cannot beat the best
//     score, and pairs are skipped when even a full L1 with their best heuristics cannot.
// (4) Latency: for a fixed pair, layer_cycles is not monotone in z (larger tiles fill and drain
//     longer, smaller ones pay more per-tile overhead), so z is searched downward from zmax,
//     one group of extents with the same block count at a time, but it stops as soon as a
//     lower bound valid for all smaller z with the pair's two extents (layer_cycles_bound: the
//     compute of every tile, exact along the two fixed dimensions with the kernels' granules,
//     plus per-tile overheads and preparation, which only grow as tiles shrink, and fill and
//     drain; or every byte and transfer the DMA serialises) reaches the best time; pairs are
//     skipped by the same bound. Inside a group, ranges of extents are pruned whole by two
//     bounds (the same with the range's ends; layer_cycles_over, the model with every block at
//     its narrowest) or halved, and each candidate is first held against the bound of its own
//     tile, a few times cheaper than the layer model. The search starts from DORY's tile and a
//     few balanced tiles, so that the bounds prune from the first (smallest, slowest) pairs
//     on: on the DS-CNN's layers through 12 kB this cut clang's constexpr steps from 2.4-4.1 M
//     (over its 2^20 limit) to 0.03-0.36 M.
//     Where thousands of tilings lie within the bounds' slack of the fastest, nothing prunes
//     them: every search counts its work (search_work) and stops at its budget
//     (tile_problem::search_budget) with the best tile reached, marked cut_short; the latency
//     walk stops at four fifths of it and spends the rest on tiles split along one dimension
//     and local moves (solve_latency). Exactness holds for a search that finishes.
// (5) DORY, along y: for a fixed x the pairs (x, y) with one zmax form runs, and inside a run
//     (x, y, z) is dominated by (x, y + p, z), p the period of y's term, for every z the pair
//     considers (same periodic terms, at least the bytes and channels, no more tiles, and
//     feasible, zmax being the same). So only the p widest pairs of a run are visited, and the
//     run's end is found by galloping and bisection: a row costs about (runs x log) evaluations,
//     and a run boundary needs zmax to change, so there are at most min(extent of y, 2 sqrt(L1
//     elements)) runs - not the width of a 1024-pixel image (3x3 conv 3->8 channels on a
//     1024^2 map in 128 kB: 12,276 evaluations before, 8,202 after; 4096^2: 37,572 and 10,152).
// `solve_tiles_exhaustive` visits every tile; the static tests compare the two on random small
// layers for both objectives.
#pragma once

#include <cstddef>
#include <cstdint>

#include <tessera/planning/row_split.hpp>
#include <tessera/planning/tile_geometry.hpp>
#include <tessera/target/target.hpp>

namespace tessera {

/// DORY's tweakable weights, in thousandths: `memory` per whole L1 used, the heuristics in
/// thousandths of L1 per unit of their term.
struct tiling_weights {
  std::int64_t memory = 1000;
  std::int64_t per_channel = 1;
  std::int64_t par_balance = 10;
  std::int64_t micro_w = 20;
  std::int64_t micro_c = 20;
};

/// What the latency objective needs besides the layer: the tile compute model and the cost of
/// a DMA transfer between L1 and the level the layer's tensors live in.
struct latency_model {
  kernel_cost compute{};
  kernel_cost producer_compute{};  ///< fused blocks: the depthwise kernel's cost
  std::uint32_t macs_per_cycle_x16 = 16;  ///< fallback rate of `compute` (see cost_model.hpp)
  memory_level transfer{"L2", 0, 8, 10, 30};
  /// Cross-layer prefetch: cycles of the first tile's loads that may run while the layer before
  /// still computes (0: none; `all_hidden`: the whole fill costs nothing), and whether the first
  /// input tile must wait for that layer's result (then only the filters may load early).
  std::uint64_t hidden_fill = 0;
  bool input_waits = false;
  /// L1 forwarding (l1_forwarding.hpp): a one-tile layer may read its input where the layer
  /// before computed it (`forwarded_input`) and leave its result where the layer after reads it
  /// (`forwarded_output`); the model then charges one tile neither that load nor that store
  /// (layer_cycles). A side is false where no CPU layer that tiles is there to forward with.
  bool forwarded_input = false;
  bool forwarded_output = false;
};

inline constexpr std::uint64_t all_hidden = ~std::uint64_t{0};

/// The part of a first tile's loads (`input`, `filters`) that the previous layer's compute does
/// not hide (latency_model::hidden_fill): the one place this fill is computed.
constexpr std::uint64_t exposed_fill(const latency_model& lm, std::uint64_t input, std::uint64_t filters) {
  const std::uint64_t early = lm.input_waits ? filters : input + filters;
  return input + filters - (early < lm.hidden_fill ? early : lm.hidden_fill);
}

struct tile_problem {
  tile_geometry layer;
  std::size_t capacity = 0;  ///< L1 bytes available to this layer
  bool double_buffering = true;
  int cores = 1;
  int micro_c = 1;
  int micro_w = 1;
  tiling_weights weights{};
  scratch_function scratch = nullptr;  ///< the kernel's scratch-size function, if any
  scratch_function producer_scratch = nullptr;  ///< fused blocks: the depthwise kernel's
  tiling_objective objective = tiling_objective::dory_l1;
  latency_model latency{};
  /// An accelerator's separate weight memory (target/engine.hpp): filter tiles go there and
  /// must fit it, the rest must fit `capacity`. 0: filters share `capacity` (every CPU layer).
  std::size_t constant_capacity = 0;
  /// DORY's objective on a pointwise -> depthwise block: its variants are weighed by traffic
  /// (layer_traffic) instead of modelled time (see solve_tiles).
  bool variants_by_traffic = false;
  /// The search's work allowance (target_desc::search_budget, in search_work units).
  std::int64_t search_budget = default_search_budget;
};

/// The problem of tiling layer `g` into `capacity` bytes of L1 on target `t`.
constexpr tile_problem tile_problem_for(const target_desc& t, const tile_geometry& g, std::size_t capacity,
                                        scratch_function scratch) {
  tile_problem p{g, capacity, t.double_buffering, t.cores, t.micro_tile_channels, t.micro_tile_width, {}, scratch};
  p.objective = t.objective;
  p.latency.compute = t.compute[cost_kind_of(g)];
  if (g.fused()) p.latency.producer_compute = t.compute[producer_cost_kind(g)];
  p.latency.macs_per_cycle_x16 = t.macs_per_cycle_x16;
  if (t.level_count > 1) p.latency.transfer = t.transfer_path(1);
  p.latency.forwarded_input = p.latency.forwarded_output = t.l1_forwarding;
  p.variants_by_traffic = t.fusion == fusion_policy::by_traffic || t.fusion == fusion_policy::by_traffic_no_slower;
  p.search_budget = t.search_budget;
  return p;
}

struct tile_cost {
  std::size_t input_bytes = 0;     ///< one input tile (all operands)
  std::size_t output_bytes = 0;    ///< one output tile
  std::size_t constant_bytes = 0;  ///< one weights + bias + requant tile
  std::size_t scratch_bytes = 0;
  std::size_t total_bytes = 0;     ///< L1 bytes the layer needs with this tile
  /// With a separate constant memory (tile_problem::constant_capacity): the filter buffers'
  /// bytes there (not counted in total_bytes); else 0.
  std::size_t constant_memory_bytes = 0;
  std::int64_t tiles = 1;          ///< tile count (batch included)
  bool activations_doubled = false;
  bool constants_doubled = false;
};

struct tile_solution {
  bool feasible = false;
  tile_shape tile{};
  tile_cost cost{};
  std::int64_t score = 0;          ///< DORY objective (x1000) of the tile
  std::size_t smallest_bytes = 0;  ///< L1 bytes of the smallest tile (what a failure reports)
  std::uint64_t cycles = 0;        ///< modelled layer time of the tile (layer_cycles)
  int evaluations = 0;             ///< tiles whose bytes the search evaluated (planning cost)
  std::size_t smallest_constant_bytes = 0;  ///< the smallest tile's bytes in a separate constant memory (0: none)
  std::int64_t work = 0;           ///< what the search cost, in search_work units
  /// The search reached its budget (tile_problem::search_budget) and stopped: the tile is the
  /// best of those it reached, feasible, but not proven the best under the objective.
  bool cut_short = false;
};

/// What the solver's steps cost the compiler, in units of at most about 64 of clang's constexpr
/// steps, measured per call (150 to 6,000 calls in one evaluation) on the MobileNetV2-0.35's
/// features.2 block on gap8, its depthwise layer on DIANA's digital engine and a 3x3
/// convolution over a 1024 x 1024 image on stm32h7: a tile's bytes (`cost_of`) 65 steps, and
/// about 70 more for each kernel scratch function it calls (207 with the arm_dsp convolution's;
/// bytes_work), a bound 400-650, the layer model 1,470-2,100; GCC's operations 240-730 a unit.
/// The budget (target_desc::search_budget) counts these, not the compiler's own counter, so
/// that a plan does not depend on how a compiler counts (default_search_budget still differs
/// between GCC and clang, whose limits do).
namespace search_work {
inline constexpr std::int64_t pair = 2;      ///< DORY's pruning test of a pair
inline constexpr std::int64_t bytes = 1;     ///< cost_of, without scratch functions
inline constexpr std::int64_t scratch = 3;   ///< each scratch function cost_of calls
inline constexpr std::int64_t bound = 10;    ///< layer_cycles_bound
inline constexpr std::int64_t model = 33;    ///< layer_cycles, layer_cycles_over
}  // namespace search_work

/// The search_work of one cost_of for problem `p`.
constexpr std::int64_t bytes_work(const tile_problem& p) {
  return search_work::bytes + search_work::scratch * ((p.scratch != nullptr) + (p.producer_scratch != nullptr));
}

namespace tiling_detail {
constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
constexpr std::size_t aligned(std::size_t v) { return l1_aligned(v); }
}  // namespace tiling_detail

/// Bytes of `rows` rows of one operand's input box of tile `t` (their halo columns included).
constexpr std::uint64_t input_rows_bytes(const tile_geometry& g, std::int64_t rows, const tile_shape& t) {
  return static_cast<std::uint64_t>(rows) * static_cast<std::uint64_t>(g.input_cols(t.w)) *
         static_cast<std::uint64_t>(g.channel_lockstep ? t.c : g.in_c) * static_cast<std::uint64_t>(g.in_elem_bytes);
}

/// Bytes of one operand's input box of tile `t` (halo included; every operand tiled with the
/// output has one, a whole operand is apart).
constexpr std::uint64_t input_box_bytes(const tile_geometry& g, const tile_shape& t) {
  return input_rows_bytes(g, g.input_rows(t.h), t);
}

/// Bytes of tile `t`'s input box that a tile at output row `y0` of a layer tiled `tile_h` rows
/// high does not load: the rows a pointwise -> depthwise block that carries rows takes from the
/// tile above (carried_rows, schedule::tile_position::carried); 0 for every other tile.
constexpr std::uint64_t carried_input_bytes(const tile_geometry& g, int y0, int tile_h, const tile_shape& t) {
  if (!g.pointwise_first() || !carries_rows(g, t.w)) return 0;
  return input_rows_bytes(g, carried_rows(g, y0, tile_h), t);
}

/// Bytes of tile `t`'s output box.
constexpr std::uint64_t output_box_bytes(const tile_geometry& g, const tile_shape& t) {
  return static_cast<std::uint64_t>(t.h) * static_cast<std::uint64_t>(t.w) * static_cast<std::uint64_t>(t.c) *
         static_cast<std::uint64_t>(g.out_elem_bytes);
}

/// Cycles of the load of a whole operand (tile_geometry::whole_operand_bytes) with each tile; 0: none.
constexpr std::uint64_t whole_operand_cycles(const memory_level& m, const tile_geometry& g) {
  return g.whole_operand_bytes > 0 ? m.transfer_cycles(g.whole_operand_bytes) : 0;
}

constexpr tile_cost cost_of(const tile_problem& p, const tile_shape& t) {
  using tiling_detail::ceil_div;
  const tile_geometry& g = p.layer;
  tile_cost c{};
  c.input_bytes = static_cast<std::size_t>(input_box_bytes(g, t)) * static_cast<std::size_t>(g.in_operands);
  if (g.whole_operand_bytes > 0) c.input_bytes = tiling_detail::aligned(c.input_bytes) + g.whole_operand_bytes;
  c.output_bytes = static_cast<std::size_t>(output_box_bytes(g, t));
  c.constant_bytes = static_cast<std::size_t>(t.c) * (g.weight_bytes_per_channel + g.const_bytes_per_channel) +
                     g.const_bytes_fixed;
  if (g.fused()) {  // the depthwise filters ride in the filter slot, the intermediate in scratch
    const fused_layout f = fused_layout_of(g, t, p.producer_scratch, p.scratch);
    c.constant_bytes += f.consumer_filters;
    c.scratch_bytes = f.scratch_bytes;
  } else {
    c.scratch_bytes = p.scratch != nullptr ? p.scratch(g, t) : 0;
  }
  const std::int64_t channel_tiles = ceil_div(g.out_c, t.c);
  c.tiles = g.batch * ceil_div(g.out_h, t.h) * ceil_div(g.out_w, t.w) * channel_tiles;
  c.activations_doubled = p.double_buffering && c.tiles > 1;
  c.constants_doubled = p.double_buffering && channel_tiles > 1;
  using tiling_detail::aligned;
  const std::size_t constants = (c.constants_doubled ? 2 : 1) * aligned(c.constant_bytes);
  c.total_bytes = (c.activations_doubled ? 2 : 1) * (aligned(c.input_bytes) + aligned(c.output_bytes)) +
                  aligned(c.scratch_bytes);
  if (p.constant_capacity > 0) {
    c.constant_memory_bytes = constants;
  } else {
    c.total_bytes += constants;
  }
  return c;
}

/// Whether a tile of cost `c` fits the layer's memories (both are non-decreasing in the tile,
/// so the search's monotonicity argument holds for their conjunction).
constexpr bool fits_in(const tile_problem& p, const tile_cost& c) {
  return c.total_bytes <= p.capacity && (p.constant_capacity == 0 || c.constant_memory_bytes <= p.constant_capacity);
}

/// The DORY objective, times 1000 (exact integer arithmetic).
constexpr std::int64_t score_of(const tile_problem& p, const tile_shape& t, const tile_cost& c) {
  const tiling_weights& w = p.weights;
  const auto cap = static_cast<std::int64_t>(p.capacity);
  const std::int64_t heuristics = w.per_channel * t.c + w.par_balance * row_balance_term(t.h, p.cores) +
                                  w.micro_w * ((t.w - 1) % p.micro_w) + w.micro_c * ((t.c - 1) % p.micro_c);
  return w.memory * static_cast<std::int64_t>(c.total_bytes) + cap * heuristics;
}

// The latency objective's model of a layer (see the header comment). Tiles run in the
// executor's order: channel blocks outermost, then images, row blocks, column blocks; all
// blocks are full but the last of each dimension. Per tile i:
//   C_i = tile_compute_cycles of its rows x cols x channels (cost_model.hpp; below the first row
//         block of a pointwise -> depthwise block that carries rows, the pointwise kernel over
//         the new rows only: producer_rows), with the kernels'
//         preparation (per_block) on the first tile of each channel block when the layer keeps
//         it (keeps_preparation), on every tile otherwise,
//   L_i = one DMA transfer per input operand of its input box (halo included, as cost_of counts it;
//         below the first row block of a block that carries rows, less the carried rows:
//         carried_input_bytes), and one of a whole operand (MatMul's B) when the layer has one,
//   F_i = the transfer of its filters when it opens a channel block (0 without filters),
//   S_i = the transfer of its output box,
// each transfer costing memory_level::transfer_cycles. Double buffered, tile i computes while
// the engine stores tile i-1 and loads tile i+1:
//   T = fill + sum_i max(C_i, S_(i-1) + L_(i+1) + F_(i+1)) + S_(n-1),  fill = L_0 + F_0
// (0 when the previous layer prefetched it). Single buffered, nothing overlaps:
//   T = sum_i (L_i + F_i + C_i + S_i) - (hidden fill).
// Evaluated in closed form: a tile's terms depend on each loop index only through whether it
// is 0, the last or the one before the last, so at most four representatives per loop are
// summed with their multiplicities (a few hundred operations, whatever the tile count).
namespace tiling_detail {
/// Cycles of the load of a filter block of `channels` output channels: the layer's own filters
/// and a fused block's producer filters for them (producer_filter_bytes), one transfer each.
constexpr std::uint64_t filter_block_cycles(const memory_level& m, const tile_geometry& g, int channels) {
  return m.transfer_cycles(static_cast<std::uint64_t>(channels) * g.weight_bytes_per_channel) +
         m.transfer_cycles(producer_filter_bytes(g, channels));
}

/// Per tile shape kind: bit 0 = last row block, bit 1 = last column block, bit 2 = last channel block.
struct tile_kinds {
  int extent[3]{};  ///< full tile rows, cols, channels
  int last[3]{};    ///< rows, cols, channels of the last block
  std::int64_t blocks[4]{};  ///< channel blocks, images, row blocks, column blocks (loop order)
  std::uint64_t compute[8]{}, load[8]{}, store[8]{}, filters[2]{};
  /// The compute and loads of the kinds' tiles in the first row block; `compute` and `load` are
  /// those of the others, which differ where a pointwise -> depthwise block carries rows
  /// (carries_rows: the pointwise kernel computes, and the tile loads, only the new rows).
  std::uint64_t compute_first[8]{}, load_first[8]{};
};

/// The kinds of tile `t`; `z` >= 0: the last block along dimension z is `last_z` wide instead
/// of what t leaves (a range bound's mix of two tiles, see layer_cycles_over).
constexpr tile_kinds kinds_of(const tile_problem& p, const tile_shape& t, int z = -1, int last_z = 0) {
  const tile_geometry& g = p.layer;
  tile_kinds k{};
  k.extent[0] = t.h, k.extent[1] = t.w, k.extent[2] = t.c;
  const int full[3]{g.out_h, g.out_w, g.out_c};
  for (int d = 0; d < 3; ++d) {
    const std::int64_t n = ceil_div(full[d], k.extent[d]);
    k.last[d] = d == z ? last_z : full[d] - static_cast<int>(n - 1) * k.extent[d];
  }
  k.blocks[0] = ceil_div(g.out_c, t.c);
  k.blocks[1] = g.batch;
  k.blocks[2] = ceil_div(g.out_h, t.h);
  k.blocks[3] = ceil_div(g.out_w, t.w);
  const memory_level& m = p.latency.transfer;
  // A dimension in one block has one extent: the kinds that differ only in its bit are equal,
  // so each is computed once.
  const int single = (k.blocks[2] == 1 ? 1 : 0) | (k.blocks[3] == 1 ? 2 : 0) | (k.blocks[0] == 1 ? 4 : 0);
  const bool carry = carries_rows(g, t.w);
  for (int i = 0; i < 8; ++i) {
    if ((i & single) != 0) {
      const int same = i & ~single;
      k.compute[i] = k.compute[same], k.load[i] = k.load[same], k.store[i] = k.store[same];
      k.compute_first[i] = k.compute_first[same], k.load_first[i] = k.load_first[same];
      continue;
    }
    const int rows = (i & 1) ? k.last[0] : k.extent[0];
    const int cols = (i & 2) ? k.last[1] : k.extent[1];
    const int chans = (i & 4) ? k.last[2] : k.extent[2];
    const auto cycles = [&](int first_rows) {
      return layer_tile_cycles(p.latency.compute, p.latency.producer_compute, p.latency.macs_per_cycle_x16, g, rows,
                               cols, chans, first_rows);
    };
    k.compute_first[i] = cycles(-1);
    // Below the first row block a carrying tile computes only its new rows: every middle tile
    // as many as the second (carries_rows), the last its own.
    const int y0 = (i & 1) ? g.out_h - k.last[0] : k.extent[0];
    k.compute[i] = carry ? cycles(producer_rows(g, y0, rows, k.extent[0], true)) : k.compute_first[i];
    const tile_shape each{rows, cols, chans};
    const std::uint64_t window_bytes = input_box_bytes(g, each);
    k.load_first[i] =
        static_cast<std::uint64_t>(g.in_operands) * m.transfer_cycles(window_bytes) + whole_operand_cycles(m, g);
    k.load[i] = carry ? static_cast<std::uint64_t>(g.in_operands) *
                                m.transfer_cycles(window_bytes - carried_input_bytes(g, y0, k.extent[0], each)) +
                            whole_operand_cycles(m, g)
                      : k.load_first[i];
    k.store[i] = m.transfer_cycles(output_box_bytes(g, each));
  }
  for (int i = 0; i < 2; ++i) k.filters[i] = filter_block_cycles(m, g, i ? k.last[2] : k.extent[2]);
  return k;
}

/// The first tile's loads (its input and its filters), i.e. kinds_of(p, t).load[0] +
/// filters[0] without the other seven kinds: the pruning bound needs only these, once per
/// visited pair, and computing all kinds there cost the latency search most of its constexpr
/// budget (a pointwise 48x48, 16 -> 32 layer exceeded GCC's default limit; now 1.8 s).
struct fill_parts {
  std::uint64_t input = 0;    ///< the input operands' loads
  std::uint64_t filters = 0;  ///< the filters' (and a fused block's first weights')
};
constexpr fill_parts first_fill_parts(const tile_problem& p, const tile_shape& t) {
  const tile_geometry& g = p.layer;
  const memory_level& m = p.latency.transfer;
  return {static_cast<std::uint64_t>(g.in_operands) * m.transfer_cycles(input_box_bytes(g, t)) + whole_operand_cycles(m, g),
          filter_block_cycles(m, g, t.c)};
}
/// The first fill the model charges: what the previous layer does not hide (exposed_fill).
constexpr std::uint64_t first_fill(const tile_problem& p, const tile_shape& t) {
  const fill_parts f = first_fill_parts(p, t);
  return exposed_fill(p.latency, f.input, f.filters);
}

/// Shape kind of the tile at loop indices v (channel block, image, row block, column block).
constexpr int kind_at(const tile_kinds& k, const std::int64_t (&v)[4]) {
  return (v[2] == k.blocks[2] - 1 ? 1 : 0) | (v[3] == k.blocks[3] - 1 ? 2 : 0) | (v[0] == k.blocks[0] - 1 ? 4 : 0);
}

/// The layer model over the kinds `k`; `cost`: the tile's (its buffering and scratch).
constexpr std::uint64_t cycles_of_kinds(const tile_problem& p, const tile_kinds& k, const tile_cost& cost) {
  const std::uint64_t fill = exposed_fill(p.latency, k.load_first[0], k.filters[0]);
  const std::uint64_t prepare = preparation_cycles(p.latency.compute, p.latency.producer_compute, p.layer);
  const bool kept = keeps_preparation(p.layer, cost.scratch_bytes);
  if (!cost.activations_doubled) {
    std::uint64_t sum = 0;
    for (int i = 0; i < 8; ++i) {
      const std::int64_t rows = (i & 1) ? 1 : k.blocks[2] - 1, cols = (i & 2) ? 1 : k.blocks[3] - 1,
                         blocks = (i & 4) ? 1 : k.blocks[0] - 1;
      // Of the kind's `rows` row blocks, the first row block is one when it is of this kind.
      const std::int64_t first = (i & 1) ? (k.blocks[2] == 1 ? 1 : 0) : (rows > 0 ? 1 : 0);
      const std::uint64_t compute = static_cast<std::uint64_t>(first) * (k.compute_first[i] + k.load_first[i]) +
                                    static_cast<std::uint64_t>(rows - first) * (k.compute[i] + k.load[i]);
      sum += static_cast<std::uint64_t>(cols * blocks * k.blocks[1]) *
             (static_cast<std::uint64_t>(rows) * k.store[i] + compute);
    }
    sum += static_cast<std::uint64_t>(k.blocks[0] - 1) * k.filters[0] + k.filters[1];
    sum += static_cast<std::uint64_t>(kept ? k.blocks[0] : k.blocks[0] * k.blocks[1] * k.blocks[2] * k.blocks[3]) * prepare;
    return sum - (k.load_first[0] + k.filters[0] - fill);
  }
  // Representatives of each loop index: 0, the one before the last, the last, and one middle
  // value standing for the others (its multiplicity).
  std::int64_t rep[4][4]{}, count[4][4]{};
  int reps[4]{};
  for (int d = 0; d < 4; ++d) {
    const std::int64_t r = k.blocks[d];
    const std::int64_t candidates[3]{0, r - 2, r - 1};
    for (std::int64_t c : candidates) {
      bool seen = c < 0;
      for (int i = 0; i < reps[d]; ++i) seen = seen || rep[d][i] == c;
      if (!seen) {
        rep[d][reps[d]] = c;
        count[d][reps[d]++] = 1;
      }
    }
    if (r > reps[d]) {
      rep[d][reps[d]] = 1;  // r >= 4 here, so 1 is neither 0, r - 2 nor r - 1
      count[d][reps[d]++] = r - 3;
    }
  }
  std::uint64_t steady = 0;
  int at[4]{};
  while (true) {
    std::int64_t v[4]{}, multiplicity = 1;
    for (int d = 0; d < 4; ++d) {
      v[d] = rep[d][at[d]];
      multiplicity *= count[d][at[d]];
    }
    std::uint64_t window = 0;
    std::int64_t u[4]{v[0], v[1], v[2], v[3]};
    int d = 3;  // previous tile: borrow from the innermost index that is not 0
    while (d >= 0 && u[d] == 0) u[d--] = 0;
    if (d >= 0) {
      --u[d];
      for (int e = d + 1; e < 4; ++e) u[e] = k.blocks[e] - 1;
      window += k.store[kind_at(k, u)];
    }
    for (int e = 0; e < 4; ++e) u[e] = v[e];
    d = 3;  // next tile: carry into the innermost index that is not the last
    while (d >= 0 && u[d] == k.blocks[d] - 1) --d;
    if (d >= 0) {
      ++u[d];
      for (int e = d + 1; e < 4; ++e) u[e] = 0;
      window += (u[2] == 0 ? k.load_first : k.load)[kind_at(k, u)];
      if (d == 0) window += k.filters[u[0] == k.blocks[0] - 1 ? 1 : 0];  // opens a channel block
    }
    const bool opens_block = v[1] == 0 && v[2] == 0 && v[3] == 0;
    const std::uint64_t c = (v[2] == 0 ? k.compute_first : k.compute)[kind_at(k, v)] + (!kept || opens_block ? prepare : 0);
    steady += static_cast<std::uint64_t>(multiplicity) * (c > window ? c : window);
    int e = 3;
    while (e >= 0 && ++at[e] == reps[e]) at[e--] = 0;
    if (e < 0) break;
  }
  return fill + steady + k.store[7];
}
}  // namespace tiling_detail

/// Modelled compute cycles of the last tile of the layer with tile `t`: while it computes, the
/// next layer's first loads run (cross-layer prefetch, see latency_model::hidden_fill).
constexpr std::uint64_t last_tile_compute(const tile_problem& p, const tile_shape& t) {
  const tiling_detail::tile_kinds k = tiling_detail::kinds_of(p, t);
  return (k.blocks[2] == 1 ? k.compute_first : k.compute)[7];
}

/// Modelled cycles of the layer with tile `t` (its `cost` from cost_of), see above.
/// What L1 forwarding saves a layer run as one tile `t`, as the latency model counts it: the
/// load of its input (unless the target's model hides the first load anyway) and the store of
/// its result (l1_forwarding.hpp: both stay in L1 between one-tile neighbours). 0 without it.
/// Its two sides: the input load a producer run as one tile leaves in L1, and the store a
/// consumer run as one tile makes unnecessary (the fusion selector checks each side's neighbour).
constexpr std::uint64_t forwarded_load_saving(const tile_problem& p, const tile_shape& t) {
  if (!p.latency.forwarded_input) return 0;
  const tiling_detail::fill_parts f = tiling_detail::first_fill_parts(p, t);
  const std::uint64_t operand = p.latency.transfer.transfer_cycles(input_box_bytes(p.layer, t));
  return exposed_fill(p.latency, f.input, f.filters) - exposed_fill(p.latency, f.input - operand, f.filters);
}
constexpr std::uint64_t forwarded_store_saving(const tile_problem& p, const tile_shape& t) {
  if (!p.latency.forwarded_output) return 0;
  return p.latency.transfer.transfer_cycles(output_box_bytes(p.layer, t));
}
constexpr std::uint64_t forwarding_saving(const tile_problem& p, const tile_shape& t) {
  return forwarded_load_saving(p, t) + forwarded_store_saving(p, t);
}

constexpr std::uint64_t layer_cycles(const tile_problem& p, const tile_shape& t, const tile_cost& cost) {
  const std::uint64_t cycles = tiling_detail::cycles_of_kinds(p, tiling_detail::kinds_of(p, t), cost);
  if (cost.tiles != 1) return cycles;
  // One tile, between layers that are one tile too: the round trip through L2 on both sides is
  // gone. Optimistic where a neighbour tiles; it is what lets this objective keep a chain of
  // layers whole, as DORY's objective does, where that is faster than tiling them.
  const std::uint64_t saved = forwarding_saving(p, t);
  return cycles > saved ? cycles - saved : 0;
}

/// A lower bound of layer_cycles over the tiles `low` .. `high` along dimension `z`, the two
/// tiles equal elsewhere and with one block count n along z (`high_cost`: cost_of(p, high)).
/// Every term of the model (a tile's compute, loads, store, filters; the fill and the drain)
/// is non-decreasing in its tile's extents, and the model adds them and takes maxima: so it
/// is no larger with every full block as narrow as in `low` and the last block as narrow as
/// in `high` (full - (n - 1) high), though no tile of the range has both. Exact at
/// low == high; unlike layer_cycles_bound it sees which tiles' compute the transfers exceed.
/// The buffering is the range's (n blocks), and the preparation is assumed kept when the
/// largest tile keeps it (the scratch only grows with the tile).
constexpr std::uint64_t layer_cycles_over(const tile_problem& p, const tile_shape& low, const tile_shape& high, int z,
                                          const tile_cost& high_cost) {
  const tile_geometry& g = p.layer;
  const int full = z == 0 ? g.out_h : z == 1 ? g.out_w : g.out_c;
  const int extent = z == 0 ? high.h : z == 1 ? high.w : high.c;
  const int last = full - static_cast<int>(tiling_detail::ceil_div(full, extent) - 1) * extent;
  return tiling_detail::cycles_of_kinds(p, tiling_detail::kinds_of(p, low, z, last), high_cost);
}

/// Bytes the layer moves between L2 and L1 with tile `t`: every tile's input box (halo
/// included, as cost_of counts it; less the rows a carrying tile carries: carried_input_bytes),
/// whole operand and output, the filters once per channel block (a fused block's producer
/// filters with each: producer_filter_bytes).
constexpr std::uint64_t layer_traffic(const tile_problem& p, const tile_shape& t) {
  using tiling_detail::ceil_div;
  const tile_geometry& g = p.layer;
  const std::int64_t blocks[3]{ceil_div(g.out_h, t.h), ceil_div(g.out_w, t.w), ceil_div(g.out_c, t.c)};
  const int extent[3]{t.h, t.w, t.c};
  const int full[3]{g.out_h, g.out_w, g.out_c};
  std::uint64_t bytes = 0;
  for (int i = 0; i < 8; ++i) {  // bit d set: the last block along dimension d
    std::int64_t count = g.batch;
    int size[3]{};
    for (int d = 0; d < 3; ++d) {
      const bool last = (i >> d) & 1;
      count *= last ? 1 : blocks[d] - 1;
      size[d] = last ? full[d] - static_cast<int>(blocks[d] - 1) * extent[d] : extent[d];
    }
    if (count == 0) continue;
    const tile_shape each{size[0], size[1], size[2]};
    bytes += static_cast<std::uint64_t>(count) * (static_cast<std::uint64_t>(g.in_operands) * input_box_bytes(g, each) +
                                                  g.whole_operand_bytes + output_box_bytes(g, each));
  }
  if (g.pointwise_first() && carries_rows(g, t.w)) {  // carried_input_bytes over the tiles
    const std::int64_t rows = carried_rows_over(g, t.h);
    const tile_shape last_block{t.h, t.w, g.out_c - static_cast<int>(blocks[2] - 1) * t.c};
    bytes -= static_cast<std::uint64_t>(g.batch) * static_cast<std::uint64_t>(g.in_operands) *
             (static_cast<std::uint64_t>(blocks[2] - 1) * input_rows_bytes(g, rows, t) + input_rows_bytes(g, rows, last_block));
  }
  return bytes + static_cast<std::uint64_t>(g.out_c) * g.weight_bytes_per_channel + producer_filter_bytes_over(g, blocks[2]);
}

namespace tiling_detail {
/// The blocks of one output dimension under a tile extent: `count` blocks, all `extent` wide
/// but the last, `last` wide.
struct blocks_along {
  std::int64_t count = 1;
  int extent = 1;
  int last = 1;
};

constexpr blocks_along blocks_of(int full, int extent) {
  const std::int64_t n = ceil_div(full, extent);
  return {n, extent, full - static_cast<int>(n - 1) * extent};
}

/// The sum of f(block extent) over the blocks of `b`.
template <class F>
constexpr std::uint64_t sum_over(const blocks_along& b, F&& f) {
  return static_cast<std::uint64_t>(b.count - 1) * f(b.extent) + f(b.last);
}

constexpr std::uint64_t rounded_up(std::uint64_t v, std::uint16_t granule) {
  const std::uint64_t q = granule > 1 ? granule : 1;
  return (v + q - 1) / q * q;
}

/// The channels a kernel computes (each block's rounded up to its granule) summed over the
/// blocks of `chans`, at least, when every split into at least chans.count blocks counts (a
/// bound relaxed along the channels): every channel once, and every block at least a granule.
/// Without the granules' part a layer on DIANA's digital engine (16 channels at once) saw
/// splits into 8-channel blocks costed as 48 channels where they compute 96.
constexpr std::uint64_t relaxed_channel_slots(int out_c, const blocks_along& chans, std::uint16_t granule) {
  const std::uint64_t all = static_cast<std::uint64_t>(out_c);
  const std::uint64_t per_block = static_cast<std::uint64_t>(chans.count) * (granule > 1 ? granule : 1);
  return per_block > all ? per_block : all;
}

/// Input rows (or columns) the blocks of an output dimension read, summed, at least: exact
/// when the extent is fixed; relaxed, at least what the whole dimension reads when windows of
/// neighbouring blocks overlap or touch (stride <= window extent: a split never reads less),
/// else one input row per output row (every window reads at least one), capped at the input.
constexpr std::uint64_t input_span_sum(const blocks_along& b, bool relaxed, int full, int input, int stride,
                                       int kernel, int dilation) {
  const auto span = [&](int outputs) -> std::uint64_t {
    const int s = window::span(outputs, stride, kernel, dilation);
    return static_cast<std::uint64_t>(s < input ? s : input);
  };
  if (!relaxed) return sum_over(b, span);
  if (stride <= (kernel - 1) * dilation + 1) return span(full);
  return static_cast<std::uint64_t>(full < input ? full : input);
}

/// The compute cycles (kernel_tile_cycles) of one kernel summed over the tiles, at least, for
/// tiles whose rows and columns are split as `rows` and `cols`, with `tiles` tiles in all and
/// `channel_slots` (channels as the kernel computes them, summed over the channel blocks) per
/// pixel; along the dimension `relaxed` (0 rows, 1 cols, 2 none) the split is any finer one.
/// Each tile's slots are round_pixels(rows * round_width(cols)) * round_channels(channels)
/// (kernel_tile_cycles), so the sum factors into a sum over the pixel blocks times the channel
/// sum; dropping a granule's rounding along the relaxed dimension keeps it a lower bound.
constexpr std::uint64_t compute_floor(const kernel_cost& cost, std::uint32_t fallback_macs_per_cycle_x16,
                                      const tile_geometry& g, const blocks_along& rows, const blocks_along& cols,
                                      int relaxed, std::uint64_t channel_slots, std::uint64_t tiles,
                                      std::uint64_t row_calls) {
  std::uint64_t pixels = 0;
  if (relaxed == 0) {
    pixels = static_cast<std::uint64_t>(g.out_h) * sum_over(cols, [&](int c) { return rounded_up(c, cost.width_granule); });
  } else if (relaxed == 1) {
    pixels = static_cast<std::uint64_t>(g.out_h) * static_cast<std::uint64_t>(g.out_w);
  } else {
    pixels = sum_over(rows, [&](int r) {
      return sum_over(cols, [&](int c) {
        return rounded_up(static_cast<std::uint64_t>(r) * rounded_up(c, cost.width_granule), cost.pixel_granule);
      });
    });
  }
  const std::uint64_t slots = static_cast<std::uint64_t>(g.batch) * pixels * channel_slots;
  const std::uint64_t macs = slots * static_cast<std::uint64_t>(g.macs_per_output > 0 ? g.macs_per_output : 1);
  std::uint64_t cycles = 0;
  if (cost.cycles_per_kmac != 0) {
    cycles = macs * cost.cycles_per_kmac / 1024;
  } else {
    const std::uint64_t rate = fallback_macs_per_cycle_x16 != 0 ? fallback_macs_per_cycle_x16 : 16;
    cycles = macs * 16 / rate;
  }
  return cycles + slots * cost.cycles_per_koutput / 1024 + tiles * cost.per_tile + row_calls * cost.per_row;
}
}  // namespace tiling_detail

namespace tiling_detail {
/// Whether the bounds below count a fused block's first kernel over the output tile's pixels:
/// it computes at least those (depthwise first: exactly those; pointwise first: the depthwise
/// window's, at least as many rows and columns when the input map is no smaller than the
/// output map, which heavy padding can break; nor does a carrying block's last tile, which
/// computes only its new rows: in both cases it is left out, a weaker but valid bound).
constexpr bool producer_bounded(const tile_geometry& g) {
  return g.fused() && (!g.pointwise_first() || (g.in_h >= g.out_h && g.in_w >= g.out_w && !carries_rows(g, g.out_w)));
}

/// The input rows (or columns) that the windows of `out` outputs read, at least: the span from
/// the first window's start to the last window's end, clipped to the map, when neighbouring
/// windows leave no gap between them (stride <= window); else 0.
constexpr std::uint64_t window_cover(int out, int in, int stride, int kernel, int dilation, int pad_before) {
  const int window = window::span(1, stride, kernel, dilation);
  if (stride > window) return 0;
  const int first = window::origin(0, stride, pad_before);
  const int last = window::origin(out - 1, stride, pad_before) + window;
  const int begin = first > 0 ? first : 0, end = last < in ? last : in;
  return end > begin ? static_cast<std::uint64_t>(end - begin) : 0;
}

/// The first kernel of pointwise -> depthwise block `g` over the tiles split as `rows`, `cols`
/// and `chans` (along `z` any finer split, as in layer_cycles_bound), at least. A tile computes
/// it over its depthwise window (intermediate_tile: input_rows x input_cols, every channel of
/// the tile), so the sum over the tiles is the rows' window spans summed times the columns'
/// (input_span_sum, relaxed along z as the transfer bound's), times the channels: the
/// recomputed overlap of neighbouring windows included. Carrying tiles (whole width:
/// carries_rows) compute each row some output reads once instead (window_cover), so where `t`
/// may carry, the rows count no more than that. Without the overlap (the floor was the
/// whole-layer cover alone) the search of the exported MobileNetV2's features.2 block (8 -> 48
/// at 48 x 48, then 3 x 3 stride 2) on gap8 saw every tiling within 1% of the fastest, walked
/// 8,968 candidates and exceeded GCC's constexpr budget; the cover alone was what a block whose
/// output channels split needed (the torch DS-CNN's 64 -> 64, 25 x 5, on gap8: 2,779 tiles).
/// Per-tile costs only where no tile carries (a carrying tile whose rows are all carried calls
/// no first kernel); sums of rounded-up per-tile cycles are at least the rounded-down total.
constexpr std::uint64_t producer_window_floor(const latency_model& lm, const tile_geometry& g, const tile_shape& t,
                                              const blocks_along& rows, const blocks_along& cols,
                                              const blocks_along& chans, int z) {
  const kernel_cost& cost = lm.producer_compute;
  std::uint64_t row_sum = input_span_sum(rows, z == 0, g.out_h, g.in_h, g.stride_h, g.kernel_h, g.dilation_h);
  const bool may_carry = carries_rows(g, t.w);
  if (may_carry) {
    const std::uint64_t cover = window_cover(g.out_h, g.in_h, g.stride_h, g.kernel_h, g.dilation_h, g.pad_top);
    row_sum = cover < row_sum ? cover : row_sum;
  }
  const std::uint64_t col_sum = input_span_sum(cols, z == 1, g.out_w, g.in_w, g.stride_w, g.kernel_w, g.dilation_w);
  const std::uint64_t depth = z == 2 ? relaxed_channel_slots(g.out_c, chans, cost.channel_granule)
                                     : sum_over(chans, [&](int c) { return rounded_up(c, cost.channel_granule); });
  const auto batch = static_cast<std::uint64_t>(g.batch);
  const std::uint64_t slots = batch * row_sum * col_sum * depth;
  const tile_geometry producer = producer_of(g);
  const std::uint64_t macs = slots * static_cast<std::uint64_t>(producer.macs_per_output > 0 ? producer.macs_per_output : 1);
  const std::uint64_t rate = lm.macs_per_cycle_x16 != 0 ? lm.macs_per_cycle_x16 : 16;
  std::uint64_t cycles = cost.cycles_per_kmac != 0 ? macs * cost.cycles_per_kmac / 1024 : macs * 16 / rate;
  cycles += slots * cost.cycles_per_koutput / 1024;
  const auto calls = batch * static_cast<std::uint64_t>(cols.count * chans.count);
  cycles += calls * row_sum * cost.per_row;
  if (!may_carry) cycles += calls * static_cast<std::uint64_t>(rows.count) * cost.per_tile;
  return cycles;
}

/// How much longer the first tile computes than the DMA work that can overlap it, at least,
/// with tile `t`: its compute (no rounding, so at most the model's) less the next tile's loads
/// and filters (at most a tile's as large as `t`), less the part of its own loads that was
/// prefetched (at most min(hidden_fill, what may load early), each at most as large). The DMA
/// has no store before the first tile, so it idles that long: every transfer plus this slack is
/// a lower bound of the layer. Real-valued so that it is affine in each extent of `t` (the
/// spans uncapped, each transfer's rounding as +1), and its minimum over a range of one extent
/// is at an end of the range: so the slack is returned as its two affine lower bounds, with
/// all that may load early prefetched and with `hidden_fill` prefetched; it is their maximum.
struct slack_bounds {
  double all_early = 0;     ///< compute - next loads - what may load early
  double hidden_fill = 0;   ///< compute - next loads - hidden_fill
};
constexpr slack_bounds first_tile_slack(const tile_problem& p, const tile_shape& t) {
  const tile_geometry& g = p.layer;
  const latency_model& lm = p.latency;
  const auto kernel = [&](const kernel_cost& k, const tile_geometry& kg, double slots) {
    const double macs = slots * static_cast<double>(kg.macs_per_output > 0 ? kg.macs_per_output : 1);
    const double rate = lm.macs_per_cycle_x16 != 0 ? lm.macs_per_cycle_x16 : 16;
    return (k.cycles_per_kmac != 0 ? macs * k.cycles_per_kmac / 1024 : macs * 16 / rate) +
           slots * k.cycles_per_koutput / 1024 + static_cast<double>(k.per_row) * t.h + k.per_tile;
  };
  const double pixels = static_cast<double>(t.h) * t.w;
  double compute = kernel(lm.compute, g.fused() ? consumer_of(g) : g, pixels * t.c) +
                   static_cast<double>(preparation_cycles(lm.compute, lm.producer_compute, g));
  if (producer_bounded(g))
    compute += kernel(lm.producer_compute, producer_of(g), pixels * intermediate_channels_of(g, t.c));
  const memory_level& m = lm.transfer;
  const double rate = m.bytes_per_cycle != 0 ? m.bytes_per_cycle : 1;
  const auto transfer = [&](double bytes) {
    return static_cast<double>(m.setup_cycles) + m.latency_cycles + bytes / rate + 1;
  };
  const double span_h = static_cast<double>(t.h - 1) * g.stride_h + (g.kernel_h - 1) * g.dilation_h + 1;
  const double span_w = static_cast<double>(t.w - 1) * g.stride_w + (g.kernel_w - 1) * g.dilation_w + 1;
  const double in_bytes = span_h * span_w * (g.channel_lockstep ? t.c : g.in_c) * g.in_elem_bytes;
  double inputs = g.in_operands * transfer(in_bytes), filters = 0;
  if (g.whole_operand_bytes > 0) inputs += transfer(static_cast<double>(g.whole_operand_bytes));
  if (g.weight_bytes_per_channel > 0) filters += transfer(static_cast<double>(t.c) * g.weight_bytes_per_channel);
  if (g.fused()) filters += transfer(static_cast<double>(producer_filter_bytes(g, t.c)));  // affine in t.c
  const double base = compute - inputs - filters;
  return {base - (lm.input_waits ? filters : inputs + filters), base - static_cast<double>(lm.hidden_fill)};
}
}  // namespace tiling_detail

/// A lower bound of layer_cycles over every tile equal to `t` along the two dimensions other
/// than `z` (0 rows, 1 columns, 2 channels) and no larger along `z` - the tiles the search
/// leaves to visit for one pair (see (4) in the header comment) - or, with z = exactly_t, of
/// `t` alone (a cheap test before layer_cycles). `may_keep`: whether those tiles may keep
/// their kernels' preparation (keeps_preparation of the largest of them; a layer whose largest
/// tile keeps no scratch keeps none with smaller ones, the scratch functions being
/// non-decreasing). `z_low` > 0: only the extents along `z` from `z_low` up count (a range with
/// one block count, whose first-tile slack is much larger than the smallest tile's). The larger of
/// - compute: the first fill (of the smallest such tile; less what is prefetched), the compute of
///   every tile (compute_floor: exact along the fixed dimensions, granules included), the
///   kernels' preparation (once per filter block if the layer can keep it, else per tile) and
///   the last store (its smallest);
/// - transfers: every transfer's fixed cost and bytes (the inputs with their halos, the outputs,
///   the filters per block), which the DMA serialises, plus the first tile's slack (the DMA
///   idles while the first tile computes: first_tile_slack), less a prefetched fill.
/// Block counts along `z` only grow as the extent shrinks, so `t`'s are lower bounds.
/// `enough`: what the caller prunes at (its best time); once the compute side reaches it, the
/// transfer side (two first-tile slacks, most of the bound's cost) is left out, and the value
/// returned is still a lower bound at least `enough`. On a compute-bound layer nearly every
/// pair the search walks is pruned so: DIANA's first convolution on the CPU (48 x 48 x 8, 2,780
/// bounds) exceeded clang's constexpr step limit under the latency objective without it.
inline constexpr int exactly_t = 3;
constexpr std::uint64_t layer_cycles_bound(const tile_problem& p, const tile_shape& t, int z, bool may_keep,
                                           int z_low = 0, std::uint64_t enough = ~std::uint64_t{0}) {
  using namespace tiling_detail;
  const tile_geometry& g = p.layer;
  const latency_model& lm = p.latency;
  const blocks_along rows = blocks_of(g.out_h, t.h), cols = blocks_of(g.out_w, t.w), chans = blocks_of(g.out_c, t.c);
  const auto tiles = static_cast<std::uint64_t>(g.batch * rows.count * cols.count * chans.count);
  const auto row_calls = static_cast<std::uint64_t>(g.batch) * static_cast<std::uint64_t>(g.out_h) *
                         static_cast<std::uint64_t>(cols.count * chans.count);
  const tile_geometry consumer = g.fused() ? consumer_of(g) : g;
  const std::uint64_t channel_slots =
      z == 2 ? relaxed_channel_slots(g.out_c, chans, lm.compute.channel_granule)
             : sum_over(chans, [&](int c) { return rounded_up(c, lm.compute.channel_granule); });
  const int relaxed = z == 2 ? 2 : z;
  std::uint64_t compute =
      compute_floor(lm.compute, lm.macs_per_cycle_x16, consumer, rows, cols, relaxed, channel_slots, tiles, row_calls);
  std::uint64_t producer_floor = 0;
  if (producer_bounded(g)) {  // the first kernel runs over the tile's intermediate channels in every tile
    const auto granule = lm.producer_compute.channel_granule;
    const std::uint64_t depth =
        !g.pointwise_first() ? static_cast<std::uint64_t>(chans.count) * rounded_up(g.intermediate_channels, granule)
        : z == 2             ? relaxed_channel_slots(g.out_c, chans, granule)
                             : sum_over(chans, [&](int c) { return rounded_up(c, granule); });
    tile_geometry producer = producer_of(g);
    producer.out_h = g.out_h, producer.out_w = g.out_w;  // at least the output tile's pixels (producer_bounded)
    producer_floor = compute_floor(lm.producer_compute, lm.macs_per_cycle_x16, producer, rows, cols, relaxed, depth,
                                   tiles, row_calls);
  }
  if (g.pointwise_first()) {  // and over the tiles' windows, their overlap included
    const std::uint64_t least = producer_window_floor(lm, g, t, rows, cols, chans, z == exactly_t ? -1 : z);
    producer_floor = least > producer_floor ? least : producer_floor;
  }
  compute += producer_floor;
  const std::uint64_t preparing = may_keep ? static_cast<std::uint64_t>(chans.count) : tiles;
  compute += preparing * preparation_cycles(lm.compute, lm.producer_compute, g);
  const memory_level& m = lm.transfer;
  tile_shape smallest = t;
  if (z == 0) smallest.h = z_low > 0 ? z_low : 1;
  if (z == 1) smallest.w = z_low > 0 ? z_low : 1;
  if (z == 2) smallest.c = z_low > 0 ? z_low : g.channel_step;
  // The first fill and the last store. The store's box is at least one row, column or channel
  // along z; so is the fill's when z = exactly_t does not hold, both at their least.
  const auto last_store = [&](int last_z) {
    return m.transfer_cycles(static_cast<std::uint64_t>(z == 0 ? last_z : rows.last) *
                             static_cast<std::uint64_t>(z == 1 ? last_z : cols.last) *
                             static_cast<std::uint64_t>(z == 2 ? last_z : chans.last) *
                             static_cast<std::uint64_t>(g.out_elem_bytes));
  };
  const auto fill_of = [&](const tile_shape& s) { return first_fill(p, s); };
  const blocks_along& along_z = z == 0 ? rows : z == 1 ? cols : chans;
  if (z_low > 0) {
    // Over a range with one block count n, the fill grows with the extent k and the last
    // block (full - (n - 1) k) shrinks. Without the transfers' rounding up, fill + store is
    // concave in k (bytes affine in k, or capped at the input's extent: a minimum of affine
    // functions), so its least is at an end of the range; on layers of a few large tiles it
    // is much more than the fill of the smallest extent plus the store of the largest, the
    // bound's terms before (the ICCT's 64 x 512 elementwise layers needed 12,789 evaluations
    // on gap8, over GCC's constexpr budget). The rounding adds less than a cycle per transfer
    // (in_operands inputs, filters, producer weights, the store), so the least of the two
    // ends' exact values, less one cycle per transfer, bounds every k of the range.
    const int full = z == 0 ? g.out_h : z == 1 ? g.out_w : g.out_c;
    const int low_last = full - static_cast<int>(along_z.count - 1) * z_low;
    // A fill partly hidden (hidden_fill between none and all) is not concave in k: then each
    // term at its least, the fill at the smallest extent and the store at the largest.
    if (lm.hidden_fill == 0 || lm.hidden_fill == all_hidden) {
      const std::uint64_t at_low = fill_of(smallest) + last_store(low_last);
      const std::uint64_t at_high = fill_of(t) + last_store(along_z.last);
      const std::uint64_t least = at_low < at_high ? at_low : at_high;
      const auto rounding = static_cast<std::uint64_t>(g.in_operands) + 3;
      compute += least > rounding ? least - rounding : 0;
    } else {
      compute += fill_of(smallest) + last_store(along_z.last);
    }
  } else {
    compute += fill_of(smallest) + last_store(1);
  }

  if (compute >= enough) return compute;

  const std::uint64_t fixed = std::uint64_t{m.setup_cycles} + m.latency_cycles;
  const std::uint64_t per_byte = m.bytes_per_cycle != 0 ? m.bytes_per_cycle : 1;
  std::uint64_t input_rows = input_span_sum(rows, z == 0, g.out_h, g.in_h, g.stride_h, g.kernel_h, g.dilation_h);
  if (g.pointwise_first() && t.w == g.out_w && carries_rows(g, t.w)) {
    // Carrying tiles load each row their windows cover once (carried_input_bytes); narrower
    // tiles of the range, at least as much.
    const std::uint64_t cover = window_cover(g.out_h, g.in_h, g.stride_h, g.kernel_h, g.dilation_h, g.pad_top);
    input_rows = cover < input_rows ? cover : input_rows;
  }
  const std::uint64_t input_cols =
      input_span_sum(cols, z == 1, g.out_w, g.in_w, g.stride_w, g.kernel_w, g.dilation_w);
  const std::uint64_t input_chans = g.channel_lockstep ? static_cast<std::uint64_t>(g.out_c)
                                                       : static_cast<std::uint64_t>(chans.count) *
                                                             static_cast<std::uint64_t>(g.in_c);
  const std::uint64_t input_bytes = static_cast<std::uint64_t>(g.batch) * input_rows * input_cols * input_chans *
                                    static_cast<std::uint64_t>(g.in_elem_bytes);
  const auto outputs = static_cast<std::uint64_t>(g.batch) * static_cast<std::uint64_t>(g.out_h) *
                       static_cast<std::uint64_t>(g.out_w) * static_cast<std::uint64_t>(g.out_c);
  const auto operands = static_cast<std::uint64_t>(g.in_operands);
  std::uint64_t moved = tiles * (operands + 1) * fixed +
                        (operands * input_bytes + outputs * static_cast<std::uint64_t>(g.out_elem_bytes) +
                         static_cast<std::uint64_t>(g.out_c) * g.weight_bytes_per_channel) /
                            per_byte;
  if (g.weight_bytes_per_channel > 0) moved += static_cast<std::uint64_t>(chans.count) * fixed;
  moved += tiles * whole_operand_cycles(m, g);  // with every tile (exact: one transfer each)
  if (g.fused())  // the producer's filters with each filter block
    moved += static_cast<std::uint64_t>(chans.count) * fixed + producer_filter_bytes_over(g, chans.count) / per_byte;
  // The first tile's slack (first_tile_slack): each of its two affine bounds at its least over
  // the range (an end of it), then the larger; and at least minus the prefetched part of the
  // first fill (which only grows with the tile); rounded down with a cycle to spare.
  slack_bounds at = first_tile_slack(p, t);
  if (z <= 2) {
    const slack_bounds low = first_tile_slack(p, smallest);
    at.all_early = low.all_early < at.all_early ? low.all_early : at.all_early;
    at.hidden_fill = low.hidden_fill < at.hidden_fill ? low.hidden_fill : at.hidden_fill;
  }
  double slack = at.all_early > at.hidden_fill ? at.all_early : at.hidden_fill;
  const fill_parts largest = first_fill_parts(p, t);
  const double floor_slack =
      -static_cast<double>(largest.input + largest.filters - exposed_fill(lm, largest.input, largest.filters));
  if (slack < floor_slack) slack = floor_slack;
  const auto whole = static_cast<std::int64_t>(slack >= 0 ? slack : slack - 1) - 1;
  if (whole >= 0) {
    moved += static_cast<std::uint64_t>(whole);
  } else {
    const auto idle = static_cast<std::uint64_t>(-whole);
    moved = moved > idle ? moved - idle : 0;
  }
  // The last tile's slack: while it computes, the DMA has only the tile before's store to do
  // (no next load), so it idles at least the last tile's compute less that store; a tile other
  // than the first when there are two or more. Its extents at their least over the tiles the
  // bound covers (along z the last block of t's extent, the least of a range with one block
  // count, or one step when every smaller extent counts), its second kernel's only, without
  // preparation; the store at its most (t's box). On a layer whose tiles compute about as long
  // as their transfers take, neither side above sees it: DIANA's digital engine running the
  // exported MobileNetV2's features.2 depthwise layer (48 x 48 x 48, 3 x 3 stride 2) sat 6%
  // below the fastest tile's time on every candidate and exceeded GCC's constexpr budget.
  if (tiles >= 2) {
    const bool every_smaller = z <= 2 && z_low == 0;
    const int last_h = z == 0 && every_smaller ? 1 : rows.last;
    const int last_w = z == 1 && every_smaller ? 1 : cols.last;
    const int last_c = z == 2 && every_smaller ? g.channel_step : chans.last;
    const std::uint64_t last_compute =
        kernel_tile_cycles(lm.compute, lm.macs_per_cycle_x16, consumer, last_h, last_w, last_c);
    const std::uint64_t store_before = m.transfer_cycles(output_box_bytes(g, t));
    if (last_compute > store_before) moved += last_compute - store_before;
  }
  return compute > moved ? compute : moved;
}
namespace tiling_detail {

constexpr bool better(std::int64_t score, const tile_cost& cost, const tile_solution& best) {
  if (!best.feasible) return true;
  if (score != best.score) return score > best.score;
  return cost.tiles < best.cost.tiles;  // ties: fewer tiles, fewer DMA setups
}

/// Latency objective: less time; ties: fewer tiles, then more L1 (DORY's preference).
constexpr bool faster(std::uint64_t cycles, const tile_cost& cost, const tile_solution& best) {
  if (!best.feasible) return true;
  if (cycles != best.cycles) return cycles < best.cycles;
  if (cost.tiles != best.cost.tiles) return cost.tiles < best.cost.tiles;
  return cost.total_bytes > best.cost.total_bytes;
}

/// `best` becomes tile `t` (its search's bookkeeping stays).
constexpr void adopt(tile_solution& best, const tile_shape& t, const tile_cost& cost, std::int64_t score,
                     std::uint64_t cycles) {
  best.feasible = true;
  best.tile = t;
  best.cost = cost;
  best.score = score;
  best.cycles = cycles;
}

/// Charges `units` of search_work to the search of `best` for problem `p`: twice for a fused
/// block, whose steps cost the compiler about twice a layer's (two kernels' models and
/// windows: with a bound 10 units and the model 27, the MobileNetV2-0.35's features.2 block on
/// gap8 took 67-98 of clang's steps per unit where its layers took 32-42).
constexpr void spend(const tile_problem& p, tile_solution& best, std::int64_t units) {
  best.work += p.layer.fused() ? 2 * units : units;
}

/// Whether the search of `best` has used its budget and must stop (marking it cut short). A
/// search that has not found a feasible tile yet goes on: the budget never turns a layer that
/// fits into one that does not (the first pair's galloping finds one in a few dozen byte counts).
constexpr bool out_of_budget(const tile_problem& p, tile_solution& best) {
  if (!best.feasible || best.work <= p.search_budget) return false;
  best.cut_short = true;
  return true;
}

/// The layer as one tile, when it fits: no tiling, no double buffering.
constexpr bool whole_layer(const tile_problem& p, tile_solution& out) {
  const tile_geometry& g = p.layer;
  const tile_shape whole{g.out_h, g.out_w, g.out_c};
  const tile_cost c = cost_of(p, whole);
  if (!fits_in(p, c) || c.tiles != 1) return false;
  spend(p, out, bytes_work(p) + search_work::model);
  ++out.evaluations;
  adopt(out, whole, c, score_of(p, whole, c), layer_cycles(p, whole, c));
  return true;
}

constexpr std::size_t smallest_bytes(const tile_problem& p) {
  return cost_of(p, {1, 1, p.layer.channel_step}).total_bytes;
}
constexpr std::size_t smallest_constant_bytes(const tile_problem& p) {
  return cost_of(p, {1, 1, p.layer.channel_step}).constant_memory_bytes;
}

/// One region of the search (see (1) in the header comment): rows, columns and channel steps
/// (channels = steps * channel_step) each in [lo, hi], feasibility monotone inside.
struct region {
  int lo[3];
  int hi[3];
};

constexpr tile_shape shape_at(const tile_problem& p, const int (&v)[3]) {
  return {v[0], v[1], v[2] * p.layer.channel_step};
}

constexpr int period_of(const tile_problem& p, int dim) {
  const int period = dim == 0 ? p.cores : dim == 1 ? p.micro_w : p.micro_c;
  return period > 0 ? period : 1;
}

/// Walks the pairs (x, y) of the two smaller dimensions of `r` and calls
/// `visit(v, z, zmax, cost)` with v the tile at (x, y, zmax) (see (2) in the header comment).
/// `skip(v, z)` (v's z set to an upper bound of zmax) may prune a pair before its zmax is found.
/// `periodic_y`: the objective is DORY's, so along y only the period_of(y) widest pairs of a
/// run with one zmax are visited (see (5) in the header comment).
template <class Skip, class Visit>
constexpr void search_frontier(const tile_problem& p, const region& r, tile_solution& best, Skip&& skip,
                               Visit&& visit, bool periodic_y) {
  int ext[3]{};
  for (int d = 0; d < 3; ++d) ext[d] = r.hi[d] - r.lo[d] + 1;
  for (int d = 0; d < 3; ++d)
    if (ext[d] <= 0) return;
  int z = 0;
  for (int d = 1; d < 3; ++d)
    if (ext[d] > ext[z]) z = d;
  int x = z == 0 ? 1 : 0, y = 3 - z - x;
  if (ext[x] > ext[y]) {
    const int t = x;
    x = y;
    y = t;
  }
  // The whole layer as one tile is single buffered, so it breaks monotonicity; whole_layer
  // deals with it, and here it counts as not fitting.
  const auto fits = [&](const int (&v)[3]) {
    ++best.evaluations;
    spend(p, best, bytes_work(p));
    const tile_cost c = cost_of(p, shape_at(p, v));
    return c.tiles > 1 && fits_in(p, c);
  };
  int first_hint = r.hi[z];
  for (int a = r.lo[x]; a <= r.hi[x]; ++a) {
    int hint = first_hint;
    bool row_feasible = false;
    int hint_unfit_at = r.lo[y] - 1;  // a y where (a, y, hint) is known not to fit (from (5))
    for (int b = r.lo[y]; b <= r.hi[y]; ++b) {
      if (out_of_budget(p, best)) return;
      int v[3]{};
      v[x] = a;
      v[y] = b;
      v[z] = hint;
      if (skip(v, z)) {
        row_feasible = true;  // unknown: keep walking (hint stays a valid upper bound)
        continue;
      }
      // Largest feasible z in [lo, hint]: gallop down from the hint, then bisect.
      int good = r.lo[z] - 1, bad = hint + 1;
      if (b != hint_unfit_at && fits(v)) {
        good = hint;
      } else {
        bad = hint;
        for (int step = 1; bad - step >= r.lo[z]; step *= 2) {
          v[z] = bad - step;
          if (fits(v)) {
            good = v[z];
            break;
          }
          bad = v[z];
        }
        while (bad - good > 1) {
          v[z] = good + (bad - good) / 2;
          if (fits(v)) good = v[z];
          else bad = v[z];
        }
      }
      if (good < r.lo[z]) break;  // wider in y needs at least as much: the rest of the row fails
      row_feasible = true;
      if (b == r.lo[y]) first_hint = good;
      hint = good;
      v[z] = good;
      if (!periodic_y) {
        spend(p, best, bytes_work(p));
        visit(v, z, good, cost_of(p, shape_at(p, v)));
        continue;
      }
      // (5): the run of y whose zmax is `good` ends at the largest y where (a, y, good) fits:
      // gallop up from b, then bisect; only its period_of(y) widest pairs are visited.
      int end = b, past = r.hi[y] + 1;
      for (int step = 1; end + step <= r.hi[y]; step *= 2) {
        v[y] = end + step;
        if (!fits(v)) {
          past = v[y];
          break;
        }
        end = v[y];
      }
      if (past > r.hi[y] + 1) past = r.hi[y] + 1;
      while (past - end > 1) {
        v[y] = end + (past - end) / 2;
        if (fits(v)) end = v[y];
        else past = v[y];
      }
      const int widest = end - period_of(p, y) + 1;
      for (v[y] = widest > b ? widest : b; v[y] <= end; ++v[y]) {
        spend(p, best, bytes_work(p));
        visit(v, z, good, cost_of(p, shape_at(p, v)));
      }
      hint_unfit_at = past;
      b = end;  // the loop moves on to the first y with a smaller zmax
    }
    if (!row_feasible) break;  // larger x fails too
  }
}

/// The search regions: channels below out_c (filters doubled) and channels == out_c.
constexpr int region_count(const tile_problem& p, region (&rs)[2]) {
  const tile_geometry& g = p.layer;
  const int steps = g.out_c / g.channel_step;
  const bool top_is_whole = steps * g.channel_step == g.out_c;
  rs[0] = {{1, 1, 1}, {g.out_h, g.out_w, top_is_whole ? steps - 1 : steps}};
  if (!top_is_whole) return 1;
  rs[1] = {{1, 1, steps}, {g.out_h, g.out_w, steps}};
  return 2;
}

constexpr tile_solution solve_dory(const tile_problem& p) {
  tile_solution best{};
  const tiling_weights& w = p.weights;
  const auto cap = static_cast<std::int64_t>(p.capacity);
  const auto full = static_cast<std::int64_t>(p.capacity / l1_alignment * l1_alignment);  // bytes are 16-aligned
  // Heuristic term of one coordinate (rows, columns or channel steps), and its largest value
  // over [1, v] - what a pruning bound may assume for the searched dimension.
  const auto term = [&](int dim, int v) -> std::int64_t {
    if (dim == 0) return w.par_balance * ((v - 1) % p.cores);
    if (dim == 1) return w.micro_w * ((v - 1) % p.micro_w);
    const int c = v * p.layer.channel_step;
    return w.per_channel * c + w.micro_c * ((c - 1) % p.micro_c);
  };
  const auto term_bound = [&](int dim, int v) -> std::int64_t {
    if (dim == 0) return w.par_balance * (v < p.cores ? v - 1 : p.cores - 1);
    if (dim == 1) return w.micro_w * (v < p.micro_w ? v - 1 : p.micro_w - 1);
    const int c = v * p.layer.channel_step;
    return w.per_channel * c + w.micro_c * (c < p.micro_c ? c - 1 : p.micro_c - 1);
  };
  const auto consider = [&](const int (&v)[3], const tile_cost& cost) {
    const tile_shape t = shape_at(p, v);
    const std::int64_t s = score_of(p, t, cost);
    if (better(s, cost, best)) adopt(best, t, cost, s, 0);
  };
  region rs[2]{};
  const int n = region_count(p, rs);
  for (int i = 0; i < n; ++i) {
    const auto skip = [&](const int (&v)[3], int) {
      if (!best.feasible) return false;
      spend(p, best, search_work::pair);  // a walk of pruned pairs is work too (1024-wide maps)
      // v[z] holds an upper bound of zmax; every coordinate's term is bounded over [1, v].
      const std::int64_t h = term_bound(0, v[0]) + term_bound(1, v[1]) + term_bound(2, v[2]);
      return w.memory * full + cap * h < best.score;
    };
    const auto visit = [&](const int (&v)[3], int z, int zmax, const tile_cost& top) {
      consider(v, top);
      int u[3]{v[0], v[1], v[2]};
      // (3): the best z of this pair is among the `period` largest; zmax's bytes bound theirs.
      for (int k = zmax - 1; k >= rs[i].lo[z] && k > zmax - period_of(p, z); --k) {
        u[z] = k;
        std::int64_t h = 0;
        for (int d = 0; d < 3; ++d) h += term(d, u[d]);
        if (w.memory * static_cast<std::int64_t>(top.total_bytes) + cap * h <= best.score) continue;
        ++best.evaluations;
        spend(p, best, bytes_work(p));
        consider(u, cost_of(p, shape_at(p, u)));
      }
    };
    search_frontier(p, rs[i], best, skip, visit, true);
  }
  return best;
}

constexpr tile_solution solve_latency(const tile_problem& p) {
  tile_solution best{};
  whole_layer(p, best);  // one tile is a candidate like any other
  const tile_geometry& g = p.layer;
  const bool may_keep = keeps_preparation(g, cost_of(p, {g.out_h, g.out_w, g.out_c}).scratch_bytes);
  const auto consider = [&](const tile_shape& t, const tile_cost& cost) {
    // The bound costs a few times less than layer_cycles and turns most candidates away.
    if (best.feasible) {
      spend(p, best, search_work::bound);
      if (layer_cycles_bound(p, t, exactly_t, keeps_preparation(g, cost.scratch_bytes), 0, best.cycles) >= best.cycles)
        return;
    }
    spend(p, best, search_work::model);
    const std::uint64_t cycles = layer_cycles(p, t, cost);
    if (faster(cycles, cost, best)) adopt(best, t, cost, score_of(p, t, cost), cycles);
  };
  if (!best.feasible) {
    // A good first candidate lets the bounds prune from the first pair on (the walk starts at
    // the smallest tiles, the slowest): DORY's tile, which costs a hundred or so byte counts
    // and no layer model, is usually within tens of percent of the fastest.
    tile_problem q = p;
    q.search_budget = p.search_budget / 4;  // the seed, not the search
    const tile_solution dory = solve_dory(q);
    best.evaluations = dory.evaluations;
    best.work = dory.work;
    if (dory.feasible) consider(dory.tile, dory.cost);
  }
  // DORY's tile can be far from the fastest (the most L1, often the layer in one tile or two
  // uneven blocks), and the walk visits the smallest pairs first, where a poor best prunes
  // little: the ICCT's 64 x 512 elementwise layers evaluated all 255 channel extents of their
  // two-block range for each of 27 row extents. So balanced tiles (extent ceil(full / n) for n
  // blocks) seed the best first: n = 2^i along each dimension, at most 8 tiles (the fastest
  // tiles are few and large: more seeds cost more than they prune), then from the best of
  // those, one block more or fewer, or twice or half as many, along one dimension at a time,
  // while that improves (at most eight rounds): the ICCT's layers at gap8's L1 took 4,408
  // evaluations in all with the first seeds (one block more or fewer, four rounds), 14,453
  // without any (45,716 before the group bounds below).
  const int full[3]{g.out_h, g.out_w, g.out_c / g.channel_step};
  const auto try_blocks = [&](const std::int64_t (&n)[3]) {
    const tile_shape t{static_cast<int>(ceil_div(full[0], n[0])), static_cast<int>(ceil_div(full[1], n[1])),
                       static_cast<int>(ceil_div(full[2], n[2])) * g.channel_step};
    const tile_cost cost = cost_of(p, t);
    ++best.evaluations;
    spend(p, best, bytes_work(p));
    if (cost.tiles > 1 && fits_in(p, cost)) consider(t, cost);
  };
  const auto blocks_of_best = [&](std::int64_t (&at)[3]) {
    at[0] = ceil_div(full[0], best.tile.h), at[1] = ceil_div(full[1], best.tile.w);
    at[2] = ceil_div(full[2], best.tile.c / g.channel_step);
  };
  // From the best tile, one block more or fewer, or twice or half as many, along one dimension
  // at a time, while that is faster (at most eight rounds, and within the budget).
  const auto improve_locally = [&] {
    for (int round = 0; round < 8 && best.feasible; ++round) {
      const std::uint64_t before = best.cycles;
      std::int64_t at[3]{};
      blocks_of_best(at);
      for (int d = 0; d < 3; ++d) {
        const std::int64_t halved = (at[d] + 1) / 2, doubled = 2 * at[d];
        for (const std::int64_t n : {at[d] - 1, at[d] + 1, halved < at[d] - 1 ? halved : 0,
                                     doubled > at[d] + 1 ? doubled : 0})
          if (n >= 1 && n <= full[d] && best.work <= p.search_budget) {
            std::int64_t v[3]{at[0], at[1], at[2]};
            v[d] = n;
            try_blocks(v);
          }
      }
      if (best.cycles == before) break;
    }
  };
  {
    constexpr std::int64_t most_seeded_tiles = 8;
    for (std::int64_t i = 1; i < 2 * full[0] && i <= most_seeded_tiles; i *= 2)
      for (std::int64_t j = 1; j < 2 * full[1] && i * j <= most_seeded_tiles; j *= 2)
        for (std::int64_t k = 1; k < 2 * full[2] && i * j * k <= most_seeded_tiles; k *= 2) try_blocks({i, j, k});
    improve_locally();
  }
  // The walk below stops a fifth of the budget short of it (walk.search_budget), which is kept
  // for what a walk cut short needs: its best is wherever the walk (smallest pairs first) had
  // got to, so the tiles split along one dimension only (n = 1, 2, 3, 4, 6, 9, 13, ... blocks,
  // the others whole or as the best's), then local moves from the best, while the budget lasts.
  tile_problem walk = p;
  walk.search_budget = p.search_budget - p.search_budget / 5;
  region rs[2]{};
  const int n = region_count(p, rs);
  for (int i = 0; i < n; ++i) {
    // (4): tiles no larger than v take at least layer_cycles_bound(v) cycles.
    const auto skip = [&](const int (&v)[3], int z) {
      if (!best.feasible) return false;
      spend(p, best, search_work::bound);
      return layer_cycles_bound(p, shape_at(p, v), z, may_keep, 0, best.cycles) >= best.cycles;
    };
    const auto visit = [&](const int (&v)[3], int z, int zmax, const tile_cost& top) {
      consider(shape_at(p, v), top);
      int u[3]{v[0], v[1], v[2]};
      const auto tile_at = [&](int k) {
        u[z] = k;
        return shape_at(p, u);
      };
      const int full = z == 0 ? g.out_h : z == 1 ? g.out_w : g.out_c / g.channel_step;
      for (int k = zmax - 1; k >= rs[i].lo[z];) {
        if (out_of_budget(walk, best)) return;
        spend(p, best, search_work::bound);
        if (layer_cycles_bound(p, tile_at(k), z, may_keep, 0, best.cycles) >= best.cycles) break;  // and every smaller k
        // The extents along z with k's block count form a group [low, k]; a range of it is
        // pruned whole by its bounds (layer_cycles_bound with z_low: the sums, and the fill,
        // store and first-tile slack at its ends; layer_cycles_over: the model with each block
        // at its narrowest), else halved, the larger extents first, down to a few extents
        // evaluated one by one. The ICCT's 64 x 512 elementwise layer on gap8 evaluated all
        // 255 channel extents of its two-block group for each of 27 row extents (12,789
        // evaluations, over GCC's constexpr budget); now 796, within a quarter of it.
        const std::int64_t blocks = ceil_div(full, k);
        int low = static_cast<int>(ceil_div(full, blocks));
        if (low < rs[i].lo[z]) low = rs[i].lo[z];
        int range_lo[64]{}, range_hi[64]{};
        int pending = 1;
        range_lo[0] = low, range_hi[0] = k;
        while (pending > 0) {
          --pending;
          const int a = range_lo[pending], b = range_hi[pending];
          if (out_of_budget(walk, best)) return;
          if (b - a >= 2) {
            ++best.evaluations;
            const tile_shape low_tile = tile_at(a), high_tile = tile_at(b);
            const int a_extent = z == 2 ? a * g.channel_step : a;
            spend(p, best, search_work::bound);
            if (layer_cycles_bound(p, high_tile, z, may_keep, a_extent, best.cycles) >= best.cycles) continue;
            spend(p, best, bytes_work(p) + search_work::model);
            if (layer_cycles_over(p, low_tile, high_tile, z, cost_of(p, high_tile)) >= best.cycles) continue;
            const int m = a + (b - a) / 2;
            range_lo[pending] = a, range_hi[pending++] = m;
            range_lo[pending] = m + 1, range_hi[pending++] = b;
            continue;
          }
          for (int j = b; j >= a; --j) {
            ++best.evaluations;
            spend(p, best, bytes_work(p));
            const tile_shape t = tile_at(j);
            consider(t, cost_of(p, t));
          }
        }
        k = low - 1;
      }
    };
    search_frontier(walk, rs[i], best, skip, visit, false);
  }
  if (best.cut_short) {
    for (int d = 0; d < 3; ++d)
      for (int others = 0; others < 2; ++others)
        for (std::int64_t n = 1; best.work <= p.search_budget; n = n * 3 / 2 > n + 1 ? n * 3 / 2 : n + 1) {
          std::int64_t v[3]{1, 1, 1};
          if (others == 1) blocks_of_best(v);
          v[d] = n < full[d] ? n : full[d];
          try_blocks(v);
          if (n >= full[d]) break;
        }
    improve_locally();
  }
  return best;
}
}  // namespace tiling_detail

/// The solver (see the header comment for why its candidate set contains the optimum).
namespace tiling_detail {
/// `p` restricted to tiles of every output channel: a pointwise -> depthwise block's row variant.
constexpr tile_problem whole_channels(tile_problem p) {
  p.layer.channel_step = p.layer.out_c;
  return p;
}
/// Of two of DORY's tiles for a block's variants, each feasible or not, the one the block's
/// criterion prefers (ties: `a`).
constexpr tile_solution preferred_variant(const tile_problem& p, const tile_solution& a, const tile_solution& b) {
  if (!a.feasible || !b.feasible) return a.feasible ? a : b;
  if (p.variants_by_traffic) return layer_traffic(p, b.tile) < layer_traffic(p, a.tile) ? b : a;
  return b.cycles < a.cycles ? b : a;
}
/// DORY's best tile of a pointwise -> depthwise block among its whole-width, whole-channel tiles,
/// whose rows carry (carries_rows): its objective over the row count alone (bytes grow with
/// the rows), then modelled. Infeasible where such tiles do not carry.
constexpr tile_solution dory_carrying(const tile_problem& p) {
  tile_solution best{};
  const tile_geometry& g = p.layer;
  if (!carries_rows(g, g.out_w)) return best;
  for (int h = 1; h <= g.out_h; ++h) {
    const tile_shape t{h, g.out_w, g.out_c};
    const tile_cost cost = cost_of(p, t);
    ++best.evaluations;
    spend(p, best, bytes_work(p));
    if (!fits_in(p, cost)) break;
    const std::int64_t s = score_of(p, t, cost);
    if (better(s, cost, best)) adopt(best, t, cost, s, 0);
  }
  if (best.feasible) best.cycles = layer_cycles(p, best.tile, best.cost);
  return best;
}
}  // namespace tiling_detail

/// The layer's tile under `p.objective`. DORY's objective (the most L1, then its heuristics)
/// does not weigh what a pointwise -> depthwise block's variants differ in: tiles of every
/// channel (the pointwise filters loaded once, narrow tiles recomputing their windows'
/// overlap), whole-width ones among them (their rows carried, nothing recomputed), and channel
/// blocks (each reloading the input window). Left to it, the block at 3 kB of
/// tests/runtime/test_fusion.cpp took a channel block of 8 that filled L1 more and ran 36%
/// slower than its whole-channel tile, and the selector then kept it unfused; MobileNetV1's
/// blocks at 32 kB of L1 took tiles like 2 x 3 x 128 that recompute most of their windows (2.18 M
/// modelled cycles against 1.06 M for the carrying 1 x 6 x 128, with more traffic too). So such a
/// block is solved over all tiles, over whole channels and over carrying rows, and the
/// target's fusion criterion (time, or traffic: tile_problem::variants_by_traffic) picks one.
/// The latency objective weighs them itself.
constexpr tile_solution solve_tiles(const tile_problem& p) {
  tile_solution best{};
  if (p.objective == tiling_objective::latency) {
    best = tiling_detail::solve_latency(p);
  } else if (!tiling_detail::whole_layer(p, best)) {
    best = tiling_detail::solve_dory(p);
    if (best.feasible) best.cycles = layer_cycles(p, best.tile, best.cost);
    if (p.layer.pointwise_first()) {
      const tile_solution all = best;
      tile_solution rows{};
      if (p.layer.channel_step < p.layer.out_c) {
        tile_problem q = tiling_detail::whole_channels(p);
        q.search_budget -= all.work;  // one budget for the block's searches
        rows = tiling_detail::solve_dory(q);
        if (rows.feasible) rows.cycles = layer_cycles(p, rows.tile, rows.cost);
      }
      const tile_solution carrying = tiling_detail::dory_carrying(p);
      best = tiling_detail::preferred_variant(
          p, tiling_detail::preferred_variant(p, carrying, rows), best);
      best.evaluations = all.evaluations + rows.evaluations + carrying.evaluations;
      best.work = all.work + rows.work + carrying.work;
      best.cut_short = all.cut_short || rows.cut_short;
    }
  }
  best.smallest_bytes = tiling_detail::smallest_bytes(p);
  best.smallest_constant_bytes = tiling_detail::smallest_constant_bytes(p);
  return best;
}

namespace tiling_detail {
/// Every tile of `p` under its objective (solve_tiles_exhaustive, without the variants).
constexpr tile_solution exhaustive_search(const tile_problem& p) {
  tile_solution best{};
  const bool latency = p.objective == tiling_objective::latency;
  if (whole_layer(p, best) && !latency) return best;
  const tile_geometry& g = p.layer;
  for (int c = g.channel_step; c <= g.out_c; c += g.channel_step)
    for (int w = 1; w <= g.out_w; ++w)
      for (int h = 1; h <= g.out_h; ++h) {
        const tile_shape t{h, w, c};
        const tile_cost cost = cost_of(p, t);
        if (!fits_in(p, cost)) continue;
        ++best.evaluations;
        if (latency) {
          const std::uint64_t cycles = layer_cycles(p, t, cost);
          if (faster(cycles, cost, best)) adopt(best, t, cost, score_of(p, t, cost), cycles);
        } else {
          const std::int64_t s = score_of(p, t, cost);
          if (better(s, cost, best)) adopt(best, t, cost, s, 0);
        }
      }
  if (best.feasible && !latency) best.cycles = layer_cycles(p, best.tile, best.cost);
  return best;
}
}  // namespace tiling_detail

/// Every tile, for tests: the reference the solver must equal in objective value (DORY's, on
/// a pointwise -> depthwise block, over each variant: see solve_tiles).
constexpr tile_solution solve_tiles_exhaustive(const tile_problem& p) {
  using namespace tiling_detail;
  tile_solution best = exhaustive_search(p);
  const tile_geometry& g = p.layer;
  tile_solution whole{};
  if (p.objective != tiling_objective::latency && g.pointwise_first() && !whole_layer(p, whole)) {
    const tile_solution rows = g.channel_step < g.out_c ? exhaustive_search(whole_channels(p)) : tile_solution{};
    best = preferred_variant(p, preferred_variant(p, dory_carrying(p), rows), best);
  }
  best.smallest_bytes = smallest_bytes(p);
  best.smallest_constant_bytes = smallest_constant_bytes(p);
  return best;
}

}  // namespace tessera
