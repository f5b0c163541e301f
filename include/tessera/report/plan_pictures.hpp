// Pictures of a tiled plan as it runs: the L1 and L2 memory maps (one rectangle per buffer
// lifetime) and the timeline (compute, DMA per level, stalls), from one replay of the step
// program over the simulated DMA with every event tagged by its step. Host only ({fmt}).
//
//   auto pictures = tessera::report::plan_pictures_of<run>(l3, l2, l1, {input}, {output});
//   tessera::report::write_text_file("l1.svg", tessera::report::svg_memory_map(pictures.l1));
//
// Lifetimes come from the program: an L1 or L2 slot's content lives from the step that fills
// it (a transfer's start on the engine, or a compute's start for an output tile) to the end of
// the last step that reads it; an L2 activation tensor from its first write to its last read.
// Times are the simulator's cycles.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <tessera/dma/simulated_policy.hpp>
#include <tessera/report/svg.hpp>
#include <tessera/schedule/transfers.hpp>

namespace tessera::report {

struct plan_pictures {
  memory_map l1{}, l2{};
  timeline time{};
  dma::dma_stats stats{};
  std::uint64_t hazards = 0;
};

namespace pictures_detail {

/// When each step ran: the first begin and last end of the trace events tagged with it.
struct step_span {
  bool seen = false;
  std::uint64_t begin = 0, end = 0;
};

/// An open lifetime of a buffer: where, what, since when, last read until when.
struct open_buffer {
  int level = 1;  ///< 0 = L1, 1 = L2
  std::size_t offset = 0, bytes = 0;
  std::string label;
  buffer_kind kind = buffer_kind::other;
  std::uint64_t begin = 0, end = 0;
  int tensor = -1;
};

inline bool overlaps(const open_buffer& a, int level, std::size_t offset, std::size_t bytes) {
  return a.level == level && a.offset < offset + bytes && offset < a.offset + a.bytes;
}

}  // namespace pictures_detail

/// Replays `Run::program` (a tiled_executor) over a traced simulated DMA and draws it.
template <class Run>
plan_pictures plan_pictures_of(std::byte* l3, std::byte* l2, std::byte* l1, const typename Run::inputs_t& inputs,
                               const typename Run::outputs_t& outputs) {
  using namespace pictures_detail;
  constexpr auto& net = Run::net_summary;
  constexpr auto& plan = Run::plan;
  constexpr auto& program = Run::program;
  dma::simulated_policy<> sim(Run::target);
  sim.record_trace();
  Run::run(l3, l2, l1, inputs, outputs, sim);
  sim.finish();

  std::vector<step_span> when(program.steps.size());
  for (const dma::trace_event& e : sim.trace()) {
    if (e.tag < 0 || static_cast<std::size_t>(e.tag) >= when.size()) continue;
    step_span& w = when[static_cast<std::size_t>(e.tag)];
    if (!w.seen || e.begin < w.begin) w.begin = e.begin;
    if (!w.seen || e.end > w.end) w.end = e.end;
    w.seen = true;
  }
  // Steps without events of their own (waits that did not stall, done) take the time of the
  // latest event before them, so that every step has a time.
  std::uint64_t clock = 0;
  for (step_span& w : when) {
    if (!w.seen) w.begin = w.end = clock;
    if (w.end > clock) clock = w.end;
  }

  plan_pictures out;
  out.stats = sim.stats();
  out.hazards = sim.hazard_count();
  out.l1 = {"L1", Run::target.levels[0].bytes, {}, fmt::format("L1 on {}", Run::target.name.c_str())};
  if constexpr (Run::target.accelerator_count > 0) {  // the local space: L1, then the engines' memories
    for (const local_region& r : plan.local)
      if (r.base + r.bytes > out.l1.capacity) out.l1.capacity = r.base + r.bytes;
    out.l1.title = fmt::format("L1 and accelerator memories on {}", Run::target.name.c_str());
  }
  out.l2 = {"L2", Run::target.levels[1].bytes, {}, fmt::format("L2 on {}", Run::target.name.c_str())};
  std::vector<open_buffer> open;
  const auto close = [&](open_buffer& b) {
    (b.level == 0 ? out.l1 : out.l2).buffers.push_back({b.label, b.offset, b.bytes, b.begin, b.end, b.kind});
  };
  // A new content replaces what it overlaps.
  const auto fill = [&](open_buffer b) {
    for (std::size_t i = 0; i < open.size();) {
      if (overlaps(open[i], b.level, b.offset, b.bytes)) {
        close(open[i]);
        open.erase(open.begin() + static_cast<std::ptrdiff_t>(i));
      } else {
        ++i;
      }
    }
    open.push_back(std::move(b));
  };
  const auto read = [&](int level, std::size_t offset, std::size_t bytes, std::uint64_t until) {
    for (open_buffer& b : open)
      if (overlaps(b, level, offset, bytes) && until > b.end) b.end = until;
  };
  const auto tensor_level = [&](int t) { return plan.in_l3[static_cast<std::size_t>(t)] ? 2 : 1; };
  const auto tensor_offset = [&](int t) { return plan.l2.tensor_offset[static_cast<std::size_t>(t)]; };
  const auto touch_tensor = [&](int t, std::uint64_t begin, std::uint64_t end, bool write) {
    if (tensor_level(t) != 1 || tensor_offset(t) < 0) return;  // caller buffer or L3
    const auto offset = static_cast<std::size_t>(tensor_offset(t));
    const std::size_t bytes = net.tensors[static_cast<std::size_t>(t)].bytes();
    for (open_buffer& b : open)
      if (b.tensor == t) {
        if (end > b.end) b.end = end;
        return;
      }
    if (!write) return;
    fill({1, offset, bytes, fmt::format("{}", net.tensors[static_cast<std::size_t>(t)].name.c_str()),
          buffer_kind::activation, begin, end, t});
  };

  for (std::size_t k = 0; k < program.steps.size(); ++k) {
    const schedule::step& s = program.steps[k];
    const step_span& w = when[k];
    const char* layer = net.nodes[s.layer].name.c_str();
    if (s.kind == schedule::step_kind::issue) {
      const schedule::transfer_desc d = schedule::describe(net, plan, s);
      // The source is read until the transfer ends.
      if (d.src.where == schedule::space::l1) read(0, static_cast<std::size_t>(d.src.offset), d.bytes(), w.end);
      if (d.src.where == schedule::space::l2) read(1, static_cast<std::size_t>(d.src.offset), d.bytes(), w.end);
      if (d.src.where == schedule::space::tensor) touch_tensor(d.src.index, w.begin, w.end, false);
      if (d.dst.where == schedule::space::tensor) touch_tensor(d.dst.index, w.begin, w.end, true);
      if (d.dst.where == schedule::space::l1 || d.dst.where == schedule::space::l2) {
        const buffer_kind kind = s.role == schedule::transfer_role::input ? buffer_kind::input
                                 : s.role == schedule::transfer_role::filters ||
                                           s.role == schedule::transfer_role::producer_filters
                                     ? buffer_kind::weights
                                     : buffer_kind::staging;
        fill({d.dst.where == schedule::space::l1 ? 0 : 1, static_cast<std::size_t>(d.dst.offset), d.bytes(),
              fmt::format("{} {} {}", layer, schedule::name_of(s.role), s.tile), kind, w.begin, w.end});
      }
    } else if (s.kind == schedule::step_kind::compute) {
      const node_summary& node = net.nodes[s.layer];
      if (s.tile < 0) {
        for (int i = 0; i < node.input_count; ++i) touch_tensor(node.inputs[static_cast<std::size_t>(i)], w.begin, w.end, false);
        for (int o = 0; o < node.output_count; ++o)
          touch_tensor(node.outputs[static_cast<std::size_t>(o)], w.begin, w.end, true);
        continue;
      }
      const schedule::tile_buffers b = schedule::buffers_of(net, plan, s);
      for (int i = 0; i < b.operands; ++i)
        read(0, b.inputs[static_cast<std::size_t>(i)].offset, b.inputs[static_cast<std::size_t>(i)].bytes, w.end);
      if (b.weights.bytes > 0) read(0, b.weights.offset, b.weights.bytes, w.end);
      if (b.producer_weights.bytes > 0) read(0, b.producer_weights.offset, b.producer_weights.bytes, w.end);
      if (b.intermediate.bytes > 0)  // a fused block's intermediate map, never stored
        fill({0, b.intermediate.offset, b.intermediate.bytes, fmt::format("{} intermediate {}", layer, s.tile),
              buffer_kind::scratch, w.begin, w.end});
      if (b.scratch.bytes > 0)
        fill({0, b.scratch.offset, b.scratch.bytes, fmt::format("{} scratch {}", layer, s.tile), buffer_kind::scratch,
              w.begin, w.end});
      fill({0, b.output.offset, b.output.bytes, fmt::format("{} output {}", layer, s.tile), buffer_kind::output,
            w.begin, w.end});
    }
  }
  for (open_buffer& b : open) close(b);

  // Compute on an accelerator goes on that engine's lane (trace_timeline.hpp: engine -k).
  std::vector<dma::trace_event> trace = sim.trace();
  for (dma::trace_event& e : trace)
    if (e.kind == dma::event_kind::compute && e.tag >= 0 && static_cast<std::size_t>(e.tag) < program.steps.size() &&
        program.steps[static_cast<std::size_t>(e.tag)].engine > 0)
      e.engine = -static_cast<int>(program.steps[static_cast<std::size_t>(e.tag)].engine);
  out.time = timeline_of(trace, Run::target, [&](const dma::trace_event& e) {
    if (e.tag < 0 || static_cast<std::size_t>(e.tag) >= program.steps.size()) return std::string("?");
    const schedule::step& s = program.steps[static_cast<std::size_t>(e.tag)];
    const char* layer = net.nodes[s.layer].name.c_str();
    if (e.kind == dma::event_kind::compute) return fmt::format("{} tile {}", layer, s.tile);
    if (e.kind == dma::event_kind::stall) return fmt::format("stall: {} {} {}", layer, schedule::name_of(s.role), s.tile);
    return fmt::format("{} {} {}, {} B", layer, schedule::name_of(s.role), s.tile, e.bytes);
  });
  out.time.title = fmt::format("timeline on {}", Run::target.name.c_str());
  return out;
}

}  // namespace tessera::report
