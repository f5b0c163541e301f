// Target descriptions: memory levels, cores, kernel set and DMA policy, as types.
//
// A target is a `target_desc` value (plain data: the planner reads it in constexpr code) wrapped
// in a type that also names the DMA policy. Every description compiles on every host, so x86
// tests can plan a GAP8 schedule and check it. A user's own target is a few lines:
//
//   inline constexpr tessera::target_desc my_board{
//       .name = "my-board",
//       .levels = {{{"DTCM", 64 * 1024, 8, 2, 20}, {"SRAM", 320 * 1024, 4, 10, 20}}},
//       .level_count = 2};
//   using my_target = tessera::target<my_board>;
#pragma once

#include <array>
#include <cstdint>

#include <tessera/core/fixed_name.hpp>
#include <tessera/kernels/traits.hpp>
#include <tessera/target/cost_model.hpp>
#include <tessera/target/engine.hpp>
#include <tessera/target/memory_level.hpp>

namespace tessera {

/// Which kernel family a target runs: its plan reserves that family's scratch and uses its
/// micro-tile; a build that cannot run the family (a Cortex-M plan checked on x86) runs the
/// reference kernels, whose scratch is never larger.
using kernel_set = kernels::kernel_family;

/// What the L1 tile solver optimises (planning/tile_solver.hpp):
/// - dory_l1: DORY's objective, the most L1 used plus its heuristics (the default);
/// - latency: the least modelled time of the layer (compute model + DMA transfer costs).
enum class tiling_objective : std::uint8_t { dory_l1, latency };

/// The tile solver's work allowance for one layer, in `search_work` units
/// (planning/tile_solver.hpp), sized for the compiler's default constexpr limit per constant
/// evaluation: clang's 2^20 steps (a unit is at most about 64 of them: 12,000 units, 0.77 M
/// steps) and GCC's 2^25 operations (at most about 730 a unit: 32,000 units, 23 M). A search
/// that reaches it keeps the best tile found so far and says so (tile_solution::cut_short).
/// Set target_desc::search_budget to plan the same tiles under every compiler, or higher
/// with -fconstexpr-steps / -fconstexpr-ops-limit.
inline constexpr std::int64_t clang_search_budget = 12'000;
inline constexpr std::int64_t gcc_search_budget = 32'000;
#if defined(__clang__) || !defined(__GNUC__)
inline constexpr std::int64_t default_search_budget = clang_search_budget;
#else
inline constexpr std::int64_t default_search_budget = gcc_search_budget;
#endif

/// How the planner chooses fused depthwise -> pointwise blocks (planning/fusion.hpp): per
/// block, fused or not, whichever the criterion prefers (ties: unfused).
/// - by_latency: the modelled time of the block (the latency objective's layer model);
/// - by_traffic: the bytes moved between L2 and L1;
/// - off: never fuse;
/// - always: every block that can be fused (the largest set of non-overlapping candidates,
///   where they overlap), whatever it costs: to run or measure the fused kernels where the
///   criteria keep the layers apart (at roomy L1s, where L1 forwarding already keeps one-tile
///   results in L1, they fuse nothing).
/// - by_traffic_no_slower: the fewest bytes among the block sets whose modelled time is no more
///   than the network's without them (planning/fusion_selection.hpp fewest_bytes_no_slower): by_traffic where that
///   is no slower, else what of its saving fits in the time the unfused network takes.
enum class fusion_policy : std::uint8_t { by_latency, by_traffic, off, always, by_traffic_no_slower };

/// The criterion's name in reports and benchmark tables.
constexpr const char* name_of(fusion_policy p) {
  switch (p) {
    case fusion_policy::by_latency: return "latency";
    case fusion_policy::by_traffic: return "traffic";
    case fusion_policy::off: return "off";
    case fusion_policy::always: return "always";
    case fusion_policy::by_traffic_no_slower: return "no-slower";
  }
  return "?";
}

/// A user's choice for one block, named by its depthwise node (onnx2hpp's node names): fused
/// forces the depthwise -> pointwise block the node begins; unfused keeps the node out of every
/// block (the pointwise -> depthwise one it ends too).
struct fusion_override {
  fixed_name depthwise{};
  bool fused = false;
};

struct target_desc {
  fixed_name name;
  /// Innermost first: levels[0] is L1 (where kernels compute), levels[1] L2 (where the
  /// activation arena lives), levels[2] an optional external L3 (weights, spilled activations).
  std::array<memory_level, 3> levels{};
  int level_count = 1;
  int cores = 1;
  bool double_buffering = true;
  kernel_set kernels = kernel_set::reference;
  /// Compute model for the simulator: MACs per cycle, times 16 (16 = one MAC per cycle).
  std::uint32_t macs_per_cycle_x16 = 16;
  /// Micro-tile of the kernel set (DORY's MATMUL_CH / MATMUL_W heuristics): output channels
  /// and output pixels the inner kernel computes at once (presets take their family's
  /// `family_traits<F>::conv_tile`; GAP8's and Siracusa's are PULP-NN's 4 x 2).
  int micro_tile_channels = 4;
  int micro_tile_width = 2;
  /// Cycles of one tile per op kind (target/cost_model.hpp); all zero: `macs_per_cycle_x16`.
  compute_model compute{};
  tiling_objective objective = tiling_objective::dory_l1;
  /// Latency objective: model cross-layer prefetch - a layer's first filter tile (and its first
  /// input tile, unless that is the previous layer's result) loads while the previous tiled
  /// layer computes its last tile, as far as that tile's modelled compute reaches and when L1
  /// holds both layers (planning/target_plan.hpp `with_prefetch`); the rest of the fill counts.
  bool first_load_hidden = false;
  /// The tile solver's work allowance per layer (default_search_budget).
  std::int64_t search_budget = default_search_budget;
  /// Fused depthwise/pointwise blocks (planning/fusion.hpp): the selector's criterion, and
  /// per-block overrides that force a block fused or unfused whatever the criterion says (a
  /// block that cannot be fused stays unfused).
  fusion_policy fusion = fusion_policy::by_latency;
  std::array<fusion_override, 4> fusion_overrides{};
  /// Whether the selector also weighs pointwise -> depthwise blocks (false: depthwise ->
  /// pointwise blocks only, for comparison).
  bool fuse_pointwise_first = true;
  /// L1 forwarding (planning/l1_forwarding.hpp): a one-tile layer reads the previous one-tile
  /// layer's result where it was computed instead of through L2 (false: every result is
  /// stored and loaded, as DORY's schedule does; for comparison).
  bool l1_forwarding = true;
  /// Accelerators (target/engine.hpp): engines 1 .. accelerator_count; engine 0 is the CPU
  /// described above. A layer goes to an engine by `dispatch` and `engine_overrides`
  /// (planning/dispatch.hpp); an override that breaks the engine's rules fails the build.
  std::array<engine_desc, 2> accelerators{};
  int accelerator_count = 0;
  dispatch_policy dispatch = dispatch_policy::first_match;
  std::array<engine_override, 4> engine_overrides{};

  constexpr bool has_level(int i) const { return i < level_count; }
  /// Engine `e` (1-based) of the accelerators.
  constexpr const engine_desc& accelerator(int e) const { return accelerators[static_cast<std::size_t>(e - 1)]; }
  /// The costs and DMA engine of a transfer between level `outer_level` and the memory of
  /// compute engine `engine` one level in (0: the CPU's, the outer level's own figures): an
  /// accelerator's DMA path where it has one (engine_desc::dma). The one choice the tile
  /// solver's latency model and the DMA simulator both make.
  constexpr const memory_level& transfer_path(int outer_level, int engine = 0) const {
    if (engine > 0 && engine <= accelerator_count && accelerator(engine).dma.bytes_per_cycle != 0)
      return accelerator(engine).dma;
    return levels[static_cast<std::size_t>(outer_level)];
  }
};

/// The memory a plan failure names (target_plan::failing_level): levels 0-2 of the target,
/// then each accelerator's activation and weight memories (3 + 2 * (e - 1), + 1).
constexpr int accelerator_level(int engine, bool weights) { return 3 + 2 * (engine - 1) + (weights ? 1 : 0); }
constexpr fixed_name level_name(const target_desc& t, int level) {
  if (level < 3) return t.levels[static_cast<std::size_t>(level)].name;
  const engine_desc& e = t.accelerator(1 + (level - 3) / 2);
  return (level - 3) % 2 == 0 ? e.activations.name : e.weights.name;
}

/// The compute model of engine `engine` of `t` (0: the CPU).
constexpr const compute_model& compute_model_of(const target_desc& t, int engine) {
  return engine == 0 ? t.compute : t.accelerator(engine).compute;
}

/// Cycles of one tile of `rows` x `cols` x `channels` outputs of layer `g` on engine `engine`
/// of target `t`: the single compute formula of the latency objective and of the DMA simulator.
/// `prepared`: the tile keeps its filter block's preparation (schedule::step::prepared).
/// `first_rows` >= 0: a fused block's first kernel computes that many intermediate rows
/// (producer_rows of a carrying tile).
constexpr std::uint64_t tile_compute_cycles(const target_desc& t, const tile_geometry& g, int rows, int cols,
                                            int channels, int engine = 0, bool prepared = false, int first_rows = -1) {
  const compute_model& m = compute_model_of(t, engine);
  const kernel_cost& own = m[cost_kind_of(g)];
  const kernel_cost& producer = m[producer_cost_kind(g)];
  return layer_tile_cycles(own, producer, t.macs_per_cycle_x16, g, rows, cols, channels, first_rows) +
         (prepared ? 0 : preparation_cycles(own, producer, g));
}

namespace dma {
struct memcpy_policy;  // runtime/dma: synchronous copies (the default on real hardware without DMA)
}

template <target_desc Desc, class DmaPolicy = dma::memcpy_policy>
struct target {
  static constexpr target_desc desc = Desc;
  using dma_policy = DmaPolicy;
};

namespace targets {

inline constexpr std::size_t kib = 1024;

/// GAP8-like (DORY's case study): 64 kB shared L1 for 8 cores, 512 kB L2, 8 MB HyperRAM L3.
inline constexpr target_desc gap8{
    .name = "gap8",
    // L3 (HyperRAM) <-> L2 runs on the fabric's micro-DMA, L2 <-> L1 on the cluster DMA: two engines.
    .levels = {{{"L1", 64 * kib, 8, 10, 30}, {"L2", 512 * kib, 8, 10, 30}, {"L3", 8 * 1024 * kib, 1, 150, 100, 1}}},
    .level_count = 3,
    .cores = 8,
    .kernels = kernel_set::rv32,
    .macs_per_cycle_x16 = 8 * 16,
    .micro_tile_channels = kernels::family_traits<kernel_set::rv32>::conv_tile.channels,
    .micro_tile_width = kernels::family_traits<kernel_set::rv32>::conv_tile.width,
    .compute = cost_models::pulp_cluster8};

/// Siracusa-like (Deeploy's target): 256 kB L1 for 8 cores, 2 MB L2.
inline constexpr target_desc siracusa{
    .name = "siracusa",
    .levels = {{{"L1", 256 * kib, 8, 10, 30}, {"L2", 2048 * kib, 8, 10, 30}}},
    .level_count = 2,
    .cores = 8,
    .kernels = kernel_set::rv32,
    .macs_per_cycle_x16 = 8 * 16,
    .micro_tile_channels = kernels::family_traits<kernel_set::rv32>::conv_tile.channels,
    .micro_tile_width = kernels::family_traits<kernel_set::rv32>::conv_tile.width,
    .compute = cost_models::pulp_cluster8};

/// STM32H7-like: 128 kB DTCM as L1, 512 kB AXI SRAM as L2, one Cortex-M7 core.
inline constexpr target_desc stm32h7{
    .name = "stm32h7",
    .levels = {{{"DTCM", 128 * kib, 4, 4, 20}, {"AXI-SRAM", 512 * kib, 4, 4, 20}}},
    .level_count = 2,
    .cores = 1,
    .kernels = kernel_set::arm_dsp,
    .macs_per_cycle_x16 = 8,
    .micro_tile_channels = kernels::family_traits<kernel_set::arm_dsp>::conv_tile.channels,
    .micro_tile_width = kernels::family_traits<kernel_set::arm_dsp>::conv_tile.width,
    .compute = cost_models::cortex_m7_dsp};

/// DIANA-like (HTVM's target): one RISC-V core (64 kB of tightly coupled L1 assumed for its
/// tiles, 512 kB L2) and a digital accelerator, a 16 x 16 PE array with a 256 kB activation
/// memory and a 64 kB weight memory, that runs int8 convolutions (1x1, 3x3, 5x5, 7x7, stride 1
/// or 2, padding up to 3, symmetric), depthwise convolutions and dense layers. Its memories are
/// filled from L2 by a DMA channel of its own (engine 1: 8 B/cycle, 10 cycles of latency, 30 of
/// set-up per transfer, an assumption: HTVM gives no figure), beside the CPU's L2 <-> L1 DMA.
inline constexpr engine_desc diana_digital{
    .name = "digital",
    .activations = {"DIG-ACT", 256 * kib},
    .weights = {"DIG-WEIGHTS", 64 * kib},
    .dma = {"DIG-DMA", 0, 8, 10, 30, 1},
    .rules = {.ops = static_cast<std::uint8_t>(op_bit(engine_op::convolution) | op_bit(engine_op::depthwise) |
                                                op_bit(engine_op::dense)),
              .kernel_sizes = (1u << 1) | (1u << 3) | (1u << 5) | (1u << 7),
              .strides = (1u << 1) | (1u << 2),
              .max_padding = 3},
    .compute = cost_models::diana_digital};

/// A DIANA-like analog in-memory array: 1152 rows (C x FX x FY) x 512 columns (output
/// channels) of ternary weights, 7-bit inputs, its sums clipped to the ADC's [-32, 31] before
/// the bias and requantisation (its numerics: kernels/reference/analog_conv2d.hpp); 64 kB of
/// activation memory; the array itself is the weight memory (one byte per cell in this model),
/// programmed once per channel block: single buffered. Its own DMA channel (engine 2), with the
/// digital engine's figures.
inline constexpr engine_desc diana_analog{
    .name = "analog",
    .activations = {"ANA-ACT", 64 * kib},
    .weights = {"ANA-ARRAY", 1152 * 512},
    .dma = {"ANA-DMA", 0, 8, 10, 30, 2},
    .rules = {.ops = op_bit(engine_op::convolution),
              .kernel_sizes = (1u << 1) | (1u << 3) | (1u << 5) | (1u << 7),
              .strides = (1u << 1) | (1u << 2),
              .max_padding = 3,
              .max_array_rows = 1152,
              .max_array_cols = 512,
              .ternary_weights = true},
    .compute = cost_models::diana_analog,
    .numerics = {7, -32, 31},
    .single_buffered = true};

inline constexpr target_desc diana{
    .name = "diana",
    .levels = {{{"L1", 64 * kib, 4, 4, 20}, {"L2", 512 * kib, 4, 4, 20}}},
    .level_count = 2,
    .cores = 1,
    .kernels = kernel_set::rv32,
    .macs_per_cycle_x16 = 16,
    .micro_tile_channels = kernels::family_traits<kernel_set::rv32>::conv_tile.channels,
    .micro_tile_width = kernels::family_traits<kernel_set::rv32>::conv_tile.width,
    .compute = cost_models::riscv_core1,
    .accelerators = {{diana_digital, diana_analog}},
    .accelerator_count = 2,
    .dispatch = dispatch_policy::mixed};

/// The host: one flat memory, no tiling, no DMA.
inline constexpr target_desc host{
    .name = "host",
    .levels = {{{"RAM", static_cast<std::size_t>(-1) / 2, 64, 0, 0}}},  // unbounded on 32- and 64-bit hosts
    .level_count = 1,
    .cores = 1,
    .double_buffering = false,
    .kernels = kernel_set::x86,
    .macs_per_cycle_x16 = 16,
    .micro_tile_channels = kernels::family_traits<kernel_set::x86>::conv_tile.channels,
    .micro_tile_width = kernels::family_traits<kernel_set::x86>::conv_tile.width};

}  // namespace targets
}  // namespace tessera
