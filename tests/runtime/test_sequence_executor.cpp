// Runtime tests of the sequence executor (runtime/sequence_executor.hpp): a hand-built
// attention head over a KV cache held in place, step by step to the capacity, against the same
// attention computed on explicitly concatenated caches with the reference kernels; overflow,
// reset, and the compile-time layout.
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <catch2/catch.hpp>

#include <tessera/tessera.hpp>

namespace {

constexpr int heads = 2, head_dim = 4, capacity = 6;

// q, k and v of one token, the caches, Q K^T (int32, then int8), the softmax, the output.
inline constexpr tessera::tensor_table<9> tensors{{{
    {"q", tessera::dtype::s8, {1, heads, 1, head_dim}},
    {"k_new", tessera::dtype::s8, {1, heads, 1, head_dim}},
    {"v_new", tessera::dtype::s8, {1, heads, 1, head_dim}},
    {"k_cache", tessera::dtype::s8, {1, heads, capacity, head_dim}, 2, true},
    {"v_cache", tessera::dtype::s8, {1, heads, capacity, head_dim}, 2, true},
    {"scores", tessera::dtype::s32, {1, heads, 1, capacity}, 3},
    {"scores_q", tessera::dtype::s8, {1, heads, 1, capacity}, 3},
    {"weights", tessera::dtype::u8, {1, heads, 1, capacity}, 3},
    {"y", tessera::dtype::s8, {1, heads, 1, head_dim}},
}}};
inline constexpr tessera::requant_constants<1> scores_rq{{3}, {0}, 3, -128, 127, 1};
inline constexpr tessera::requant_constants<1> out_rq{{5}, {0}, 10, -128, 127, 1};
inline constexpr tessera::op::softmax_params softmax{.kind = tessera::op::softmax_kind::i_softmax, .coeff_a = 256,
                                                     .coeff_b = 5, .coeff_c = 15, .log2 = 4, .n_levels = 256,
                                                     .group_width = 16};

using network = tessera::network<
    tensors, tessera::graph_inputs<0, 1, 2>, tessera::graph_outputs<8, 3, 4>,
    tessera::op::state_append<"k_cache", {.rows = 1, .state = 3, .axis = 2}>,
    tessera::op::state_append<"v_cache", {.rows = 2, .state = 4, .axis = 2}>,
    tessera::op::matmul<"scores", {.a = 0, .b = 3, .output = 5, .b_transposed = true}>,
    tessera::op::requant_shift<"scores_q", {.input = 5, .output = 6}, scores_rq>,
    tessera::op::softmax<"weights", {.input = 6, .output = 7, .params = softmax}>,
    tessera::op::matmul<"y", {.a = 7, .b = 4, .output = 8}, out_rq>>;
using run = tessera::sequence_executor<network>;

static_assert(run::capacity == capacity && run::rows_per_call == 1 && !run::from_empty_only);
static_assert(run::layout.buffers.size() == 2 && run::layout.buffers[0].axis == 2);
// The caches are the caller's: 2 x 48 bytes in the state, none of them in the arena.
static_assert(run::layout.bytes() == 2 * 48 && sizeof(run::state) >= 96);
static_assert(run::arena_bytes < 2 * heads * capacity * 4 + 64);

using i8 = std::int8_t;

/// The step's output from explicit caches of `n` positions (rows appended in order), with
/// the reference kernels on compact buffers.
std::array<i8, heads * head_dim> attention(const std::vector<std::array<i8, heads * head_dim>>& keys,
                                           const std::vector<std::array<i8, heads * head_dim>>& values,
                                           const std::array<i8, heads * head_dim>& q) {
  const int n = static_cast<int>(keys.size());
  std::vector<std::int32_t> scores(static_cast<std::size_t>(heads * n));
  for (int h = 0; h < heads; ++h)
    for (int p = 0; p < n; ++p) {
      std::int32_t acc = 0;
      for (int d = 0; d < head_dim; ++d)
        acc += q[static_cast<std::size_t>(h * head_dim + d)] * keys[static_cast<std::size_t>(p)][static_cast<std::size_t>(h * head_dim + d)];
      scores[static_cast<std::size_t>(h * n + p)] = acc;
    }
  std::vector<i8> scores_q(scores.size());
  tessera::kernels::reference::requant_shift(static_cast<std::int64_t>(scores.size()), scores.data(), scores_rq.params(),
                                             scores_q.data());
  std::vector<std::uint8_t> weights(scores.size());
  tessera::kernels::reference::integer_softmax(heads, n, scores_q.data(), softmax, weights.data());
  std::array<i8, heads * head_dim> y{};
  for (int h = 0; h < heads; ++h)
    for (int d = 0; d < head_dim; ++d) {
      std::int32_t acc = 0;
      for (int p = 0; p < n; ++p)
        acc += weights[static_cast<std::size_t>(h * n + p)] * values[static_cast<std::size_t>(p)][static_cast<std::size_t>(h * head_dim + d)];
      y[static_cast<std::size_t>(h * head_dim + d)] = static_cast<i8>(out_rq.params().apply(acc, 0));
    }
  return y;
}

std::array<i8, heads * head_dim> random_row(std::uint32_t& seed) {
  std::array<i8, heads * head_dim> r{};
  for (auto& v : r) {
    seed = seed * 1664525u + 1013904223u;
    v = static_cast<i8>(seed >> 24);
  }
  return r;
}

}  // namespace

TEST_CASE("sequence executor: a KV cache in place equals attention over explicit caches", "[sequence]") {
  alignas(16) static std::byte arena[run::arena_bytes];
  run::state state;
  std::uint32_t seed = 7;
  for (int round = 0; round < 2; ++round) {  // the second round after reset()
    std::vector<std::array<i8, heads * head_dim>> keys, values;
    for (int step = 0; step < capacity; ++step) {
      const auto q = random_row(seed), k = random_row(seed), v = random_row(seed);
      keys.push_back(k);
      values.push_back(v);
      std::array<i8, heads * head_dim> y{};
      REQUIRE(run::step(arena, state, {q.data(), k.data(), v.data()}, {y.data()}) == tessera::step_status::ok);
      REQUIRE(state.length() == step + 1);
      CHECK(y == attention(keys, values, q));
      // The cache holds every row so far, at the capacity's stride.
      for (int h = 0; h < heads; ++h)
        for (int p = 0; p <= step; ++p)
          for (int d = 0; d < head_dim; ++d) {
            const std::size_t at = static_cast<std::size_t>((h * capacity + p) * head_dim + d);
            const std::size_t row = static_cast<std::size_t>(h * head_dim + d);
            CHECK(state.buffer<0>()[at] == keys[static_cast<std::size_t>(p)][row]);
            CHECK(state.buffer<1>()[at] == values[static_cast<std::size_t>(p)][row]);
          }
    }
    // Full: reported, nothing run or written.
    const auto q = random_row(seed), k = random_row(seed), v = random_row(seed);
    std::array<i8, heads * head_dim> y{}, y_before{};
    y.fill(42);
    y_before = y;
    std::array<i8, 2 * heads * capacity * head_dim> cache_before{};
    std::copy_n(state.buffer<0>(), heads * capacity * head_dim, cache_before.begin());
    CHECK(run::step(arena, state, {q.data(), k.data(), v.data()}, {y.data()}) == tessera::step_status::full);
    CHECK(state.length() == capacity);
    CHECK(y == y_before);
    CHECK(std::equal(state.buffer<0>(), state.buffer<0>() + heads * capacity * head_dim, cache_before.begin()));
    state.reset();
    CHECK(state.length() == 0);
  }
}
