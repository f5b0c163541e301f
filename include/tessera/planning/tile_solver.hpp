// The L2-to-L1 tile solver: the largest tiles that fit L1, steered by backend heuristics.
//
// Objective (DORY eq. 7): maximise  alpha * L1 bytes used
//                                  + beta_ch  * tile channels                (HIDE_IM2COL)
//                                  + beta_par * ((tile rows - 1) mod cores)  (PAR_BALANCE)
//                                  + beta_w   * ((tile cols - 1) mod micro_w)(MATMUL_W)
//                                  + beta_c   * ((tile chans - 1) mod micro_c)(MATMUL_CH)
// subject to  L1 bytes = k * (input tile + output tile + weights/constants tile) + scratch <= L1,
// k = 2 when double buffered (and the layer has more than one tile), each buffer 16-byte
// aligned, the input tile derived
// from the output tile through stride, kernel and dilation (halo rows/columns included).
// A layer that fits L1 whole is one tile.
//
// Exactness without a constraint solver: for fixed channels and columns the bytes used are
// non-decreasing in the rows, and the rows enter the objective otherwise only through
// (rows - 1) mod cores. So the best rows are among the `cores` largest feasible values, and
// the largest feasible value is found by bisection. Enumerating channels and columns and
// trying those candidates visits the optimum: tests/static/test_tile_solver.cpp checks this
// against `solve_tiles_exhaustive` on small layers.
#pragma once

#include <cstddef>
#include <cstdint>

#include <tessera/planning/tile_geometry.hpp>

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

struct tile_problem {
  tile_geometry layer;
  std::size_t capacity = 0;  ///< L1 bytes available to this layer
  bool double_buffering = true;
  int cores = 1;
  int micro_c = 1;
  int micro_w = 1;
  tiling_weights weights{};
  scratch_function scratch = nullptr;  ///< the kernel's scratch-size function, if any
};

struct tile_cost {
  std::size_t input_bytes = 0;     ///< one input tile (all operands)
  std::size_t output_bytes = 0;    ///< one output tile
  std::size_t constant_bytes = 0;  ///< one weights + bias + requant tile
  std::size_t scratch_bytes = 0;
  std::size_t total_bytes = 0;     ///< L1 bytes the layer needs with this tile
  std::int64_t tiles = 1;          ///< tile count (batch included)
  bool activations_doubled = false;
  bool constants_doubled = false;
};

struct tile_solution {
  bool feasible = false;
  tile_shape tile{};
  tile_cost cost{};
  std::int64_t score = 0;
  std::size_t smallest_bytes = 0;  ///< L1 bytes of the smallest tile (what a failure reports)
};

/// L1 buffers start on 16-byte boundaries (SIMD loads, DMA bursts); the cost counts it.
inline constexpr std::size_t l1_alignment = 16;

namespace tiling_detail {
constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
constexpr std::size_t aligned(std::size_t v) { return (v + l1_alignment - 1) / l1_alignment * l1_alignment; }
}  // namespace tiling_detail

constexpr tile_cost cost_of(const tile_problem& p, const tile_shape& t) {
  using tiling_detail::ceil_div;
  const tile_geometry& g = p.layer;
  tile_cost c{};
  const int in_channels = g.channel_lockstep ? t.c : g.in_c;
  c.input_bytes = static_cast<std::size_t>(g.input_rows(t.h)) * static_cast<std::size_t>(g.input_cols(t.w)) *
                  static_cast<std::size_t>(in_channels) * static_cast<std::size_t>(g.in_elem_bytes) *
                  static_cast<std::size_t>(g.in_operands);
  c.output_bytes = static_cast<std::size_t>(t.h) * static_cast<std::size_t>(t.w) * static_cast<std::size_t>(t.c) *
                   static_cast<std::size_t>(g.out_elem_bytes);
  c.constant_bytes = static_cast<std::size_t>(t.c) * (g.weight_bytes_per_channel + g.const_bytes_per_channel) +
                     g.const_bytes_fixed;
  c.scratch_bytes = p.scratch != nullptr ? p.scratch(g, t) : 0;
  const std::int64_t channel_tiles = ceil_div(g.out_c, t.c);
  c.tiles = g.batch * ceil_div(g.out_h, t.h) * ceil_div(g.out_w, t.w) * channel_tiles;
  c.activations_doubled = p.double_buffering && c.tiles > 1;
  c.constants_doubled = p.double_buffering && channel_tiles > 1;
  using tiling_detail::aligned;
  c.total_bytes = (c.activations_doubled ? 2 : 1) * (aligned(c.input_bytes) + aligned(c.output_bytes)) +
                  (c.constants_doubled ? 2 : 1) * aligned(c.constant_bytes) + aligned(c.scratch_bytes);
  return c;
}

/// The objective, times 1000 (exact integer arithmetic).
constexpr std::int64_t score_of(const tile_problem& p, const tile_shape& t, const tile_cost& c) {
  const tiling_weights& w = p.weights;
  const auto cap = static_cast<std::int64_t>(p.capacity);
  const std::int64_t heuristics = w.per_channel * t.c + w.par_balance * ((t.h - 1) % p.cores) +
                                  w.micro_w * ((t.w - 1) % p.micro_w) + w.micro_c * ((t.c - 1) % p.micro_c);
  return w.memory * static_cast<std::int64_t>(c.total_bytes) + cap * heuristics;
}

namespace tiling_detail {
constexpr bool better(std::int64_t score, const tile_cost& cost, const tile_solution& best) {
  if (!best.feasible) return true;
  if (score != best.score) return score > best.score;
  return cost.tiles < best.cost.tiles;  // ties: fewer tiles, fewer DMA setups
}

/// The layer as one tile, when it fits: no tiling, no double buffering.
constexpr bool whole_layer(const tile_problem& p, tile_solution& out) {
  const tile_geometry& g = p.layer;
  const tile_shape whole{g.out_h, g.out_w, g.out_c};
  const tile_cost c = cost_of(p, whole);
  if (c.total_bytes > p.capacity || c.tiles != 1) return false;
  out = {true, whole, c, score_of(p, whole, c), 0};
  return true;
}

constexpr std::size_t smallest_bytes(const tile_problem& p) {
  return cost_of(p, {1, 1, p.layer.channel_step}).total_bytes;
}
}  // namespace tiling_detail

/// The solver (see the header comment for why its candidate set contains the optimum).
constexpr tile_solution solve_tiles(const tile_problem& p) {
  tile_solution best{};
  if (tiling_detail::whole_layer(p, best)) return best;
  const tile_geometry& g = p.layer;
  for (int c = g.channel_step; c <= g.out_c; c += g.channel_step) {
    for (int w = 1; w <= g.out_w; ++w) {
      // Largest feasible rows by bisection (bytes are non-decreasing in rows).
      int lo = 0, hi = g.out_h;
      while (lo < hi) {
        const int mid = (lo + hi + 1) / 2;
        if (cost_of(p, {mid, w, c}).total_bytes <= p.capacity) lo = mid;
        else hi = mid - 1;
      }
      if (lo == 0) break;  // wider tiles need at least as much: no feasible w beyond this one
      for (int h = lo; h >= 1 && h > lo - p.cores; --h) {
        const tile_shape t{h, w, c};
        const tile_cost cost = cost_of(p, t);
        if (cost.total_bytes > p.capacity) continue;  // only the single-tile case is not monotone
        const std::int64_t s = score_of(p, t, cost);
        if (tiling_detail::better(s, cost, best)) best = {true, t, cost, s, 0};
      }
    }
  }
  best.smallest_bytes = tiling_detail::smallest_bytes(p);
  return best;
}

/// Every tile, for tests: the reference the solver must equal in objective value.
constexpr tile_solution solve_tiles_exhaustive(const tile_problem& p) {
  tile_solution best{};
  if (tiling_detail::whole_layer(p, best)) return best;
  const tile_geometry& g = p.layer;
  for (int c = g.channel_step; c <= g.out_c; c += g.channel_step)
    for (int w = 1; w <= g.out_w; ++w)
      for (int h = 1; h <= g.out_h; ++h) {
        const tile_shape t{h, w, c};
        const tile_cost cost = cost_of(p, t);
        if (cost.total_bytes > p.capacity) continue;
        const std::int64_t s = score_of(p, t, cost);
        if (tiling_detail::better(s, cost, best)) best = {true, t, cost, s, 0};
      }
  best.smallest_bytes = tiling_detail::smallest_bytes(p);
  return best;
}

}  // namespace tessera
