// Reference max / average pooling: padding, ties, count_include_pad, randomized check.
#include <catch2/catch.hpp>

#include <tessera/kernels/reference/pool.hpp>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

using tessera::kernels::reference::average_pool2d;
using tessera::kernels::reference::average_pool2d_scratch_bytes;
using tessera::kernels::reference::max_pool2d;
using tessera::kernels::reference::max_pool2d_scratch_bytes;
using tessera::kernels::reference::pool2d_dims;

namespace {
// batch 1, no padding, stride = kernel unless changed.
constexpr pool2d_dims dims(int in_h, int in_w, int c, int out_h, int out_w, int kh, int kw) {
  return pool2d_dims{1, in_h, in_w, c, out_h, out_w, kh, kw, kh, kw, 0, 0, 0, 0};
}
}  // namespace

static_assert(max_pool2d_scratch_bytes(dims(4, 4, 1, 2, 2, 2, 2)) == 0);
static_assert(average_pool2d_scratch_bytes(dims(4, 4, 1, 2, 2, 2, 2)) == 0);

TEST_CASE("max_pool2d: padded cells never win", "[reference][pool]") {
  // in = [-1 -2 -3; -4 -5 -6; -7 -8 -9], kernel 2x2, stride 2, pad 1 all round:
  // out = (3 + 2 - 2)/2 + 1 = 2.  A padded 0 would win every window; it must be ignored.
  //   out00 = max{-1} = -1;  out01 = max{-2, -3} = -2;  out10 = max{-4, -7} = -4
  //   out11 = max{-5, -6, -8, -9} = -5
  const std::int8_t in[9] = {-1, -2, -3, -4, -5, -6, -7, -8, -9};
  const pool2d_dims d{1, 3, 3, 1, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1};
  std::int8_t out[4] = {};
  max_pool2d(d, in, out);
  CHECK(std::vector<int>(out, out + 4) == std::vector<int>{-1, -2, -4, -5});
}

TEST_CASE("max_pool2d: global, per channel, u8", "[reference][pool]") {
  // 2x2x2 channels-last: channel 0 = {3, 7, 2, 0} -> 7; channel 1 = {-1, -5, -9, -2} -> -1
  const std::int8_t in[8] = {3, -1, 7, -5, 2, -9, 0, -2};
  std::int8_t out[2] = {};
  max_pool2d(dims(2, 2, 2, 1, 1, 2, 2), in, out);
  CHECK(out[0] == 7);
  CHECK(out[1] == -1);
  // u8 compares as unsigned: max{200, 100, 255, 0} = 255
  const std::uint8_t u[4] = {200, 100, 255, 0};
  std::uint8_t uo[1] = {};
  max_pool2d(dims(2, 2, 1, 1, 1, 2, 2), u, uo);
  CHECK(uo[0] == 255);
}

TEST_CASE("average_pool2d: round half up with floor division", "[reference][pool]") {
  // kernel 1x2 over a 1x2 image with 3 channels, count 2: y = floor((2*sum + 2) / 4)
  //   ch0 {1, 2}: sum 3 -> floor(8/4) = 2 (1.5 -> 2);  ch1 {-1, -2}: sum -3 -> floor(-4/4) = -1 (-1.5 -> -1)
  //   ch2 {-1, 0}: sum -1 -> floor(0/4) = 0 (-0.5 -> 0)
  const std::int8_t in[6] = {1, -1, -1, 2, -2, 0};
  std::int8_t out[3] = {};
  average_pool2d(dims(1, 2, 3, 1, 1, 1, 2), false, in, out);
  CHECK(std::vector<int>(out, out + 3) == std::vector<int>{2, -1, 0});

  // count 3 (kernel 1x3), not ties: sum 7 -> floor(17/6) = 2 (2.33);  sum -7 -> floor(-11/6) = -2 (-2.33)
  //   sum 8 -> floor(19/6) = 3 (2.67);  sum -8 -> floor(-13/6) = -3 (-2.67)
  // 1x3 image, 4 channels: ch0 = {2, 2, 3}, ch1 = {-2, -2, -3}, ch2 = {2, 3, 3}, ch3 = {-2, -3, -3}
  const std::int8_t in3[12] = {2, -2, 2, -2, 2, -2, 3, -3, 3, -3, 3, -3};
  std::int8_t out3[4] = {};
  average_pool2d(dims(1, 3, 4, 1, 1, 1, 3), false, in3, out3);
  CHECK(std::vector<int>(out3, out3 + 4) == std::vector<int>{2, -2, 3, -3});

  // u8 extremes never leave the range: {255, 254} -> floor((1018 + 2)/4) = 255 (254.5 -> 255)
  const std::uint8_t u[2] = {255, 254};
  std::uint8_t uo[1] = {};
  average_pool2d(dims(1, 2, 1, 1, 1, 1, 2), false, u, uo);
  CHECK(uo[0] == 255);
}

TEST_CASE("average_pool2d: count_include_pad", "[reference][pool]") {
  const std::uint8_t in[4] = {6, 10, 14, 18};  // 2x2
  SECTION("kernel 2x2, stride 2, pad 1: each window holds one valid cell out of 4") {
    // exclude pad: the cell itself -> [6, 10, 14, 18]
    // include pad: /4 -> 1.5 -> 2, 2.5 -> 3, 3.5 -> 4, 4.5 -> 5
    const pool2d_dims d{1, 2, 2, 1, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1};
    std::uint8_t out[4] = {};
    average_pool2d(d, false, in, out);
    CHECK(std::vector<int>(out, out + 4) == std::vector<int>{6, 10, 14, 18});
    average_pool2d(d, true, in, out);
    CHECK(std::vector<int>(out, out + 4) == std::vector<int>{2, 3, 4, 5});
  }
  SECTION("kernel 3x3, stride 1, pad 1: every window holds all 4 cells, sum 48") {
    // exclude: 48/4 = 12;  include: 48/9 = 5.33 -> floor((96 + 9)/18) = 5
    const pool2d_dims d{1, 2, 2, 1, 2, 2, 3, 3, 1, 1, 1, 1, 1, 1};
    std::uint8_t out[4] = {};
    average_pool2d(d, false, in, out);
    CHECK(std::vector<int>(out, out + 4) == std::vector<int>{12, 12, 12, 12});
    average_pool2d(d, true, in, out);
    CHECK(std::vector<int>(out, out + 4) == std::vector<int>{5, 5, 5, 5});
  }
  SECTION("cells beyond the padded extent (ceil-mode windows) never count") {
    // 1x3 image {1, 2, 5}, kernel 1x2, stride 2, out_w 2: second window covers cols 2..3.
    //   no right pad: col 3 is outside the padded extent -> count 1 -> 5, in both modes
    //   right pad 1:  col 3 is padding -> include: 5/2 = 2.5 -> 3;  exclude: 5
    const std::uint8_t row[3] = {1, 2, 5};
    pool2d_dims d{1, 1, 3, 1, 1, 2, 1, 2, 1, 2, 0, 0, 0, 0};
    std::uint8_t out[2] = {};
    average_pool2d(d, true, row, out);
    CHECK(std::vector<int>(out, out + 2) == std::vector<int>{2, 5});  // first: 3/2 = 1.5 -> 2
    d.pad_right = 1;
    average_pool2d(d, true, row, out);
    CHECK(std::vector<int>(out, out + 2) == std::vector<int>{2, 3});
    average_pool2d(d, false, row, out);
    CHECK(std::vector<int>(out, out + 2) == std::vector<int>{2, 5});

    // The same along H: a 3x1 column, kernel 2x1, stride 2, out_h 2.
    pool2d_dims v{1, 3, 1, 1, 2, 1, 2, 1, 2, 1, 0, 0, 0, 0};
    average_pool2d(v, true, row, out);
    CHECK(std::vector<int>(out, out + 2) == std::vector<int>{2, 5});
    v.pad_bottom = 1;
    average_pool2d(v, true, row, out);
    CHECK(std::vector<int>(out, out + 2) == std::vector<int>{2, 3});
  }
}

TEST_CASE("pools: a window made only of padding yields 0", "[reference][pool]") {
  // 1x1 image {-7}, kernel 1x1, pad_left 1: window 0 is pure padding, window 1 is the cell.
  const std::int8_t in[1] = {-7};
  const pool2d_dims d{1, 1, 1, 1, 1, 2, 1, 1, 1, 1, 0, 1, 0, 0};
  std::int8_t out[2] = {1, 1};
  max_pool2d(d, in, out);
  CHECK(std::vector<int>(out, out + 2) == std::vector<int>{0, -7});
  out[0] = out[1] = 1;
  average_pool2d(d, false, in, out);
  CHECK(std::vector<int>(out, out + 2) == std::vector<int>{0, -7});
}

TEST_CASE("pools: randomized vs. floating-point mean and direct max", "[reference][pool][random]") {
  std::mt19937 rng(31337u);
  auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int trial = 0; trial < 200; ++trial) {
    const int kh = uni(1, 4), kw = uni(1, 4), sh = uni(1, 3), sw = uni(1, 3);
    const int pt = uni(0, kh - 1), pb = uni(0, kh - 1), pl = uni(0, kw - 1), pr = uni(0, kw - 1);
    const int h = kh + uni(0, 4), w = kw + uni(0, 4), c = uni(1, 3), n = uni(1, 2);
    const int ho = (h + pt + pb - kh) / sh + 1, wo = (w + pl + pr - kw) / sw + 1;
    const bool include_pad = uni(0, 1) == 1;
    const pool2d_dims d{n, h, w, c, ho, wo, kh, kw, sh, sw, pt, pl, pb, pr};
    std::vector<std::int8_t> in(static_cast<std::size_t>(n) * h * w * c);
    for (auto& v : in) v = static_cast<std::int8_t>(uni(-128, 127));
    std::vector<std::int8_t> avg(static_cast<std::size_t>(n) * ho * wo * c), mx(avg.size());
    average_pool2d(d, include_pad, in.data(), avg.data());
    max_pool2d(d, in.data(), mx.data());

    bool ok = true;
    for (int b = 0; b < n; ++b)
      for (int y = 0; y < ho; ++y)
        for (int x = 0; x < wo; ++x)
          for (int ch = 0; ch < c; ++ch) {
            long sum = 0;
            int valid = 0, cells = 0, best = -1000;
            for (int i = 0; i < kh; ++i)
              for (int j = 0; j < kw; ++j) {
                const int iy = y * sh + i - pt, ix = x * sw + j - pl;
                // With floor output size and pads < kernel every window cell is in the padded extent.
                ++cells;
                if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
                const int v = in[((b * h + iy) * w + ix) * c + ch];
                sum += v;
                ++valid;
                best = v > best ? v : best;
              }
            const int count = include_pad ? cells : valid;
            const int expected_avg = static_cast<int>(std::floor(static_cast<double>(sum) / count + 0.5));
            const std::size_t o = ((static_cast<std::size_t>(b) * ho + y) * wo + x) * c + ch;
            ok = ok && avg[o] == expected_avg && mx[o] == best;
          }
    INFO("trial " << trial << " k " << kh << "x" << kw << " s " << sh << "," << sw << " pads " << pt << "," << pl
                  << "," << pb << "," << pr << " include_pad " << include_pad);
    REQUIRE(ok);
  }
}
