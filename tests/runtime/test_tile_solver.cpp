// The tile solver on layers too large for a compile-time exhaustive comparison
// (tests/static/test_tile_solver.cpp covers the small ones): run at run time, the solver must
// reach the exhaustive search's objective value on random maps up to 96 x 96, where runs of
// one tile height along a dimension are long (the solver visits only their widest pairs,
// tile_solver.hpp (5)), with scratch that grows with the tile and all heuristic weights; and
// the latency objective on random layers of every kind and cost model. The exactness checks
// lift the search's work budget (target_desc::search_budget); under the default budget a search
// is either the same or cut short, and then feasible, within its budget and no faster than
// the exhaustive optimum.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>

#include <catch2/catch.hpp>

#include <tessera/planning/fusion.hpp>
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

/// `p` with no work budget: the search runs to the end (what the exactness checks compare).
tile_problem unbudgeted(tile_problem p) {
  p.search_budget = std::numeric_limits<std::int64_t>::max();
  return p;
}

/// The work a search may spend past its budget before it sees it: the budget is checked once
/// per pair, per group range and per seed, and between two checks a pair gallops and bisects
/// (a few dozen byte counts) and visits up to period x period tiles (DORY) or a candidate and
/// a range of at most three (latency), each a byte count, a bound and the model.
constexpr std::int64_t overshoot = 1000;

/// `budgeted` (the search under p's budget) against `whole` (the search run to the end) and
/// `all` (exhaustive): as good as `whole`, or cut short, feasible, within the budget and its
/// overshoot, and never better than the optimum.
void check_budgeted(const tile_problem& p, const tile_solution& budgeted, const tile_solution& whole,
                    const tile_solution& all, bool latency) {
  REQUIRE(budgeted.work <= p.search_budget + overshoot);
  if (!budgeted.cut_short) {  // exact (its DORY seed may have been cut: a seed, not the search)
    REQUIRE(budgeted.feasible == whole.feasible);
    REQUIRE((latency ? budgeted.cycles == whole.cycles : budgeted.score == whole.score));
    return;
  }
  REQUIRE(budgeted.feasible);
  REQUIRE(budgeted.cost.total_bytes <= p.capacity);
  if (latency) {
    REQUIRE(budgeted.cycles == layer_cycles(p, budgeted.tile, budgeted.cost));
    REQUIRE(budgeted.cycles >= all.cycles);
  } else {
    REQUIRE(budgeted.score <= all.score);
  }
}

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
  int tiled = 0, cut = 0;
  for (int i = 0; i < 400; ++i) {
    const tile_problem p = random_layer(r);
    const tile_solution fast = solve_tiles(unbudgeted(p));
    const tile_solution all = solve_tiles_exhaustive(p);
    INFO("layer " << i << ": out " << p.layer.out_h << "x" << p.layer.out_w << "x" << p.layer.out_c << ", L1 "
                  << p.capacity);
    REQUIRE(fast.feasible == all.feasible);
    if (!fast.feasible) continue;
    REQUIRE(!fast.cut_short);
    REQUIRE(fast.score == all.score);
    REQUIRE(fast.cost.total_bytes <= p.capacity);
    const tile_solution budgeted = solve_tiles(p);
    check_budgeted(p, budgeted, fast, all, false);
    tiled += fast.cost.tiles > 1;
    cut += budgeted.cut_short;
  }
  CHECK(tiled > 250);  // the comparison is about tiled layers, not ones that fit whole
  WARN(cut << " of 400 searches cut short by the default budget");
}

namespace {

// The latency objective: random layers of every kind the cost model distinguishes (convs,
// depthwise, pools, elementwise with one or two operands, fused blocks in both orders (some
// padded so heavily that the output map is taller than the input), MatMuls reading a whole
// operand per tile), batches, strides larger than the window, and cost models with every
// term - pixel, width and channel granules, per-block preparation with and without scratch,
// per-row and per-tile overheads, the fallback MAC rate - single or double buffered, with or
// without a prefetched fill. The solver prunes with lower bounds (layer_cycles_bound) and
// starts from DORY's tile; it must reach the exhaustive search's time on each.
tile_geometry random_window_layer(lcg& r, int kind) {  // 0 conv, 1 depthwise, 2 pool, 3 elementwise
  tile_geometry g{};
  g.kind = tiling_kind::tiled;
  g.batch = r.next(0, 5) == 0 ? 2 : 1;
  const int k = kind == 3 ? 1 : r.next(1, 4);
  g.kernel_h = k, g.kernel_w = kind == 3 ? 1 : r.next(1, 4);
  g.stride_h = r.next(1, 3), g.stride_w = r.next(1, 3);
  g.dilation_h = r.next(0, 4) == 0 ? 2 : 1;
  g.out_h = r.next(1, 24), g.out_w = r.next(1, 24);
  g.in_h = (g.out_h - 1) * g.stride_h + (g.kernel_h - 1) * g.dilation_h + 1;
  g.in_w = (g.out_w - 1) * g.stride_w + (g.kernel_w - 1) * g.dilation_w + 1;
  g.channel_lockstep = kind != 0;
  g.out_c = r.next(1, 20);
  g.in_c = g.channel_lockstep ? g.out_c : r.next(1, 12);
  g.in_operands = kind == 3 ? r.next(1, 2) : 1;
  g.in_elem_bytes = r.next(1, 2);
  g.out_elem_bytes = r.next(0, 2) == 0 ? 4 : 1;
  if (kind <= 1)
    g.weight_bytes_per_channel = static_cast<std::size_t>(g.kernel_h * g.kernel_w * (g.channel_lockstep ? 1 : g.in_c));
  g.const_bytes_per_channel = static_cast<std::size_t>(r.next(0, 1) * 8);
  g.macs_per_output = kind == 3 ? 0 : std::int64_t{g.kernel_h} * g.kernel_w * (g.channel_lockstep ? 1 : g.in_c);
  return g;
}

kernel_cost random_cost(lcg& r) {
  kernel_cost c{};
  c.cycles_per_kmac = static_cast<std::uint32_t>(r.next(0, 4) * 512);
  c.cycles_per_koutput = static_cast<std::uint32_t>(r.next(0, 2) * 256);
  c.per_row = static_cast<std::uint32_t>(r.next(0, 30));
  c.per_tile = static_cast<std::uint32_t>(r.next(0, 3) * 900);
  c.channel_granule = static_cast<std::uint16_t>(r.next(0, 4) == 0 ? 8 : 0);
  c.width_granule = static_cast<std::uint16_t>(r.next(0, 4) == 0 ? 4 : 0);
  c.pixel_granule = static_cast<std::uint16_t>(r.next(0, 2) == 0 ? 4 : 0);
  c.per_block = static_cast<std::uint32_t>(r.next(0, 2) * 3000);
  return c;
}

/// A MatMul of two activations (ops/matmul.hpp): rows of A tiled, each image's B read whole.
tile_geometry random_matmul_layer(lcg& r) {
  tile_geometry g{};
  g.kind = tiling_kind::tiled;
  g.batch = r.next(1, 4);
  g.out_h = g.in_h = r.next(1, 24);
  g.out_c = g.channel_step = r.next(1, 24);
  g.in_c = r.next(1, 16);
  g.in_elem_bytes = 1;
  g.out_elem_bytes = r.next(0, 2) == 0 ? 4 : 1;
  g.whole_operand_bytes = static_cast<std::size_t>(g.in_c) * static_cast<std::size_t>(g.out_c);
  g.macs_per_output = g.in_c;
  return g;
}

tile_problem random_latency_layer(lcg& r) {
  const int kind = r.next(0, 6);  // 4: fused DW -> PW block, 5: MatMul, 6: fused PW -> DW block
  tile_problem p{};
  if (kind == 6) {
    tile_geometry dw = random_window_layer(r, 1);
    dw.batch = 1;
    tile_geometry pw{};
    pw.kind = tiling_kind::tiled;
    pw.out_h = pw.in_h = dw.in_h, pw.out_w = pw.in_w = dw.in_w;
    pw.in_c = r.next(1, 12), pw.out_c = dw.in_c;
    pw.out_elem_bytes = dw.in_elem_bytes;
    pw.weight_bytes_per_channel = static_cast<std::size_t>(pw.in_c);
    pw.const_bytes_per_channel = 8;
    pw.macs_per_output = pw.in_c;
    if (r.next(0, 3) == 0) {  // padding of a kernel's height on both sides: maybe more output rows than input
      dw.pad_top = dw.pad_bottom = dw.kernel_h;
      dw.out_h = (dw.in_h + 2 * dw.kernel_h - ((dw.kernel_h - 1) * dw.dilation_h + 1)) / dw.stride_h + 1;
    }
    p.layer = fused_geometry_pointwise_first(pw, dw);
    p.latency.producer_compute = random_cost(r);
    if (r.next(0, 1) != 0) p.producer_scratch = growing_scratch;
  } else if (kind == 5) {
    p.layer = random_matmul_layer(r);
  } else if (kind == 4) {
    tile_geometry dw = random_window_layer(r, 1);
    dw.batch = 1;
    tile_geometry pw{};
    pw.kind = tiling_kind::tiled;
    pw.out_h = pw.in_h = dw.out_h, pw.out_w = pw.in_w = dw.out_w;
    pw.in_c = dw.out_c, pw.out_c = r.next(1, 20);
    pw.out_elem_bytes = dw.out_elem_bytes;
    pw.weight_bytes_per_channel = static_cast<std::size_t>(pw.in_c);
    pw.const_bytes_per_channel = 8;
    pw.macs_per_output = pw.in_c;
    p.layer = fused_geometry(dw, pw);
    p.latency.producer_compute = random_cost(r);
    if (r.next(0, 1) != 0) p.producer_scratch = growing_scratch;
  } else {
    p.layer = random_window_layer(r, kind);
  }
  p.double_buffering = r.next(0, 4) != 0;
  p.objective = tiling_objective::latency;
  if (r.next(0, 1) != 0) p.scratch = growing_scratch;
  p.latency.compute = random_cost(r);
  p.latency.macs_per_cycle_x16 = static_cast<std::uint32_t>(r.next(4, 64));
  p.latency.transfer = {"L2", 0, static_cast<std::uint32_t>(r.next(1, 8)), static_cast<std::uint32_t>(r.next(0, 40)),
                        static_cast<std::uint32_t>(r.next(0, 60))};
  // Cross-layer prefetch: none, the whole fill, or part of it (the input waiting or not).
  const int prefetch = r.next(0, 3);
  p.latency.hidden_fill = prefetch == 0   ? 0
                          : prefetch == 1 ? tessera::all_hidden
                                          : static_cast<std::uint64_t>(r.next(1, 4000));
  p.latency.input_waits = prefetch == 3;
  const std::size_t smallest = cost_of(p, {1, 1, p.layer.channel_step}).total_bytes;
  const std::size_t whole = cost_of(p, {p.layer.out_h, p.layer.out_w, p.layer.out_c}).total_bytes;
  p.capacity = smallest + static_cast<std::size_t>(r.next(0, 1000)) * (whole - smallest + 999) / 1000;
  return p;
}

}  // namespace

TEST_CASE("tile solver: the latency objective equals exhaustive search on random layers of every kind",
          "[tile_solver]") {
  lcg r{20261126};
  int tiled = 0, fused = 0, products = 0, pointwise_first = 0, pointwise_first_channel_blocks = 0, cut = 0;
  double worst_cut = 1;
  for (int i = 0; i < 2100; ++i) {
    const tile_problem p = random_latency_layer(r);
    const tile_solution fast = solve_tiles(unbudgeted(p));
    const tile_solution all = solve_tiles_exhaustive(p);
    INFO("layer " << i << ": out " << p.layer.out_h << "x" << p.layer.out_w << "x" << p.layer.out_c << " fused "
                  << p.layer.fused() << ", whole operand " << p.layer.whole_operand_bytes << ", L1 " << p.capacity);
    REQUIRE(fast.feasible == all.feasible);
    if (!fast.feasible) continue;
    REQUIRE(!fast.cut_short);
    REQUIRE(fast.cycles == all.cycles);
    REQUIRE(fast.cycles == layer_cycles(p, fast.tile, fast.cost));
    REQUIRE(fast.cost.total_bytes <= p.capacity);
    const tile_solution budgeted = solve_tiles(p);
    check_budgeted(p, budgeted, fast, all, true);
    cut += budgeted.cut_short;
    if (budgeted.cut_short) worst_cut = std::max(worst_cut, static_cast<double>(budgeted.cycles) / all.cycles);
    tiled += fast.cost.tiles > 1;
    fused += p.layer.fused() && fast.cost.tiles > 1;
    products += p.layer.whole_operand_bytes > 0 && fast.cost.tiles > 1;
    pointwise_first += p.layer.pointwise_first() && fast.cost.tiles > 1;
    pointwise_first_channel_blocks += p.layer.pointwise_first() && fast.tile.c < p.layer.out_c;
  }
  CHECK(tiled > 700);
  CHECK(fused > 100);
  CHECK(products > 100);
  CHECK(pointwise_first > 100);
  CHECK(pointwise_first_channel_blocks > 20);  // its channel-block tiles (the pointwise filters per block)
  WARN(cut << " of 2100 searches cut short by the default budget, the slowest " << worst_cut << " x the optimum");
}

TEST_CASE("tile solver: the range bounds are at most the model on every extent of their range", "[tile_solver]") {
  // The latency search prunes a range [a, b] of extents along z with one block count by
  // layer_cycles_bound (z_low = a) and layer_cycles_over (every full block a wide, the last
  // as narrow as b leaves it): both must bound layer_cycles at every extent of the range, and
  // layer_cycles_over must equal it when a == b. The same bound with z_low = 0 must bound every
  // extent up to b (the last tile's slack, the channel granules of relaxed_channel_slots and
  // the pointwise windows of producer_window_floor included).
  lcg r{20261128};
  int ranges = 0, exact = 0;
  for (int i = 0; i < 1200; ++i) {
    const tile_problem p = random_latency_layer(r);
    const tile_geometry& g = p.layer;
    const int z = r.next(0, 2);
    const int step = z == 2 ? g.channel_step : 1;
    const int full = (z == 0 ? g.out_h : z == 1 ? g.out_w : g.out_c) / step;
    tile_shape base{r.next(1, g.out_h), r.next(1, g.out_w), r.next(1, g.out_c / g.channel_step) * g.channel_step};
    const auto at = [&](int k) {
      tile_shape t = base;
      (z == 0 ? t.h : z == 1 ? t.w : t.c) = k * step;
      return t;
    };
    // The extents with n blocks: ceil(full / n) .. ceil(full / (n - 1)) - 1 (empty for some n).
    const int n = r.next(1, full < 4 ? full : 4);
    const int low = (full + n - 1) / n, high = n == 1 ? full : (full + n - 2) / (n - 1) - 1;
    if (low > high) continue;
    const bool whole_group = r.next(0, 1) != 0;  // as the search first tries it
    const int a = whole_group ? low : r.next(low, high), b = whole_group ? high : r.next(a, high);
    const tile_cost high_cost = cost_of(p, at(b));
    const std::uint64_t over = layer_cycles_over(p, at(a), at(b), z, high_cost);
    const bool may_keep = keeps_preparation(g, high_cost.scratch_bytes);
    const std::uint64_t bound = layer_cycles_bound(p, at(b), z, may_keep, a * step);
    INFO("layer " << i << ": out " << g.out_h << "x" << g.out_w << "x" << g.out_c << ", z " << z << ", range " << a
                  << ".." << b);
    for (int j = a; j <= b; ++j) {
      const std::uint64_t model = layer_cycles(p, at(j), cost_of(p, at(j)));
      REQUIRE(over <= model);
      REQUIRE(bound <= model);
      if (a == b) REQUIRE(over == model);
    }
    // The pair's bound (z_low = 0) covers every extent up to b, and each tile's own bound
    // (exactly_t) its tile: the pruning of pairs, groups and candidates.
    const std::uint64_t pair_bound = layer_cycles_bound(p, at(b), z, may_keep);
    for (int j = 1; j <= b; ++j) {
      const tile_cost cost = cost_of(p, at(j));
      const std::uint64_t model = layer_cycles(p, at(j), cost);
      INFO("extent " << j);
      REQUIRE(pair_bound <= model);
      REQUIRE(layer_cycles_bound(p, at(j), exactly_t, keeps_preparation(g, cost.scratch_bytes)) <= model);
    }
    ranges += b > a;
    exact += a == b;
  }
  CHECK(ranges > 250);
  CHECK(exact > 100);
}

TEST_CASE("tile solver: the latency objective on a roomy elementwise layer, against exhaustive search",
          "[tile_solver]") {
  // The ICCT's GELU (64 rows of 512 channels) on gap8: thousands of tilings within a few
  // percent of the fastest. The search must find the exhaustive search's time with a few
  // hundred evaluations (12,789 before its seeded incumbent and group bounds, over GCC's
  // constexpr budget; tests/static/test_tile_solver.cpp solves it at compile time).
  target_desc gap8_latency = targets::gap8;
  gap8_latency.objective = tiling_objective::latency;
  for (const int rows : {64, 61}) {
    for (const int channels : {512, 500, 128}) {
      const tile_problem p = tile_problem_for(
          gap8_latency, elementwise_rows(std::int64_t{rows} * channels, channels, tiling_kind::tiled, 1, 1), 64 * 1024,
          nullptr);
      const tile_solution fast = solve_tiles(p);
      const tile_solution all = solve_tiles_exhaustive(p);
      INFO(rows << " x " << channels << ": " << fast.evaluations << " evaluations");
      REQUIRE(fast.feasible);
      REQUIRE(fast.cycles == all.cycles);
      CHECK(fast.evaluations < 2000);
    }
  }
}
