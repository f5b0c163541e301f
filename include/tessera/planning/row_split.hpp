// How a cluster's cores share one tile: output rows, split as DORY and PULP-NN do. The one home
// of the formula: the tiled executor (runtime/cluster.hpp) calls it for every compute step and
// the tile solver's PAR_BALANCE heuristic is stated in its terms.
//
// Core k of n takes the rows [k * chunk, (k + 1) * chunk) of an h-row tile, clipped to h, with
// chunk = ceil(h / n). Example: h = 10 rows on n = 8 cores: chunk 2, cores 0-4 take 2 rows each,
// cores 5-7 none; the tile costs 2 row-times instead of 10 / 8. With h = 16: chunk 2, every core
// 2 rows. The split depends only on the tile's rows and the core count.
#pragma once

namespace tessera {

/// Output rows [begin, end) of a tile that one core computes.
struct row_band {
  int begin = 0, end = 0;
  constexpr int rows() const { return end - begin; }
  friend constexpr bool operator==(const row_band&, const row_band&) = default;
};

/// The rows of an `rows`-row tile that core `core` of `cores` computes (empty for the cores
/// left without rows). cores >= 1, 0 <= core < cores.
constexpr row_band row_band_of(int rows, int cores, int core) {
  const int chunk = (rows + cores - 1) / cores;
  const int begin = core * chunk < rows ? core * chunk : rows;
  const int end = begin + chunk < rows ? begin + chunk : rows;
  return {begin, end};
}

/// DORY's PAR_BALANCE term for a tile of `rows` rows on `cores` cores: (rows - 1) mod cores,
/// largest (cores - 1) exactly when row_band_of gives every core the same number of rows (rows a
/// multiple of cores), so the solver prefers tiles that keep every core busy.
constexpr int row_balance_term(int rows, int cores) { return cores > 1 ? (rows - 1) % cores : 0; }

static_assert(row_band_of(10, 8, 0) == row_band{0, 2} && row_band_of(10, 8, 4) == row_band{8, 10} &&
              row_band_of(10, 8, 5).rows() == 0 && row_band_of(16, 8, 7) == row_band{14, 16} &&
              row_band_of(3, 1, 0) == row_band{0, 3});
static_assert(row_balance_term(16, 8) == 7 && row_balance_term(10, 8) == 1 && row_balance_term(5, 1) == 0);

}  // namespace tessera
