// A keyword-spotting network shaped like MLPerf Tiny's DS-CNN (small): the firmware whose
// library code size issue 4 bounds (<= 16 kB .text on Cortex-M4), and a whole-network
// instruction count. Pseudo-random int8 weights (fixed LCG): the shapes and the code matter
// here, not the accuracy.
//
//   input 49x10x1 (MFCC) -> conv 10x4 s2 (pads t4 b5 l1 r1), 1->64, ReLU
//   -> 4 x [depthwise 3x3 p1, 64 ch, ReLU -> pointwise 1x1, 64->64, ReLU]
//   -> average pool 25x5 -> flatten -> fully connected 64->12 (int32 logits)
#pragma once

#include <tessera/tessera.hpp>

namespace kws {

template <class T, std::size_t N>
constexpr tessera::constant<T, N> pseudo_random(std::uint32_t seed, int lo, int hi) {
  tessera::constant<T, N> c{};
  for (auto& v : c.values) {
    seed = seed * 1664525u + 1013904223u;
    v = static_cast<T>(lo + static_cast<int>((seed >> 16) % static_cast<std::uint32_t>(hi - lo + 1)));
  }
  return c;
}

/// The firmware's input: one pseudo-random MFCC map.
inline constexpr auto sample_input = pseudo_random<std::int8_t, 49 * 10>(7, -128, 127);

/// Per-channel requantization to int8 with a fused ReLU (lo = 0).
template <std::size_t L>
constexpr tessera::requant_constants<L> relu_requant(std::uint32_t seed, int shift) {
  tessera::requant_constants<L> r{};
  r.mul = pseudo_random<std::int32_t, L>(seed, 1 << 13, 1 << 14).values;
  r.add = pseudo_random<std::int32_t, L>(seed + 1, -(1 << 18), 1 << 18).values;
  r.shift = shift;
  r.lo = 0;
  r.hi = 127;
  return r;
}

inline constexpr auto conv0_w = pseudo_random<std::int8_t, 64 * 10 * 4 * 1>(1, -128, 127);
inline constexpr auto conv0_b = pseudo_random<std::int32_t, 64>(2, -1000, 1000);
inline constexpr auto conv0_rq = relu_requant<64>(3, 20);

template <int Block>
struct block_constants {
  static constexpr auto dw_w = pseudo_random<std::int8_t, 64 * 3 * 3>(10 + 10 * Block, -128, 127);
  static constexpr auto dw_b = pseudo_random<std::int32_t, 64>(11 + 10 * Block, -1000, 1000);
  static constexpr auto dw_rq = relu_requant<64>(12 + 10 * Block, 18);
  static constexpr auto pw_w = pseudo_random<std::int8_t, 64 * 64>(14 + 10 * Block, -128, 127);
  static constexpr auto pw_b = pseudo_random<std::int32_t, 64>(15 + 10 * Block, -1000, 1000);
  static constexpr auto pw_rq = relu_requant<64>(16 + 10 * Block, 21);
};

inline constexpr auto fc_w = pseudo_random<std::int8_t, 12 * 64>(90, -128, 127);
inline constexpr auto fc_b = pseudo_random<std::int32_t, 12>(91, -1000, 1000);

// Tensors: 0 input, 1 conv0, then per block b: 2+2b depthwise out, 3+2b pointwise out; 10 pool, 11 flat, 12 logits.
inline constexpr tessera::tensor_table<13> tensors{{{
    {"input", tessera::dtype::s8, {1, 49, 10, 1}},
    {"conv0", tessera::dtype::s8, {1, 25, 5, 64}},
    {"dw1", tessera::dtype::s8, {1, 25, 5, 64}},
    {"pw1", tessera::dtype::s8, {1, 25, 5, 64}},
    {"dw2", tessera::dtype::s8, {1, 25, 5, 64}},
    {"pw2", tessera::dtype::s8, {1, 25, 5, 64}},
    {"dw3", tessera::dtype::s8, {1, 25, 5, 64}},
    {"pw3", tessera::dtype::s8, {1, 25, 5, 64}},
    {"dw4", tessera::dtype::s8, {1, 25, 5, 64}},
    {"pw4", tessera::dtype::s8, {1, 25, 5, 64}},
    {"pool", tessera::dtype::s8, {1, 1, 1, 64}},
    {"flat", tessera::dtype::s8, {1, 64}},
    {"logits", tessera::dtype::s32, {1, 12}},
}}};

template <int Block, tessera::fixed_name Name>
using depthwise = tessera::op::conv<Name, {.input = 2 * Block - 1, .output = 2 * Block, .kernel_h = 3, .kernel_w = 3,
                                           .pad_top = 1, .pad_left = 1, .pad_bottom = 1, .pad_right = 1, .groups = 64},
                                    block_constants<Block>::dw_w, block_constants<Block>::dw_b,
                                    block_constants<Block>::dw_rq>;
template <int Block, tessera::fixed_name Name>
using pointwise = tessera::op::conv<Name, {.input = 2 * Block, .output = 2 * Block + 1}, block_constants<Block>::pw_w,
                                    block_constants<Block>::pw_b, block_constants<Block>::pw_rq>;

using network = tessera::network<
    tensors, tessera::graph_inputs<0>, tessera::graph_outputs<12>,
    tessera::op::conv<"conv0",
                      {.input = 0, .output = 1, .kernel_h = 10, .kernel_w = 4, .stride_h = 2, .stride_w = 2,
                       .pad_top = 4, .pad_left = 1, .pad_bottom = 5, .pad_right = 1},
                      conv0_w, conv0_b, conv0_rq>,
    depthwise<1, "dw1">, pointwise<1, "pw1">, depthwise<2, "dw2">, pointwise<2, "pw2">, depthwise<3, "dw3">,
    pointwise<3, "pw3">, depthwise<4, "dw4">, pointwise<4, "pw4">,
    tessera::op::average_pool<"pool", {.input = 9, .output = 10, .kernel_h = 25, .kernel_w = 5}>,
    tessera::op::reshape<"flatten", {.input = 10, .output = 11}>,
    tessera::op::gemm<"fc", {.input = 11, .output = 12, .n = 12, .k = 64}, fc_w, fc_b>>;

}  // namespace kws
