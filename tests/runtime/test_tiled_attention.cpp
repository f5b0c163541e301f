// Attention tiled through L1 (issue 10, item 3): a hand-built attention head whose two MatMuls
// of activations (Q K^T with K read transposed, the softmax weights times V) tile over the rows
// of the sequence, one head per image, each tile loading its rows of A and its head's whole B.
// Bit-exact with the flat executor and hazard-free on the simulated DMA over an L1 sweep from
// the smallest plannable L1 to untiled and on the PULP presets; the compile-time plan splits the
// rows where L1 is short.
#include <array>
#include <cstddef>
#include <cstdint>

#include <catch2/catch.hpp>

#include <tessera/dma/simulated_policy.hpp>
#include <tessera/tessera.hpp>

#include "../support/tiny_networks.hpp"

namespace {

constexpr int heads = 4, positions = 24, head_dim = 8;

inline constexpr tessera::tensor_table<7> tensors{{{
    {"q", tessera::dtype::s8, {1, heads, positions, head_dim}},
    {"k", tessera::dtype::s8, {1, heads, positions, head_dim}},
    {"v", tessera::dtype::s8, {1, heads, positions, head_dim}},
    {"scores", tessera::dtype::s32, {1, heads, positions, positions}},
    {"scores_q", tessera::dtype::s8, {1, heads, positions, positions}},
    {"weights", tessera::dtype::u8, {1, heads, positions, positions}},
    {"y", tessera::dtype::s8, {1, heads, positions, head_dim}},
}}};
inline constexpr tessera::requant_constants<1> scores_rq{{3}, {0}, 4, -128, 127, 1};
inline constexpr tessera::requant_constants<1> out_rq{{5}, {0}, 9, -128, 127, 1};
inline constexpr tessera::op::softmax_params softmax{.kind = tessera::op::softmax_kind::i_softmax, .coeff_a = 256,
                                                     .coeff_b = 5, .coeff_c = 15, .log2 = 4, .n_levels = 256,
                                                     .group_width = 16};

using network = tessera::network<
    tensors, tessera::graph_inputs<0, 1, 2>, tessera::graph_outputs<6>,
    tessera::op::matmul<"scores", {.a = 0, .b = 1, .output = 3, .b_transposed = true}>,
    tessera::op::requant_shift<"scores_q", {.input = 3, .output = 4}, scores_rq>,
    tessera::op::softmax<"weights", {.input = 4, .output = 5, .params = softmax}>,
    tessera::op::matmul<"y", {.a = 5, .b = 2, .output = 6}, out_rq>>;

// Each MatMul tiles as a Gemm over the rows of one head, the head's B read whole.
constexpr tessera::tile_geometry scores_tiles = network::summary.nodes[0].geometry;
static_assert(scores_tiles.kind == tessera::tiling_kind::tiled && scores_tiles.batch == heads);
static_assert(scores_tiles.out_h == positions && scores_tiles.out_c == positions && scores_tiles.in_c == head_dim);
static_assert(scores_tiles.whole_operand_bytes == positions * head_dim && scores_tiles.channel_step == positions);
constexpr tessera::tile_geometry y_tiles = network::summary.nodes[3].geometry;
static_assert(y_tiles.kind == tessera::tiling_kind::tiled && y_tiles.whole_operand_bytes == positions * head_dim);

using tiny::sweep_target;
constexpr std::size_t l1_min = tessera::smallest_l1_bytes(network::summary, sweep_target<0>);
constexpr std::size_t l1_max = tessera::untiled_l1_bytes(network::summary, sweep_target<0>);
static_assert(l1_min < l1_max);
constexpr std::size_t l1_mid = (l1_min + l1_max) / 2 / 16 * 16;

struct inputs {
  std::array<std::int8_t, heads * positions * head_dim> q{}, k{}, v{};
};
inputs random_inputs(std::uint32_t seed) {
  inputs in;
  for (auto* t : {&in.q, &in.k, &in.v}) {
    const auto bytes = tiny::random_bytes<heads * positions * head_dim>(seed++);
    for (std::size_t i = 0; i < bytes.size(); ++i) (*t)[i] = static_cast<std::int8_t>(bytes[i]);
  }
  return in;
}

using output = std::array<std::int8_t, heads * positions * head_dim>;

output run_flat(const inputs& in) {
  alignas(16) static std::byte arena[tessera::executor<network>::arena_bytes];
  output y{};
  tessera::executor<network>::run(arena, {in.q.data(), in.k.data(), in.v.data()}, {y.data()});
  return y;
}

template <tessera::target_desc Target>
struct tiled_run {
  using run = tessera::tiled_executor<network, tessera::target<Target>>;
  output y{};
  std::uint64_t hazards = 0;
  std::int64_t product_tiles = 0;  ///< tiles of the two MatMuls

  explicit tiled_run(const inputs& in) {
    alignas(16) static std::byte l2[run::l2_bytes];
    alignas(16) static std::byte l1[run::l1_bytes];
    tessera::dma::simulated_policy<> dma(Target);
    run::run(l2, l1, {in.q.data(), in.k.data(), in.v.data()}, {y.data()}, dma);
    dma.finish();
    hazards = dma.hazard_count();
    for (std::size_t n : {std::size_t{0}, std::size_t{3}})
      if (run::plan.layers[n].tiled) product_tiles += run::plan.layers[n].solution.cost.tiles;
  }
};

template <tessera::target_desc Target>
void check_tiled(std::uint32_t seed, std::int64_t least_product_tiles) {
  const inputs in = random_inputs(seed);
  const tiled_run<Target> tiled(in);
  CHECK(tiled.y == run_flat(in));
  CHECK(tiled.hazards == 0);
  CHECK(tiled.product_tiles >= least_product_tiles);
}

}  // namespace

TEST_CASE("attention tiles through L1: bit-exact and hazard-free from the smallest L1 to untiled", "[tiling][attention]") {
  for (std::uint32_t seed : {1u, 7u}) {
    // At the smallest L1 the rows of each head split: more tiles than heads in each product.
    check_tiled<sweep_target<l1_min>>(seed, 2 * heads + 2);
    check_tiled<sweep_target<l1_mid>>(seed, 2 * heads);
    check_tiled<sweep_target<l1_max>>(seed, 2 * heads);  // one tile per head
    check_tiled<tessera::targets::gap8>(seed, 2 * heads);
    check_tiled<tessera::targets::siracusa>(seed, 2 * heads);
  }
}

TEST_CASE("attention tiles through L1: a tile loads its head's B once, whole", "[tiling][attention]") {
  using run = tessera::tiled_executor<network, tessera::target<sweep_target<l1_min>>>;
  constexpr auto& layer = run::plan.layers[0];
  static_assert(layer.tiled && layer.solution.tile.c == positions && layer.solution.tile.h < positions);
  // The input slot holds the rows of Q and, after them, the head's K.
  static_assert(layer.solution.cost.input_bytes ==
                tessera::l1_aligned(static_cast<std::size_t>(layer.solution.tile.h) * head_dim) + positions * head_dim);
  CHECK(layer.solution.cost.tiles == heads * ((positions + layer.solution.tile.h - 1) / layer.solution.tile.h));
}
