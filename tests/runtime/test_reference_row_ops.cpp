// Reference row ops (softmax.hpp, normalization.hpp) and core/integer_math.hpp: hand-computed
// rows for each formula (floor division, clamps, the ITA constants), then properties on random
// shapes (row lengths 1..70, so leftovers of any width): rows are independent, so the tile-by-
// tile calls of run_tile (first_row offsets, constant rows r % rows) equal one whole call; a
// softmax does not depend on a constant added to its row nor on the order of its columns.
#include <catch2/catch.hpp>

#include <tessera/core/integer_math.hpp>
#include <tessera/kernels/reference/normalization.hpp>
#include <tessera/kernels/reference/softmax.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace {
using namespace tessera::kernels::reference;

std::vector<int> softmax_row(const std::vector<std::int8_t>& x, const softmax_params& p) {
  std::vector<std::uint8_t> y(x.size());
  integer_softmax(1, static_cast<std::int32_t>(x.size()), x.data(), p, y.data());
  return {y.begin(), y.end()};
}

/// The corpus iSoftmax coefficients (Kernels/Integer/Softmax/Regular).
constexpr softmax_params i_softmax_regular{softmax_kind::i_softmax, 1, 345, 62395, 255, 256, 16};

static_assert(softmax_scratch_bytes(4096) == 0 && norm_scratch_bytes(4096) == 0);
}  // namespace

TEST_CASE("isqrt and floor_div: exact", "[reference][row_ops]") {
  // r = isqrt(v) iff r^2 <= v < (r+1)^2, tested by division: (r+1)^2 can need 65 bits.
  const auto is_root = [](std::uint64_t r, std::uint64_t v) { return (r == 0 || v / r >= r) && v / (r + 1) < r + 1; };
  for (std::uint64_t v = 0; v < 70000; ++v) REQUIRE(is_root(tessera::isqrt(v), v));
  std::mt19937_64 gen(7);
  for (int i = 0; i < 10000; ++i) {
    const std::uint64_t v = gen() >> (gen() % 64);
    REQUIRE(is_root(tessera::isqrt(v), v));
  }
  CHECK(tessera::isqrt(~std::uint64_t{0}) == 0xffffffffu);
  CHECK(tessera::floor_div(-7, 2) == -4);
  CHECK(tessera::floor_div(-6, 2) == -3);
  CHECK(tessera::floor_div(7, 2) == 3);
  CHECK(tessera::floor_div(-1, 1000) == -1);
}

TEST_CASE("integer_softmax: hand-computed rows", "[reference][row_ops]") {
  // iSoftmax: equal values share n - 1 = 255: e = 345^2 + 62395 = 181,420 each, 255/2 -> 127.
  CHECK(softmax_row({10, 10}, i_softmax_regular) == std::vector<int>{127, 127});
  // xt = -255 -> z = 1, p = 0: e = 181,420 >> 1 = 90,710; s = 272,130; 181,420*255/s = 170.
  CHECK(softmax_row({127, -128}, i_softmax_regular) == std::vector<int>{170, 85});
  // A row of one value is n - 1 for every softmax.
  CHECK(softmax_row({-128}, i_softmax_regular) == std::vector<int>{255});
  // ITAMax: shifts (0+16)>>5 = 0, (32+16)>>5 = 1, (100+16)>>5 = 3; S = 256 + 128 + 32 = 416;
  // inv = 255*256/416 = 156: y = 156, 78, 19.
  const softmax_params ita{softmax_kind::ita_max, 1, 0, 1, 1, 256, 16};
  CHECK(softmax_row({0, -32, -100}, ita) == std::vector<int>{156, 78, 19});
  // ITAPartialMax, groups of 2, running max from -128: group {-100, -40}: m = -40, S = 0 >> 3,
  // + (256 >> 2) + 256 = 320; group {0}: m = 0, S = 320 >> ((40+16)>>5 = 1) = 160, + 256 = 416;
  // inv = 127*256/416 = 78; shifts against m = 0: 3, 1, 0 -> 9, 39, 78.
  const softmax_params partial{softmax_kind::ita_partial_max, 1, 0, 1, 1, 256, 2};
  CHECK(softmax_row({-100, -40, 0}, partial) == std::vector<int>{9, 39, 78});
  CHECK(softmax_row({5}, partial) == std::vector<int>{127});
}

TEST_CASE("integer_norm: hand-computed rows", "[reference][row_ops]") {
  const std::int32_t w[4] = {100, 100, 100, 100};
  const std::int32_t b[4] = {0, 1, 2, 3};
  std::int8_t y[4] = {};
  // iLayerNorm {1, 2, 3, 4}: mu = 10/4 = 2, d = {-1, 0, 1, 2}, r = isqrt(6/4 + 1) = 1;
  // y = d*100 + b, 203 clamps to 127.
  const std::int8_t x[4] = {1, 2, 3, 4};
  integer_norm(1, 4, 0, x, w, b, norm_params{norm_kind::layer, 0, -128, 127, 1, 1, 1}, y);
  CHECK(std::vector<int>(y, y + 4) == std::vector<int>{-100, 1, 102, 127});
  // iRMSNorm {-3, 1}: r = isqrt(10/2 + 1) = 2; floor(-3/2) = -2 (C's `/` gives -1), 1/2 = 0.
  const std::int8_t x2[2] = {-3, 1};
  const std::int32_t one[2] = {1, 1};
  integer_norm(1, 2, 0, x2, one, nullptr, norm_params{norm_kind::rms, 0, -128, 127, 1, 1, 1}, y);
  CHECK(std::vector<int>(y, y + 2) == std::vector<int>{-2, 0});
  // ... and after the shift: (-3*5/2 = -8) >> 2 = -2, (1*5/2 = 2) >> 2 = 0.
  const std::int32_t five[2] = {5, 5};
  integer_norm(1, 2, 0, x2, five, nullptr, norm_params{norm_kind::rms, 2, -128, 127, 1, 1, 1}, y);
  CHECK(std::vector<int>(y, y + 2) == std::vector<int>{-2, 0});
  // iNoNorm, uint8 in: ((x*w + b) * mul) >> k = ((200*3 + 1) * 5) >> 3 = 375 -> 127;
  // ((0*3 - 7) * 5) >> 3 = floor(-35/8) = -5.
  const std::uint8_t x3[2] = {200, 0};
  const std::int32_t w3[2] = {3, 3};
  const std::int32_t b3[2] = {1, -7};
  integer_norm(1, 2, 0, x3, w3, b3, norm_params{norm_kind::no_norm, 3, -128, 127, 5, 1, 1}, y);
  CHECK(std::vector<int>(y, y + 2) == std::vector<int>{127, -5});
}

TEST_CASE("row ops on random shapes: tiles of whole rows equal one call", "[reference][row_ops]") {
  std::mt19937 gen(2026);
  const auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(gen); };
  for (int trial = 0; trial < 200; ++trial) {
    const int rows = pick(1, 9), length = pick(1, 70);
    std::vector<std::int8_t> x(static_cast<std::size_t>(rows * length));
    for (auto& v : x) v = static_cast<std::int8_t>(pick(-128, 127));
    if (trial % 5 == 0) std::fill(x.begin(), x.begin() + length, static_cast<std::int8_t>(pick(-128, 127)));
    INFO("rows " << rows << ", length " << length);

    // Softmaxes: each row alone equals the whole call; adding a constant changes nothing
    // (when nothing saturates); reversing a row reverses its output.
    for (const softmax_params& p :
         {i_softmax_regular, softmax_params{softmax_kind::ita_max, 1, 0, 1, 1, 256, 16},
          softmax_params{softmax_kind::ita_partial_max, 1, 0, 1, 1, 256, pick(1, 20)}}) {
      std::vector<std::uint8_t> whole(x.size()), row(static_cast<std::size_t>(length));
      integer_softmax(rows, length, x.data(), p, whole.data());
      for (int r = 0; r < rows; ++r) {
        std::vector<std::int8_t> xr(x.begin() + r * length, x.begin() + (r + 1) * length);
        integer_softmax(1, length, xr.data(), p, row.data());
        REQUIRE(std::equal(row.begin(), row.end(), whole.begin() + r * length));
        if (p.kind != softmax_kind::ita_partial_max) {  // its groups (and start at -128) see the order and level
          const auto [lo, hi] = std::minmax_element(xr.begin(), xr.end());
          const int c = pick(-128 - *lo, 127 - *hi);
          std::vector<std::int8_t> moved(xr);
          for (auto& v : moved) v = static_cast<std::int8_t>(v + c);
          CHECK(softmax_row(moved, p) == std::vector<int>(row.begin(), row.end()));
          std::reverse(xr.begin(), xr.end());
          std::vector<int> reversed(row.begin(), row.end());
          std::reverse(reversed.begin(), reversed.end());
          CHECK(softmax_row(xr, p) == reversed);
        }
        if (p.kind == softmax_kind::i_softmax) {  // floors of shares of 255: the sum loses < 1 per value
          int sum = 0;
          for (auto v : row) sum += v;
          CHECK((sum <= 255 && sum > 255 - length));
        }
      }
    }

    // Normalizations with per-row constants: tiles of random heights (first_row = the tile's
    // first row, as run_tile passes it) equal one whole call.
    const int weight_rows = rows % 3 == 0 ? 3 : 1;
    std::vector<std::int32_t> w(static_cast<std::size_t>(weight_rows * length)), b(w.size());
    for (auto& v : w) v = pick(-3000000, 3000000);
    for (auto& v : b) v = pick(-40000, 40000);
    for (norm_kind kind : {norm_kind::rms, norm_kind::layer, norm_kind::no_norm}) {
      const norm_params p{kind, kind == norm_kind::no_norm ? 20 : 16, -128, 127, 3, weight_rows, weight_rows};
      const std::int32_t* bias = kind == norm_kind::rms ? nullptr : b.data();
      std::vector<std::int8_t> whole(x.size()), tiled(x.size());
      integer_norm(rows, length, 0, x.data(), w.data(), bias, p, whole.data());
      for (int r0 = 0; r0 < rows;) {
        const int h = std::min(pick(1, 4), rows - r0);
        integer_norm(h, length, r0, x.data() + r0 * length, w.data(), bias, p, tiled.data() + r0 * length);
        r0 += h;
      }
      CHECK(tiled == whole);
    }
  }
}
