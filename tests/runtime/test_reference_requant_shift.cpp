// Reference RequantShift: rounding ties, clamping, channel indexing, 64-bit products.
#include <catch2/catch.hpp>

#include <tessera/kernels/reference/requant_shift.hpp>

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
