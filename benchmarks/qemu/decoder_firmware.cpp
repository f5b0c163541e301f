// Per-token cost of an autoregressive decoder (issue 10): the KV cache in place against
// Deeploy's way of passing the caches in and out of a network each step.
//
// The decoder is make_llama_models.py's (`bench`: d_model 32, 8 heads, 2 layers, d_ff 64, the
// CI size). In place: `decoder_state` (onnx2hpp --state ... --max-context 256) steps 256 tokens
// on one caller-owned state. Copy in / out: `decoder_explicit_n<N>`, the one-step network with
// caches of N - 1 positions as graph inputs and the grown caches of N as graph outputs, run at
// the step that attends to N positions with caches copied from the in-place state (the caller's
// copy into the network's input buffers) and its grown caches copied back (what the next step
// would take). Both run with the build's native family where their shapes are fixed and the
// reference kernels where they are not (the state network's attention). The explicit step's
// output must equal the in-place step's bit for bit. Prints one row per context length:
//   decoder|N|in-place instructions|explicit network|copy in|copy out|state bytes|exact
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include <tessera/tessera.hpp>
#include <tessera_qemu/instruction_counter.hpp>

#include "decoder_explicit_n1.hpp"
#include "decoder_explicit_n256.hpp"
#include "decoder_explicit_n64.hpp"
#include "decoder_explicit_n8.hpp"
#include "decoder_state.hpp"
#include "decoder_tokens.hpp"

namespace {

using in_place = tessera::sequence_executor<decoder_state::network>;
using state = in_place::state;
constexpr int steps = state::capacity;
constexpr int d_model = static_cast<int>(decoder_tokens::arrays[0].logical.dims[2]);
constexpr int rope_size = static_cast<int>(decoder_tokens::arrays[1].logical.dims[1] * decoder_tokens::arrays[1].logical.dims[2]);
constexpr std::size_t caches = state::buffer_count;

alignas(16) std::byte state_arena[in_place::arena_bytes];
state cache;
std::array<std::int8_t, d_model> token{}, y{};
std::array<std::int8_t, rope_size> rope{};

/// One measured explicit step (Deeploy's way) at the step that attends to N positions: the
/// caches copied in from the state (rows 0 .. N - 2), the network, the grown caches copied out.
struct explicit_step {
  std::uint64_t network = 0, copy_in = 0, copy_out = 0;
  std::array<std::int8_t, d_model> y{};
};

template <class Net>
explicit_step run_explicit() {
  using run = tessera::executor<Net>;
  alignas(16) static std::byte arena[run::arena_bytes > 0 ? run::arena_bytes : 1];
  constexpr int cached = Net::tensors[Net::inputs[2]].dims[2];  // [1, heads, N - 1, hd]
  constexpr int heads = Net::tensors[Net::inputs[2]].dims[1];
  constexpr std::size_t row = static_cast<std::size_t>(Net::tensors[Net::inputs[2]].dims[3]);
  constexpr std::size_t in_bytes = std::size_t(heads) * (cached > 0 ? cached : 1) * row;
  constexpr std::size_t grown_bytes = std::size_t(heads) * (cached + 1) * row;
  alignas(16) static std::array<std::array<std::int8_t, in_bytes>, caches> in{};
  alignas(16) static std::array<std::array<std::int8_t, grown_bytes>, caches> grown{}, next{};
  explicit_step result;

  std::uint64_t start = tessera::qemu::guest_instructions();
  [&]<std::size_t... B>(std::index_sequence<B...>) {
    (([&] {
       const auto* from = cache.template buffer<B>();  // [1, heads, capacity, hd]
       for (int h = 0; h < heads; ++h)
         std::memcpy(in[B].data() + std::size_t(h) * cached * row, from + std::size_t(h) * state::capacity * row,
                     std::size_t(cached) * row);
     }()),
     ...);
  }(std::make_index_sequence<caches>{});
  result.copy_in = tessera::qemu::guest_instructions() - start;

  typename run::inputs_t inputs{};
  typename run::outputs_t outputs{};
  inputs[0] = token.data();
  inputs[1] = rope.data();
  outputs[0] = result.y.data();
  for (std::size_t c = 0; c < caches; ++c) {
    inputs[2 + c] = in[c].data();
    outputs[1 + c] = grown[c].data();
  }
  start = tessera::qemu::guest_instructions();
  run::run(arena, inputs, outputs);
  result.network = tessera::qemu::guest_instructions() - start;

  start = tessera::qemu::guest_instructions();  // the grown caches become the next step's input
  for (std::size_t c = 0; c < caches; ++c) std::memcpy(next[c].data(), grown[c].data(), grown_bytes);
  asm volatile("" : : "r"(next.data()) : "memory");  // the copies are the next step's input: kept
  result.copy_out = tessera::qemu::guest_instructions() - start;
  return result;
}

explicit_step explicit_at(int context) {
  switch (context) {
    case 1: return run_explicit<decoder_explicit_n1::network>();
    case 8: return run_explicit<decoder_explicit_n8::network>();
    case 64: return run_explicit<decoder_explicit_n64::network>();
    default: return run_explicit<decoder_explicit_n256::network>();
  }
}

}  // namespace

int main() {
  tessera::qemu::start_instruction_counter();
  int failures = 0;
  std::printf("decoder|context|in-place|explicit network|copy in|copy out|state bytes|arena bytes|exact\n");
  for (int t = 0; t < steps; ++t) {
    for (int i = 0; i < d_model; ++i)
      token[std::size_t(i)] = static_cast<std::int8_t>(decoder_tokens::array_0[t * d_model + i]);
    for (int i = 0; i < rope_size; ++i)
      rope[std::size_t(i)] = static_cast<std::int8_t>(decoder_tokens::array_1[t * rope_size + i]);
    const int context = t + 1;
    const bool measured = context == 1 || context == 8 || context == 64 || context == 256;
    // The explicit step first: it reads the caches as they are before this step (N - 1 rows).
    const explicit_step baseline = measured ? explicit_at(context) : explicit_step{};
    const std::uint64_t start = tessera::qemu::guest_instructions();
    const auto status = in_place::step(state_arena, cache, {token.data(), rope.data()}, {y.data()});
    const std::uint64_t in_place_instructions = tessera::qemu::guest_instructions() - start;
    if (status != tessera::step_status::ok) {
      std::printf("step %d: %s\n", t, tessera::to_string(status));
      return 1;
    }
    if (measured) {
      const bool exact = baseline.y == y;
      failures += exact ? 0 : 1;
      std::printf("decoder|%d|%llu|%llu|%llu|%llu|%u|%u|%s\n", context,
                  static_cast<unsigned long long>(in_place_instructions),
                  static_cast<unsigned long long>(baseline.network), static_cast<unsigned long long>(baseline.copy_in),
                  static_cast<unsigned long long>(baseline.copy_out), static_cast<unsigned>(state::layout.bytes()),
                  static_cast<unsigned>(in_place::arena_bytes), exact ? "exact" : "MISMATCH");
    }
  }
  // A step past the capacity is refused and writes nothing.
  if (in_place::step(state_arena, cache, {token.data(), rope.data()}, {y.data()}) != tessera::step_status::full)
    ++failures;
  return failures;
}
