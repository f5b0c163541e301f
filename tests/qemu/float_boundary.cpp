// The float ends of a network on the core (core/float_boundary.hpp): quantize_linear and
// dequantize_linear at run time on the target's own float arithmetic — Cortex-M4F/M7/M55
// hardware single precision, rv32imc soft float (libgcc's __divsf3, __mulsf3), rv32gcv's F
// extension — against the values worked out by hand for the host test
// (tests/runtime/test_float_boundary.cpp): ties in both directions, a scale where dividing differs
// from multiplying by the reciprocal, saturation, infinities, NaN, subnormals; and quantize_fake,
// whose multiply-add a compiler must not fuse on cores with FMA (VFMA, fmadd.s). The inputs are
// read through volatile so that the compiler cannot fold the divisions on the host.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>

#include <tessera/core/float_boundary.hpp>

namespace {

float from_bits(std::uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}
std::uint32_t bits_of(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

enum class type : std::uint8_t { s8, u8, s16 };
struct quantize_case {
  type t;
  std::uint32_t x;  ///< bits of the float input
  float scale;
  std::int32_t zero_point;
  std::int32_t expected;
};

constexpr std::uint32_t inf = 0x7F800000u, minus_inf = 0xFF800000u, nan = 0x7FC00000u, minus_nan = 0xFFC00000u;
constexpr std::uint32_t b(float f) { return __builtin_bit_cast(std::uint32_t, f); }

volatile const quantize_case quantize_cases[] = {
    // ties go to the even integer, then the zero point is added
    {type::s8, b(0.5f), 1.0f, 0, 0},
    {type::s8, b(1.5f), 1.0f, 0, 2},
    {type::s8, b(2.5f), 1.0f, 0, 2},
    {type::s8, b(-0.5f), 1.0f, 0, 0},
    {type::s8, b(-1.5f), 1.0f, 0, -2},
    {type::s8, b(-2.5f), 1.0f, 0, -2},
    {type::s8, b(0.49999997f), 1.0f, 0, 0},
    {type::s8, b(0.50000006f), 1.0f, 0, 1},
    {type::s8, b(-2.5000002f), 1.0f, 0, -3},
    {type::s8, b(2.5f), 1.0f, 1, 3},
    {type::u8, b(-0.5f), 1.0f, 128, 128},
    {type::u8, b(1.5f), 1.0f, 128, 130},
    {type::u8, b(-2.5f), 1.0f, 128, 126},
    {type::s8, b(0.375f), 0.25f, -3, -1},
    {type::s8, b(-0.625f), 0.25f, -3, -5},
    // x / 0.1f, not x * (1 / 0.1f): 1.55f -> 15.499999 (15), 3.2500002f -> 32.5 (a tie: 32)
    {type::s8, 0x3FC66666u, 0.1f, 0, 15},
    {type::s8, 0xBFC66666u, 0.1f, 0, -15},
    {type::s8, 0x40500001u, 0.1f, 0, 32},
    {type::u8, 0x40500001u, 0.1f, 100, 132},
    {type::s8, b(0.15f), 0.1f, 0, 2},   // 1.5 in float32
    {type::s8, b(0.25f), 0.1f, 0, 2},   // 2.5
    {type::s8, b(-0.35f), 0.1f, 0, -4}, // -3.5
    // saturation, also at ties on the range's ends and with a zero point
    {type::s8, b(127.5f), 1.0f, 0, 127},
    {type::s8, b(-128.5f), 1.0f, 0, -128},
    {type::s8, b(130.0f), 1.0f, -3, 127},
    {type::s8, b(-126.0f), 1.0f, -3, -128},
    {type::u8, b(255.5f), 1.0f, 0, 255},
    {type::u8, b(-129.0f), 1.0f, 128, 0},
    {type::s8, b(1e30f), 0.05f, 0, 127},
    {type::s8, b(3e38f), 1e-10f, 0, 127},  // the quotient overflows to inf
    {type::u8, b(-3e38f), 1e-10f, 7, 0},
    {type::s16, b(1e9f), 1.0f, 0, 32767},
    {type::s16, b(-32768.5f), 1.0f, 0, -32768},
    // infinities saturate; NaN gives the type's minimum (as ONNX Runtime)
    {type::s8, inf, 0.1f, 0, 127},
    {type::s8, minus_inf, 0.1f, 0, -128},
    {type::u8, inf, 0.1f, 128, 255},
    {type::s8, nan, 0.1f, 0, -128},
    {type::s8, minus_nan, 0.1f, 50, -128},
    {type::u8, nan, 0.1f, 128, 0},
    {type::s16, nan, 0.1f, 0, -32768},
    // signed zero and subnormals
    {type::s8, b(-0.0f), 0.1f, 0, 0},
    {type::s8, 0x00000001u, 0.1f, 0, 0},
    {type::s8, 0x80000001u, 0.1f, 0, 0},
};

std::int32_t quantize(type t, float x, float scale, std::int32_t zero_point) {
  switch (t) {
    case type::s8: return tessera::quantize_linear<std::int8_t>(x, scale, zero_point);
    case type::u8: return tessera::quantize_linear<std::uint8_t>(x, scale, zero_point);
    case type::s16: return tessera::quantize_linear<std::int16_t>(x, scale, zero_point);
  }
  return 0;
}

// Fake-quantized inputs (quantize_fake): the model's own float ops, the zero point added before
// rounding, two roundings where a multiply-add would fuse.
struct fake_case {
  std::uint32_t x;
  float scale;
  bool multiply;
  std::int32_t zero_point, lo, hi;
  std::int32_t expected;  ///< int8
};
volatile const fake_case fake_cases[] = {
    // an odd zero point turns a tie the other way: fl(0.5 + 1) = 1.5 -> 2 (QuantizeLinear: 0 + 1)
    {b(0.5f), 1.0f, false, 1, -128, 127, 2},
    {b(-1.5f), 1.0f, false, -1, -128, 127, -2},  // -2.5 -> -2 (QuantizeLinear: -2 - 1 = -3)
    // x * 0.1f + 3 with two roundings: 2.4999998 + 3 rounds to 5.5 (a tie: 6); fused it is
    // 5.4999998 (5). -35 * 0.1f = -3.5, + 3 = -0.5 (0); fused -0.50000006 (-1).
    {0x41C7FFFEu, 0.1f, true, 3, -128, 127, 6},
    {b(-35.0f), 0.1f, true, 3, -128, 127, 0},
    {0x43987FFFu, 0.1f, true, 3, -128, 127, 34},
    // the Clip's own bounds, and NaN at the lower one
    {b(200.0f), 1.0f, false, 0, -127, 100, 100},
    {b(-300.0f), 0.5f, true, 0, -127, 100, -127},
    {nan, 0.1f, false, 0, -127, 127, -127},
};

struct dequantize_case {
  std::int32_t q;
  float scale;
  std::int32_t zero_point;
  float expected;  ///< the IEEE float32 product, folded by the compiler on the host
};
volatile const dequantize_case dequantize_cases[] = {
    {-128, 0.1f, 0, -128.0f * 0.1f},
    {127, 0.1f, -3, 130.0f * 0.1f},
    {0, 0.0235294122f, 128, -128.0f * 0.0235294122f},
    {255, 0.0235294122f, 128, 127.0f * 0.0235294122f},
    {128, 0.5f, 128, 0.0f},
    {-1, 0.07f, 5, -6.0f * 0.07f},
};

}  // namespace

int main() {
  int failures = 0, checked = 0;
  for (const volatile quantize_case& c : quantize_cases) {
    const std::int32_t q = quantize(c.t, from_bits(c.x), c.scale, c.zero_point);
    ++checked;
    if (q != c.expected) {
      std::printf("MISMATCH quantize x=0x%08lx scale=0x%08lx zp=%ld: %ld, expected %ld\n",
                  static_cast<unsigned long>(c.x), static_cast<unsigned long>(bits_of(c.scale)),
                  static_cast<long>(c.zero_point), static_cast<long>(q), static_cast<long>(c.expected));
      ++failures;
    }
  }
  for (const volatile fake_case& c : fake_cases) {
    // `multiply` a constant in each call, as a model's float end has it: what a compiler fuses.
    const std::int32_t q =
        c.multiply ? tessera::quantize_fake<std::int8_t>(from_bits(c.x), c.scale, true, c.zero_point, c.lo, c.hi)
                   : tessera::quantize_fake<std::int8_t>(from_bits(c.x), c.scale, false, c.zero_point, c.lo, c.hi);
    ++checked;
    if (q != c.expected) {
      std::printf("MISMATCH quantize_fake x=0x%08lx multiply=%d zp=%ld: %ld, expected %ld\n",
                  static_cast<unsigned long>(c.x), c.multiply ? 1 : 0, static_cast<long>(c.zero_point),
                  static_cast<long>(q), static_cast<long>(c.expected));
      ++failures;
    }
  }
  {  // the reverse of a fake quantization by division: (q - zp) / scale, one rounding
    const volatile float scale = 0.1f;
    const float x = tessera::dequantize_divide(static_cast<std::int8_t>(-7), scale, 0);
    ++checked;
    if (bits_of(x) != bits_of(-7.0f / 0.1f)) {
      std::printf("MISMATCH dequantize_divide: 0x%08lx\n", static_cast<unsigned long>(bits_of(x)));
      ++failures;
    }
  }
  for (const volatile dequantize_case& c : dequantize_cases) {
    float x = 0;
    if (c.q >= -128 && c.q <= 127) {
      const auto q = static_cast<std::int8_t>(c.q);
      tessera::dequantize_linear(&q, &x, 1, c.scale, c.zero_point);
    } else {
      const auto q = static_cast<std::uint8_t>(c.q);
      tessera::dequantize_linear(&q, &x, 1, c.scale, c.zero_point);
    }
    ++checked;
    if (bits_of(x) != bits_of(c.expected)) {
      std::printf("MISMATCH dequantize q=%ld: 0x%08lx, expected 0x%08lx\n", static_cast<long>(c.q),
                  static_cast<unsigned long>(bits_of(x)), static_cast<unsigned long>(bits_of(c.expected)));
      ++failures;
    }
  }
  std::printf("float boundary: %d cases, %d failures\n", checked, failures);
  return failures > 127 ? 127 : failures;
}
