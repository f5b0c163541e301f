// quantize_linear / dequantize_linear (core/float_boundary.hpp) on hand-derived values: ties,
// saturation, NaN, infinities, int8 and uint8 with zero points, and a scale where dividing
// differs from multiplying by the reciprocal. ONNX Runtime itself is the oracle of
// ort/float_boundary (tools/onnx2hpp/testing/check_float_boundary.py); these are the rule's
// cases worked out by hand.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include <catch2/catch.hpp>

#include <tessera/core/float_boundary.hpp>

using tessera::dequantize_linear;
using tessera::quantize_linear;

namespace {
constexpr float inf = std::numeric_limits<float>::infinity();
const float qnan = std::numeric_limits<float>::quiet_NaN();

float from_bits(std::uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}
}  // namespace

TEST_CASE("quantize_linear rounds ties half to even before the zero point", "[float_boundary]") {
  // scale 1: x / scale is x. A tie goes to the even integer, then the zero point is added.
  CHECK(quantize_linear<std::int8_t>(0.5f, 1.0f, 0) == 0);
  CHECK(quantize_linear<std::int8_t>(1.5f, 1.0f, 0) == 2);
  CHECK(quantize_linear<std::int8_t>(2.5f, 1.0f, 0) == 2);
  CHECK(quantize_linear<std::int8_t>(-0.5f, 1.0f, 0) == 0);
  CHECK(quantize_linear<std::int8_t>(-1.5f, 1.0f, 0) == -2);
  CHECK(quantize_linear<std::int8_t>(-2.5f, 1.0f, 0) == -2);
  // Not ties: nearest.
  CHECK(quantize_linear<std::int8_t>(0.49999997f, 1.0f, 0) == 0);
  CHECK(quantize_linear<std::int8_t>(0.50000006f, 1.0f, 0) == 1);
  CHECK(quantize_linear<std::int8_t>(-2.5000002f, 1.0f, 0) == -3);
  // The zero point is added after rounding: 2.5 -> 2 (even), + 1 = 3 (not round(3.5) = 4).
  CHECK(quantize_linear<std::int8_t>(2.5f, 1.0f, 1) == 3);
  CHECK(quantize_linear<std::uint8_t>(-0.5f, 1.0f, 128) == 128);
  CHECK(quantize_linear<std::uint8_t>(1.5f, 1.0f, 128) == 130);
  CHECK(quantize_linear<std::uint8_t>(-2.5f, 1.0f, 128) == 126);
  // Ties in scale units with a power-of-two scale (exact quotients): 0.375 / 0.25 = 1.5 -> 2.
  CHECK(quantize_linear<std::int8_t>(0.375f, 0.25f, -3) == -1);
  CHECK(quantize_linear<std::int8_t>(-0.625f, 0.25f, -3) == -5);  // -2.5 -> -2, - 3
}

TEST_CASE("quantize_linear divides by the scale: x * (1 / scale) is not the same", "[float_boundary]") {
  // scale 0.1f. 1.55f / 0.1f = 15.499999 in float32 (-> 15), 1.55f * (1 / 0.1f) = 15.5 (-> 16).
  const float scale = 0.1f;
  const float x1 = from_bits(0x3FC66666u);  // 1.55f
  REQUIRE(x1 == 1.55f);
  CHECK(x1 / scale == 15.499999f);
  CHECK(x1 * (1.0f / scale) == 15.5f);
  CHECK(quantize_linear<std::int8_t>(x1, scale, 0) == 15);
  CHECK(quantize_linear<std::int8_t>(-x1, scale, 0) == -15);
  // 3.2500002f / 0.1f is exactly 32.5 (a tie -> 32), times the reciprocal 32.500004 (-> 33).
  const float x2 = from_bits(0x40500001u);
  CHECK(x2 / scale == 32.5f);
  CHECK(x2 * (1.0f / scale) == 32.500004f);
  CHECK(quantize_linear<std::int8_t>(x2, scale, 0) == 32);
  CHECK(quantize_linear<std::uint8_t>(x2, scale, 100) == 132);
}

TEST_CASE("quantize_linear saturates, also at ties on the range's ends", "[float_boundary]") {
  CHECK(quantize_linear<std::int8_t>(127.4f, 1.0f, 0) == 127);
  CHECK(quantize_linear<std::int8_t>(127.5f, 1.0f, 0) == 127);
  CHECK(quantize_linear<std::int8_t>(128.0f, 1.0f, 0) == 127);
  CHECK(quantize_linear<std::int8_t>(-128.5f, 1.0f, 0) == -128);
  CHECK(quantize_linear<std::int8_t>(-129.0f, 1.0f, 0) == -128);
  // With a zero point the range in scale units moves: int8, zp = -3 -> [-125, 130].
  CHECK(quantize_linear<std::int8_t>(130.0f, 1.0f, -3) == 127);
  CHECK(quantize_linear<std::int8_t>(131.0f, 1.0f, -3) == 127);
  CHECK(quantize_linear<std::int8_t>(-125.0f, 1.0f, -3) == -128);
  CHECK(quantize_linear<std::int8_t>(-126.0f, 1.0f, -3) == -128);
  CHECK(quantize_linear<std::uint8_t>(-1.0f, 1.0f, 0) == 0);
  CHECK(quantize_linear<std::uint8_t>(255.5f, 1.0f, 0) == 255);
  CHECK(quantize_linear<std::uint8_t>(127.0f, 1.0f, 128) == 255);
  CHECK(quantize_linear<std::uint8_t>(-128.0f, 1.0f, 128) == 0);
  CHECK(quantize_linear<std::uint8_t>(-129.0f, 1.0f, 128) == 0);
  // Huge values, and quotients that overflow float (1e30 / 1e-10 = inf): no undefined
  // conversion, they saturate.
  CHECK(quantize_linear<std::int8_t>(1e30f, 0.05f, 0) == 127);
  CHECK(quantize_linear<std::int8_t>(-1e30f, 0.05f, 0) == -128);
  CHECK(quantize_linear<std::int8_t>(3e38f, 1e-10f, 0) == 127);
  CHECK(quantize_linear<std::uint8_t>(-3e38f, 1e-10f, 7) == 0);
  CHECK(quantize_linear<std::int16_t>(1e9f, 1.0f, 0) == 32767);
  CHECK(quantize_linear<std::int16_t>(-32768.5f, 1.0f, 0) == -32768);
  CHECK(quantize_linear<std::uint16_t>(70000.0f, 1.0f, 0) == 65535);
}

TEST_CASE("quantize_linear: infinities saturate, NaN gives the type's minimum", "[float_boundary]") {
  CHECK(quantize_linear<std::int8_t>(inf, 0.1f, 0) == 127);
  CHECK(quantize_linear<std::int8_t>(-inf, 0.1f, 0) == -128);
  CHECK(quantize_linear<std::uint8_t>(inf, 0.1f, 128) == 255);
  CHECK(quantize_linear<std::uint8_t>(-inf, 0.1f, 128) == 0);
  // ONNX Runtime's clamp (MAXPS / FMAXNM) returns the bound for NaN: qmin, whatever the zero point.
  CHECK(quantize_linear<std::int8_t>(qnan, 0.1f, 0) == -128);
  CHECK(quantize_linear<std::int8_t>(-qnan, 0.1f, 50) == -128);
  CHECK(quantize_linear<std::uint8_t>(qnan, 0.1f, 128) == 0);
  CHECK(quantize_linear<std::int16_t>(qnan, 0.1f, 0) == -32768);
}

TEST_CASE("quantize_linear over an array equals the scalar rule; signed zero and subnormals", "[float_boundary]") {
  const float x[] = {-0.0f, 0.0f, 1e-45f, -1e-45f, 0.05f, 0.15f, 0.25f, -0.35f, qnan, inf, -inf, 12.7f, -12.8f};
  std::int8_t q[std::size(x)];
  tessera::quantize_linear(x, q, std::size(x), 0.1f, 0);
  for (std::size_t i = 0; i < std::size(x); ++i) CHECK(q[i] == quantize_linear<std::int8_t>(x[i], 0.1f, 0));
  CHECK(q[0] == 0);
  CHECK(q[1] == 0);
  CHECK(q[2] == 0);
  CHECK(q[3] == 0);
  // 0.05f / 0.1f = 0.5 exactly in float32 -> 0; 0.15f / 0.1f = 1.5 -> 2; 0.25f / 0.1f = 2.5 -> 2.
  CHECK(0.05f / 0.1f == 0.5f);
  CHECK(q[4] == 0);
  CHECK(0.15f / 0.1f == 1.5f);
  CHECK(q[5] == 2);
  CHECK(0.25f / 0.1f == 2.5f);
  CHECK(q[6] == 2);
  CHECK(-0.35f / 0.1f == -3.5f);  // also a tie in float32: to the even -4
  CHECK(q[7] == -4);
  CHECK(q[8] == -128);
  CHECK(q[9] == 127);
  CHECK(q[10] == -128);
  CHECK(q[11] == 127);
  CHECK(q[12] == -128);
  // Usable in constant expressions (tables computed at compile time).
  static_assert(quantize_linear<std::int8_t>(2.5f, 1.0f, 0) == 2);
  static_assert(quantize_linear<std::uint8_t>(-1e30f, 1.0f, 3) == 0);
}

TEST_CASE("dequantize_linear is float(q - zero_point) * scale in float32", "[float_boundary]") {
  CHECK(dequantize_linear<std::int8_t>(-128, 0.1f, 0) == -128.0f * 0.1f);
  CHECK(dequantize_linear<std::int8_t>(127, 0.1f, -3) == 130.0f * 0.1f);
  CHECK(dequantize_linear<std::uint8_t>(0, 0.0235294122f, 128) == -128.0f * 0.0235294122f);
  CHECK(dequantize_linear<std::uint8_t>(255, 0.0235294122f, 128) == 127.0f * 0.0235294122f);
  CHECK(dequantize_linear<std::uint8_t>(128, 0.5f, 128) == 0.0f);
  CHECK(dequantize_linear<std::int16_t>(-32768, 0.25f, 0) == -8192.0f);
  const std::int8_t q[] = {-128, -1, 0, 1, 127};
  float x[std::size(q)];
  tessera::dequantize_linear(q, x, std::size(q), 0.07f, 5);
  for (std::size_t i = 0; i < std::size(q); ++i)
    CHECK(x[i] == static_cast<float>(static_cast<std::int32_t>(q[i]) - 5) * 0.07f);
  // Round trip: every integer of the type comes back.
  for (int v = -128; v <= 127; ++v) {
    const auto qv = static_cast<std::int8_t>(v);
    CHECK(quantize_linear<std::int8_t>(dequantize_linear(qv, 0.0235294122f, -7), 0.0235294122f, -7) == qv);
  }
}

TEST_CASE("quantize_fake computes the model's Div or Mul, Add, Round and Clip in float32", "[float_boundary]") {
  using tessera::quantize_fake;
  // The zero point is added before rounding: an odd one turns a tie (QuantizeLinear: 0 + 1, -2 - 1).
  CHECK(quantize_fake<std::int8_t>(0.5f, 1.0f, false, 1, -128, 127) == 2);
  CHECK(quantize_linear<std::int8_t>(0.5f, 1.0f, 1) == 1);
  CHECK(quantize_fake<std::int8_t>(-1.5f, 1.0f, false, -1, -128, 127) == -2);
  CHECK(quantize_linear<std::int8_t>(-1.5f, 1.0f, -1) == -3);
  // With zero point 0 and the type's bounds, the Div form is QuantizeLinear on every float here.
  for (std::uint32_t bits = 0x3D000000u; bits < 0x43800000u; bits += 0x1003u) {
    const float x = from_bits(bits);
    CHECK(quantize_fake<std::int8_t>(x, 0.1f, false, 0, -128, 127) == quantize_linear<std::int8_t>(x, 0.1f, 0));
    CHECK(quantize_fake<std::int8_t>(-x, 0.1f, false, 0, -128, 127) == quantize_linear<std::int8_t>(-x, 0.1f, 0));
  }
  // The Mul form multiplies by the model's multiplier, and rounds the product before adding:
  // 24.999996f * 0.1f = 2.4999998, + 3 = 5.5 in float32 (a tie: 6; a fused multiply-add: 5).
  CHECK(quantize_fake<std::int8_t>(from_bits(0x41C7FFFEu), 0.1f, true, 3, -128, 127) == 6);
  CHECK(quantize_fake<std::int8_t>(-35.0f, 0.1f, true, 3, -128, 127) == 0);  // -0.5 -> 0 (fused: -1)
  // The Clip's bounds, the type's, and NaN at the lower bound; -inf and +inf at the ends.
  CHECK(quantize_fake<std::int8_t>(200.0f, 1.0f, false, 0, -127, 100) == 100);
  CHECK(quantize_fake<std::int8_t>(-300.0f, 0.5f, true, 0, -127, 100) == -127);
  CHECK(quantize_fake<std::uint8_t>(1000.0f, 1.0f, false, 0, -1000, 1000) == 255);
  CHECK(quantize_fake<std::int8_t>(qnan, 0.1f, false, 0, -127, 127) == -127);
  CHECK(quantize_fake<std::int8_t>(-inf, 0.1f, true, 5, -128, 127) == -128);
  CHECK(quantize_fake<std::int8_t>(inf, 0.1f, false, 5, -128, 127) == 127);
  // A constant expression too.
  static_assert(quantize_fake<std::int8_t>(2.5f, 1.0f, false, 1, -128, 127) == 4);  // fl(3.5) -> 4
  static_assert(quantize_fake<std::uint8_t>(0.25f, 0.5f, true, 128, 0, 255) == 128);  // 128.125 -> 128
}

TEST_CASE("dequantize_divide is float(q - zero_point) / scale in float32", "[float_boundary]") {
  CHECK(tessera::dequantize_divide(static_cast<std::int8_t>(-7), 0.1f, 0) == -7.0f / 0.1f);
  CHECK(tessera::dequantize_divide(static_cast<std::uint8_t>(200), 0.25f, 128) == 288.0f);
  static_assert(tessera::dequantize_divide(static_cast<std::int8_t>(3), 2.0f, 1) == 1.0f);
}
