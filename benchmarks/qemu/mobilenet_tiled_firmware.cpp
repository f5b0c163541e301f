// The torch MobileNetV1-0.25 at 96 x 96 (tests/models/torch/mobilenet_v1_025_vww, converted by
// the host build into <host build>/qemu_models) tiled through 32 kB of DTCM on an STM32H7-like
// target, the L1 where it must tile: unfused, and with the depthwise / pointwise blocks fused by
// each criterion of the selector (planning/fusion.hpp), with DORY's tiles (the preset's) and the
// latency objective's (whose whole-width row tiles let pointwise -> depthwise blocks carry
// rows), and with DORY's tiles the fewest bytes no slower than unfused (by_traffic_no_slower;
// not on the M55 board, whose code region has no room for a seventh plan:
// TESSERA_MOBILENET_NO_SLOWER=0). Issue 12's Cortex-M rows of the fusion table. On a core
// without a DMA engine the transfers are copies (memcpy policy), so the instruction count
// includes the data movement fusion saves. The input is a fixed pseudo-random image; each run
// is checked against the flat executor bit for bit.
//
// Output, one line per plan: mobilenet_tiled|L1 bytes|tile objective|fusion criterion|DW->PW
// blocks|PW->DW blocks|L1 used|L2 used|guest instructions|exact
#include <cstdint>
#include <cstdio>
#include <cstring>

#include <tessera/dma/memcpy_policy.hpp>
#include <tessera/tessera.hpp>
#include <tessera_qemu/instruction_counter.hpp>

#include "qemu_torch_mobilenet.hpp"

using net = qemu_torch_mobilenet::network;

#ifndef TESSERA_MOBILENET_NO_SLOWER
#define TESSERA_MOBILENET_NO_SLOWER 1
#endif

namespace {
constexpr std::size_t l1_size = 32 * 1024;

template <tessera::tiling_objective Tiling, tessera::fusion_policy Fusion>
inline constexpr tessera::target_desc dtcm_target = [] {
  tessera::target_desc t = tessera::targets::stm32h7;
  t.levels[0].bytes = l1_size;
  t.kernels = tessera::kernels::native_family;
  t.objective = Tiling;
  t.fusion = Fusion;
  return t;
}();

template <tessera::tiling_objective Tiling, tessera::fusion_policy Fusion>
using tiled_run = tessera::tiled_executor<net, tessera::target<dtcm_target<Tiling, Fusion>>>;
using tessera::fusion_policy;
using tessera::tiling_objective;

using flat = tessera::executor<net>;
constexpr std::size_t input_bytes = net::tensors[net::inputs[0]].bytes();
constexpr std::size_t output_bytes = net::tensors[net::outputs[0]].bytes();
static_assert(net::inputs.size() == 1 && net::outputs.size() == 1);

// One L1 and one L2 for every plan (they run one after the other): the M55 board has 512 kB.
constexpr std::size_t l2_size = [] {
  std::size_t most = 0;
  for (std::size_t b : {tiled_run<tiling_objective::dory_l1, fusion_policy::off>::l2_bytes,
                        tiled_run<tiling_objective::dory_l1, fusion_policy::by_traffic>::l2_bytes,
                        tiled_run<tiling_objective::dory_l1, fusion_policy::by_latency>::l2_bytes,
#if TESSERA_MOBILENET_NO_SLOWER
                        tiled_run<tiling_objective::dory_l1, fusion_policy::by_traffic_no_slower>::l2_bytes,
#endif
                        tiled_run<tiling_objective::latency, fusion_policy::off>::l2_bytes,
                        tiled_run<tiling_objective::latency, fusion_policy::by_traffic>::l2_bytes,
                        tiled_run<tiling_objective::latency, fusion_policy::by_latency>::l2_bytes})
    most = b > most ? b : most;
  return most;
}();
// Each followed by a guard the runs must leave untouched: a kernel writing past its planned
// scratch would otherwise corrupt whatever the linker put behind L1 (it once did: see
// kernels/arm_dsp/traits.hpp, conv2d_blocks_scratch_bytes).
constexpr std::size_t guard_bytes = 256;
constexpr std::byte guard_value{0xA5};
alignas(16) std::byte l1_pool[l1_size + guard_bytes];
alignas(16) std::byte l2_pool[l2_size + guard_bytes];

bool guards_intact() {
  for (std::size_t i = 0; i < guard_bytes; ++i)
    if (l1_pool[l1_size + i] != guard_value || l2_pool[l2_size + i] != guard_value) return false;
  return true;
}
alignas(16) std::byte arena[flat::arena_bytes];
alignas(16) std::byte input[input_bytes];
alignas(16) std::byte expected[output_bytes];

template <tessera::tiling_objective Tiling, tessera::fusion_policy Fusion>
int run_tiled() {
  using run = tiled_run<Tiling, Fusion>;
  static_assert(run::l1_bytes <= l1_size && run::l2_bytes <= l2_size);
  alignas(16) static std::byte logits[output_bytes];
  tessera::dma::memcpy_policy dma;
  const std::uint64_t start = tessera::qemu::guest_instructions();
  run::run(l2_pool, l1_pool, {input}, {logits}, dma);
  const std::uint64_t instructions = tessera::qemu::guest_instructions() - start;
  // Counted by the compiler: read at run time, the summary would be linked into the firmware.
  constexpr std::array<int, 2> blocks = [] {
    std::array<int, 2> fused{};
    for (const auto& node : run::summary.nodes)
      if (node.geometry.fused()) ++fused[node.geometry.pointwise_first() ? 1 : 0];
    return fused;
  }();
  const bool exact = std::memcmp(expected, logits, sizeof logits) == 0 && guards_intact();
  std::printf("mobilenet_tiled|%u|%s|%s|%d|%d|%u|%u|%llu|%s\n", static_cast<unsigned>(l1_size),
              Tiling == tiling_objective::latency ? "latency" : "dory", tessera::name_of(Fusion),
              blocks[0], blocks[1], static_cast<unsigned>(run::l1_bytes), static_cast<unsigned>(run::l2_bytes),
              static_cast<unsigned long long>(instructions),
              exact ? "exact" : guards_intact() ? "MISMATCH" : "MISMATCH (wrote past its L1 or L2)");
  return exact ? 0 : 1;
}
}  // namespace

int main() {
  std::uint32_t state = 20261128u;  // a fixed pseudo-random image (the check is against the flat run)
  for (std::byte& b : input) {
    state = state * 1664525u + 1013904223u;
    b = static_cast<std::byte>(state >> 24);
  }
  for (std::size_t i = 0; i < guard_bytes; ++i) l1_pool[l1_size + i] = l2_pool[l2_size + i] = guard_value;
  tessera::qemu::start_instruction_counter();
  flat::run(arena, {input}, {expected});
  int failures = run_tiled<tiling_objective::dory_l1, fusion_policy::off>();
  failures += run_tiled<tiling_objective::dory_l1, fusion_policy::by_traffic>();
  failures += run_tiled<tiling_objective::dory_l1, fusion_policy::by_latency>();
#if TESSERA_MOBILENET_NO_SLOWER
  failures += run_tiled<tiling_objective::dory_l1, fusion_policy::by_traffic_no_slower>();
#endif
  failures += run_tiled<tiling_objective::latency, fusion_policy::off>();
  failures += run_tiled<tiling_objective::latency, fusion_policy::by_traffic>();
  failures += run_tiled<tiling_objective::latency, fusion_policy::by_latency>();
  return failures;
}
