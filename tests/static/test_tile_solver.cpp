// Compile-only tests of the tile solver: on small layers it reaches the same objective value
// as an exhaustive search, over many shapes, capacities and heuristic settings.
#include <array>

#include <tessera/planning/tile_solver.hpp>

namespace {

using namespace tessera;

constexpr tile_geometry conv(int h, int w, int c_in, int c_out, int k, int stride, int pad, bool depthwise = false) {
  tile_geometry g{};
  g.kind = tiling_kind::tiled;
  g.in_h = h;
  g.in_w = w;
  g.in_c = c_in;
  g.out_h = (h + 2 * pad - k) / stride + 1;
  g.out_w = (w + 2 * pad - k) / stride + 1;
  g.out_c = c_out;
  g.kernel_h = g.kernel_w = k;
  g.stride_h = g.stride_w = stride;
  g.pad_top = g.pad_left = g.pad_bottom = g.pad_right = pad;
  g.channel_lockstep = depthwise;
  g.in_elem_bytes = 1;
  g.out_elem_bytes = 1;
  g.weight_bytes_per_channel = static_cast<std::size_t>(k * k * (depthwise ? 1 : c_in));
  g.const_bytes_per_channel = 12;
  return g;
}

// A 16-channel 3x3 conv on 8x8: whole layer = 8*8*16 in + 8*8*16 out + 16*(144+12) = 4544 B.
constexpr tile_problem base{conv(8, 8, 16, 16, 3, 1, 1), 4096, true, 8, 4, 2};
static_assert(cost_of(base, {8, 8, 16}).total_bytes == 4544);
static_assert(!solve_tiles(base).cost.activations_doubled || solve_tiles(base).cost.tiles > 1);
static_assert(solve_tiles(base).feasible && solve_tiles(base).cost.total_bytes <= 4096);

// Whole layer fits: one tile, no double buffering.
constexpr tile_problem roomy{conv(8, 8, 16, 16, 3, 1, 1), 8192, true, 8, 4, 2};
static_assert(solve_tiles(roomy).tile == tile_shape{8, 8, 16});
static_assert(solve_tiles(roomy).cost.tiles == 1);

// Nothing fits: infeasible, and the smallest tile's bytes are reported for the diagnostic.
constexpr tile_problem tiny{conv(8, 8, 16, 16, 3, 1, 1), 64, true, 8, 4, 2};
static_assert(!solve_tiles(tiny).feasible);
// 1x1x1 output tile: 3x3x16 = 144 B input, 1 B output, 144 + 12 B constants, each 16-aligned
// and doubled: 2 * (144 + 16) + 2 * 160.
static_assert(solve_tiles(tiny).smallest_bytes == 2 * (144 + 16) + 2 * 160);

constexpr bool same_objective(const tile_problem& p) {
  const tile_solution a = solve_tiles(p);
  const tile_solution b = solve_tiles_exhaustive(p);
  return a.feasible == b.feasible && (!a.feasible || a.score == b.score);
}

// A sweep: layer kinds x capacities x heuristic weights x cores, all equal to exhaustive search
// (one static_assert per layer keeps each evaluation under GCC's constexpr operation limit).
constexpr std::array<tile_geometry, 6> layers{
    conv(8, 8, 16, 16, 3, 1, 1),       conv(9, 7, 8, 12, 3, 2, 1),  conv(7, 6, 4, 24, 1, 1, 0),
    conv(8, 8, 16, 16, 3, 1, 1, true), conv(12, 5, 3, 8, 5, 1, 2), conv(6, 6, 32, 10, 3, 1, 0)};

constexpr bool sweep(const tile_geometry& layer) {
  const std::array<std::size_t, 3> capacities{300, 1500, 3100};
  const std::array<tiling_weights, 3> weights{tiling_weights{}, tiling_weights{1000, 0, 0, 0, 0},
                                              tiling_weights{1000, 5, 200, 300, 250}};
  for (std::size_t cap : capacities)
    for (const auto& w : weights)
      for (int cores : {1, 8}) {
        tile_problem p{layer, cap, true, cores, 4, 2, w};
        if (!same_objective(p)) return false;
        p.double_buffering = false;
        if (!same_objective(p)) return false;
      }
  return true;
}
static_assert(sweep(layers[0]), "solve_tiles: objective differs from exhaustive search");
static_assert(sweep(layers[1]), "solve_tiles: objective differs from exhaustive search");
static_assert(sweep(layers[2]), "solve_tiles: objective differs from exhaustive search");
static_assert(sweep(layers[3]), "solve_tiles: objective differs from exhaustive search");
static_assert(sweep(layers[4]), "solve_tiles: objective differs from exhaustive search");
static_assert(sweep(layers[5]), "solve_tiles: objective differs from exhaustive search");

}  // namespace
