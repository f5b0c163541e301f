// The KV cache in place: a small Llama-style decoder (make_llama_models.py, Deeploy's dialect)
// converted with `onnx2hpp --state ... --max-context 64` runs an autoregressive loop of 64 steps
// on one caller-owned state (runtime/sequence_executor.hpp). The oracle is the numpy reference's
// trajectory: the same tokens decoded step by step with the caches passed in explicitly (the
// graph's own form, checked against the exported graph by the generator). At every step the
// output and every cached row equal it; a prefill of 8 tokens then steps 8..63 equal decoding
// from scratch; a full state and a prefill on a non-empty state are refused untouched. The same
// decoder with ITAMax (which cannot mask, so it has no prefill to compare) decodes 64 steps too.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "kv_state_cache.hpp"
#include "llama_state_itamax_step.hpp"
#include "llama_state_itamax_trajectory.hpp"
#include "llama_state_prefill.hpp"
#include "llama_state_step.hpp"
#include "llama_state_step_unfused.hpp"
#include "llama_state_trajectory.hpp"

namespace {

using step_fused = tessera::sequence_executor<llama_state_step::network>;
using step_unfused = tessera::sequence_executor<llama_state_step_unfused::network>;
using prefill = tessera::sequence_executor<llama_state_prefill::network>;
using step_itamax = tessera::sequence_executor<llama_state_itamax_step::network>;
using state = step_fused::state;

/// One trajectory (make_llama_models.py write_state_case): tokens [T, 1, d], rotary [T, hd, hd],
/// outputs [T, 1, d], K/V rows [layers, T, heads, hd], and with iSoftmax the prefill's outputs.
template <const auto& Arrays, const auto& Tokens, const auto& Ropes, const auto& Outputs, const auto& KRows,
          const auto& VRows>
struct trajectory {
  static constexpr int steps = static_cast<int>(Arrays[0].logical.dims[0]);
  static constexpr int d_model = static_cast<int>(Arrays[0].logical.dims[2]);
  static constexpr int head_dim = static_cast<int>(Arrays[1].logical.dims[1]);
  static constexpr int layers = static_cast<int>(Arrays[3].logical.dims[0]);
  static constexpr int heads = static_cast<int>(Arrays[3].logical.dims[2]);
  static constexpr const auto& tokens = Tokens;
  static constexpr const auto& ropes = Ropes;
  static constexpr const auto& outputs = Outputs;
  static constexpr const auto& k_rows = KRows;
  static constexpr const auto& v_rows = VRows;
};
namespace t_isoftmax = llama_state_trajectory;
namespace t_itamax = llama_state_itamax_trajectory;
using isoftmax = trajectory<t_isoftmax::arrays, t_isoftmax::array_0, t_isoftmax::array_1, t_isoftmax::array_2,
                            t_isoftmax::array_3, t_isoftmax::array_4>;
using itamax = trajectory<t_itamax::arrays, t_itamax::array_0, t_itamax::array_1, t_itamax::array_2, t_itamax::array_3,
                          t_itamax::array_4>;
constexpr int steps = isoftmax::steps, d_model = isoftmax::d_model, head_dim = isoftmax::head_dim;
constexpr int layers = isoftmax::layers, heads = isoftmax::heads;
constexpr int prompt = static_cast<int>(t_isoftmax::arrays[5].logical.dims[1]);

// One state type for the networks: the prefill fills what the steps continue (ITAMax's decoder
// has the same caches, so the same state type too).
static_assert(std::is_same_v<state, step_unfused::state> && std::is_same_v<state, prefill::state> &&
              std::is_same_v<state, step_itamax::state>);
static_assert(state::capacity == steps && state::buffer_count == 2 * layers);
static_assert(step_fused::rows_per_call == 1 && !step_fused::from_empty_only);
static_assert(prefill::rows_per_call == prompt && prefill::from_empty_only);
// The caches live in the state, not in the arena: 2 x layers x heads x 64 x hd int8 bytes.
static_assert(state::layout.bytes() == std::size_t{2} * layers * heads * steps * head_dim);

template <class Array>
std::int64_t at(const Array& a, std::size_t i) {
  return static_cast<std::int64_t>(a[i]);
}

/// Token t's input buffers (int8 on the device): the token and its rotary matrix.
template <class Case>
struct token_inputs {
  std::array<std::int8_t, d_model> x{};
  std::array<std::int8_t, head_dim * head_dim> rope{};
  explicit token_inputs(int t) {
    for (int i = 0; i < d_model; ++i) x[static_cast<std::size_t>(i)] = static_cast<std::int8_t>(at(Case::tokens, static_cast<std::size_t>(t * d_model + i)));
    for (int i = 0; i < head_dim * head_dim; ++i)
      rope[static_cast<std::size_t>(i)] =
          static_cast<std::int8_t>(at(Case::ropes, static_cast<std::size_t>(t * head_dim * head_dim + i)));
  }
};

/// Rows [0, length) of every cache equal the trajectory's; counts the differences.
template <class Case>
int cache_differences(const state& s) {
  return tessera::testing::cache_differences(s, Case::k_rows, Case::v_rows, steps, heads, head_dim);
}

/// Steps [from, to) with `Run` on `s`; each output and the caches against the trajectory.
template <class Case, class Run>
void decode(state& s, int from, int to) {
  alignas(16) static std::byte arena[Run::arena_bytes];
  for (int t = from; t < to; ++t) {
    const token_inputs<Case> in(t);
    std::array<std::int8_t, d_model> y{};
    REQUIRE(Run::step(arena, s, {in.x.data(), in.rope.data()}, {y.data()}) == tessera::step_status::ok);
    REQUIRE(s.length() == t + 1);
    int wrong = 0;
    for (int i = 0; i < d_model; ++i)
      wrong += y[static_cast<std::size_t>(i)] != at(Case::outputs, static_cast<std::size_t>(t * d_model + i));
    INFO("step " << t);
    CHECK(wrong == 0);
    CHECK(cache_differences<Case>(s) == 0);
  }
}

}  // namespace

TEST_CASE("state_decode_64_steps") {
  static state s;
  decode<isoftmax, step_fused>(s, 0, steps);
}

TEST_CASE("state_decode_64_steps_unfused") {
  static state s;
  decode<isoftmax, step_unfused>(s, 0, steps);
}

TEST_CASE("state_decode_64_steps_itamax") {
  static state s;
  decode<itamax, step_itamax>(s, 0, steps);
}

TEST_CASE("state_prefill_then_decode") {
  static state s;
  alignas(16) static std::byte arena[prefill::arena_bytes];
  std::array<std::int8_t, prompt * d_model> x{}, y{};
  std::array<std::int8_t, prompt * head_dim * head_dim> rope{};
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<std::int8_t>(at(t_isoftmax::array_0, i));
  for (std::size_t i = 0; i < rope.size(); ++i) rope[i] = static_cast<std::int8_t>(at(t_isoftmax::array_1, i));
  REQUIRE(prefill::step(arena, s, {x.data(), rope.data()}, {y.data()}) == tessera::step_status::ok);
  REQUIRE(s.length() == prompt);
  int wrong = 0;
  for (std::size_t i = 0; i < y.size(); ++i) wrong += y[i] != at(t_isoftmax::array_5, i);
  CHECK(wrong == 0);
  CHECK(cache_differences<isoftmax>(s) == 0);
  decode<isoftmax, step_fused>(s, prompt, steps);

  // Full: refused, nothing written. A prefill on a non-empty state: refused too.
  const token_inputs<isoftmax> in(0);
  std::array<std::int8_t, d_model> out{};
  out.fill(77);
  static state before;
  before = s;
  alignas(16) static std::byte step_arena[step_fused::arena_bytes];
  CHECK(step_fused::step(step_arena, s, {in.x.data(), in.rope.data()}, {out.data()}) == tessera::step_status::full);
  CHECK(prefill::step(arena, s, {x.data(), rope.data()}, {y.data()}) == tessera::step_status::not_empty);
  CHECK(s.length() == steps);
  for (int i = 0; i < d_model; ++i) CHECK(out[static_cast<std::size_t>(i)] == 77);
  CHECK(std::memcmp(&before, &s, sizeof(state)) == 0);

  // After reset the state decodes from scratch again.
  s.reset();
  CHECK(s.length() == 0);
  decode<isoftmax, step_fused>(s, 0, 3);
}
