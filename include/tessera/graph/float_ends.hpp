// Which graph inputs and outputs of a network are float on the caller's side, and their
// quantization: what onnx2hpp --float-boundary emits beside the network (`float_ends`), for
// tessera::float_executor to quantize and dequantize on the device.
//
//     inline constexpr tessera::float_ends<2, 1> float_ends{
//         .inputs = {{{.is_float = true, .scale = 0.0235294122f, .zero_point = -3},  // 0: "x"
//                     {}}},                                                          // 1: integer
//         .outputs = {{{.is_float = true, .scale = 0.125f, .zero_point = 0}}}};      // 0: "y"
//
// The scale is the model's float32 scale exactly (a shortest round-trip literal); the integer
// type is the network tensor's. A fake-quantized end (the float ops an exporter writes instead
// of QuantizeLinear) says which arithmetic it has (`float_arithmetic`) and its Clip bounds.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>

namespace tessera {

/// How the model writes a float end's arithmetic (core/float_boundary.hpp has each in float32).
enum class float_arithmetic : std::uint8_t {
  /// QuantizeLinear: q = saturate(round(x / scale) + zero_point); DequantizeLinear:
  /// x = (q - zero_point) * scale.
  linear,
  /// Fake-quantized by division (Div, Add, Round, Clip, as Brevitas-style exporters write it):
  /// q = clip(round(x / scale + zero_point), lo, hi); the reverse (Sub, Div): x = (q - zero_point) / scale.
  divide,
  /// Fake-quantized by multiplication (Mul, Add, Round, Clip): q = clip(round(x * scale + zero_point),
  /// lo, hi), `scale` being the model's multiplier; the reverse (Sub, Mul) is `linear`'s.
  multiply,
};

/// One graph input or output: float on the caller's side (`real = scale * (q - zero_point)`),
/// or an integer tensor passed as it is (`is_float == false`, the other fields unused).
struct float_end {
  bool is_float = false;
  float scale = 1.0f;           ///< > 0, finite (a fake-quantized `multiply` input: the multiplier)
  std::int32_t zero_point = 0;  ///< within the tensor's type
  float_arithmetic arithmetic = float_arithmetic::linear;
  /// A fake-quantized input's Clip bounds (the tensor's type bounds them too).
  std::int32_t lo = std::numeric_limits<std::int32_t>::min();
  std::int32_t hi = std::numeric_limits<std::int32_t>::max();
};

/// One `float_end` per graph input and per graph output, in the network's order.
template <std::size_t Inputs, std::size_t Outputs>
struct float_ends {
  std::array<float_end, Inputs> inputs{};
  std::array<float_end, Outputs> outputs{};

  constexpr std::size_t float_count() const {
    std::size_t n = 0;
    for (const auto& e : inputs) n += e.is_float ? 1 : 0;
    for (const auto& e : outputs) n += e.is_float ? 1 : 0;
    return n;
  }
};

}  // namespace tessera
