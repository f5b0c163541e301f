// Reference RequantShift: rounding ties, clamping, channel indexing, 64-bit products.
#include <catch2/catch.hpp>

#include <tessera/kernels/reference/requant_shift.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

using tessera::requant_params;
using tessera::kernels::reference::requant_shift;
using tessera::kernels::reference::requant_shift_scratch_bytes;

static_assert(requant_shift_scratch_bytes(16) == 0);

namespace {
// The kernel is constexpr: (-3*1 + 0 + 1) >> 1 = -2 >> 1 = -1.
constexpr int constexpr_tie() {
  const std::int32_t in[1] = {-3};
  const std::int32_t mul[1] = {1};
  const std::int32_t add[1] = {0};
  std::int8_t out[1] = {};
  requant_shift(1, in, requant_params{true, mul, add, 1, 1, 1, -128, 127}, out);
  return out[0];
}
static_assert(constexpr_tie() == -1);
}  // namespace

TEST_CASE("requant_shift: per-tensor shift 1, ties round half up, s8 and u8 clamps", "[reference][requant]") {
  // y = (x + 1) >> 1:  -3 -> -1 (tie -1.5);  -1 -> 0 (tie -0.5);  1 -> 1 (tie 0.5);  3 -> 2 (tie 1.5)
  //   5 -> 3 (tie 2.5);  1000 -> 500 -> 127 / 255;  -1000 -> -999 >> 1 = -500 -> -128 / 0
  const std::int32_t in[7] = {-3, -1, 1, 3, 5, 1000, -1000};
  const std::int32_t mul[1] = {1};
  const std::int32_t add[1] = {0};
  requant_params rq{.enabled = true, .mul = mul, .add = add, .length = 1, .inner = 1, .shift = 1, .lo = -128, .hi = 127};
  std::int8_t s8[7] = {};
  requant_shift(7, in, rq, s8);
  CHECK(std::vector<int>(s8, s8 + 7) == std::vector<int>{-1, 0, 1, 2, 3, 127, -128});
  rq.lo = 0;
  rq.hi = 255;
  std::uint8_t u8[7] = {};
  requant_shift(7, in, rq, u8);
  CHECK(std::vector<int>(u8, u8 + 7) == std::vector<int>{0, 0, 1, 2, 3, 255, 0});
}

TEST_CASE("requant_shift: channel index = (i / inner) % length", "[reference][requant]") {
  // NCHW-style per-channel: 2 channels x 3 elements; mul {1, 2}, add {0, 10}, shift 0:
  //   [1, 2, 3 | 2*4+10, 2*5+10, 2*6+10] = [1, 2, 3, 18, 20, 22]
  const std::int32_t in[6] = {1, 2, 3, 4, 5, 6};
  const std::int32_t mul[2] = {1, 2};
  const std::int32_t add[2] = {0, 10};
  const requant_params rq{.enabled = true, .mul = mul, .add = add, .length = 2, .inner = 3, .shift = 0, .lo = -128, .hi = 127};
  std::int8_t out[6] = {};
  requant_shift(6, in, rq, out);
  CHECK(std::vector<int>(out, out + 6) == std::vector<int>{1, 2, 3, 18, 20, 22});

  // Channels-last: inner 1, channel = i % 2: [1, 2*2+10, 3, 2*4+10, 5, 2*6+10] = [1, 14, 3, 18, 5, 22]
  requant_params cl = rq;
  cl.inner = 1;
  requant_shift(6, in, cl, out);
  CHECK(std::vector<int>(out, out + 6) == std::vector<int>{1, 14, 3, 18, 5, 22});
}

TEST_CASE("requant_shift: products beyond 32 bits (mul = 1.3e8 as in CNN_Linear1)", "[reference][requant]") {
  // 20 * 130000000 = 2.6e9 > 2^31; shift 24: floor((2600000000 + 2^23) / 2^24) = 155 (154.97)
  // -17 * 130000000 = -2.21e9; shift 25: floor((-2210000000 + 2^24) / 2^25) = -66 (-65.86)
  const std::int32_t in[1] = {20};
  const std::int32_t neg[1] = {-17};
  const std::int32_t mul[1] = {130000000};
  const std::int32_t add[1] = {0};
  requant_params rq{.enabled = true, .mul = mul, .add = add, .length = 1, .inner = 1, .shift = 24, .lo = 0, .hi = 255};
  std::uint8_t u8[1] = {};
  requant_shift(1, in, rq, u8);
  CHECK(u8[0] == 155);
  rq.shift = 25;
  rq.lo = -128;
  rq.hi = 127;
  std::int8_t s8[1] = {};
  requant_shift(1, neg, rq, s8);
  CHECK(s8[0] == -66);
}

TEST_CASE("requant_shift: disabled params pass values through", "[reference][requant]") {
  const std::int8_t in[3] = {-128, 0, 127};
  std::int32_t out[3] = {};
  requant_shift(3, in, requant_params{}, out);
  CHECK(std::vector<std::int32_t>(out, out + 3) == std::vector<std::int32_t>{-128, 0, 127});
}

// The rounding of means (core/requant.hpp, docs/semantics.md "Rounding of means"): half to even
// counted from the output zero point, as ONNX QuantizeLinear rounds x / s before adding it.
using tessera::rounding;
using tessera::round_shift;
static_assert(round_shift(6, 2, rounding::half_even) == 2);    //  1.5 -> 2
static_assert(round_shift(10, 2, rounding::half_even) == 2);   //  2.5 -> 2
static_assert(round_shift(10, 2, rounding::half_up) == 3);     //  2.5 -> 3
static_assert(round_shift(10, 2, rounding::half_even, 1) == 3);  // 1.5 + 1: 2 + 1
static_assert(round_shift(-6, 2, rounding::half_even) == -2);  // -1.5 -> -2
static_assert(round_shift(-6, 2, rounding::half_up) == -1);    // -1.5 -> -1
static_assert(round_shift(-2, 2, rounding::half_even) == 0);   // -0.5 -> 0
static_assert(round_shift(-6, 2, rounding::half_even, -1) == -1);  // -1.5 = -0.5 + (-1): 0 - 1
static_assert(round_shift(7, 2, rounding::half_even) == 2 && round_shift(5, 2, rounding::half_even) == 1);
static_assert(round_shift(7, 0, rounding::half_even) == 7);    // no shift, no rounding

TEST_CASE("requantize: half to even matches ONNX round_half_to_even(t / 2^s) + zero point", "[reference][requant]") {
  // Exhaustive over small t, shifts 1..6 and zero points -3..3: the value is t / 2^s, the zero point
  // z is part of t (t = v * 2^s + z * 2^s); ONNX rounds v half to even and adds z.
  for (int s = 1; s <= 6; ++s) {
    for (int z = -3; z <= 3; ++z) {
      for (std::int64_t t = -300; t <= 300; ++t) {
        const double v = static_cast<double>(t) / static_cast<double>(1 << s);  // exact
        const double onnx = std::nearbyint(v) + z;                               // FE_TONEAREST: half to even
        const std::int64_t got = round_shift(t + (std::int64_t{z} << s), s, rounding::half_even, z);
        REQUIRE(got == static_cast<std::int64_t>(onnx));
        const std::int64_t up = round_shift(t + (std::int64_t{z} << s), s, rounding::half_up, z);
        CHECK(up == static_cast<std::int64_t>(std::floor(v + 0.5)) + z);
      }
    }
  }
}

TEST_CASE("requantize: half to even at extreme accumulators, shifts and clamps", "[reference][requant]") {
  const std::int32_t mul[1] = {2147483647};
  const std::int32_t add[1] = {-2147483647 - 1};
  requant_params rq{.enabled = true, .mul = mul, .add = add, .length = 1, .inner = 1, .shift = 62,
                    .lo = -128, .hi = 127, .mode = rounding::half_even, .zero_point = 0};
  // |acc * mul| near 2^62: (2^31 - 1) * (2^31 - 1) - 2^31 over 2^62 is just below 1.
  CHECK(rq.apply(2147483647, 0) == 1);
  CHECK(rq.apply(-2147483647, 0) == -1);
  CHECK(rq.apply(0, 0) == 0);
  // A tie at shift 62: acc * mul + add = 2^61 (0.5) rounds to 0, 3 * 2^61 (1.5) to 2.
  const std::int32_t one[1] = {1 << 30};
  const std::int32_t zero[1] = {0};
  rq.mul = one;
  rq.add = zero;
  CHECK(rq.apply(std::int64_t{1} << 31, 0) == 0);
  CHECK(rq.apply(std::int64_t{3} << 31, 0) == 2);
  CHECK(rq.apply(-(std::int64_t{3} << 31), 0) == -2);
  // Clamps: u8 with zero point 255 and a huge value; s8 at -128.
  rq.shift = 2;
  rq.lo = 0;
  rq.hi = 255;
  rq.zero_point = 255;
  CHECK(rq.apply(1 << 20, 0) == 255);
  rq.lo = -128;
  rq.hi = 127;
  rq.zero_point = -128;
  CHECK(rq.apply(-(1 << 20), 0) == -128);
  // The reference kernel reads the mode: 2x2 means of {1, 2, 3, 4} (10 / 4 = 2.5) and {1, 1, 1, 3}.
  const std::int32_t sums[2] = {10, 6};
  const std::int32_t m[1] = {1};
  requant_params mean{.enabled = true, .mul = m, .add = zero, .length = 1, .inner = 1, .shift = 2,
                      .lo = -128, .hi = 127, .mode = rounding::half_even, .zero_point = 0};
  std::int8_t out[2] = {};
  requant_shift(2, sums, mean, out);
  CHECK(out[0] == 2);
  CHECK(out[1] == 2);
  mean.mode = rounding::half_up;
  requant_shift(2, sums, mean, out);
  CHECK(out[0] == 3);
  CHECK(out[1] == 2);
}
