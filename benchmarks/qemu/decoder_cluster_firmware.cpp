// The decoder's KV cache in place, tiled through L1 on the siracusa preset on QEMU's riscv32
// `virt` with 8 harts (issue 10 item 4 on the cluster of issue 11): `tiled_executor::step` over
// one caller-owned state in L2, the keys and values of each head streamed through L1 at the
// live length, on 1 hart and on 8 (each tile's output rows shared: row_band_of), against the
// flat `sequence_executor` stepping its own state on the same tokens. Every step's output and
// the two states must be equal; the tiled step's instructions (the whole step: DMA copies by
// hart 0 included) are printed at the steps that attend to N = 1, 8, 64, 256 positions:
//   decoder_cluster|N|flat|tiled 1 hart|tiled 8 harts|exact
// The decoder and its tokens are decoder_firmware.cpp's (d_model 32, 8 heads, 2 layers, 256
// positions). Exit code: mismatches.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include <tessera/dma/memcpy_policy.hpp>
#include <tessera/tessera.hpp>
#include <tessera_qemu/cluster.hpp>
#include <tessera_qemu/instruction_counter.hpp>

#include "decoder_state.hpp"
#include "decoder_token.hpp"

TESSERA_QEMU_CLUSTER_MEMORY(siracusa_memory, tessera::targets::siracusa)

namespace {

using net = decoder_state::network;
using flat = tessera::sequence_executor<net>;
using tiled = tessera::tiled_executor<net, tessera::target<tessera::targets::siracusa>>;
using state = flat::state;
static_assert(std::is_same_v<state, tiled::state>, "one state type for both executors");
static_assert(tiled::l1_bytes <= siracusa_memory::l1_capacity && tiled::l2_bytes <= siracusa_memory::l2_capacity,
              "the plan must fit the preset's L1 and L2");

constexpr int d_model = tessera::bench::decoder_token::d_model;

alignas(16) std::byte arena[flat::arena_bytes];
state reference_state, one_hart_state, eight_hart_state;

}  // namespace

int main() {
  tessera::qemu::start_instruction_counter();
  int failures = 0;
  std::printf("decoder_cluster|context|flat|tiled 1 hart|tiled 8 harts|exact\n");
  std::array<std::int8_t, d_model> y_flat{}, y_one{}, y_eight{};
  tessera::bench::decoder_token in;
  for (int t = 0; t < state::capacity; ++t) {
    in.load(t);
    std::uint64_t start = tessera::qemu::instret();
    bool ok = flat::step(arena, reference_state, {in.token.data(), in.rope.data()}, {y_flat.data()}) == tessera::step_status::ok;
    const std::uint64_t flat_count = tessera::qemu::instret() - start;
    std::uint64_t counts[2] = {};
    for (int pass = 0; pass < 2; ++pass) {
      tessera::qemu::hart_team team{pass == 0 ? 1 : tessera::qemu::max_harts, nullptr};
      tessera::dma::memcpy_policy dma;
      start = tessera::qemu::instret();
      ok = ok && tiled::step(team, siracusa_memory::l2, siracusa_memory::l1, pass == 0 ? one_hart_state : eight_hart_state,
                             {in.token.data(), in.rope.data()}, {pass == 0 ? y_one.data() : y_eight.data()},
                             dma) == tessera::step_status::ok;
      counts[pass] = tessera::qemu::instret() - start;
    }
    const bool exact = ok && y_one == y_flat && y_eight == y_flat &&
                       std::memcmp(&one_hart_state, &reference_state, sizeof(state)) == 0 &&
                       std::memcmp(&eight_hart_state, &reference_state, sizeof(state)) == 0;
    failures += exact ? 0 : 1;
    const int context = t + 1;
    if (context == 1 || context == 8 || context == 64 || context == 256 || !exact)
      std::printf("decoder_cluster|%d|%llu|%llu|%llu|%s\n", context, static_cast<unsigned long long>(flat_count),
                  static_cast<unsigned long long>(counts[0]), static_cast<unsigned long long>(counts[1]),
                  exact ? "exact" : "MISMATCH");
  }
  return failures;
}
