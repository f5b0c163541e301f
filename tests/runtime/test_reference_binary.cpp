// Reference Add / Sub / Mul: true-value arithmetic, input offsets, broadcasting, fused requant.
#include <catch2/catch.hpp>

#include <tessera/kernels/reference/binary.hpp>

#include <cstdint>
#include <random>
#include <vector>

using tessera::requant_params;
using tessera::kernels::reference::binary;
using tessera::kernels::reference::binary_dims;
using tessera::kernels::reference::binary_op;
using tessera::kernels::reference::binary_scratch_bytes;

static_assert(binary_scratch_bytes(binary_dims{1, {4}, {1}, {1}}) == 0);

TEST_CASE("binary: same shape, mixed u8/s8 operands on true values", "[reference][binary]") {
  // a (u8) = [0, 255], b (s8) = [-128, 127]
  // add: 0 + (-128) = -128, 255 + 127 = 382;  sub: 0 - (-128) = 128, 255 - 127 = 128
  const std::uint8_t a[2] = {0, 255};
  const std::int8_t b[2] = {-128, 127};
  const binary_dims d{1, {2}, {1}, {1}};
  std::int32_t out[2] = {};
  binary(binary_op::add, d, a, b, requant_params{}, out);
  CHECK(out[0] == -128);
  CHECK(out[1] == 382);
  binary(binary_op::sub, d, a, b, requant_params{}, out);
  CHECK(out[0] == 128);
  CHECK(out[1] == 128);
}

TEST_CASE("binary: mul with input offsets (QLinearMul zero points)", "[reference][binary]") {
  // a (u8, za = 128) = [0, 255, 128, 10], b (s8, zb = -5) = [-128, 127, 3, -5]
  // (a - 128) * (b + 5): -128 * -123 = 15744, 127 * 132 = 16764, 0 * 8 = 0, -118 * 0 = 0
  const std::uint8_t a[4] = {0, 255, 128, 10};
  const std::int8_t b[4] = {-128, 127, 3, -5};
  binary_dims d{1, {4}, {1}, {1}};
  d.a_offset = -128;
  d.b_offset = 5;
  std::int32_t out[4] = {};
  binary(binary_op::mul, d, a, b, requant_params{}, out);
  CHECK(std::vector<std::int32_t>(out, out + 4) == std::vector<std::int32_t>{15744, 16764, 0, 0});
  // The extremes: u8 255 with offset 0 times s8 -128 with offset -127 = 255 * -255 = -65025.
  const std::uint8_t hi[1] = {255};
  const std::int8_t lo[1] = {-128};
  binary(binary_op::mul, binary_dims{1, {1}, {1}, {1}, 0, -127}, hi, lo, requant_params{}, out);
  CHECK(out[0] == -65025);
  // Offsets apply to add and sub too: (3 + 1) - (4 - 2) = 2.
  const std::int8_t x[1] = {3};
  const std::int8_t y[1] = {4};
  binary(binary_op::sub, binary_dims{1, {1}, {1}, {1}, 1, -2}, x, y, requant_params{}, out);
  CHECK(out[0] == 2);
}

TEST_CASE("binary: mul, broadcast row and fused requant", "[reference][binary]") {
  // a [2][3] times b[3] broadcast over rows, then y = (v * 3 + 8 + 8) >> 4 (shift 4, add 8):
  //   products [1*2, 2*-3, 3*40, 4*2, 5*-3, 6*40] = [2, -6, 120, 8, -15, 240]
  //   (6 + 16) >> 4 = 1; (-18 + 16) >> 4 = -1; (360 + 16) >> 4 = 23; (24 + 16) >> 4 = 2;
  //   (-45 + 16) >> 4 = -2; (720 + 16) >> 4 = 46
  const std::int8_t a[6] = {1, 2, 3, 4, 5, 6};
  const std::int8_t b[3] = {2, -3, 40};
  const std::int32_t mul[1] = {3};
  const std::int32_t add[1] = {8};
  const requant_params rq{
      .enabled = true, .mul = mul, .add = add, .length = 1, .inner = 1, .shift = 4, .lo = -128, .hi = 127};
  std::int8_t out[6] = {};
  binary(binary_op::mul, binary_dims{2, {2, 3}, {3, 1}, {0, 1}}, a, b, rq, out);
  CHECK(std::vector<int>(out, out + 6) == std::vector<int>{1, -1, 23, 2, -2, 46});
}

namespace {
// The kernel is constexpr: (2 - 1) * (-3 + 4) = 1.
constexpr std::int32_t constexpr_mul() {
  const std::int8_t a[1] = {2};
  const std::int8_t b[1] = {-3};
  std::int32_t out[1] = {};
  binary(binary_op::mul, binary_dims{1, {1}, {1}, {1}, -1, 4}, a, b, requant_params{}, out);
  return out[0];
}
static_assert(constexpr_mul() == 1);
static_assert(tessera::kernels::reference::is_plain_add_sub(binary_op::add, binary_dims{1, {4}, {1}, {1}}));
static_assert(!tessera::kernels::reference::is_plain_add_sub(binary_op::mul, binary_dims{1, {4}, {1}, {1}}));
static_assert(!tessera::kernels::reference::is_plain_add_sub(binary_op::add, binary_dims{1, {4}, {1}, {1}, 0, 3}));
}  // namespace

TEST_CASE("binary: broadcasting", "[reference][binary]") {
  const std::int8_t a[6] = {1, 2, 3, 4, 5, 6};  // [2][3]
  std::int32_t out[6] = {};
  SECTION("row vector b[3]: a - b") {
    // [1-10, 2-20, 3-30, 4-10, 5-20, 6-30]
    const std::int8_t b[3] = {10, 20, 30};
    binary(binary_op::sub, binary_dims{2, {2, 3}, {3, 1}, {0, 1}}, a, b, requant_params{}, out);
    CHECK(std::vector<std::int32_t>(out, out + 6) == std::vector<std::int32_t>{-9, -18, -27, -6, -15, -24});
  }
  SECTION("column vector b[2][1]: a + b") {
    // [1+100, 2+100, 3+100, 4-100, 5-100, 6-100]
    const std::int8_t b[2] = {100, -100};
    binary(binary_op::add, binary_dims{2, {2, 3}, {3, 1}, {1, 0}}, a, b, requant_params{}, out);
    CHECK(std::vector<std::int32_t>(out, out + 6) == std::vector<std::int32_t>{101, 102, 103, -96, -95, -94});
  }
  SECTION("both broadcast: a[2][1] + b[1][3] -> [2][3]") {
    // [1+10, 1+20, 1+30, 2+10, 2+20, 2+30]
    const std::int8_t a2[2] = {1, 2};
    const std::int8_t b[3] = {10, 20, 30};
    binary(binary_op::add, binary_dims{2, {2, 3}, {1, 0}, {0, 1}}, a2, b, requant_params{}, out);
    CHECK(std::vector<std::int32_t>(out, out + 6) == std::vector<std::int32_t>{11, 21, 31, 12, 22, 32});
  }
  SECTION("scalar b - a over rank 3") {
    // b - a with b = 7 broadcast: [7-1, ..., 7-6]
    const std::int32_t b[1] = {7};
    binary(binary_op::sub, binary_dims{3, {1, 2, 3}, {0, 0, 0}, {6, 3, 1}}, b, a, requant_params{}, out);
    CHECK(std::vector<std::int32_t>(out, out + 6) == std::vector<std::int32_t>{6, 5, 4, 3, 2, 1});
  }
}

TEST_CASE("binary: fused per-channel requant, ties and clamping", "[reference][binary]") {
  // a + b = [-3, 5, 254, -5], channels-last [2][2]: channel = flat % 2.
  // ch0: mul 2, add 0; ch1: mul 1, add 2; shift 1:  y = (v*mul + add + 1) >> 1
  //   -3 (ch0): (-6 + 1) >> 1 = -3;        5 (ch1): (5 + 2 + 1) >> 1 = 4  (tie 3.5 -> 4)
  //   254 (ch0): (508 + 1) >> 1 = 254;     -5 (ch1): (-5 + 2 + 1) >> 1 = -1 (tie -1.5 -> -1)
  const std::int8_t a[4] = {-3, 5, 127, -5};
  const std::int8_t b[4] = {0, 0, 127, 0};
  const std::int32_t mul[2] = {2, 1};
  const std::int32_t add[2] = {0, 2};
  requant_params rq{.enabled = true, .mul = mul, .add = add, .length = 2, .inner = 1, .shift = 1, .lo = -128, .hi = 127};
  const binary_dims d{2, {2, 2}, {2, 1}, {2, 1}};
  std::int8_t s8[4] = {};
  binary(binary_op::add, d, a, b, rq, s8);
  CHECK(std::vector<int>(s8, s8 + 4) == std::vector<int>{-3, 4, 127, -1});
  rq.lo = 0;
  rq.hi = 255;
  std::uint8_t u8[4] = {};
  binary(binary_op::add, d, a, b, rq, u8);
  CHECK(std::vector<int>(u8, u8 + 4) == std::vector<int>{0, 4, 254, 0});
}

TEST_CASE("binary: randomized broadcasting vs. explicit numpy indexing", "[reference][binary][random]") {
  std::mt19937 rng(99u);
  auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int trial = 0; trial < 100; ++trial) {
    const int rank = uni(1, tessera::max_rank);
    std::array<int, tessera::max_rank> od{1, 1, 1, 1, 1}, ad{1, 1, 1, 1, 1}, bd{1, 1, 1, 1, 1};
    for (int i = 0; i < rank; ++i) {
      od[i] = uni(1, 3);
      ad[i] = uni(0, 1) ? od[i] : 1;
      bd[i] = uni(0, 1) ? od[i] : 1;
    }
    binary_dims d{rank, {}, {}, {}};
    std::int64_t as = 1, bs = 1;
    for (int i = rank - 1; i >= 0; --i) {
      d.out[i] = od[i];
      d.a_stride[i] = ad[i] == 1 ? 0 : as;
      d.b_stride[i] = bd[i] == 1 ? 0 : bs;
      as *= ad[i];
      bs *= bd[i];
    }
    std::vector<std::uint8_t> av(static_cast<std::size_t>(as));
    std::vector<std::int8_t> bv(static_cast<std::size_t>(bs));
    for (auto& v : av) v = static_cast<std::uint8_t>(uni(0, 255));
    for (auto& v : bv) v = static_cast<std::int8_t>(uni(-128, 127));
    std::vector<std::int32_t> got(static_cast<std::size_t>(od[0] * od[1] * od[2] * od[3] * od[4]));
    const int pick = uni(0, 2);
    const binary_op op = pick == 0 ? binary_op::add : pick == 1 ? binary_op::sub : binary_op::mul;
    binary(op, d, av.data(), bv.data(), requant_params{}, got.data());

    bool ok = true;
    int o = 0;
    for (int i0 = 0; i0 < od[0]; ++i0)
      for (int i1 = 0; i1 < od[1]; ++i1)
        for (int i2 = 0; i2 < od[2]; ++i2)
          for (int i3 = 0; i3 < od[3]; ++i3)
            for (int i4 = 0; i4 < od[4]; ++i4, ++o) {
              const int idx[5] = {i0, i1, i2, i3, i4};
              int ai = 0, bi = 0;
              for (int ax = 0; ax < rank; ++ax) {
                ai = ai * ad[ax] + (ad[ax] == 1 ? 0 : idx[ax]);
                bi = bi * bd[ax] + (bd[ax] == 1 ? 0 : idx[ax]);
              }
              const int expected = op == binary_op::add   ? av[ai] + bv[bi]
                                   : op == binary_op::sub ? av[ai] - bv[bi]
                                                          : av[ai] * bv[bi];
              ok = ok && got[o] == expected;
            }
    INFO("trial " << trial << " rank " << rank);
    REQUIRE(ok);
  }
}
