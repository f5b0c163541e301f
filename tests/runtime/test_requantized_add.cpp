// RequantizedAdd (ops/requantized_add.hpp) against what it replaces: two standalone RequantShift
// nodes onto a common 16-bit scale and the Add of their outputs, as onnx2hpp lowers an Add of
// two different scales. The oracle is the unfused network on the flat executor (its nodes are
// the corpus-tested RequantShift and Add); the fused node runs flat and tiled through a small
// L1 (leftover rows, two cores), on random operands with every extreme value.
#include <array>
#include <cstdint>
#include <limits>
#include <random>

#include <catch2/catch.hpp>
#include <tessera/dma/simulated_policy.hpp>
#include <tessera/tessera.hpp>

#include "../support/tiny_networks.hpp"

namespace {

constexpr int rows = 5, cols = 7, channels = 6;
constexpr std::size_t elements = rows * cols * channels;

// torch's residual Add (tools/onnx2hpp/src/lower_quantized.cpp, integer_add): a u8 operand with
// a zero point and an s8 one, each onto the common scale max(s_a, s_b) / 128 in s16, the sum
// requantized to u8 (the constants of torch ResNet-8's first Add).
inline constexpr tessera::requant_constants<1> torch_a{{16777216}, {-2063597568}, 17, -32768, 32767, 1};
inline constexpr tessera::requant_constants<1> torch_b{{1808034056}, {0}, 25, -32768, 32767, 1};
inline constexpr tessera::requant_constants<1> torch_sum{{1363613355}, {0}, 37, 0, 255, 1};
// Per-channel operand requantization narrower than its type (the clamp matters), a sum
// requantized per channel to s8.
inline constexpr tessera::requant_constants<channels> channel_a{
    {300, -77, 1 << 20, 5, 40000, 1}, {-100, 7, 0, 1 << 12, -(1 << 20), 3}, 6, -3000, 2500, 1};
inline constexpr tessera::requant_constants<channels> channel_sum{
    {9, 1000, -3, 77, 1 << 16, 123456}, {0, -50, 2, 1 << 10, 3, -99}, 10, -128, 127, 1};

template <tessera::dtype A, tessera::dtype Mid, tessera::dtype Out>
inline constexpr tessera::tensor_table<5> unfused_tensors{{{
    {"a", A, {1, rows, cols, channels}},
    {"b", tessera::dtype::s8, {1, rows, cols, channels}},
    {"a_rescaled", Mid, {1, rows, cols, channels}},
    {"b_rescaled", Mid, {1, rows, cols, channels}},
    {"sum", Out, {1, rows, cols, channels}},
}}};
template <tessera::dtype A, tessera::dtype Out>
inline constexpr tessera::tensor_table<3> fused_tensors{{{
    {"a", A, {1, rows, cols, channels}},
    {"b", tessera::dtype::s8, {1, rows, cols, channels}},
    {"sum", Out, {1, rows, cols, channels}},
}}};

/// Both operands requantized (torch's form).
template <tessera::dtype A, tessera::dtype Mid, tessera::dtype Out, auto const& RA, auto const& RB, auto const& R>
struct both_rescaled {
  using unfused = tessera::network<unfused_tensors<A, Mid, Out>, tessera::graph_inputs<0, 1>, tessera::graph_outputs<4>,
                                   tessera::op::requant_shift<"rescale_a", {.input = 0, .output = 2}, RA>,
                                   tessera::op::requant_shift<"rescale_b", {.input = 1, .output = 3}, RB>,
                                   tessera::op::add<"add", {.a = 2, .b = 3, .output = 4}, tessera::none, R>>;
  using fused = tessera::network<fused_tensors<A, Out>, tessera::graph_inputs<0, 1>, tessera::graph_outputs<2>,
                                 tessera::op::requantized_add<"add", {.a = 0, .b = 1, .output = 2}, RA, RB, R>>;
};

/// Only the first operand requantized (Deeploy's ResNet-8: RequantShift_17 into Add_22); the
/// second read as it is.
template <tessera::dtype A, tessera::dtype Mid, tessera::dtype Out, auto const& RA, auto const& R>
struct a_rescaled {
  static constexpr tessera::tensor_table<4> tensors{{{
      {"a", A, {1, rows, cols, channels}},
      {"b", tessera::dtype::s8, {1, rows, cols, channels}},
      {"a_rescaled", Mid, {1, rows, cols, channels}},
      {"sum", Out, {1, rows, cols, channels}},
  }}};
  using unfused = tessera::network<tensors, tessera::graph_inputs<0, 1>, tessera::graph_outputs<3>,
                                   tessera::op::requant_shift<"rescale_a", {.input = 0, .output = 2}, RA>,
                                   tessera::op::add<"add", {.a = 2, .b = 1, .output = 3}, tessera::none, R>>;
  using fused = tessera::network<fused_tensors<A, Out>, tessera::graph_inputs<0, 1>, tessera::graph_outputs<2>,
                                 tessera::op::requantized_add<"add", {.a = 0, .b = 1, .output = 2}, RA, tessera::none, R>>;
};

template <class Out, class Net, class TA>
std::array<Out, elements> run_flat(const std::array<TA, elements>& a, const std::array<std::int8_t, elements>& b) {
  alignas(16) static std::byte arena[tessera::executor<Net>::arena_bytes + 1];
  std::array<Out, elements> out{};
  tessera::executor<Net>::run(arena, {a.data(), b.data()}, {out.data()});
  return out;
}

template <class Out, class Net, std::size_t L1, class TA>
std::array<Out, elements> run_tiled(const std::array<TA, elements>& a, const std::array<std::int8_t, elements>& b,
                                    std::uint64_t& hazards, std::int64_t& tiles) {
  using run = tessera::tiled_executor<Net, tessera::target<tiny::sweep_target<L1>>>;
  alignas(16) static std::byte l2[run::l2_bytes];
  alignas(16) static std::byte l1[run::l1_bytes];
  std::array<Out, elements> out{};
  tessera::dma::simulated_policy<> dma(tiny::sweep_target<L1>);
  run::run(l2, l1, {a.data(), b.data()}, {out.data()}, dma);
  dma.finish();
  hazards = dma.hazard_count();
  tiles = run::plan.layers[0].solution.cost.tiles;
  return out;
}

/// Random operands whose first elements are every pair of extremes.
template <class TA>
void fill(std::uint32_t seed, std::array<TA, elements>& a, std::array<std::int8_t, elements>& b) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> any(0, 255);
  for (auto& v : a) v = static_cast<TA>(any(rng));
  for (auto& v : b) v = static_cast<std::int8_t>(any(rng) - 128);
  const TA a_ext[] = {std::numeric_limits<TA>::min(), std::numeric_limits<TA>::max(), TA{0}};
  const std::int8_t b_ext[] = {-128, 127, 0};
  std::size_t i = 0;
  for (TA x : a_ext)
    for (std::int8_t y : b_ext) a[i] = x, b[i] = y, ++i;
}

/// The fused node, flat and tiled at two L1 sizes, equals the unfused network on five seeds.
template <class Case, class TA, class Out>
void check_case() {
  for (std::uint32_t seed = 1; seed <= 5; ++seed) {
    std::array<TA, elements> a{};
    std::array<std::int8_t, elements> b{};
    fill(seed, a, b);
    const auto expected = run_flat<Out, typename Case::unfused>(a, b);
    CHECK(run_flat<Out, typename Case::fused>(a, b) == expected);
    std::uint64_t hazards = 1;
    std::int64_t tiles = 0;
    // 3 x 96 B fit 16 rows of 6 elements a tile (double-buffered: 8): 35 rows leave a leftover.
    CHECK(run_tiled<Out, typename Case::fused, 600>(a, b, hazards, tiles) == expected);
    CHECK(hazards == 0);
    CHECK(tiles > 2);
    CHECK(run_tiled<Out, typename Case::fused, 4096>(a, b, hazards, tiles) == expected);
    CHECK(hazards == 0);
  }
}

}  // namespace

TEST_CASE("RequantizedAdd equals its RequantShift nodes and the Add, flat and tiled", "[requantized_add]") {
  SECTION("torch's residual Add: u8 and s8 onto s16, the sum to u8") {
    check_case<both_rescaled<tessera::dtype::u8, tessera::dtype::s16, tessera::dtype::u8, torch_a, torch_b, torch_sum>,
               std::uint8_t, std::uint8_t>();
  }
  SECTION("a per-channel operand requantization that clamps, the sum per channel to s8") {
    check_case<a_rescaled<tessera::dtype::s8, tessera::dtype::s16, tessera::dtype::s8, channel_a, channel_sum>,
               std::int8_t, std::int8_t>();
  }
  // onnx2hpp leaves this form unfused (an 8-bit RequantShift feeds the vector families' Add
  // kernels, which run it faster); the node takes it all the same.
  SECTION("Deeploy's ResNet-8: one operand requantized onto the other's s8 scale, the sum to u8") {
    static constexpr tessera::requant_constants<1> deeploy_a{{32768}, {0}, 16, -128, 127, 1};
    static constexpr tessera::requant_constants<1> deeploy_sum{{131072}, {0}, 16, 0, 255, 1};
    check_case<a_rescaled<tessera::dtype::s8, tessera::dtype::s8, tessera::dtype::u8, deeploy_a, deeploy_sum>,
               std::int8_t, std::uint8_t>();
  }
}

// One layer instead of three, and no 16-bit tensor between them: less arena.
using torch_case = both_rescaled<tessera::dtype::u8, tessera::dtype::s16, tessera::dtype::u8, torch_a, torch_b, torch_sum>;
static_assert(torch_case::fused::node_count == 1 && torch_case::unfused::node_count == 3);
static_assert(tessera::executor<torch_case::fused>::arena_bytes < tessera::executor<torch_case::unfused>::arena_bytes);
