// The KV cache in place, tiled through L1: the decoder of kv_state.cpp (make_llama_models.py,
// `onnx2hpp --state ... --max-context 64`) stepped by `tiled_executor::step` on the cluster
// presets and on small L1s, through the simulated DMA. The plan and its step program are the
// capacity's (64 positions); each step moves the live part of every planned box and computes
// over the live length (node_summary::growth). Oracle: the numpy reference's trajectory, as for
// the flat run. At every step of 64 the output and every cached row equal it and the simulated
// DMA reports no hazard; a prefill of 8 tokens, tiled, then steps 8..63 equal it too; the same
// decoder with ITAMax decodes 64 steps on siracusa.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <tessera/dma/simulated_policy.hpp>

#include "kv_state_cache.hpp"
#include "llama_state_itamax_step.hpp"
#include "llama_state_itamax_trajectory.hpp"
#include "llama_state_prefill.hpp"
#include "llama_state_step.hpp"
#include "llama_state_trajectory.hpp"

namespace {

namespace t = llama_state_trajectory;
using step_net = llama_state_step::network;
using prefill_net = llama_state_prefill::network;

constexpr int steps = static_cast<int>(t::arrays[0].logical.dims[0]);
constexpr int d_model = static_cast<int>(t::arrays[0].logical.dims[2]);
constexpr int head_dim = static_cast<int>(t::arrays[1].logical.dims[1]);
constexpr int heads = static_cast<int>(t::arrays[3].logical.dims[2]);
constexpr int prompt = static_cast<int>(t::arrays[5].logical.dims[1]);

/// A two-level target with `L1` bytes of L1 (the layers that must split do: the FFN's rows
/// cannot, one token is one row, so small L1s split channels).
template <std::size_t L1>
inline constexpr tessera::target_desc small_l1{.name = "small",
                                               .levels = {{{"L1", L1, 8, 2, 10}, {"L2", 256 * 1024, 8, 2, 10}}},
                                               .level_count = 2,
                                               .cores = 1};

// Where the summary puts the run-time length: attention's products, the score offset and the
// softmax tile through L1 and grow with it; the appends run on the state in L2.
constexpr std::size_t node_named(const char* name) {
  for (std::size_t n = 0; n < step_net::node_count; ++n)
    if (step_net::summary.nodes[n].name == tessera::fixed_name::of(name)) return n;
  return step_net::node_count;
}
constexpr const tessera::tile_geometry& geometry(const char* name) {
  return step_net::summary.nodes[node_named(name)].geometry;
}
constexpr const tessera::sequence_growth& growth(const char* name) {
  return step_net::summary.nodes[node_named(name)].growth;
}
static_assert(geometry("layers_0_scores_matmul").kind == tessera::tiling_kind::tiled);
static_assert(growth("layers_0_scores_matmul").out_c == 1);  // N: one key per position
static_assert(growth("layers_0_scores_matmul").whole_operand_is_state);
static_assert(growth("layers_0_scores_matmul").whole_operand_bytes == head_dim);  // int8 keys
static_assert(growth("layers_0_attn_matmul").in_c == 1);  // K: one value row per position
static_assert(growth("layers_0_attn_matmul").macs_per_output == 1);
static_assert(geometry("layers_0_scores_biased").kind == tessera::tiling_kind::tiled);
static_assert(growth("layers_0_softmax").out_c == 1 &&
              geometry("layers_0_softmax").channel_step == geometry("layers_0_softmax").out_c);
static_assert(geometry("k_cache_0_out").kind == tessera::tiling_kind::in_place);
static_assert(growth("layers_0_q_matmul").capacity == 0);  // the projections do not follow the length
// At a length the geometry is the capacity's less what the missing positions take.
constexpr tessera::live_extent five{&growth("layers_0_attn_matmul"), 5};
static_assert(tessera::at_length(geometry("layers_0_attn_matmul"), five).in_c == 5);
static_assert(tessera::at_length(geometry("layers_0_attn_matmul"), five).whole_operand_bytes == 5u * head_dim);

// L1 forwarding in a decoder step (planning/l1_forwarding.hpp): one-token layers that read the
// previous layer's result in L1 — a residual Add its second operand among them — and none of
// the layers that follow the length (they move and compute the live part of their boxes).
static_assert([] {
  using run = tessera::tiled_executor<step_net, tessera::target<tessera::targets::siracusa>>;
  bool second_operand = false;
  int forwarded = 0;
  for (std::size_t n = 0; n < step_net::node_count; ++n) {
    const auto& l = run::plan.layers[n];
    if (l.forwarded_operand >= 0) ++forwarded;
    if (l.forwarded_operand == 1) second_operand = true;
    if (run::summary.nodes[n].growth.capacity > 0 && (l.forwarded_operand >= 0 || l.output_forwarded)) return false;
  }
  return second_operand && forwarded >= 4;
}());

template <class Array>
std::int64_t at(const Array& a, std::size_t i) {
  return static_cast<std::int64_t>(a[i]);
}

/// A decoder's trajectory (make_llama_models.py write_state_case): tokens, rotary matrices,
/// outputs, K and V rows.
template <const auto& Tokens, const auto& Ropes, const auto& Outputs, const auto& KRows, const auto& VRows>
struct trajectory {
  static constexpr const auto& tokens = Tokens;
  static constexpr const auto& ropes = Ropes;
  static constexpr const auto& outputs = Outputs;
  static constexpr const auto& k_rows = KRows;
  static constexpr const auto& v_rows = VRows;
};
using isoftmax = trajectory<t::array_0, t::array_1, t::array_2, t::array_3, t::array_4>;
namespace ti = llama_state_itamax_trajectory;
using itamax = trajectory<ti::array_0, ti::array_1, ti::array_2, ti::array_3, ti::array_4>;

template <class Run, class Case = isoftmax>
int cache_differences(const typename Run::state& s) {
  return tessera::testing::cache_differences(s, Case::k_rows, Case::v_rows, steps, heads, head_dim);
}

/// Steps [from, to) on `s`, each through the simulated DMA; outputs, caches and hazards checked.
template <class Run, class Case = isoftmax>
void decode(typename Run::state& s, int from, int to, tessera::target_desc target) {
  alignas(16) static std::byte l2[Run::l2_bytes];
  alignas(16) static std::byte l1[Run::l1_bytes];
  for (int step = from; step < to; ++step) {
    std::array<std::int8_t, d_model> x{}, y{};
    std::array<std::int8_t, head_dim * head_dim> rope{};
    for (int i = 0; i < d_model; ++i)
      x[static_cast<std::size_t>(i)] = static_cast<std::int8_t>(at(Case::tokens, static_cast<std::size_t>(step * d_model + i)));
    for (int i = 0; i < head_dim * head_dim; ++i)
      rope[static_cast<std::size_t>(i)] =
          static_cast<std::int8_t>(at(Case::ropes, static_cast<std::size_t>(step * head_dim * head_dim + i)));
    tessera::dma::simulated_policy<> dma(target);
    REQUIRE(Run::step(l2, l1, s, {x.data(), rope.data()}, {y.data()}, dma) == tessera::step_status::ok);
    dma.finish();
    REQUIRE(s.length() == step + 1);
    int wrong = 0;
    for (int i = 0; i < d_model; ++i)
      wrong += y[static_cast<std::size_t>(i)] != at(Case::outputs, static_cast<std::size_t>(step * d_model + i));
    INFO("step " << step << ", first hazard: " << (dma.hazard_log().empty() ? "none" : dma.hazard_log().front()));
    CHECK(wrong == 0);
    CHECK(cache_differences<Run, Case>(s) == 0);
    CHECK(dma.hazard_count() == 0);
  }
}

template <tessera::target_desc Target>
void decode_on() {
  using run = tessera::tiled_executor<step_net, tessera::target<Target>>;
  static typename run::state s;
  s.reset();
  decode<run>(s, 0, steps, Target);
}

}  // namespace

TEST_CASE("tiled_state_decode_64_steps_siracusa") { decode_on<tessera::targets::siracusa>(); }
TEST_CASE("tiled_state_decode_64_steps_gap8") { decode_on<tessera::targets::gap8>(); }
TEST_CASE("tiled_state_decode_64_steps_l1_4k") { decode_on<small_l1<4096>>(); }
TEST_CASE("tiled_state_decode_64_steps_l1_2k") { decode_on<small_l1<2048>>(); }

TEST_CASE("tiled_state_decode_64_steps_itamax_siracusa") {
  using run = tessera::tiled_executor<llama_state_itamax_step::network, tessera::target<tessera::targets::siracusa>>;
  static_assert(std::is_same_v<run::state, tessera::tiled_executor<step_net, tessera::target<tessera::targets::siracusa>>::state>);
  static run::state s;
  decode<run, itamax>(s, 0, steps, tessera::targets::siracusa);
}

TEST_CASE("tiled_state_prefill_then_decode") {
  constexpr tessera::target_desc target = tessera::targets::siracusa;
  using fill = tessera::tiled_executor<prefill_net, tessera::target<target>>;
  using run = tessera::tiled_executor<step_net, tessera::target<target>>;
  static_assert(std::is_same_v<fill::state, run::state>);
  static run::state s;
  alignas(16) static std::byte l2[fill::l2_bytes];
  alignas(16) static std::byte l1[fill::l1_bytes];
  std::array<std::int8_t, prompt * d_model> x{}, y{};
  std::array<std::int8_t, prompt * head_dim * head_dim> rope{};
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<std::int8_t>(at(t::array_0, i));
  for (std::size_t i = 0; i < rope.size(); ++i) rope[i] = static_cast<std::int8_t>(at(t::array_1, i));
  tessera::dma::simulated_policy<> dma(target);
  REQUIRE(fill::step(l2, l1, s, {x.data(), rope.data()}, {y.data()}, dma) == tessera::step_status::ok);
  dma.finish();
  CHECK(dma.hazard_count() == 0);
  REQUIRE(s.length() == prompt);
  int wrong = 0;
  for (std::size_t i = 0; i < y.size(); ++i) wrong += y[i] != at(t::array_5, i);
  CHECK(wrong == 0);
  CHECK(cache_differences<run>(s) == 0);
  decode<run>(s, prompt, steps, target);
  // Full: refused before anything runs.
  tessera::dma::simulated_policy<> after(target);
  alignas(16) static std::byte l2_step[run::l2_bytes];
  alignas(16) static std::byte l1_step[run::l1_bytes];
  std::array<std::int8_t, d_model> one{}, out{};
  std::array<std::int8_t, head_dim * head_dim> one_rope{};
  CHECK(run::step(l2_step, l1_step, s, {one.data(), one_rope.data()}, {out.data()}, after) ==
        tessera::step_status::full);
  CHECK(fill::step(l2, l1, s, {x.data(), rope.data()}, {y.data()}, after) == tessera::step_status::not_empty);
  CHECK(s.length() == steps);
}
