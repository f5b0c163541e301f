// Hand-written networks for the static, runtime and compile-fail tests (what onnx2hpp would
// emit, small enough to check by hand).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include <tessera/tessera.hpp>

namespace tiny {

/// A two-level target with `L1` bytes of L1 (roomy L2, two cores): the L1 sweeps of the tiled tests.
template <std::size_t L1>
inline constexpr tessera::target_desc sweep_target{.name = "sweep",
                                                   .levels = {{{"L1", L1, 8, 2, 10}, {"L2", 64 * 1024, 8, 2, 10}}},
                                                   .level_count = 2,
                                                   .cores = 2};

/// The flat executor's output of network `Net` (one input, one output) on `in`: what every
/// tiled, fused or dispatched run must equal. A template, so that firmware including this
/// header instantiates no executor it does not use.
template <class Net, class Output, class Input>
Output flat_result(const Input& in) {
  alignas(16) static std::byte arena[tessera::executor<Net>::arena_bytes];
  Output out{};
  tessera::executor<Net>::run(arena, {in.data()}, {out.data()});
  return out;
}

/// `N` pseudo-random bytes (fixed LCG): the input images of the tests on these networks.
template <std::size_t N>
std::array<std::uint8_t, N> random_bytes(std::uint32_t seed) {
  std::array<std::uint8_t, N> bytes{};
  for (auto& v : bytes) {
    seed = seed * 1664525u + 1013904223u;
    v = static_cast<std::uint8_t>(seed >> 24);
  }
  return bytes;
}


// A residual block: input -> conv_a (3x3, 1->2, requant to s8) -> conv_b (1x1, 2->2, s32)
// -> add(conv_a, conv_b) + requant -> flatten -> gemm (32 -> 3, s32).
namespace residual {
inline constexpr tessera::constant<std::int8_t, 2 * 3 * 3 * 1> conv_a_weights{
    {0, 0, 0, 0, 1, 0, 0, 0, 0,    // channel 0: identity
     1, 1, 1, 1, 1, 1, 1, 1, 1}};  // channel 1: 3x3 box sum
inline constexpr tessera::constant<std::int32_t, 2> conv_a_bias{{0, -4}};
inline constexpr tessera::requant_constants<2> conv_a_requant{{2, 1}, {0, 0}, 1, -128, 127, 1};
inline constexpr tessera::constant<std::int8_t, 2 * 2> conv_b_weights{{1, 0, 0, -1}};
inline constexpr tessera::requant_constants<1> add_requant{{1}, {0}, 0, -128, 127, 1};
inline constexpr tessera::constant<std::int8_t, 3 * 32> gemm_weights = [] {
  tessera::constant<std::int8_t, 3 * 32> w{};
  for (int k = 0; k < 32; ++k) {
    w.values[static_cast<std::size_t>(k)] = 1;                                     // row 0: sum
    w.values[static_cast<std::size_t>(32 + k)] = static_cast<std::int8_t>(k % 2);  // row 1: odd positions
    w.values[static_cast<std::size_t>(64 + k)] = static_cast<std::int8_t>(-(k == 0));
  }
  return w;
}();

inline constexpr tessera::tensor_table<7> tensors{{{
    {"input", tessera::dtype::u8, {1, 4, 4, 1}},
    {"a", tessera::dtype::s8, {1, 4, 4, 2}},
    {"b", tessera::dtype::s32, {1, 4, 4, 2}},
    {"sum", tessera::dtype::s8, {1, 4, 4, 2}},
    {"flat", tessera::dtype::s8, {1, 32}},
    {"logits", tessera::dtype::s32, {1, 3}},
    {"unused", tessera::dtype::s8, {1}},
}}};

using network = tessera::network<
    tensors, tessera::graph_inputs<0>, tessera::graph_outputs<5>,
    tessera::op::conv<"conv_a",
                      {.input = 0, .output = 1, .kernel_h = 3, .kernel_w = 3, .pad_top = 1, .pad_left = 1,
                       .pad_bottom = 1, .pad_right = 1},
                      conv_a_weights, conv_a_bias, conv_a_requant>,
    tessera::op::conv<"conv_b", {.input = 1, .output = 2}, conv_b_weights>,
    tessera::op::add<"add", {.a = 1, .b = 2, .output = 3}, tessera::none, add_requant>,
    tessera::op::reshape<"flatten", {.input = 3, .output = 4}>,
    tessera::op::gemm<"fc", {.input = 4, .output = 5, .n = 3, .k = 32}, gemm_weights>>;
}  // namespace residual

// A small feature extractor with every tiled op family: conv 3x3 (3->8, requant per channel),
// depthwise 3x3 stride 2, max pool 2x2, flatten, gemm (160 -> 6). Constants are pseudo-random
// (fixed LCG) so that tiling mistakes change the result.
namespace features {
template <class T, std::size_t N>
constexpr tessera::constant<T, N> pseudo_random(std::uint32_t seed, int lo, int hi) {
  tessera::constant<T, N> c{};
  for (auto& v : c.values) {
    seed = seed * 1664525u + 1013904223u;
    v = static_cast<T>(lo + static_cast<int>((seed >> 16) % static_cast<std::uint32_t>(hi - lo + 1)));
  }
  return c;
}
template <std::size_t L>
constexpr tessera::requant_constants<L> requant(std::uint32_t seed, int shift, std::int32_t lo, std::int32_t hi) {
  tessera::requant_constants<L> r{};
  const auto mul = pseudo_random<std::int32_t, L>(seed, 1, 40);
  const auto add = pseudo_random<std::int32_t, L>(seed + 1, -300, 300);
  r.mul = mul.values;
  r.add = add.values;
  r.shift = shift;
  r.lo = lo;
  r.hi = hi;
  return r;
}
inline constexpr auto conv_weights = pseudo_random<std::int8_t, 8 * 3 * 3 * 3>(1, -128, 127);
inline constexpr auto conv_bias = pseudo_random<std::int32_t, 8>(2, -2000, 2000);
inline constexpr auto conv_requant = requant<8>(3, 10, -128, 127);
inline constexpr auto dw_weights = pseudo_random<std::int8_t, 8 * 3 * 3>(4, -128, 127);
inline constexpr auto dw_requant = requant<8>(5, 9, -128, 127);
inline constexpr auto fc_weights = pseudo_random<std::int8_t, 6 * 160>(6, -128, 127);
inline constexpr auto fc_bias = pseudo_random<std::int32_t, 6>(7, -5000, 5000);

inline constexpr tessera::tensor_table<6> tensors{{{
    {"image", tessera::dtype::u8, {1, 12, 10, 3}},
    {"conv", tessera::dtype::s8, {1, 12, 10, 8}},
    {"dw", tessera::dtype::s8, {1, 6, 5, 8}},
    {"pool", tessera::dtype::s8, {1, 5, 4, 8}},
    {"flat", tessera::dtype::s8, {1, 160}},
    {"logits", tessera::dtype::s32, {1, 6}},
}}};

using network = tessera::network<
    tensors, tessera::graph_inputs<0>, tessera::graph_outputs<5>,
    tessera::op::conv<"conv",
                      {.input = 0, .output = 1, .kernel_h = 3, .kernel_w = 3, .pad_top = 1, .pad_left = 1,
                       .pad_bottom = 1, .pad_right = 1},
                      conv_weights, conv_bias, conv_requant>,
    tessera::op::conv<"dw",
                      {.input = 1, .output = 2, .kernel_h = 3, .kernel_w = 3, .stride_h = 2, .stride_w = 2,
                       .pad_top = 1, .pad_left = 1, .pad_bottom = 1, .pad_right = 1, .groups = 8},
                      dw_weights, tessera::none, dw_requant>,
    tessera::op::max_pool<"pool", {.input = 2, .output = 3, .kernel_h = 2, .kernel_w = 2}>,
    tessera::op::reshape<"flatten", {.input = 3, .output = 4}>,
    tessera::op::gemm<"fc", {.input = 4, .output = 5, .n = 6, .k = 160}, fc_weights, fc_bias>>;
}  // namespace features

// A fully connected chain (the autoencoders' shape): input (256, s8) -> fc1 (256 -> 64,
// requant per channel, s8: 16,384 MACs) -> fc2 (64 -> 40, per tensor, s8: 2,560 MACs) -> fc3
// (40 -> 7, bias, s32: 280 MACs). Pseudo-random constants: a core reading another's filters or
// requantization entries changes the result (runtime/cluster.hpp's channel bands), and fc1's
// 16 kB of filters take far longer to come from a slow L3 than it computes (streaming filters
// block by block, planning/target_plan.hpp).
namespace mlp {
using features::pseudo_random;
using features::requant;
inline constexpr auto fc1_weights = pseudo_random<std::int8_t, 64 * 256>(11, -128, 127);
inline constexpr auto fc1_bias = pseudo_random<std::int32_t, 64>(12, -3000, 3000);
inline constexpr auto fc1_requant = requant<64>(13, 12, -128, 127);
inline constexpr auto fc2_weights = pseudo_random<std::int8_t, 40 * 64>(14, -128, 127);
inline constexpr auto fc2_requant = requant<1>(15, 10, -128, 127);
inline constexpr auto fc3_weights = pseudo_random<std::int8_t, 7 * 40>(16, -128, 127);
inline constexpr auto fc3_bias = pseudo_random<std::int32_t, 7>(17, -5000, 5000);

inline constexpr tessera::tensor_table<4> tensors{{{
    {"input", tessera::dtype::s8, {1, 256}},
    {"h1", tessera::dtype::s8, {1, 64}},
    {"h2", tessera::dtype::s8, {1, 40}},
    {"logits", tessera::dtype::s32, {1, 7}},
}}};

using network = tessera::network<
    tensors, tessera::graph_inputs<0>, tessera::graph_outputs<3>,
    tessera::op::gemm<"fc1", {.input = 0, .output = 1, .n = 64, .k = 256}, fc1_weights, fc1_bias, fc1_requant>,
    tessera::op::gemm<"fc2", {.input = 1, .output = 2, .n = 40, .k = 64}, fc2_weights, tessera::none, fc2_requant>,
    tessera::op::gemm<"fc3", {.input = 2, .output = 3, .n = 7, .k = 40}, fc3_weights, fc3_bias>>;
}  // namespace mlp

// Three 128 -> 128 fully connected layers (the middle of the ToyADMOS autoencoder): each one's
// 16 kB of filters load about as long as it computes on a PULP cluster, so whether the next
// layer's first filters load during its last tile (cross-layer prefetch) decides its tiles.
namespace dense_chain {
using features::pseudo_random;
using features::requant;
inline constexpr auto fc1_weights = pseudo_random<std::int8_t, 128 * 128>(31, -128, 127);
inline constexpr auto fc2_weights = pseudo_random<std::int8_t, 128 * 128>(32, -128, 127);
inline constexpr auto fc3_weights = pseudo_random<std::int8_t, 128 * 128>(33, -128, 127);
inline constexpr auto bias = pseudo_random<std::int32_t, 128>(34, -3000, 3000);
inline constexpr auto fc1_requant = requant<1>(35, 12, -128, 127);
inline constexpr auto fc2_requant = requant<128>(36, 12, -128, 127);

inline constexpr tessera::tensor_table<4> tensors{{{
    {"input", tessera::dtype::s8, {1, 128}},
    {"h1", tessera::dtype::s8, {1, 128}},
    {"h2", tessera::dtype::s8, {1, 128}},
    {"scores", tessera::dtype::s32, {1, 128}},
}}};

using network = tessera::network<
    tensors, tessera::graph_inputs<0>, tessera::graph_outputs<3>,
    tessera::op::gemm<"fc1", {.input = 0, .output = 1, .n = 128, .k = 128}, fc1_weights, bias, fc1_requant>,
    tessera::op::gemm<"fc2", {.input = 1, .output = 2, .n = 128, .k = 128}, fc2_weights, tessera::none, fc2_requant>,
    tessera::op::gemm<"fc3", {.input = 2, .output = 3, .n = 128, .k = 128}, fc3_weights, bias>>;
}  // namespace dense_chain

// Two depthwise-separable blocks (the MobileNet pattern the planner fuses, planning/fusion.hpp):
// conv 3x3 (3->8), depthwise 3x3 (8) + pointwise (8->12), depthwise 3x3 stride 2 with
// asymmetric padding (12) + a Cast-like alias (as torch's exports have) + pointwise (12->16,
// requantised per channel), max pool, gemm.
namespace separable {
using features::pseudo_random;
using features::requant;
inline constexpr auto conv_weights = pseudo_random<std::int8_t, 8 * 3 * 3 * 3>(11, -128, 127);
inline constexpr auto conv_requant = requant<8>(12, 10, -128, 127);
inline constexpr auto dw1_weights = pseudo_random<std::int8_t, 8 * 3 * 3>(13, -128, 127);
inline constexpr auto dw1_bias = pseudo_random<std::int32_t, 8>(14, -3000, 3000);
inline constexpr auto dw1_requant = requant<8>(15, 9, 0, 127);
inline constexpr auto pw1_weights = pseudo_random<std::int8_t, 12 * 8>(16, -128, 127);
inline constexpr auto pw1_requant = requant<1>(17, 8, -128, 127);
inline constexpr auto dw2_weights = pseudo_random<std::int8_t, 12 * 3 * 3>(18, -128, 127);
inline constexpr auto dw2_requant = requant<12>(19, 9, -128, 127);
inline constexpr auto pw2_weights = pseudo_random<std::int8_t, 16 * 12>(20, -128, 127);
inline constexpr auto pw2_bias = pseudo_random<std::int32_t, 16>(21, -2000, 2000);
inline constexpr auto pw2_requant = requant<16>(22, 9, -128, 127);
inline constexpr auto fc_weights = pseudo_random<std::int8_t, 5 * 112>(23, -128, 127);

inline constexpr tessera::tensor_table<10> tensors{{{
    {"image", tessera::dtype::u8, {1, 14, 11, 3}},
    {"conv", tessera::dtype::s8, {1, 14, 11, 8}},
    {"dw1", tessera::dtype::s8, {1, 14, 11, 8}},
    {"pw1", tessera::dtype::s8, {1, 14, 11, 12}},
    {"dw2", tessera::dtype::s8, {1, 7, 5, 12}},
    {"dw2_cast", tessera::dtype::s8, {1, 7, 5, 12}},
    {"pw2", tessera::dtype::s8, {1, 7, 5, 16}},
    {"pool", tessera::dtype::s8, {1, 7, 1, 16}},
    {"flat", tessera::dtype::s8, {1, 112}},
    {"logits", tessera::dtype::s32, {1, 5}},
}}};

using network = tessera::network<
    tensors, tessera::graph_inputs<0>, tessera::graph_outputs<9>,
    tessera::op::conv<"conv",
                      {.input = 0, .output = 1, .kernel_h = 3, .kernel_w = 3, .pad_top = 1, .pad_left = 1,
                       .pad_bottom = 1, .pad_right = 1},
                      conv_weights, tessera::none, conv_requant>,
    tessera::op::conv<"dw1",
                      {.input = 1, .output = 2, .kernel_h = 3, .kernel_w = 3, .pad_top = 1, .pad_left = 1,
                       .pad_bottom = 1, .pad_right = 1, .groups = 8},
                      dw1_weights, dw1_bias, dw1_requant>,
    tessera::op::conv<"pw1", {.input = 2, .output = 3}, pw1_weights, tessera::none, pw1_requant>,
    tessera::op::conv<"dw2",
                      {.input = 3, .output = 4, .kernel_h = 3, .kernel_w = 3, .stride_h = 2, .stride_w = 2,
                       .pad_top = 1, .pad_left = 0, .pad_bottom = 1, .pad_right = 1, .groups = 12},
                      dw2_weights, tessera::none, dw2_requant>,
    tessera::op::reshape<"cast", {.input = 4, .output = 5}>,
    tessera::op::conv<"pw2", {.input = 5, .output = 6}, pw2_weights, pw2_bias, pw2_requant>,
    tessera::op::max_pool<"pool", {.input = 6, .output = 7, .kernel_h = 1, .kernel_w = 5}>,
    tessera::op::reshape<"flatten", {.input = 7, .output = 8}>,
    tessera::op::gemm<"fc", {.input = 8, .output = 9, .n = 5, .k = 112}, fc_weights>>;

using image = std::array<std::uint8_t, 14 * 11 * 3>;
using logits = std::array<std::int32_t, 5>;
/// A pseudo-random input image.
inline image random_image(std::uint32_t seed) { return random_bytes<14 * 11 * 3>(seed); }
/// The flat executor's logits (flat_result).
template <class Net = network>
logits run_flat(const image& in) {
  return flat_result<Net, logits>(in);
}
}  // namespace separable

// An inverted-residual-like expansion (MobileNetV2's shape, without the residual): image (12 x
// 10 x 4, u8) -> expand (1x1, 4 -> 22, per-channel requantisation to [0, 127]) -> dw (3x3
// depthwise, 22 channels, bias) -> project (1x1, 22 -> 6) -> pool (4x5) -> flatten -> fc (36 ->
// 5, s32). The block expand -> dw has a narrow input and a wide intermediate (22 channels:
// blocks of 4, 6 or 8 leave a leftover block), where a pointwise -> depthwise block over
// channel blocks pays off (planning/fusion.hpp); it is the first layer, so that on a target
// whose L3 has a DMA engine of its own its filters stream from L3 block by block (nothing
// before it hides them whole).
namespace expansion {
using features::pseudo_random;
using features::requant;
inline constexpr auto expand_weights = pseudo_random<std::int8_t, 22 * 4>(33, -128, 127);
inline constexpr auto expand_bias = pseudo_random<std::int32_t, 22>(34, -2000, 2000);
inline constexpr auto expand_requant = requant<22>(35, 8, 0, 127);
inline constexpr auto dw_weights = pseudo_random<std::int8_t, 22 * 3 * 3>(36, -128, 127);
inline constexpr auto dw_bias = pseudo_random<std::int32_t, 22>(37, -3000, 3000);
inline constexpr auto dw_requant = requant<22>(38, 9, -128, 127);
inline constexpr auto project_weights = pseudo_random<std::int8_t, 6 * 22>(39, -128, 127);
inline constexpr auto project_requant = requant<6>(40, 9, -128, 127);
inline constexpr auto fc_weights = pseudo_random<std::int8_t, 5 * 36>(41, -128, 127);

inline constexpr tessera::tensor_table<7> tensors{{{
    {"image", tessera::dtype::u8, {1, 12, 10, 4}},
    {"expand", tessera::dtype::s8, {1, 12, 10, 22}},
    {"dw", tessera::dtype::s8, {1, 12, 10, 22}},
    {"project", tessera::dtype::s8, {1, 12, 10, 6}},
    {"pool", tessera::dtype::s8, {1, 3, 2, 6}},
    {"flat", tessera::dtype::s8, {1, 36}},
    {"logits", tessera::dtype::s32, {1, 5}},
}}};

using network = tessera::network<
    tensors, tessera::graph_inputs<0>, tessera::graph_outputs<6>,
    tessera::op::conv<"expand", {.input = 0, .output = 1}, expand_weights, expand_bias, expand_requant>,
    tessera::op::conv<"dw",
                      {.input = 1, .output = 2, .kernel_h = 3, .kernel_w = 3, .pad_top = 1, .pad_left = 1,
                       .pad_bottom = 1, .pad_right = 1, .groups = 22},
                      dw_weights, dw_bias, dw_requant>,
    tessera::op::conv<"project", {.input = 2, .output = 3}, project_weights, tessera::none, project_requant>,
    tessera::op::max_pool<"pool", {.input = 3, .output = 4, .kernel_h = 4, .kernel_w = 5, .stride_h = 4, .stride_w = 5}>,
    tessera::op::reshape<"flatten", {.input = 4, .output = 5}>,
    tessera::op::gemm<"fc", {.input = 5, .output = 6, .n = 5, .k = 36}, fc_weights>>;

using image = std::array<std::uint8_t, 12 * 10 * 4>;
using logits = std::array<std::int32_t, 5>;
inline image random_image(std::uint32_t seed) { return random_bytes<12 * 10 * 4>(seed); }
template <class Net = network>
logits run_flat(const image& in) {
  return flat_result<Net, logits>(in);
}
}  // namespace expansion

}  // namespace tiny
