// Compute cost of one tile: the single formula the latency-aware tile solver minimises with and
// the DMA simulator times compute with.
//
// A target carries a `compute_model`: per op kind (convolution, depthwise, pool, elementwise),
// cycles of one tile as
//
//   cycles = per_tile + per_row * rows + ceil(macs * cycles_per_kmac / 1024)
//                                      + ceil(outputs * cycles_per_koutput / 1024)
//                                      + per_block (a tile whose kernel prepares its filters)
//
// with outputs = rows * cols * channels and macs = outputs * macs_per_output (1 for ops without
// MACs); on an accelerator's PE array, cols and channels rounded up to the array's
// `width_granule` and `channel_granule` first (the array computes the padding too), and for a
// kernel that computes output pixels in groups (arm_dsp's convolution: 4), rows * cols rounded
// up to `pixel_granule`. `per_tile` is the call overhead (argument set-up, on a cluster the
// fork/join of the cores), `per_block` what a kernel derives from a block of filters (widened
// weights, requantization tables): paid by the first tile of each filter block when the
// layer's tiles keep it in their scratch (schedule::step::prepared), by every tile otherwise
// (and by both kernels of every fused tile); `per_row` what a kernel pays per output row (im2col of a row, pointer set-up),
// `cycles_per_kmac` the steady-state MAC rate and `cycles_per_koutput` the epilogue
// (requantisation, stores). A kind whose `cycles_per_kmac` is 0 falls back to the target's
// `macs_per_cycle_x16`, so a target without a model times compute exactly as before
// (ceil(macs * 16 / macs_per_cycle_x16), no overheads).
//
// Presets (see cost_models below for the figures and where they come from):
//   pulp_cluster8: GAP8 / Siracusa, 8 RISC-V cores with PULP-NN kernels (DORY's figures);
//   cortex_m7_dsp: STM32H7, the arm_dsp family, from this project's QEMU instruction counts;
//   riscv_core1, diana_digital, diana_analog: the DIANA-like preset's CPU and accelerators.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include <tessera/planning/tile_geometry.hpp>

namespace tessera {

/// The op kinds a cost model distinguishes, read off a layer's tile geometry.
enum class cost_kind : std::uint8_t {
  convolution,  ///< filters over all input channels (regular and pointwise convs, Gemm, MatMul)
  depthwise,    ///< filters whose input channels follow the output channel (channel_lockstep)
  pool,         ///< window ops without filters
  elementwise,  ///< one output per input element (binary ops, requantisation, lookup tables)
};
inline constexpr std::size_t cost_kind_count = 4;

/// A layer's kind; a fused block's is its second kernel's (its first: producer_cost_kind).
constexpr cost_kind cost_kind_of(const tile_geometry& g) {
  if (g.fused()) return g.pointwise_first() ? cost_kind::depthwise : cost_kind::convolution;
  if (g.weight_bytes_per_channel > 0) return g.channel_lockstep ? cost_kind::depthwise : cost_kind::convolution;
  if (g.whole_operand_bytes > 0) return cost_kind::convolution;  // a MatMul: a Gemm whose weights are an input
  return g.kernel_h * g.kernel_w > 1 ? cost_kind::pool : cost_kind::elementwise;
}

/// Cycles of one tile of one op kind (see the header comment for the formula).
struct kernel_cost {
  std::uint32_t cycles_per_kmac = 0;     ///< cycles per 1024 MACs; 0: the target's macs_per_cycle_x16
  std::uint32_t cycles_per_koutput = 0;  ///< cycles per 1024 output elements (epilogue)
  std::uint32_t per_row = 0;             ///< cycles per output row of the tile
  std::uint32_t per_tile = 0;            ///< cycles per kernel call (one tile)
  /// A PE array computes this many output channels / output columns at once (an accelerator's
  /// array width; 0 or 1: no rounding): a tile is costed (MACs and outputs alike) as if its
  /// channels and columns were rounded up to multiples of them.
  std::uint16_t channel_granule = 0;
  std::uint16_t width_granule = 0;
  std::uint16_t pixel_granule = 0;  ///< output pixels computed in groups of this many (0 or 1: none)
  std::uint32_t per_block = 0;      ///< cycles to prepare a block of filters (see the header comment)
};

struct compute_model {
  std::array<kernel_cost, cost_kind_count> kinds{};

  constexpr const kernel_cost& operator[](cost_kind k) const { return kinds[static_cast<std::size_t>(k)]; }
};

/// Cycles of one tile of `rows` x `cols` x `channels` outputs of layer `g` under `cost`;
/// `fallback_macs_per_cycle_x16` is the target's MAC rate (16 = one MAC per cycle).
constexpr std::uint64_t kernel_tile_cycles(const kernel_cost& cost, std::uint32_t fallback_macs_per_cycle_x16,
                                           const tile_geometry& g, int rows, int cols, int channels) {
  const auto round_up = [](int v, std::uint16_t granule) -> std::uint64_t {
    const std::uint64_t q = granule > 1 ? granule : 1;
    return (static_cast<std::uint64_t>(v) + q - 1) / q * q;
  };
  const std::uint64_t pixels = static_cast<std::uint64_t>(rows) * round_up(cols, cost.width_granule);
  const std::uint64_t groups = cost.pixel_granule > 1 ? cost.pixel_granule : 1;
  const auto slots = (pixels + groups - 1) / groups * groups *
                     round_up(channels, cost.channel_granule);  // outputs as the kernel computes them
  const auto macs = slots * static_cast<std::uint64_t>(g.macs_per_output > 0 ? g.macs_per_output : 1);
  std::uint64_t cycles = 0;
  if (cost.cycles_per_kmac != 0) {
    cycles = (macs * cost.cycles_per_kmac + 1023) / 1024;
  } else {
    const std::uint64_t rate = fallback_macs_per_cycle_x16 != 0 ? fallback_macs_per_cycle_x16 : 16;
    cycles = (macs * 16 + rate - 1) / rate;
  }
  return cycles + (slots * cost.cycles_per_koutput + 1023) / 1024 +
         static_cast<std::uint64_t>(cost.per_row) * static_cast<std::uint64_t>(rows) + cost.per_tile;
}

/// The kind of a fused block's first kernel (its producer).
constexpr cost_kind producer_cost_kind(const tile_geometry& g) {
  return g.pointwise_first() ? cost_kind::convolution : cost_kind::depthwise;
}

/// Cycles of one tile of layer `g` under `cost`; a fused block (tile_geometry::fused) runs its
/// first kernel, costed by `producer`, over the intermediate tile (intermediate_tile: all its
/// channels; `first_rows` >= 0: over that many of its rows, the ones a carrying tile computes,
/// producer_rows), then its second kernel under `cost`.
constexpr std::uint64_t layer_tile_cycles(const kernel_cost& cost, const kernel_cost& producer,
                                          std::uint32_t fallback_macs_per_cycle_x16, const tile_geometry& g, int rows,
                                          int cols, int channels, int first_rows = -1) {
  if (!g.fused()) return kernel_tile_cycles(cost, fallback_macs_per_cycle_x16, g, rows, cols, channels);
  tile_shape i = intermediate_tile(g, {rows, cols, channels});
  if (first_rows >= 0) i.h = first_rows;
  // A carrying tile whose window is all carried (the last, in the bottom padding) calls no first kernel.
  return (i.h > 0 ? kernel_tile_cycles(producer, fallback_macs_per_cycle_x16, producer_of(g), i.h, i.w, i.c) : 0) +
         kernel_tile_cycles(cost, fallback_macs_per_cycle_x16, consumer_of(g), rows, cols, channels);
}

/// Cycles a tile of layer `g` pays when its kernels prepare their filters (per_block; a fused
/// block's two kernels both prepare, every tile); 0 for layers without filters.
constexpr std::uint64_t preparation_cycles(const kernel_cost& cost, const kernel_cost& producer, const tile_geometry& g) {
  if (g.weight_bytes_per_channel == 0) return 0;
  return std::uint64_t{cost.per_block} + (g.fused() ? producer.per_block : 0);
}

/// Whether the tiles of one filter block keep their kernel's preparation (the schedule marks
/// them schedule::step::prepared on the CPU): a layer with filters and kernel scratch, not a
/// fused block (its two kernels share one scratch area, so neither keeps anything in it).
constexpr bool keeps_preparation(const tile_geometry& g, std::size_t scratch_bytes) {
  return g.weight_bytes_per_channel > 0 && !g.fused() && scratch_bytes > 0;
}

namespace cost_models {

/// 8-core PULP cluster (GAP8, Siracusa) running PULP-NN, from DORY (Burrello et al., IEEE TC
/// 2021) and PULP-NN (Garofalo et al. 2020):
/// - convolutions: ~8 MAC/cycle on 8 cores for 8-bit convs (DORY's figure): 128 cycles/kMAC;
/// - depthwise: PULP-NN's depthwise kernels reach about a quarter of that (no reuse of
///   activations across output channels): assumed 2 MAC/cycle, 512 cycles/kMAC;
/// - pools: one window element per core and cycle, i.e. 8 per cycle: 128 cycles/kMAC (a pool's
///   MACs are its window elements);
/// - elementwise: about 2 cycles per element per core (load, add/requantise, store), so 4
///   elements per cycle on 8 cores: 256 cycles per 1024 elements (one "MAC" per element);
/// - per tile: ~300 cycles (cluster fork/join and kernel set-up, DORY's measured overhead is
///   a few hundred cycles per kernel call); per row: 0 (PULP-NN parallelises over rows).
/// These are assumptions for planning, not measurements of this project.
inline constexpr compute_model pulp_cluster8{{{
    {128, 0, 0, 300},  // convolution
    {512, 0, 0, 300},  // depthwise
    {128, 0, 0, 300},  // pool
    {256, 0, 0, 300},  // elementwise
}}};

/// Cortex-M7 with the arm_dsp family (STM32H7), from docs/benchmarks.md, "Cortex-M under QEMU":
/// guest instructions per MAC on the Cortex-M7 build: convolutions 0.90-1.06 (1.0 taken),
/// depthwise 2.04-2.96 (2.5 taken), fully connected 1.55-1.95 (counted as convolutions: the
/// planner sees a Gemm as a 1x1 conv). Instructions are converted to cycles at one cycle per
/// instruction: the M7 dual-issues some pairs but loses cycles to load-use and branch
/// penalties, and on the measured kernels (DTCM data) the two roughly cancel - an assumption,
/// not a measurement. Pools and elementwise ops have no QEMU figure yet: assumed 1 cycle per
/// window element and 4 cycles per element; per tile ~200 cycles (call, requant set-up).
/// Per tile of a convolution or depthwise layer: 10,000 cycles, fitted to the kws_tiled
/// firmware (benchmarks/qemu, docs/benchmarks.md): the DS-CNN tiled through 12 kB of L1 runs
/// ~470 more kernel calls than through 32 kB and 5.4 M more instructions on the Cortex-M4
/// (11.4 k per call); fused into 6-tile blocks, 40 more calls and 0.65 M more (16 k per call,
/// halo and narrow column tiles included). What a call pays: the weight cache of the arm_dsp
/// convolutions (filters widened to 16 bits, per call), the depthwise CHW transposes, the
/// copies of the memcpy DMA. Per row ~20 (row pointers, im2col restart).
inline constexpr compute_model cortex_m7_dsp{{{
    {1024, 0, 20, 2500, 0, 0, 4, 6000},  // convolution: 1.0 cycle/MAC, pixels in fours
    {2560, 0, 20, 7500, 0, 0, 0, 1000},  // depthwise: 2.5 cycles/MAC
    {1024, 0, 20, 200},    // pool: 1 cycle per window element
    {4096, 0, 0, 200},     // elementwise: 4 cycles per element
}}};

/// One RISC-V core running the rv32 family without a cluster (a DIANA-like host CPU):
/// PULP-NN's single-core figures, about 1 MAC per cycle for convolutions and a quarter of
/// that for depthwise, per call ~100 cycles. Assumptions for planning, not measurements.
inline constexpr compute_model riscv_core1{{{
    {1024, 0, 0, 100},  // convolution
    {4096, 0, 0, 100},  // depthwise
    {1024, 0, 0, 100},  // pool
    {2048, 0, 0, 100},  // elementwise
}}};

/// A DIANA-like analog in-memory array (1152 rows x 512 columns): one matrix-vector product
/// per output pixel computes every output channel over all C * FX * FY inputs at once, ~8
/// cycles each (an assumption; HTVM reports the array's throughput, not cycles), so a tile costs
/// 8 cycles per output pixel: 16 per 1024 outputs of the 512-channel-rounded tile, and 1 cycle
/// per 1024 MACs stands for the array's near-free accumulation. Per tile ~500 cycles (DAC/ADC
/// set-up).
inline constexpr compute_model diana_analog{{{
    {1, 16, 0, 500, 512, 1},  // convolution
    {0, 0, 0, 0, 0, 0},       // depthwise: not run
    {0, 0, 0, 0, 0, 0},       // pool: not run
    {0, 0, 0, 0, 0, 0},       // elementwise: not run
}}};

/// A DIANA-like digital accelerator (HTVM, Van Delm et al. 2023): a 16 x 16 PE array, 16
/// output channels of 16 output columns per cycle and input element, so a convolution tile
/// costs ceil(K/16) * ceil(OX/16) * OY * C * FX * FY cycles (4 cycles per 1024 MACs of the
/// rounded-up tile); depthwise on one PE row, 16 channels per cycle: ceil(K/16) * OX * OY * FX
/// * FY (64 per 1024); dense layers as 1x1 convolutions of one column: ceil(K/16) * C per row.
/// Per tile ~200 cycles of configuration (an assumption: HTVM reports the array's compute,
/// not its set-up).
inline constexpr compute_model diana_digital{{{
    {4, 0, 0, 200, 16, 16},   // convolution (and dense)
    {64, 0, 0, 200, 16, 1},   // depthwise
    {0, 0, 0, 0, 0, 0},       // pool: not run
    {0, 0, 0, 0, 0, 0},       // elementwise: not run
}}};

}  // namespace cost_models
}  // namespace tessera
