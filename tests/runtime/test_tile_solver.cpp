// The tile solver on layers too large for a compile-time exhaustive comparison
// (tests/static/test_tile_solver.cpp covers the small ones): run at run time, the solver must
// reach the exhaustive search's objective value on random maps up to 96 x 96, where runs of
// one tile height along a dimension are long (the solver visits only their widest pairs,
// tile_solver.hpp (5)), with scratch that grows with the tile and all heuristic weights.
#include <cstddef>
#include <cstdint>

#include <catch2/catch.hpp>

#include <tessera/planning/tile_solver.hpp>

namespace {

using namespace tessera;

struct lcg {
  std::uint64_t state;
  int next(int lo, int hi) {  // uniform in [lo, hi]
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return lo + static_cast<int>((state >> 33) % static_cast<std::uint64_t>(hi - lo + 1));
  }
};

std::size_t growing_scratch(const tile_geometry& g, const tile_shape& t) {
  return static_cast<std::size_t>(t.c) * 4 + static_cast<std::size_t>(g.input_cols(t.w)) * 2 + 32;
}

tile_problem random_layer(lcg& r) {
  tile_geometry g{};
  g.kind = tiling_kind::tiled;
  const int k = r.next(1, 5), stride = r.next(1, 2), pad = k / 2;
  g.in_h = r.next(k, 96), g.in_w = r.next(k, 96), g.in_c = r.next(1, 24);
  g.kernel_h = g.kernel_w = k;
  g.stride_h = g.stride_w = stride;
  g.pad_top = g.pad_left = g.pad_bottom = g.pad_right = pad;
  g.out_h = (g.in_h + 2 * pad - k) / stride + 1;
  g.out_w = (g.in_w + 2 * pad - k) / stride + 1;
  const bool depthwise = r.next(0, 3) == 0;
  g.out_c = depthwise ? g.in_c : r.next(1, 24);
  if (!depthwise && r.next(0, 3) == 0 && g.out_c % 4 == 0) g.channel_step = 4;
  g.channel_lockstep = depthwise;
  g.in_elem_bytes = 1;
  g.out_elem_bytes = r.next(0, 2) == 0 ? 4 : 1;
  g.weight_bytes_per_channel = static_cast<std::size_t>(k * k * (depthwise ? 1 : g.in_c));
  g.const_bytes_per_channel = 12;
  tile_problem p{g, 0, r.next(0, 4) != 0, r.next(0, 1) != 0 ? 8 : 1, r.next(1, 8), r.next(1, 4)};
  if (r.next(0, 1) != 0)
    p.weights = tiling_weights{1000, r.next(0, 9), r.next(0, 300), r.next(0, 300), r.next(0, 300)};
  if (r.next(0, 1) != 0) p.scratch = growing_scratch;
  // Between the smallest tile and the whole layer, so that most layers tile.
  const std::size_t smallest = cost_of(p, {1, 1, g.channel_step}).total_bytes;
  const std::size_t whole = cost_of(p, {g.out_h, g.out_w, g.out_c}).total_bytes;
  p.capacity = smallest + static_cast<std::size_t>(r.next(0, 1000)) * (whole - smallest + 999) / 1000;
  return p;
}

}  // namespace

TEST_CASE("tile solver: equal to exhaustive search on random layers up to 96 x 96", "[tile_solver]") {
  lcg r{20261123};
  int tiled = 0;
  for (int i = 0; i < 400; ++i) {
    const tile_problem p = random_layer(r);
    const tile_solution fast = solve_tiles(p);
    const tile_solution all = solve_tiles_exhaustive(p);
    INFO("layer " << i << ": out " << p.layer.out_h << "x" << p.layer.out_w << "x" << p.layer.out_c << ", L1 "
                  << p.capacity);
    REQUIRE(fast.feasible == all.feasible);
    if (!fast.feasible) continue;
    REQUIRE(fast.score == all.score);
    REQUIRE(fast.cost.total_bytes <= p.capacity);
    tiled += fast.cost.tiles > 1;
  }
  CHECK(tiled > 250);  // the comparison is about tiled layers, not ones that fit whole
}
