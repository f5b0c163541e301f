// Runs a network on a target with memory levels by replaying its step program: activations in
// the L2 arena, tiled layers pipelined through L1 with double-buffered DMA.
//
//   using run = tessera::tiled_executor<model::network, tessera::target<tessera::targets::gap8>>;
//   alignas(16) static std::byte l2[run::l2_bytes];   // activation arena (+ L3 staging slots)
//   alignas(16) static std::byte l1[run::l1_bytes];   // tile buffers
//   tessera::dma::memcpy_policy dma;
//   run::run(l2, l1, {input}, {output}, dma);         // run(l3, l2, l1, ...) when l3_bytes > 0
//   run::run(team, l2, l1, {input}, {output}, dma);   // on a cluster: cores share each tile's rows
//
// The schedule is data computed by the compiler (`program`, schedule/emit.hpp): every DMA issue,
// wait and tile compute in order. It is proven free of hazards at compile time
// (schedule/hazard_check.hpp); the replay below only binds each step to memory. A plan that
// does not fit the target fails to compile naming layer, level, bytes needed and available.
//
// Accelerators (target/engine.hpp, planning/dispatch.hpp): a layer the dispatcher gives to an
// accelerator has its tiles in the engine's own memories (the plan's local space maps them)
// and each compute step is a job for the target's accelerator driver (runtime/accelerator.hpp;
// on the host, a model that computes with the reference kernels and the engine's cost model).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include <tessera/diagnostics/errors.hpp>
#include <tessera/dma/policy.hpp>
#include <tessera/dma/transfer.hpp>
#include <tessera/planning/fusion.hpp>
#include <tessera/planning/target_plan.hpp>
#include <tessera/runtime/accelerator.hpp>
#include <tessera/runtime/cluster.hpp>
#include <tessera/runtime/executor.hpp>
#include <tessera/runtime/node_calls.hpp>
#include <tessera/runtime/sequence_executor.hpp>
#include <tessera/schedule/emit.hpp>
#include <tessera/schedule/hazard_check.hpp>
#include <tessera/schedule/transfers.hpp>

namespace tessera {

/// Test-only switches of the replay (never set them in firmware).
struct pipeline_options {
  bool skip_input_wait = false;  ///< drop the waits on input tiles: the simulated DMA must catch it
};

namespace runtime_detail {
template <auto const& Plan, const auto& Summary, target_desc Target>
constexpr bool plan_fits() {
  if constexpr (!Plan.fits && Plan.failing_level < 0) {
    diagnostics::engine_rule_broken<Summary.nodes[static_cast<std::size_t>(Plan.failing_node)].name,
                                    (Plan.broken_engine > 0 ? Target.accelerator(Plan.broken_engine).name
                                                            : fixed_name("(no such engine)")),
                                    Plan.broken_rule>{};
  } else if constexpr (!Plan.fits) {
    diagnostics::does_not_fit<Summary.nodes[static_cast<std::size_t>(Plan.failing_node)].name,
                              level_name(Target, Plan.failing_level), Plan.needed, Plan.available>{};
    if constexpr (Plan.failing_level == 0 && Plan.l1_minimum > Plan.needed) {
      diagnostics::network_needs_at_least<Target.levels[0].name, Plan.l1_minimum,
                                          Summary.nodes[static_cast<std::size_t>(Plan.l1_minimum_node)].name,
                                          Plan.available>{};
    }
  }
  return Plan.fits;
}

/// The state calls of a network with state (runtime/sequence_executor.hpp), or nothing.
struct no_state {};
template <class Net, bool = Net::has_sequence>
struct state_of {
  using state = no_state;
  using outputs_t = no_state;
};
template <class Net>
struct state_of<Net, true> : detail::state_calls<Net> {};
}  // namespace runtime_detail

template <class Net, class Target, pipeline_options Options = pipeline_options{}>
struct tiled_executor {
  static constexpr target_desc target = Target::desc;
  /// What is planned: the network's summary with the fused depthwise -> pointwise blocks the
  /// selector chose for this target (planning/fusion.hpp); the plan, the schedule and the
  /// reports index layers by its nodes. The selector sees each block's L1 only: should the
  /// fused plan not fit L2 (a block's filters are staged whole), the network runs unfused.
  static constexpr auto fused_plan =
      plan_for(fused_summary<Net::summary, target>, target, layer_solutions<fused_summary<Net::summary, target>, target>);
  static constexpr const auto& summary = fused_plan.fits ? fused_summary<Net::summary, target> : Net::summary;
  static constexpr const auto& net_summary = summary;
  static constexpr auto memory_plan =
      fused_plan.fits ? fused_plan : plan_for(Net::summary, target, layer_solutions<Net::summary, target>);
  /// The plan it runs: the memory plan with L1 forwarding (planning/l1_forwarding.hpp),
  /// decided in a constant evaluation of its own.
  static constexpr auto plan = with_l1_forwarding(summary, target, memory_plan);
  static constexpr bool fits = runtime_detail::plan_fits<plan, summary, target>();
  /// What the run-time loop reads of `summary` (schedule::wired_nodes): the rest of it stays a
  /// compile-time object, out of the firmware.
  static constexpr auto wiring = schedule::wiring_of(summary);
  static_assert(fits, "tessera::tiled_executor: the network does not fit the target (see does_not_fit above)");

  /// The schedule: every transfer, wait and compute of a run, in order.
  static constexpr const auto& program = schedule::emitted_program<summary, plan>;
  static constexpr bool schedule_is_safe = schedule::proven_safe<summary, plan, program>();
  static_assert(schedule_is_safe, "tessera::tiled_executor: the schedule has a hazard (see schedule_hazard above)");

  /// The L2 buffer: activation arena, then (three-level targets) the filter staging slots.
  static constexpr std::size_t l2_bytes = plan.l2_bytes > 0 ? plan.l2_bytes : 16;
  static constexpr std::size_t l1_bytes = plan.l1_bytes > 0 ? plan.l1_bytes : 16;
  /// Activations spilled to L3 (three-level targets whose L2 cannot hold them all).
  static constexpr std::size_t l3_bytes = plan.l3.arena_bytes;

  /// The driver of the target's accelerators (runtime/accelerator.hpp; none without any).
  using accelerators = typename accelerators_of<Target>::type;

  using inputs_t = typename caller_buffers<Net>::inputs_t;
  using outputs_t = typename caller_buffers<Net>::outputs_t;

  /// Networks with state (a KV cache kept in place: runtime/sequence_executor.hpp): the
  /// caller's state, its graph outputs other than the state, and `step` below.
  using state = typename runtime_detail::state_of<Net>::state;
  using step_outputs_t = typename runtime_detail::state_of<Net>::outputs_t;

  /// `l2`: `l2_bytes`, `l1`: `l1_bytes`, both 16-byte aligned; inputs and outputs in L2.
  template <dma::policy Dma, class Observer = no_observer>
  static void run(std::byte* l2, std::byte* l1, const inputs_t& inputs, const outputs_t& outputs, Dma& dma,
                  Observer&& observer = {}) {
    static_assert(l3_bytes == 0, "tiled_executor::run: this plan spills activations to L3: pass an L3 buffer");
    run(nullptr, l2, l1, inputs, outputs, dma, observer);
  }

  /// A network with state: runs one call over the state's positions and its own rows and appends
  /// them to the state, as sequence_executor::step does (`full`, `not_empty`: nothing ran). The
  /// plan and its schedule are the capacity's; each transfer moves the live part of its planned
  /// box and each tile computes over the live length (sequence_growth), so the compile-time
  /// hazard proof covers every length. The state's buffers are the caller's (in L2).
  template <Team T, dma::policy Dma, class Observer = no_observer>
  static step_status step(T& team, std::byte* l2, std::byte* l1, state& s, const inputs_t& inputs,
                          const step_outputs_t& outputs, Dma& dma, Observer&& observer = {}) {
    static_assert(l3_bytes == 0, "tiled_executor::step: a plan that spills activations to L3 is not supported "
                                 "with state");
    using calls = runtime_detail::state_of<Net>;
    if (const step_status refused = calls::admit(s); refused != step_status::ok) return refused;
    const outputs_t all = calls::template all_outputs<outputs_t>(s, outputs);
    replay<program>(memory{nullptr, l2, l1, &inputs, &all, calls::length_of_call(s)}, dma, observer, team);
    calls::appended(s);
    return step_status::ok;
  }
  template <dma::policy Dma, class Observer = no_observer>
  static step_status step(std::byte* l2, std::byte* l1, state& s, const inputs_t& inputs,
                          const step_outputs_t& outputs, Dma& dma, Observer&& observer = {}) {
    single_core one;
    return step(one, l2, l1, s, inputs, outputs, dma, observer);
  }

  /// As above on a cluster (runtime/cluster.hpp): the team's cores share every tile by output
  /// rows (row_band_of); hart/core 0 replays the program and issues the DMA transfers.
  template <Team T, dma::policy Dma, class Observer = no_observer>
  static void run(T& team, std::byte* l2, std::byte* l1, const inputs_t& inputs, const outputs_t& outputs, Dma& dma,
                  Observer&& observer = {}) {
    static_assert(l3_bytes == 0, "tiled_executor::run: this plan spills activations to L3: pass an L3 buffer");
    runs_without_state();
    replay<program>(memory{nullptr, l2, l1, &inputs, &outputs}, dma, observer, team);
  }

  /// The cluster run with an L3 buffer.
  template <Team T, dma::policy Dma, class Observer = no_observer>
  static void run(T& team, std::byte* l3, std::byte* l2, std::byte* l1, const inputs_t& inputs,
                  const outputs_t& outputs, Dma& dma, Observer&& observer = {}) {
    runs_without_state();
    replay<program>(memory{l3, l2, l1, &inputs, &outputs}, dma, observer, team);
  }

  /// As above, with `l3` (`l3_bytes`) holding the activations the plan spills to L3.
  template <dma::policy Dma, class Observer = no_observer>
  static void run(std::byte* l3, std::byte* l2, std::byte* l1, const inputs_t& inputs, const outputs_t& outputs,
                  Dma& dma, Observer&& observer = {}) {
    runs_without_state();
    single_core one;
    replay<program>(memory{l3, l2, l1, &inputs, &outputs}, dma, observer, one);
  }

  /// Replays any step program over this plan (tests replay hand-altered programs through the
  /// simulated DMA; firmware calls run()).
  template <auto const& Program, dma::policy Dma, class Observer = no_observer>
  static void replay(std::byte* l3, std::byte* l2, std::byte* l1, const inputs_t& inputs, const outputs_t& outputs,
                     Dma& dma, Observer&& observer = {}) {
    single_core one;
    replay<Program>(memory{l3, l2, l1, &inputs, &outputs}, dma, observer, one);
  }

 private:
  struct memory {
    std::byte *l3, *l2, *l1;
    const inputs_t* inputs;
    const outputs_t* outputs;
    int length = -1;  ///< the run's sequence length (networks with state)
  };
  /// The plan's run() calls are for networks without a run-time length.
  static constexpr void runs_without_state() {
    static_assert(!Net::has_sequence, "tessera::tiled_executor: the network has state and a run-time sequence "
                                      "length: call step() with its state");
  }
  static constexpr std::size_t node_count = Net::node_count;

  template <auto const& Program, class Dma, class Observer, class T>
  static void replay(const memory& m, Dma& dma, Observer& observer, T& team) {
    dma::handle handles[Program.handles > 0 ? Program.handles : 1]{};
    // A checking DMA (the simulator) learns where L1 and L2 are, to check each transfer's sides
    // (not yet on targets with accelerators: their memories are the driver's, outside L1).
    if constexpr (target.accelerator_count == 0 &&
                  requires { dma.bind_memories(m.l1, std::size_t{0}, m.l2, std::size_t{0}); })
      dma.bind_memories(m.l1, plan.l1_bytes, m.l2, plan.l2_bytes);
    for (std::size_t index = 0; index < Program.steps.size(); ++index) {
      const schedule::step& s = Program.steps[index];
      // A tracing DMA (the simulator) tags its events with the step that caused them.
      if constexpr (requires { dma.set_trace_tag(0); }) dma.set_trace_tag(static_cast<int>(index));
      switch (s.kind) {
        case schedule::step_kind::issue:
          handles[s.handle] = dma.start(bind(schedule::describe(wiring, plan, s, live_of(s.layer, m)), m));
          break;
        case schedule::step_kind::wait:
          if (!(Options.skip_input_wait && s.role == schedule::transfer_role::input)) dma.wait(handles[s.handle]);
          break;
        case schedule::step_kind::compute: compute(s, m, dma, team); break;
        case schedule::step_kind::done:
          for (int o = 0; o < wiring.nodes[s.layer].output_count; ++o) {
            const tensor_id t = wiring.nodes[s.layer].outputs[static_cast<std::size_t>(o)];
            observer(static_cast<int>(s.layer), t, locate(t, m));
          }
          break;
      }
    }
  }

  static void* locate(tensor_id t, const memory& m) {
    if (plan.in_l3[static_cast<std::size_t>(t)]) return m.l3 + plan.l3.tensor_offset[static_cast<std::size_t>(t)];
    const std::int64_t offset = plan.l2.tensor_offset[static_cast<std::size_t>(t)];
    if (offset >= 0) return m.l2 + offset;
    return caller_buffers<Net>::find(t, *m.inputs, *m.outputs);
  }

  /// Per node: its whole-layer and tile calls and its filters (runtime/node_calls.hpp).
  static constexpr auto nodes =
      Net::template per_node<runtime_detail::node_calls>(runtime_detail::calls_of<Net::tensors, target.kernels>{});
  /// Networks with state only (none in other firmware): each node's whole-layer call over a
  /// run-time length (nullptr: it does not touch a sequence) and how its tiles grow with it.
  static constexpr const auto& calls_at_length = runtime_detail::calls_at_length_of<Net, target.kernels>;
  static constexpr auto growths = [] {
    std::array<sequence_growth, Net::has_sequence ? node_count : 0> g{};
    for (std::size_t n = 0; n < g.size(); ++n) g[n] = summary.nodes[n].growth;
    return g;
  }();
  /// Layer `layer` of this run: its growth at the run's length, or none.
  static constexpr live_extent live_of(std::size_t layer, const memory& m) {
    if constexpr (Net::has_sequence) return {&growths[layer], m.length};
    else return {};
  }
  static_assert(accelerator_driver<accelerators>,
                "tessera::tiled_executor: Target::accelerators does not provide the driver interface (see "
                "runtime/accelerator.hpp)");
  /// The reference kernels' tile calls, which a simulated accelerator computes with (only for
  /// targets with accelerators: firmware without any carries no second table).
  static constexpr auto reference_nodes = [] {
    if constexpr (target.accelerator_count > 0)
      return Net::template per_node<runtime_detail::node_calls>(
          runtime_detail::calls_of<Net::tensors, kernels::kernel_family::reference>{});
    else
      return 0;
  }();

  /// The analog tile calls, for targets with an engine whose numerics are not exact.
  static constexpr bool has_analog_engine = [] {
    for (int e = 1; e <= target.accelerator_count; ++e)
      if (!target.accelerator(e).numerics.exact()) return true;
    return false;
  }();
  static constexpr auto analog_nodes = [] {
    if constexpr (has_analog_engine)
      return Net::template per_node<runtime_detail::analog_tile_fn>(runtime_detail::analog_tiles_of<Net::tensors>{});
    else
      return 0;
  }();

  /// Local-space offset (target_plan.hpp, local_base) -> address: the CPU's L1 or the memory of
  /// the accelerator whose range holds it.
  static std::byte* local(std::int64_t offset, const memory& m) {
    if constexpr (target.accelerator_count > 0) {
      for (int e = target.accelerator_count; e >= 1; --e) {
        const auto weights = static_cast<std::int64_t>(local_base(target, e, true));
        const auto activations = static_cast<std::int64_t>(local_base(target, e, false));
        if (offset >= weights) return accelerators::weight_memory(e) + (offset - weights);
        if (offset >= activations) return accelerators::activation_memory(e) + (offset - activations);
      }
    }
    return m.l1 + offset;
  }

  static std::byte* address(const schedule::endpoint& e, const memory& m) {
    switch (e.where) {
      case schedule::space::l1: return local(e.offset, m);
      case schedule::space::l2: return m.l2 + e.offset;
      case schedule::space::tensor: return static_cast<std::byte*>(locate(e.index, m)) + e.offset;
      case schedule::space::filters:
        // Constant filters are only ever a source: the DMA reads them.
        return const_cast<std::byte*>(static_cast<const std::byte*>(nodes[static_cast<std::size_t>(e.index)].filters)) +
               e.offset;
    }
    return nullptr;
  }

  static dma::transfer bind(const schedule::transfer_desc& d, const memory& m) {
    dma::transfer t{};
    t.src = address(d.src, m);
    t.dst = address(d.dst, m);
    t.row_bytes = d.row_bytes;
    t.rows = d.rows;
    t.planes = d.planes;
    t.src_row_stride = d.src.row_stride;
    t.src_plane_stride = d.src.plane_stride;
    t.dst_row_stride = d.dst.row_stride;
    t.dst_plane_stride = d.dst.plane_stride;
    t.outer_level = d.outer_level;
    t.inbound = d.inbound;
    t.engine = d.engine;
    return t;
  }

  /// A compute step: the whole layer on its L2 buffers (on core 0), or one tile in L1, its
  /// output rows shared by the team's cores. Written once per network; the node's own code is
  /// behind `nodes[s.layer]`.
  template <class Dma, class T>
  static void compute(const schedule::step& s, const memory& m, Dma& dma, T& team) {
    const runtime_detail::node_calls& node = nodes[s.layer];
    if (s.tile < 0) {
      const schedule::wired_node& layer = wiring.nodes[s.layer];
      void* in[max_node_inputs]{};
      void* out[max_node_outputs]{};
      for (int i = 0; i < layer.input_count; ++i) in[i] = locate(layer.inputs[static_cast<std::size_t>(i)], m);
      for (int i = 0; i < layer.output_count; ++i) out[i] = locate(layer.outputs[static_cast<std::size_t>(i)], m);
      std::byte* scratch = m.l2 + plan.l2.scratch_offset[s.layer];
      auto whole = [&](int /*core*/) {
        if constexpr (Net::has_sequence) {
          if (calls_at_length[s.layer] != nullptr) {
            calls_at_length[s.layer](m.length, in, out, scratch);
            return;
          }
        }
        node.whole(in, out, scratch);
      };
      team.fork(static_cast<int>(s.layer), 1, whole);
      return;
    }
    if (node.tile == nullptr) return;
    if constexpr (Net::has_sequence) {
      const live_extent run = live_of(s.layer, m);
      if (run.applies()) {
        compute_tile(s, m, dma, team, at_length(wiring.nodes[s.layer].geometry, run), run);
        return;
      }
    }
    compute_tile(s, m, dma, team, wiring.nodes[s.layer].geometry, live_extent{});
  }

  /// A tile of a layer whose geometry is `g` (the plan's, or at the run's length: `run`).
  template <class Dma, class T>
  static void compute_tile(const schedule::step& s, const memory& m, Dma& dma, T& team, const tile_geometry& g,
                           const live_extent& run) {
    const runtime_detail::node_calls& node = nodes[s.layer];
    tile_args args{};
    const schedule::tile_buffers b = schedule::buffers_of(wiring, plan, s, &args, run);
    for (int k = 0; k < b.operands; ++k) {
      args.input[k] = local(static_cast<std::int64_t>(b.inputs[static_cast<std::size_t>(k)].offset), m);
      dma.declare_read(args.input[k], b.inputs[static_cast<std::size_t>(k)].bytes);
    }
    if (b.weights.bytes > 0) {
      args.weights = local(static_cast<std::int64_t>(b.weights.offset), m);
      dma.declare_read(args.weights, b.weights.bytes);
    }
    args.output = local(static_cast<std::int64_t>(b.output.offset), m);
    args.scratch = local(static_cast<std::int64_t>(b.scratch.offset), m);
    args.prepared = s.prepared != 0;
    if (b.scratch.bytes > 0) dma.declare_write(args.scratch, b.scratch.bytes);
    const schedule::tile_position& p = b.at;
    args.n = p.n, args.y0 = p.y0, args.x0 = p.x0, args.c0 = p.c0, args.h = p.h, args.w = p.w, args.c = p.c;
    dma.declare_write(args.output, b.output.bytes);
    std::uint64_t macs = static_cast<std::uint64_t>(p.h) * static_cast<std::uint64_t>(p.w) *
                         static_cast<std::uint64_t>(p.c) * static_cast<std::uint64_t>(g.macs_per_output > 0 ? g.macs_per_output : 1);
    // One scratch area is planned per tile: a kernel that needs one runs the tile on one core.
    const int cores = b.scratch.bytes == 0 ? team.cores() : 1;
    if constexpr (target.accelerator_count > 0) {
      if (s.engine > 0) {  // a job for the accelerator
        accelerator_job job{s.engine, s.layer, &g, band_args(g, p, args, row_band{0, p.h}),
                            reference_nodes[s.layer].tile};
        if constexpr (has_analog_engine) {
          job.numerics = &target.accelerator(s.engine).numerics;
          job.analog = analog_nodes[s.layer];
        }
        accelerators::start(job);
        accelerators::wait(s.engine);
        if constexpr (requires { dma.compute_cycles(macs, macs); })
          dma.compute_cycles(tile_compute_cycles(target, g, p.h, p.w, p.c, s.engine), macs);
        else
          dma.compute(macs);
        return;
      }
    }
    if (g.fused()) {
      macs += fused_tile(s, m, dma, team, cores, b, args);
    } else if (const int shares = channel_cores(g, p, cores); shares > 1) {  // one pixel: its channels are shared
      share_rows(team, s.layer, p.c, shares, [&](row_band c) { node.tile(channel_band_args(g, args, c)); });
    } else {
      share_rows(team, s.layer, p.h, cores, [&](row_band r) { node.tile(band_args(g, p, args, r)); });
    }
    if constexpr (requires { dma.compute_cycles(macs, macs); }) {  // a policy that models time
      dma.compute_cycles(tile_compute_cycles(target, g, p.h, p.w, p.c, 0, s.prepared != 0, first_kernel_rows(s, g, p)),
                         macs);  // the solver's model
    } else {
      dma.compute(macs);
    }
  }

  /// A fused block's tile (`b`: its buffers, `args`: the block's arguments): its two kernels
  /// in order, the intermediate in L1. Returns the first kernel's MACs.
  template <class Dma, class T>
  static std::uint64_t fused_tile(const schedule::step& s, const memory& m, Dma& dma, T& team, int cores,
                                  const schedule::tile_buffers& b, const tile_args& args) {
    const tile_geometry& g = wiring.nodes[s.layer].geometry;
    const schedule::tile_position& p = b.at;
    std::byte* intermediate = m.l1 + b.intermediate.offset;
    const std::byte* producer_filters = m.l1 + b.producer_weights.offset;
    dma.declare_read(producer_filters, b.producer_weights.bytes);
    dma.declare_write(intermediate, b.intermediate.bytes);
    const runtime_detail::node_calls& producer = nodes[s.layer - wiring.nodes[s.layer].producer_offset];
    const runtime_detail::node_calls& consumer = nodes[s.layer];
    if (g.pointwise_first()) {
      pointwise_first_tile(team, s.layer, cores, producer, consumer, g, p, args, producer_filters, intermediate,
                           plan.layers[s.layer].solution.tile.h);
    } else {
      // A band of output rows needs the same rows of the intermediate (the pointwise layer is
      // 1x1), so each core runs both kernels on its band: no barrier between them.
      const std::size_t row_bytes = b.intermediate.bytes / static_cast<std::size_t>(p.h);
      share_rows(team, s.layer, p.h, cores, [&](row_band r) {
        fused_band(producer, consumer, g, band_args(g, p, args, r), producer_filters,
                   intermediate + static_cast<std::size_t>(r.begin) * row_bytes);
      });
    }
    // The first kernel's pixels: the window's rows it computed (first_kernel_rows), or the tile's.
    const bool window = g.pointwise_first();
    return static_cast<std::uint64_t>(window ? first_kernel_rows(s, g, p) : p.h) *
           static_cast<std::uint64_t>(window ? args.in_cols : p.w) *
           static_cast<std::uint64_t>(intermediate_channels_of(g, p.c)) *
           static_cast<std::uint64_t>(producer_of(g).macs_per_output);
  }

  /// The intermediate rows a pointwise -> depthwise tile's first kernel computes (its window's,
  /// less the rows it carries from the tile above: producer_rows); -1 for other layers.
  static int first_kernel_rows(const schedule::step& s, const tile_geometry& g, const schedule::tile_position& p) {
    if (!g.pointwise_first()) return -1;
    return producer_rows(g, p.y0, p.h, plan.layers[s.layer].solution.tile.h, carries_rows(g, p.w));
  }

  /// Runs `band(rows)` for the tile's `h` output rows: shared by rows over `cores` cores of the
  /// team, or whole on one. (The same split serves a one-pixel tile's `h` output channels.)
  template <class T, class Band>
  static void share_rows(T& team, int layer, int h, int cores, Band&& band) {
    if (cores > 1 && h > 1) {
      const int chunk = row_band_of(h, cores, 0).rows();
      auto on_core = [&](int core) {
        const row_band r = row_band_of(h, cores, core);
        if (r.rows() > 0) band(r);
      };
      team.fork(layer, (h + chunk - 1) / chunk, on_core);
    } else {
      auto whole = [&](int /*core*/) { band(row_band{0, h}); };
      team.fork(layer, 1, whole);
    }
  }

  /// Rows of a fused block's tile (`block`: their arguments as the block sees them): the
  /// depthwise kernel writes every intermediate channel of the rows into `intermediate`
  /// ([rows][w][C]), then the pointwise kernel computes the rows' outputs from it.
  static void fused_band(const runtime_detail::node_calls& depthwise, const runtime_detail::node_calls& pointwise,
                         const tile_geometry& g, const tile_args& block, const std::byte* depthwise_filters,
                         std::byte* intermediate) {
    tile_args dw = block;  // the rows' input window and padding, all intermediate channels
    dw.weights = depthwise_filters;
    dw.output = intermediate;
    dw.c0 = 0;
    dw.c = g.intermediate_channels;
    depthwise.tile(dw);
    tile_args pw = block;
    pw.input[0] = intermediate;
    pw.in_rows = block.h, pw.in_cols = block.w, pw.in_channels = g.intermediate_channels;
    pw.pad_top = pw.pad_left = pw.pad_bottom = pw.pad_right = 0;
    pointwise.tile(pw);
  }

  /// A tile of a pointwise -> depthwise block (`tile`: its arguments, its input window
  /// [in_rows][in_cols][Cin]): the pointwise kernel writes the tile's intermediate channels
  /// (c0 .. c0 + c: a depthwise channel reads only its own) of the window's pixels into
  /// `intermediate` ([in_rows][in_cols][c]), its rows shared over the cores; then the depthwise
  /// kernel computes the tile's outputs from it with the tile's padding, its output rows shared
  /// over the cores. A tile that carries rows (carries_rows; `p.carried` of them; `tile_h`: the
  /// layer's tile height) finds the first rows of its window in `intermediate`, where the tile
  /// above computed them: they move to the top, and only the rest is computed, from the input
  /// rows the tile loaded (its input box is the window less the carried rows: input_box).
  template <class T>
  static void pointwise_first_tile(T& team, int layer, int cores, const runtime_detail::node_calls& pointwise,
                                   const runtime_detail::node_calls& depthwise, const tile_geometry& g,
                                   const schedule::tile_position& p, const tile_args& tile,
                                   const std::byte* pointwise_filters, std::byte* intermediate, int tile_h) {
    const map_box loaded = schedule::input_box(g, p);
    const auto in_row = static_cast<std::size_t>(tile.in_cols) * static_cast<std::size_t>(g.in_c) *
                        static_cast<std::size_t>(g.in_elem_bytes);
    const auto mid_row = static_cast<std::size_t>(tile.in_cols) * static_cast<std::size_t>(p.c) *
                         static_cast<std::size_t>(g.intermediate_elem_bytes);
    const int carried = tile.in_rows - loaded.rows;  // p.carried, at most the window
    if (carried > 0)
      std::memmove(intermediate, intermediate + static_cast<std::size_t>(carried_rows_source(g, p.y0, tile_h)) * mid_row,
                   static_cast<std::size_t>(carried) * mid_row);
    if (loaded.rows > 0) share_rows(team, layer, loaded.rows, cores, [&](row_band band) {
      tile_args pw{};
      pw.input[0] = static_cast<const std::byte*>(tile.input[0]) + static_cast<std::size_t>(band.begin) * in_row;
      pw.in_rows = band.rows(), pw.in_cols = tile.in_cols, pw.in_channels = g.in_c;
      pw.weights = pointwise_filters;
      pw.output = intermediate + static_cast<std::size_t>(carried + band.begin) * mid_row;
      pw.n = p.n, pw.y0 = loaded.row + band.begin, pw.x0 = loaded.col, pw.c0 = p.c0;
      pw.h = band.rows(), pw.w = tile.in_cols, pw.c = p.c;
      pw.scratch = tile.scratch;
      pointwise.tile(pw);
    });
    tile_args dw = tile;  // the window's extents and padding, over the tile's intermediate channels
    dw.input[0] = intermediate;
    dw.in_channels = p.c;
    const tile_geometry consumer = consumer_of(g);
    schedule::tile_position window = p;  // the depthwise kernel reads the whole window (band_args)
    window.carried = 0;
    share_rows(team, layer, p.h, cores, [&](row_band r) { depthwise.tile(band_args(consumer, window, dw, r)); });
  }
};

}  // namespace tessera
