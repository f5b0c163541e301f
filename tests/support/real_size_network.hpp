// A real-sized layer for the planning tests: a 3x3 convolution (3 -> 8 channels, padded) over
// a 1024 x 1024 RGB image, as onnx2hpp would emit it (tests/compile_fail/real_size_does_not_fit.cpp,
// tests/planning/test_real_size_plans.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include <tessera/tessera.hpp>

namespace big {
inline constexpr tessera::constant<std::int8_t, 8 * 3 * 3 * 3> weights = [] {
  tessera::constant<std::int8_t, 8 * 3 * 3 * 3> w{};
  for (std::size_t i = 0; i < w.values.size(); ++i) w.values[i] = static_cast<std::int8_t>(static_cast<int>(i % 7) - 3);
  return w;
}();
inline constexpr tessera::requant_constants<1> requant{{3}, {0}, 8, -128, 127, 1};
inline constexpr tessera::tensor_table<2> tensors{{{
    {"image", tessera::dtype::u8, {1, 1024, 1024, 3}},
    {"features", tessera::dtype::s8, {1, 1024, 1024, 8}},
}}};
using network = tessera::network<
    tensors, tessera::graph_inputs<0>, tessera::graph_outputs<1>,
    tessera::op::conv<"conv", {.input = 0, .output = 1, .kernel_h = 3, .kernel_w = 3, .pad_top = 1, .pad_left = 1,
                                .pad_bottom = 1, .pad_right = 1},
                      weights, tessera::none, requant>>;
}  // namespace big
