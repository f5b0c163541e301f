// The timeline of a simulated run: spans built from the simulated DMA's trace (dma/trace.hpp).
// Host only ({fmt}).
//
// Lanes: one per core seen in the trace ("core 0", at least that one; a compute event whose
// engine is -k ran on accelerator k of the target, its lane named after it), then one per DMA
// engine and outer level of the target ("DMA L2<->L1", "DMA L3<->L2"; a level on engine k > 0,
// or a transfer the trace puts there, "DMAk L3<->L2": gap8's L3 has an engine of its own; a
// transfer into an accelerator's memories on that accelerator's DMA path, "DMA1 L2<->digital").
// Compute and stalls go on their core's lane, each transfer on its engine's lane for its outer
// level. The spans are the trace's events one for one, in trace order, with the same times, so
// the picture adds up to the simulator's counters.
//
// Usage:
//   tessera::dma::simulated_policy<> dma{tessera::targets::gap8};
//   dma.record_trace();
//   ... run ...
//   const auto tl = tessera::report::timeline_of(dma.trace(), tessera::targets::gap8);
//   tessera::report::write_text_file("timeline.svg", tessera::report::svg_timeline(tl));
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <tessera/dma/trace.hpp>
#include <tessera/report/svg/timeline.hpp>
#include <tessera/target/target.hpp>

namespace tessera::report {

/// The default span labels: "load #3, 1024 B", "store #4, 512 B", "compute" (or "tag 2 compute"
/// when the caller tagged the events), "stall on #3".
struct default_event_label {
  std::string operator()(const dma::trace_event& e) const {
    switch (e.kind) {
      case dma::event_kind::transfer:
        return fmt::format("{} #{}, {} B", e.inbound ? "load" : "store", e.id, e.bytes);
      case dma::event_kind::compute:
        return e.tag >= 0 ? fmt::format("tag {} compute", e.tag) : std::string("compute");
      case dma::event_kind::stall:
        return fmt::format("stall on #{}", e.id);
    }
    return {};
  }
};

/// The timeline of `trace`, recorded by a simulated DMA of `target`. `label(event)` names each
/// span (e.g. a layer's name from the event's tag); it must return something convertible to
/// std::string.
template <class Label = default_event_label>
timeline timeline_of(const std::vector<dma::trace_event>& trace, const target_desc& target, Label label = {}) {
  // Lane keys: cores first, then (DMA engine, outer level, compute engine of the inner memory)
  // triples, each sorted.
  using dma_key = std::tuple<int, int, int>;
  std::vector<int> cores{0};
  std::vector<dma_key> dmas;
  for (int level = 1; level < target.level_count; ++level)
    dmas.emplace_back(target.levels[static_cast<std::size_t>(level)].dma_engine, level, 0);
  for (const dma::trace_event& e : trace) {
    if (e.kind == dma::event_kind::transfer) {
      const dma_key key{e.engine, e.outer_level, e.compute_engine};
      if (std::find(dmas.begin(), dmas.end(), key) == dmas.end()) dmas.push_back(key);
    } else if (std::find(cores.begin(), cores.end(), e.engine) == cores.end()) {
      cores.push_back(e.engine);
    }
  }
  std::sort(cores.begin(), cores.end());
  std::sort(dmas.begin(), dmas.end());

  timeline tl;
  tl.title = fmt::format("Timeline on {}", target.name.c_str());
  for (const int core : cores)
    tl.lanes.push_back(core >= 0 || -core > target.accelerator_count ? fmt::format("core {}", core)
                                                                      : std::string(target.accelerator(-core).name.c_str()));
  auto level_name = [&](int level) -> std::string {
    if (level >= 0 && level < static_cast<int>(target.levels.size()) && level < target.level_count)
      return target.levels[static_cast<std::size_t>(level)].name.c_str();
    return fmt::format("L{}?", level + 1);
  };
  for (const auto& [engine, level, inner] : dmas)
    tl.lanes.push_back(fmt::format("DMA{} {}<->{}", engine == 0 ? std::string() : std::to_string(engine),
                                   level_name(level),
                                   inner > 0 && inner <= target.accelerator_count
                                       ? std::string(target.accelerator(inner).name.c_str())
                                       : level_name(level - 1)));

  auto core_lane = [&](int core) {
    return static_cast<int>(std::find(cores.begin(), cores.end(), core) - cores.begin());
  };
  auto dma_lane = [&](int engine, int level, int inner) {
    const auto at = std::find(dmas.begin(), dmas.end(), dma_key{engine, level, inner}) - dmas.begin();
    return static_cast<int>(cores.size()) + static_cast<int>(at);
  };
  tl.spans.reserve(trace.size());
  for (const dma::trace_event& e : trace) {
    timeline_span s{.t_begin = e.begin, .t_end = e.end, .label = std::string(label(e))};
    switch (e.kind) {
      case dma::event_kind::transfer:
        s.lane = dma_lane(e.engine, e.outer_level, e.compute_engine);
        s.kind = e.inbound ? span_kind::dma_in : span_kind::dma_out;
        break;
      case dma::event_kind::compute:
        s.lane = core_lane(e.engine);
        s.kind = span_kind::compute;
        break;
      case dma::event_kind::stall:
        s.lane = core_lane(e.engine);
        s.kind = span_kind::stall;
        break;
    }
    if (e.kind != dma::event_kind::compute) {
      s.level = e.outer_level;
      s.bytes = e.bytes;
    }
    tl.spans.push_back(std::move(s));
  }
  return tl;
}

}  // namespace tessera::report
