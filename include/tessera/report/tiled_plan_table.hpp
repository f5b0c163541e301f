// Host report of a tiled deployment: per layer the tile, tile count, L1 use, bytes moved per
// level and simulated cycles (compute, DMA, stall) with the overlap, measured by running the
// network once over the simulated DMA. Uses {fmt} and the simulator: host only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <tessera/dma/simulated_policy.hpp>
#include <tessera/report/plan_table.hpp>
#include <tessera/runtime/tiled_executor.hpp>

namespace tessera::report {

/// What the simulator measured for one layer.
struct layer_measurement {
  dma::dma_stats stats{};  ///< this layer's share (differences of the running totals)
};

/// A run of a tiled network over the simulated DMA: per-layer measurements and the totals.
struct simulation {
  std::vector<layer_measurement> layers;
  dma::dma_stats total{};
  std::uint64_t hazards = 0;
};

namespace detail {
inline dma::dma_stats minus(const dma::dma_stats& a, const dma::dma_stats& b) {
  dma::dma_stats d{};
  for (std::size_t l = 0; l < a.levels.size(); ++l) {
    d.levels[l].bytes_in = a.levels[l].bytes_in - b.levels[l].bytes_in;
    d.levels[l].bytes_out = a.levels[l].bytes_out - b.levels[l].bytes_out;
    d.levels[l].transfers_in = a.levels[l].transfers_in - b.levels[l].transfers_in;
    d.levels[l].transfers_out = a.levels[l].transfers_out - b.levels[l].transfers_out;
  }
  d.total_cycles = a.total_cycles - b.total_cycles;
  d.compute_cycles = a.compute_cycles - b.compute_cycles;
  d.dma_busy_cycles = a.dma_busy_cycles - b.dma_busy_cycles;
  for (std::size_t e = 0; e < a.engine_busy_cycles.size(); ++e)
    d.engine_busy_cycles[e] = a.engine_busy_cycles[e] - b.engine_busy_cycles[e];
  d.stall_cycles = a.stall_cycles - b.stall_cycles;
  return d;
}
}  // namespace detail

/// Runs `Run` (a tiled_executor) once over the simulated DMA, measuring each layer. `l3`
/// holds spilled activations (`Run::l3_bytes`, may be null when that is 0).
template <class Run>
simulation simulate(std::byte* l3, std::byte* l2, std::byte* l1, const typename Run::inputs_t& inputs,
                    const typename Run::outputs_t& outputs) {
  dma::simulated_policy<> dma(Run::target);
  simulation sim;
  dma::dma_stats before{};
  int last = -1;
  Run::run(l3, l2, l1, inputs, outputs, dma, [&](int node, tensor_id, const void*) {
    if (node == last) return;  // one measurement per layer, not per output
    last = node;
    // Indexed by node: the depthwise node of a fused block has no measurement of its own.
    if (sim.layers.size() < static_cast<std::size_t>(node) + 1) sim.layers.resize(static_cast<std::size_t>(node) + 1);
    sim.layers[static_cast<std::size_t>(node)] = {detail::minus(dma.stats(), before)};
    before = dma.stats();
  });
  dma.finish();
  sim.total = dma.stats();
  sim.hazards = dma.hazard_count();
  return sim;
}

template <class Run>
simulation simulate(std::byte* l2, std::byte* l1, const typename Run::inputs_t& inputs,
                    const typename Run::outputs_t& outputs) {
  static_assert(Run::l3_bytes == 0, "simulate: this plan spills activations to L3: pass an L3 buffer");
  return simulate<Run>(nullptr, l2, l1, inputs, outputs);
}

/// The name of engine `e` of the target of `Run` ("cpu" for engine 0).
template <class Run>
const char* engine_name(int e) {
  return e == 0 ? "cpu" : Run::target.accelerator(e).name.c_str();
}

/// The per-layer table of a tiled plan with the simulator's measurements. On a target with
/// accelerators it names each layer's engine and ends with the totals per engine.
template <class Net, class Run>
std::string tiled_plan_table(const simulation& sim) {
  constexpr auto& g = Run::summary;  // fused blocks: one row, the depthwise node's marked
  constexpr bool engines = Run::target.accelerator_count > 0;
  std::string out = fmt::format(
      "target {}: L1 {} of {} bytes, L2 arena {} + filter staging {} + spill staging {} + io {} of {} bytes, "
      "L3 activations {} bytes; {} kernels\n",
      Run::target.name.c_str(), Run::plan.l1_bytes, Run::target.levels[0].bytes, Run::plan.l2.arena_bytes,
      Run::plan.staging_bytes, Run::plan.spill_staging_bytes, Run::plan.io_bytes, Run::target.levels[1].bytes,
      Run::l3_bytes, kernels::family_name(Run::target.kernels));
  out += fmt::format("{:>3}  {:<24} {:<12} {:<10} {}{:<11} {:>6} {:>7} {:>9} {:>9} {:>9} {:>9} {:>8} {:>7}\n", "#",
                     "layer", "op", "kernel", engines ? fmt::format("{:<12} ", "engine") : "", "tile hxwxc", "tiles",
                     "L1 B", "L2->L1 B", "L1->L2 B", "L3->L2 B", "compute", "dma", "overlap");
  constexpr int engine_count = 1 + Run::target.accelerator_count;
  std::vector<std::uint64_t> engine_cycles(engine_count), engine_macs(engine_count), engine_layers(engine_count);
  for (std::size_t n = 0; n < g.nodes.size(); ++n) {
    const node_summary& node = g.nodes[n];
    const layer_l1_plan& l = Run::plan.layers[n];
    const dma::dma_stats s = n < sim.layers.size() ? sim.layers[n].stats : dma::dma_stats{};
    const std::string tile =
        l.tiled ? fmt::format("{}x{}x{}{}", l.solution.tile.h, l.solution.tile.w, l.solution.tile.c,
                              l.solution.cut_short ? "*" : "")
                : node.absorbed ? "fused next" : "in L2";
    const char* kernel = l.engine > 0 ? "array" : node.kernel[static_cast<std::size_t>(Run::target.kernels)];
    const char* op = node.geometry.pointwise_first() ? "pw+dw block"
                     : node.geometry.fused()         ? "dw+pw block"
                                                     : name_of(node.kind);
    out += fmt::format("{:>3}  {:<24} {:<12} {:<10} {}{:<11} {:>6} {:>7} {:>9} {:>9} {:>9} {:>9} {:>8} {:>6.0f}%\n", n,
                       node.name.c_str(), op, kernel != nullptr ? kernel : "-",
                       engines ? fmt::format("{:<12} ", engine_name<Run>(l.engine)) : "", tile,
                       l.tiled ? l.solution.cost.tiles : 0, l.bytes, s.levels[1].bytes_in, s.levels[1].bytes_out,
                       s.levels[2].bytes_in, s.compute_cycles, s.dma_busy_cycles, 100.0 * s.overlap());
    if (!node.absorbed) {
      const auto e = static_cast<std::size_t>(l.engine);
      engine_cycles[e] += s.compute_cycles;
      engine_macs[e] += static_cast<std::uint64_t>(node.macs);
      engine_layers[e] += node.macs > 0 ? 1 : 0;
    }
  }
  if constexpr (engines) {
    std::uint64_t macs = 0;
    for (std::uint64_t m : engine_macs) macs += m;
    for (int e = 0; e < engine_count; ++e)
      out += fmt::format("engine {}: {} layers with MACs, {} MACs ({:.1f}%), {} compute cycles\n", engine_name<Run>(e),
                         engine_layers[static_cast<std::size_t>(e)], engine_macs[static_cast<std::size_t>(e)],
                         macs > 0 ? 100.0 * static_cast<double>(engine_macs[static_cast<std::size_t>(e)]) /
                                        static_cast<double>(macs)
                                  : 0.0,
                         engine_cycles[static_cast<std::size_t>(e)]);
  }
  const dma::dma_stats& t = sim.total;
  out += fmt::format(
      "total: {} cycles ({} compute, {} DMA busy, {} stalled), overlap {:.1f}%, L2->L1 {} B, L1->L2 {} B, "
      "L3->L2 {} B, hazards {}\n",
      t.total_cycles, t.compute_cycles, t.dma_busy_cycles, t.stall_cycles, 100.0 * t.overlap(), t.levels[1].bytes_in,
      t.levels[1].bytes_out, t.levels[2].bytes_in, sim.hazards);
  int cut = 0;
  for (const layer_l1_plan& l : Run::plan.layers) cut += l.tiled && l.solution.cut_short;
  if (cut > 0)
    out += fmt::format(
        "* {} tile search(es) reached the work budget (target_desc::search_budget = {}): the best tile found, not "
        "proven the best under the objective\n",
        cut, Run::target.search_budget);
  return out;
}

}  // namespace tessera::report
