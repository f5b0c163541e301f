// The keyword-spotting network (kws_network.hpp) tiled through a small L1, the way an STM32H7
// runs it from DTCM with its activations in AXI SRAM: unfused, and with the depthwise ->
// pointwise blocks fused by each criterion of the selector (planning/fusion.hpp), with the
// preset's tile objective (DORY's) and with the latency objective (the preset's cost model,
// cost_models::cortex_m7_dsp). On a core without a DMA engine the transfers are copies (memcpy
// policy), so the instruction count includes the data movement fusion saves. Each run is
// checked against the flat executor.
//
// Output, one line per plan: kws_tiled|L1 bytes|tile objective|fusion criterion|fused blocks|
// L1 used|L2 used|guest instructions|exact
#include <cstdint>
#include <cstdio>
#include <cstring>

#include <tessera/dma/memcpy_policy.hpp>
#include <tessera_qemu/instruction_counter.hpp>

#include "kws_network.hpp"

using net = kws::network;

namespace {
alignas(16) std::int8_t input[49 * 10];
alignas(16) std::int32_t expected[12];
// One L1 and one L2 for every plan (they run one after the other): the M55 board has 512 kB.
alignas(16) std::byte l1_pool[32 * 1024];
alignas(16) std::byte l2_pool[64 * 1024];

template <std::size_t L1, tessera::tiling_objective Tiling, tessera::fusion_policy Fusion>
inline constexpr tessera::target_desc dtcm_target = [] {
  tessera::target_desc t = tessera::targets::stm32h7;
  t.levels[0].bytes = L1;
  t.kernels = tessera::kernels::native_family;
  t.objective = Tiling;
  t.fusion = Fusion;
  return t;
}();

template <std::size_t L1, tessera::tiling_objective Tiling, tessera::fusion_policy Fusion>
int run_tiled() {
  using run = tessera::tiled_executor<net, tessera::target<dtcm_target<L1, Tiling, Fusion>>>;
  static_assert(run::l1_bytes <= sizeof l1_pool && run::l2_bytes <= sizeof l2_pool);
  std::int32_t logits[12]{};
  tessera::dma::memcpy_policy dma;
  const std::uint64_t start = tessera::qemu::guest_instructions();
  run::run(l2_pool, l1_pool, {input}, {logits}, dma);
  const std::uint64_t instructions = tessera::qemu::guest_instructions() - start;
  // Counted by the compiler: read at run time, the summary would be linked into the firmware.
  constexpr int blocks = [] {
    int fused = 0;
    for (const auto& node : run::summary.nodes) fused += node.geometry.fused() ? 1 : 0;
    return fused;
  }();
  const bool exact = std::memcmp(expected, logits, sizeof logits) == 0;
  std::printf("kws_tiled|%u|%s|%s|%d|%u|%u|%llu|%s\n", static_cast<unsigned>(L1),
              Tiling == tessera::tiling_objective::latency ? "latency" : "dory", tessera::name_of(Fusion), blocks,
              static_cast<unsigned>(run::l1_bytes), static_cast<unsigned>(run::l2_bytes),
              static_cast<unsigned long long>(instructions), exact ? "exact" : "MISMATCH");
  return exact ? 0 : 1;
}

template <std::size_t L1>
int run_all_criteria() {
  using tessera::fusion_policy;
  using tessera::tiling_objective;
  int failures = run_tiled<L1, tiling_objective::dory_l1, fusion_policy::off>() +
                 run_tiled<L1, tiling_objective::dory_l1, fusion_policy::by_traffic>() +
                 run_tiled<L1, tiling_objective::dory_l1, fusion_policy::by_latency>() +
                 run_tiled<L1, tiling_objective::latency, fusion_policy::off>() +
                 run_tiled<L1, tiling_objective::latency, fusion_policy::by_latency>();
  return failures;
}
}  // namespace

int main() {
  std::memcpy(input, kws::sample_input.values.data(), sizeof input);
  tessera::qemu::start_instruction_counter();
  using flat = tessera::executor<net>;
  alignas(16) static std::byte arena[flat::arena_bytes];
  flat::run(arena, {input}, {expected});
  // 32 kB: every layer fits whole, blocks too; 12 kB: the maps (8,000 B each) must tile.
  return run_all_criteria<32 * 1024>() + run_all_criteria<12 * 1024>();
}
