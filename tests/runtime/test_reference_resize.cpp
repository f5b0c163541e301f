// Reference Resize: hand-checked cases, and randomized shapes against the float formulas of
// the ONNX specification (nearest exactly, linear within one unit).
#include <catch2/catch.hpp>

#include <tessera/kernels/reference/resize.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

using namespace tessera::kernels::reference;

// The worked example of resize.hpp: half_pixel, 3 -> 7.
static_assert(resize_tap_of(resize_mode::linear, resize_coordinates::half_pixel, {}, 0, 3, 7).weight_hi == 0);
static_assert(resize_tap_of(resize_mode::linear, resize_coordinates::half_pixel, {}, 3, 3, 7).lo == 1);
static_assert(resize_tap_of(resize_mode::linear, resize_coordinates::half_pixel, {}, 4, 3, 7).weight_hi == 878);
static_assert(resize_tap_of(resize_mode::linear, resize_coordinates::half_pixel, {}, 6, 3, 7).lo == 2);
// torch's nearest (asymmetric, floor) at x2 repeats each index twice.
static_assert(resize_tap_of(resize_mode::nearest, resize_coordinates::asymmetric, resize_nearest_rounding::floor, 5,
                            4, 8).lo == 2);
// round_prefer_floor at exactly one half: 1/2 -> 0; round_prefer_ceil -> 1 (asymmetric, 2 -> 4, o = 1).
static_assert(resize_tap_of(resize_mode::nearest, resize_coordinates::asymmetric,
                            resize_nearest_rounding::round_prefer_floor, 1, 2, 4).lo == 0);
static_assert(resize_tap_of(resize_mode::nearest, resize_coordinates::asymmetric,
                            resize_nearest_rounding::round_prefer_ceil, 1, 2, 4).lo == 1);
static_assert(resize_scratch_bytes(resize_dims{}) == 0);

TEST_CASE("resize: nearest x2 (asymmetric, floor) repeats pixels", "[reference][resize]") {
  // in [1][2][2][1] = [1 2; 3 4] -> out [1][4][4][1]
  const std::int8_t in[4] = {1, 2, 3, 4};
  std::int8_t out[16] = {};
  resize(resize_dims{1, 2, 2, 1, 4, 4, resize_mode::nearest, resize_coordinates::asymmetric,
                     resize_nearest_rounding::floor},
         in, out);
  CHECK(std::vector<int>(out, out + 16) == std::vector<int>{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4});
}

TEST_CASE("resize: bilinear x2, half_pixel and align_corners, two channels", "[reference][resize]") {
  // One row [0 100] (H = 1), channels (v, 200 - v); half_pixel 2 -> 4 reads x = -1/4, 1/4, 3/4, 5/4:
  //   0, 25, 75, 100 (x clamped to [0, 1]); align_corners reads x = 0, 1/3, 2/3, 1:
  //   0, 33.3 -> 33, 66.7 -> 67, 100 (weights 683/2048, 1365/2048 rounded half up: 33.35 -> 33, 66.65 -> 67).
  const std::uint8_t in[4] = {0, 200, 100, 100};
  std::uint8_t out[8] = {};
  resize(resize_dims{1, 1, 2, 2, 1, 4, resize_mode::linear, resize_coordinates::half_pixel, {}}, in, out);
  CHECK(std::vector<int>(out, out + 8) == std::vector<int>{0, 200, 25, 175, 75, 125, 100, 100});
  resize(resize_dims{1, 1, 2, 2, 1, 4, resize_mode::linear, resize_coordinates::align_corners, {}}, in, out);
  CHECK(std::vector<int>(out, out + 8) == std::vector<int>{0, 200, 33, 167, 67, 133, 100, 100});
}

TEST_CASE("resize: a tie rounds half up, also for negative values", "[reference][resize]") {
  // asymmetric 2 -> 4: x = 1/2 between -3 and 0 is -1.5 -> -1; between 1 and 2: 1.5 -> 2.
  const std::int8_t in[4] = {-3, 1, 0, 2};
  std::int8_t out[8] = {};
  resize(resize_dims{1, 1, 2, 2, 1, 4, resize_mode::linear, resize_coordinates::asymmetric, {}}, in, out);
  CHECK(std::vector<int>(out, out + 8) == std::vector<int>{-3, 1, -1, 2, 0, 2, 0, 2});
}

namespace {
/// The input coordinate by the float formulas of the ONNX specification.
double float_coordinate(resize_coordinates c, int o, int in, int out) {
  // Each a single correctly rounded division of exact values, so exact ties stay ties.
  switch (c) {
    case resize_coordinates::half_pixel: return (o + 0.5) * in / out - 0.5;
    case resize_coordinates::pytorch_half_pixel: return out > 1 ? (o + 0.5) * in / out - 0.5 : 0.0;
    case resize_coordinates::align_corners: return out == 1 ? 0.0 : o * (in - 1.0) / (out - 1.0);
    case resize_coordinates::asymmetric: return static_cast<double>(o) * in / out;
  }
  return 0;
}

int float_nearest(resize_nearest_rounding r, double x, int in) {
  const double f = std::floor(x);
  double i = f;
  if (r == resize_nearest_rounding::ceil) i = std::ceil(x);
  if (r == resize_nearest_rounding::round_prefer_floor) i = x - f == 0.5 ? f : std::round(x);
  if (r == resize_nearest_rounding::round_prefer_ceil) i = x - f == 0.5 ? f + 1 : std::round(x);
  return static_cast<int>(std::clamp(i, 0.0, in - 1.0));
}
}  // namespace

TEST_CASE("resize: randomized shapes against the float formulas", "[reference][resize]") {
  std::mt19937 rng(1414);
  const auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  constexpr resize_coordinates all_coordinates[] = {resize_coordinates::half_pixel, resize_coordinates::pytorch_half_pixel,
                                                    resize_coordinates::align_corners, resize_coordinates::asymmetric};
  constexpr resize_nearest_rounding all_roundings[] = {
      resize_nearest_rounding::round_prefer_floor, resize_nearest_rounding::round_prefer_ceil,
      resize_nearest_rounding::floor, resize_nearest_rounding::ceil};
  for (int iteration = 0; iteration < 200; ++iteration) {
    resize_dims d{pick(1, 2), pick(1, 6), pick(1, 7), pick(1, 5), pick(1, 15), pick(1, 15), resize_mode::nearest,
                  all_coordinates[pick(0, 3)], all_roundings[pick(0, 3)]};
    const bool linear = iteration % 2 == 0;
    if (linear) d.mode = resize_mode::linear;
    std::vector<std::uint8_t> in(static_cast<std::size_t>(d.batch) * d.in_h * d.in_w * d.channels);
    for (auto& v : in) v = static_cast<std::uint8_t>(pick(0, 255));
    std::vector<std::uint8_t> out(static_cast<std::size_t>(d.batch) * d.out_h * d.out_w * d.channels);
    resize(d, in.data(), out.data());
    const auto at = [&](int n, int y, int x, int c) {
      return static_cast<double>(in[((static_cast<std::size_t>(n) * d.in_h + y) * d.in_w + x) * d.channels + c]);
    };
    std::size_t i = 0;
    int worst = 0;
    for (int n = 0; n < d.batch; ++n)
      for (int oy = 0; oy < d.out_h; ++oy)
        for (int ox = 0; ox < d.out_w; ++ox)
          for (int c = 0; c < d.channels; ++c, ++i) {
            const double fy = float_coordinate(d.coordinates, oy, d.in_h, d.out_h);
            const double fx = float_coordinate(d.coordinates, ox, d.in_w, d.out_w);
            double want = 0;
            if (!linear) {
              want = at(n, float_nearest(d.nearest, fy, d.in_h), float_nearest(d.nearest, fx, d.in_w), c);
            } else {
              const double y = std::clamp(fy, 0.0, d.in_h - 1.0), x = std::clamp(fx, 0.0, d.in_w - 1.0);
              const int y0 = static_cast<int>(y), x0 = static_cast<int>(x);
              const int y1 = std::min(y0 + 1, d.in_h - 1), x1 = std::min(x0 + 1, d.in_w - 1);
              const double ry = y - y0, rx = x - x0;
              want = std::nearbyint((at(n, y0, x0, c) * (1 - rx) + at(n, y0, x1, c) * rx) * (1 - ry) +
                                    (at(n, y1, x0, c) * (1 - rx) + at(n, y1, x1, c) * rx) * ry);
            }
            worst = std::max(worst, static_cast<int>(std::abs(want - out[i])));
          }
    INFO("iteration " << iteration << ": " << d.in_h << "x" << d.in_w << " -> " << d.out_h << "x" << d.out_w
                      << (linear ? " linear" : " nearest") << " coordinates " << static_cast<int>(d.coordinates));
    CHECK(worst <= (linear ? 1 : 0));
  }
}
