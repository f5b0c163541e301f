// Per-token cost of the decoder on the cluster presets (issue 10): the KV cache in place, tiled
// through L1 (`tiled_executor::step`), against Deeploy's way of passing the caches in and out of
// a fixed-shape network each step, in the simulator's cycles.
//
//   cmake --build build --target tessera_bench_decoder && build/benchmarks/tessera_bench_decoder
//
// The decoder and its networks are those of benchmarks/qemu/decoder_firmware.cpp (make_llama_models.py
// `bench`: d_model 32, 8 heads of 4, 2 layers, d_ff 64; `decoder_state` converted with --state and
// --max-context 256, `decoder_explicit_n<N>` with caches of N - 1 positions as graph inputs and the
// grown caches as graph outputs). In place: 256 tokens stepped on one state; the row is the step
// that attends to N positions. Copy in / out: the explicit network at that step, its caches copied
// in from the in-place state and its grown caches copied out; its output must equal the in-place
// step's (the last column).
//
// Columns: the simulated DMA's cycles for the step program (compute, transfers, stalls: tiles and
// their transfers are timed by the preset's cost model), the DMA stall share of them, and
// "moves": the bytes that layers running on their L2 buffers and the caller's copies move, which
// the simulator does not time (an append of the step's rows in place; the explicit network's
// Concat of each grown cache and Transpose of the keys, and the caller's copies). They are
// charged here as DMA copies through L1 at the preset's L2 rate (memory_level::transfer_cycles of
// the bytes read plus of the bytes written, one transfer each way), the cost of Deeploy's tiled
// copy kernels on these clusters; "total" = cycles + moves, "marshalling" = moves / total.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include <fmt/core.h>

#include <tessera/dma/simulated_policy.hpp>
#include <tessera/tessera.hpp>

#include "decoder_explicit_n1.hpp"
#include "decoder_explicit_n256.hpp"
#include "decoder_explicit_n64.hpp"
#include "decoder_explicit_n8.hpp"
#include "decoder_state.hpp"
#include "decoder_token.hpp"

namespace {

using tessera::target_desc;
using tessera::bench::decoder_token;
constexpr int d_model = decoder_token::d_model;

struct measured {
  std::uint64_t cycles = 0, stalls = 0, moves = 0, l2_bytes = 0;
  std::array<std::int8_t, d_model> y{};
  std::uint64_t total() const { return cycles + moves; }
};

/// Cycles of copying `bytes` through L1 at the L2 level's rate: a load and a store.
constexpr std::uint64_t copy_cycles(const target_desc& t, std::uint64_t bytes) {
  return 2 * t.levels[1].transfer_cycles(bytes);
}

/// The bytes a tensor holds over `length` positions (its live extents; -1: as declared).
template <class Net>
constexpr std::uint64_t live_bytes(tessera::tensor_id id, int length) {
  const tessera::tensor_desc& t = Net::tensors[id];
  const tessera::shape s = length >= 0 ? tessera::live_dims(t, length) : t.dims;
  return static_cast<std::uint64_t>(s.elements()) * tessera::size_of(t.type);
}

/// The cycles of the layers a plan runs on their L2 buffers (moves of their bytes; aliases move
/// nothing; an append writes its rows into the state).
template <class Run, class Net>
constexpr std::uint64_t untiled_moves(const target_desc& t, int length) {
  std::uint64_t cycles = 0;
  for (std::size_t n = 0; n < Net::node_count; ++n) {
    const auto& node = Run::summary.nodes[n];
    if (Run::plan.layers[n].tiled || node.is_alias) continue;
    std::uint64_t in = 0, out = 0;
    for (int i = 0; i < node.input_count; ++i) in += live_bytes<Net>(node.inputs[static_cast<std::size_t>(i)], length);
    for (int i = 0; i < node.output_count; ++i)
      out += Net::tensors[node.outputs[static_cast<std::size_t>(i)]].state
                 ? in  // an append writes the rows it reads
                 : live_bytes<Net>(node.outputs[static_cast<std::size_t>(i)], length);
    cycles += t.levels[1].transfer_cycles(in) + t.levels[1].transfer_cycles(out);
  }
  return cycles;
}

template <const target_desc& T>
struct on_target {
  using in_place = tessera::tiled_executor<decoder_state::network, tessera::target<T>>;
  using state = typename in_place::state;

  static inline state cache;
  alignas(16) static inline std::byte l2[in_place::l2_bytes];
  alignas(16) static inline std::byte l1[in_place::l1_bytes];

  static std::uint64_t l2_traffic(const tessera::dma::simulated_policy<>& dma) {
    const auto& level = dma.stats().levels[1];
    return level.bytes_in + level.bytes_out;
  }

  /// The explicit network at the step that attends to `Net`'s N positions.
  template <class Net>
  static measured explicit_step(const decoder_token& in_token) {
    using run = tessera::tiled_executor<Net, tessera::target<T>>;
    constexpr std::size_t caches = state::buffer_count;
    constexpr int cached = Net::tensors[Net::inputs[2]].dims[2];  // [1, heads, N - 1, hd]
    constexpr int heads = Net::tensors[Net::inputs[2]].dims[1];
    constexpr std::size_t row = static_cast<std::size_t>(Net::tensors[Net::inputs[2]].dims[3]);
    constexpr std::size_t in_bytes = std::size_t(heads) * std::size_t(cached > 0 ? cached : 1) * row;
    constexpr std::size_t grown_bytes = std::size_t(heads) * std::size_t(cached + 1) * row;
    alignas(16) static std::byte net_l2[run::l2_bytes];
    alignas(16) static std::byte net_l1[run::l1_bytes];
    alignas(16) static std::array<std::array<std::int8_t, in_bytes>, caches> in{};
    alignas(16) static std::array<std::array<std::int8_t, grown_bytes>, caches> grown{};
    measured m;
    [&]<std::size_t... B>(std::index_sequence<B...>) {
      (([&] {
         const auto* from = cache.template buffer<B>();  // [1, heads, capacity, hd]
         for (int h = 0; h < heads; ++h)
           std::memcpy(in[B].data() + std::size_t(h) * std::size_t(cached) * row,
                       from + std::size_t(h) * std::size_t(state::capacity) * row, std::size_t(cached) * row);
       }()),
       ...);
    }(std::make_index_sequence<caches>{});
    typename run::inputs_t inputs{};
    typename run::outputs_t outputs{};
    inputs[0] = in_token.token.data();
    inputs[1] = in_token.rope.data();
    outputs[0] = m.y.data();
    for (std::size_t c = 0; c < caches; ++c) {
      inputs[2 + c] = in[c].data();
      outputs[1 + c] = grown[c].data();
    }
    tessera::dma::simulated_policy<> dma(T);
    run::run(net_l2, net_l1, inputs, outputs, dma);
    dma.finish();
    m.cycles = dma.stats().total_cycles;
    m.stalls = dma.stats().stall_cycles;
    m.l2_bytes = l2_traffic(dma);
    m.moves = untiled_moves<run, Net>(T, -1) +
              caches * (copy_cycles(T, std::size_t(heads) * std::size_t(cached) * row) + copy_cycles(T, grown_bytes));
    if (dma.hazard_count() != 0) fmt::print("{}: explicit step: {} hazards\n", T.name.c_str(), dma.hazard_count());
    return m;
  }

  static measured explicit_at(int context, const decoder_token& in_token) {
    switch (context) {
      case 1: return explicit_step<decoder_explicit_n1::network>(in_token);
      case 8: return explicit_step<decoder_explicit_n8::network>(in_token);
      case 64: return explicit_step<decoder_explicit_n64::network>(in_token);
      default: return explicit_step<decoder_explicit_n256::network>(in_token);
    }
  }

  static void table() {
    cache.reset();
    decoder_token in_token;
    for (int t = 0; t < state::capacity; ++t) {
      in_token.load(t);
      const int context = t + 1;
      const bool row = context == 1 || context == 8 || context == 64 || context == 256;
      const measured copy = row ? explicit_at(context, in_token) : measured{};
      measured own;
      tessera::dma::simulated_policy<> dma(T);
      if (in_place::step(l2, l1, cache, {in_token.token.data(), in_token.rope.data()}, {own.y.data()}, dma) != tessera::step_status::ok) {
        fmt::print("step {} refused\n", t);
        return;
      }
      dma.finish();
      if (dma.hazard_count() != 0) fmt::print("{}: step {}: {} hazards\n", T.name.c_str(), t, dma.hazard_count());
      if (!row) continue;
      own.cycles = dma.stats().total_cycles;
      own.stalls = dma.stats().stall_cycles;
      own.l2_bytes = l2_traffic(dma);
      own.moves = untiled_moves<in_place, decoder_state::network>(T, context);
      const auto share = [](std::uint64_t part, std::uint64_t whole) { return whole ? 100.0 * double(part) / double(whole) : 0.0; };
      fmt::print("{:<9} {:>4} | {:>8} {:>7} {:>6.1f}% {:>6.1f}% {:>8} | {:>8} {:>8} {:>6.1f}% {:>6.1f}% {:>8} | {:>5.2f}  {}\n",
                 T.name.c_str(), context, own.cycles, own.moves, share(own.stalls, own.total()),
                 share(own.moves, own.total()), own.l2_bytes, copy.cycles, copy.moves, share(copy.stalls, copy.total()),
                 share(copy.moves, copy.total()), copy.l2_bytes, double(own.total()) / double(copy.total()),
                 copy.y == own.y ? "exact" : "MISMATCH");
    }
  }
};

/// Siracusa with the tile solver's latency objective (planning/tile_solver.hpp).
inline constexpr target_desc siracusa_latency = [] {
  target_desc t = tessera::targets::siracusa;
  t.name = "sir.-lat";
  t.objective = tessera::tiling_objective::latency;
  return t;
}();

}  // namespace

int main() {
  fmt::print("Decoder per token (d_model 32, 8 heads, 2 layers, capacity 256), simulated cycles\n");
  fmt::print("{:<9} {:>4} | {:>8} {:>7} {:>7} {:>7} {:>8} | {:>8} {:>8} {:>7} {:>7} {:>8} | {:>5}\n", "preset", "N",
             "in place", "moves", "stall", "marsh.", "L2 bytes", "copy i/o", "moves", "stall", "marsh.", "L2 bytes",
             "ratio");
  on_target<tessera::targets::siracusa>::table();
  on_target<siracusa_latency>::table();
  on_target<tessera::targets::gap8>::table();
  using siracusa_run = on_target<tessera::targets::siracusa>::in_place;
  fmt::print("\nsiracusa plan: L1 {} B, L2 arena {} B, state {} B (the caller's, in L2)\n", siracusa_run::l1_bytes,
             siracusa_run::l2_bytes, siracusa_run::state::layout.bytes());
  return 0;
}
