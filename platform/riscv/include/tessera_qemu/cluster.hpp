// The harts of QEMU's riscv32 `virt` as a tessera Team (include/tessera/runtime/cluster.hpp):
//
//   tessera::qemu::hart_team team{8};                     // QEMU runs with -smp 8
//   run::run(team, l2, l1, {input}, {output}, dma);       // hart 0 replays, 8 harts compute
//
// With a profile, each hart's instructions per layer are recorded (the harts then take turns,
// tessera_qemu/harts.hpp): `profile.counts[layer * max_harts + hart]`.
#pragma once

#include <cstddef>

#include <tessera_qemu/harts.hpp>

namespace tessera::qemu {

struct hart_team {
  int size = 1;
  hart_profile* profile = nullptr;

  int cores() const { return size; }

  template <class F>
  void fork(int layer, int cores, F& f) {
    fork_join(cores, [](void* ctx, int core) { (*static_cast<F*>(ctx))(core); }, &f, profile, layer);
  }
};

// Where a firmware keeps a target's memory levels: `l1` in the linker script's .tessera_l1
// section and `l2` in .tessera_l2 (the CLUSTER region of ld/virt.ld, apart from the rest of
// RAM), each exactly the preset's capacity (levels[0].bytes, levels[1].bytes). Used once per
// target at namespace scope in a .cpp file:
//
//   TESSERA_QEMU_CLUSTER_MEMORY(gap8_memory, tessera::targets::gap8)
//   ... run::run(team, gap8_memory::l2, gap8_memory::l1, ...)
//
// The executor's l1_bytes and l2_bytes must fit (the caller static_asserts it, as
// tests/qemu_corpus/corpus_cluster.cpp.in does).
#define TESSERA_QEMU_CLUSTER_MEMORY(NAME, DESC)                                                     \
  namespace NAME {                                                                                 \
  inline constexpr std::size_t l1_capacity = (DESC).levels[0].bytes;                               \
  inline constexpr std::size_t l2_capacity = (DESC).levels[1].bytes;                               \
  [[gnu::section(".tessera_l1." #NAME)]] alignas(64) std::byte l1[l1_capacity];                     \
  [[gnu::section(".tessera_l2." #NAME)]] alignas(64) std::byte l2[l2_capacity];                     \
  }

}  // namespace tessera::qemu
