// Runs a network on a target with memory levels: activations in the L2 arena, every tiled
// layer's tile loop pipelined through L1 with double-buffered DMA.
//
//   using run = tessera::tiled_executor<model::network, tessera::target<tessera::targets::gap8>>;
//   alignas(16) static std::byte l2[run::l2_bytes];   // activation arena (+ L3 staging slots)
//   alignas(16) static std::byte l1[run::l1_bytes];   // tile buffers
//   tessera::dma::memcpy_policy dma;
//   run::run(l2, l1, {input}, {output}, dma);         // run(l3, l2, l1, ...) when l3_bytes > 0
//
// Per layer, the pipeline is: load tile i+1 while tile i computes, and store tile i while
// tile i+1 loads; before tile i computes into an output buffer, the store of tile i-2 from it
// is waited for; a filter tile is loaded only when the channel block changes (channel blocks
// are the outermost tile loop, so filters move once per layer). Every wait is explicit, so a
// simulated DMA can check the schedule (dma/simulated_policy.hpp). On three-level targets
// filters come from L3 through L2 chunks, and activations the plan spilled to L3 pass through
// double-buffered L2 slots (docs/planning.md).
//
// Layers that do not tile (data movement, broadcasting, aliases) run on their L2 buffers.
// A plan that does not fit the target fails to compile naming layer, level, bytes needed and
// available.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include <boost/hana/for_each.hpp>

#include <tessera/diagnostics/errors.hpp>
#include <tessera/planning/target_plan.hpp>
#include <tessera/runtime/executor.hpp>
#include <tessera/runtime/tile_transfers.hpp>

namespace tessera {

/// Test-only switches of the pipeline (never set them in firmware).
struct pipeline_options {
  bool skip_input_wait = false;  ///< drop the wait on input tiles: the hazard detector must fire
};

namespace runtime_detail {
template <auto const& Plan, const auto& Summary, target_desc Target>
constexpr bool plan_fits() {
  if constexpr (!Plan.fits) {
    diagnostics::does_not_fit<Summary.nodes[static_cast<std::size_t>(Plan.failing_node)].name,
                              Target.levels[static_cast<std::size_t>(Plan.failing_level)].name, Plan.needed,
                              Plan.available>{};
  }
  return Plan.fits;
}
}  // namespace runtime_detail

template <class Net, class Target, pipeline_options Options = pipeline_options{}>
struct tiled_executor {
  static constexpr target_desc target = Target::desc;
  static constexpr auto plan = plan_for(Net::summary, target);
  static constexpr bool fits = runtime_detail::plan_fits<plan, Net::summary, target>();
  static_assert(fits, "tessera::tiled_executor: the network does not fit the target (see does_not_fit above)");

  /// The L2 buffer: activation arena, then (three-level targets) the filter staging slots.
  static constexpr std::size_t l2_bytes = plan.l2_bytes > 0 ? plan.l2_bytes : 16;
  static constexpr std::size_t l1_bytes = plan.l1_bytes > 0 ? plan.l1_bytes : 16;

  using inputs_t = typename caller_buffers<Net>::inputs_t;
  using outputs_t = typename caller_buffers<Net>::outputs_t;

  /// Activations spilled to L3 (three-level targets whose L2 cannot hold them all).
  static constexpr std::size_t l3_bytes = plan.l3.arena_bytes;

  /// `l2`: `l2_bytes`, `l1`: `l1_bytes`, both 16-byte aligned; inputs and outputs in L2.
  template <class Dma, class Observer = no_observer>
  static void run(std::byte* l2, std::byte* l1, const inputs_t& inputs, const outputs_t& outputs, Dma& dma,
                  Observer&& observer = {}) {
    static_assert(l3_bytes == 0, "tiled_executor::run: this plan spills activations to L3: pass an L3 buffer");
    run(nullptr, l2, l1, inputs, outputs, dma, observer);
  }

  /// As above, with `l3` (`l3_bytes`) holding the activations the plan spills to L3.
  template <class Dma, class Observer = no_observer>
  static void run(std::byte* l3, std::byte* l2, std::byte* l1, const inputs_t& inputs, const outputs_t& outputs,
                  Dma& dma, Observer&& observer = {}) {
    int index = 0;
    boost::hana::for_each(typename Net::node_types{}, [&](auto node_type) {
      using node = typename decltype(node_type)::type;
      run_layer<node>(index, l3, l2, l1, inputs, outputs, dma, observer);
      ++index;
    });
  }

 private:
  static void* locate(tensor_id t, std::byte* l3, std::byte* l2, const inputs_t& inputs, const outputs_t& outputs) {
    if (plan.in_l3[static_cast<std::size_t>(t)]) return l3 + plan.l3.tensor_offset[static_cast<std::size_t>(t)];
    const std::int64_t offset = plan.l2.tensor_offset[static_cast<std::size_t>(t)];
    if (offset >= 0) return l2 + offset;
    return caller_buffers<Net>::find(t, inputs, outputs);
  }

  template <class Node, class Dma, class Observer>
  static void run_layer(int index, std::byte* l3, std::byte* l2, std::byte* l1, const inputs_t& inputs,
                        const outputs_t& outputs,
                        Dma& dma, Observer& observer) {
    void* in[Node::inputs.size()];
    void* out[Node::outputs.size()];
    for (std::size_t i = 0; i < Node::inputs.size(); ++i) in[i] = locate(Node::inputs[i], l3, l2, inputs, outputs);
    for (std::size_t i = 0; i < Node::outputs.size(); ++i) out[i] = locate(Node::outputs[i], l3, l2, inputs, outputs);
    const auto layer = static_cast<std::size_t>(index);
    if (plan.layers[layer].tiled) {
      if constexpr (requires { Node::template tile_geometry_of<Net::tensors>(); }) {
        run_tiles<Node>(layer, in, out[0], l2, l1, dma);
      }
    } else {
      Node::template run<Net::tensors, Target::desc.kernels>(in, out, l2 + plan.l2.scratch_offset[layer]);
    }
    for (std::size_t i = 0; i < Node::outputs.size(); ++i) observer(index, Node::outputs[i], out[i]);
  }

  /// Position of tile `i`: channel blocks outermost (filters load once per block), then
  /// images, rows and columns.
  struct tile_position {
    int n, y0, x0, c0, h, w, c, block;
  };
  static constexpr tile_position position(const tile_geometry& g, const tile_shape& t, std::int64_t i) {
    const auto ceil = [](int a, int b) { return (a + b - 1) / b; };
    const int cols = ceil(g.out_w, t.w), rows = ceil(g.out_h, t.h);
    const auto per_block = static_cast<std::int64_t>(g.batch) * rows * cols;
    tile_position p{};
    p.block = static_cast<int>(i / per_block);
    std::int64_t r = i % per_block;
    p.n = static_cast<int>(r / (std::int64_t{rows} * cols));
    r %= std::int64_t{rows} * cols;
    p.y0 = static_cast<int>(r / cols) * t.h;
    p.x0 = static_cast<int>(r % cols) * t.w;
    p.c0 = p.block * t.c;
    p.h = g.out_h - p.y0 < t.h ? g.out_h - p.y0 : t.h;
    p.w = g.out_w - p.x0 < t.w ? g.out_w - p.x0 : t.w;
    p.c = g.out_c - p.c0 < t.c ? g.out_c - p.c0 : t.c;
    return p;
  }

  /// The input box a tile reads (padding excluded) and the tile's share of the padding.
  static constexpr tile_args input_region(const tile_geometry& g, const tile_position& p, map_box& box) {
    tile_args a{};
    const int r0 = p.y0 * g.stride_h - g.pad_top;
    const int r1 = r0 + (p.h - 1) * g.stride_h + (g.kernel_h - 1) * g.dilation_h + 1;
    const int q0 = p.x0 * g.stride_w - g.pad_left;
    const int q1 = q0 + (p.w - 1) * g.stride_w + (g.kernel_w - 1) * g.dilation_w + 1;
    const int row_begin = r0 > 0 ? r0 : 0, row_end = r1 < g.in_h ? r1 : g.in_h;
    const int col_begin = q0 > 0 ? q0 : 0, col_end = q1 < g.in_w ? q1 : g.in_w;
    a.in_rows = row_end > row_begin ? row_end - row_begin : 0;
    a.in_cols = col_end > col_begin ? col_end - col_begin : 0;
    a.in_channels = g.channel_lockstep ? p.c : g.in_c;
    a.pad_top = row_begin - r0;
    a.pad_left = col_begin - q0;
    a.pad_bottom = r1 > g.in_h ? r1 - g.in_h : 0;
    a.pad_right = q1 > g.in_w ? q1 - g.in_w : 0;
    box = {g.in_h, g.in_w, g.in_c, g.in_elem_bytes, p.n, row_begin, a.in_rows, col_begin, a.in_cols,
           g.channel_lockstep ? p.c0 : 0, a.in_channels};
    return a;
  }

  template <class Node, class Dma>
  static void run_tiles(std::size_t layer, void* const* in, void* out, std::byte* l2, std::byte* l1, Dma& dma) {
    const tile_geometry& g = Net::summary.nodes[layer].geometry;
    const layer_l1_plan& l = plan.layers[layer];
    const tile_shape& shape = l.solution.tile;
    const std::int64_t count = l.solution.cost.tiles;
    const int operands = static_cast<int>(Node::inputs.size());
    const std::size_t operand_bytes = l.solution.cost.input_bytes / static_cast<std::size_t>(g.in_operands);
    const std::byte* weights = nullptr;
    if constexpr (requires { Node::filter_data(); }) weights = static_cast<const std::byte*>(Node::filter_data());
    const bool has_weights = weights != nullptr && g.weight_bytes_per_channel > 0;

    dma::handle in_handle[2][2]{};
    dma::handle weight_handle[2]{};
    dma::handle out_handle[2]{};
    bool out_pending[2]{false, false};

    const auto slot = [&](std::int64_t i) { return l.solution.cost.activations_doubled ? static_cast<int>(i % 2) : 0; };
    const auto weight_slot = [&](int block) { return l.solution.cost.constants_doubled ? block % 2 : 0; };
    // Whether tile i starts a channel block, i.e. needs new filters.
    const auto opens_block = [&](std::int64_t i) {
      return i == 0 || position(g, shape, i - 1).block != position(g, shape, i).block;
    };

    // Three-level targets: filters come from L3 through L2 chunks of `stage_channels` output
    // channels; chunk k+1 is staged while chunk k feeds L1. Two-level: straight from L2/flash.
    const bool staged = has_weights && l.stage_channels > 0;
    dma::handle chunk_handle[2]{};
    int current_chunk = -1;
    const auto chunk_slot = [&](int k) { return l.stage_chunks > 1 ? k % 2 : 0; };
    const auto stage = [&](int k) {
      const int c0 = k * l.stage_channels;
      const int c = g.out_c - c0 < l.stage_channels ? g.out_c - c0 : l.stage_channels;
      chunk_handle[chunk_slot(k)] = dma.start(
          linear_transfer(weights + static_cast<std::size_t>(c0) * g.weight_bytes_per_channel,
                          l2 + plan.staging_slot[static_cast<std::size_t>(chunk_slot(k))],
                          static_cast<std::size_t>(c) * g.weight_bytes_per_channel, true, 2));
    };
    // Where the filters of channels [c0, ...) are read from by the L2 -> L1 load.
    const auto filter_source = [&](int c0) -> const std::byte* {
      if (!staged) return weights + static_cast<std::size_t>(c0) * g.weight_bytes_per_channel;
      const int k = c0 / l.stage_channels;
      if (k != current_chunk) {  // the chunk must have landed before L1 reads it
        dma.wait(chunk_handle[chunk_slot(k)]);
        current_chunk = k;
        if (k + 1 < l.stage_chunks) stage(k + 1);
      }
      return l2 + plan.staging_slot[static_cast<std::size_t>(chunk_slot(k))] +
             static_cast<std::size_t>(c0 - k * l.stage_channels) * g.weight_bytes_per_channel;
    };
    if (staged) stage(0);

    // Activations spilled to L3 pass through double-buffered L2 slots: an input tile moves
    // L3 -> L2 one tile ahead of its L2 -> L1 load; an output tile moves L1 -> L2 when stored
    // and L2 -> L3 once the next tile has computed.
    bool spilled_in[2]{false, false};
    for (int k = 0; k < operands; ++k) spilled_in[k] = plan.in_l3[static_cast<std::size_t>(Node::inputs[static_cast<std::size_t>(k)])];
    const bool spilled_out = plan.in_l3[static_cast<std::size_t>(Node::outputs[0])];
    dma::handle spill_handle[2][2]{};
    dma::handle l3_store_handle[2]{};
    bool l3_store_pending[2]{false, false};
    map_box staged_out_box[2]{};
    bool staged_out[2]{false, false};
    int staged_l1_slot[2]{0, 0};  // the L1 output buffer whose store fills each L2 slot
    const auto spill_slot = [&](std::int64_t j, int k) {
      return l2 + plan.spill_input_slot[static_cast<std::size_t>(j % 2)] + static_cast<std::size_t>(k) * operand_bytes;
    };
    const auto stage_in = [&](std::int64_t j) {
      const tile_position p = position(g, shape, j);
      map_box box{};
      input_region(g, p, box);
      for (int k = 0; k < operands; ++k)
        if (spilled_in[k])
          spill_handle[j % 2][k] =
              dma.start(box_transfer(box, static_cast<const std::byte*>(in[k]), spill_slot(j, k), true, 2));
    };
    // Moves the output tile waiting in L2 slot `sl` on to L3.
    const auto drain = [&](int sl) {
      if (!staged_out[sl]) return;
      const int from = staged_l1_slot[sl];
      if (out_pending[from]) {  // not yet waited for by an L1 buffer reuse
        dma.wait(out_handle[from]);
        out_pending[from] = false;
      }
      std::byte* slot_l2 = l2 + plan.spill_output_slot[static_cast<std::size_t>(sl)];
      l3_store_handle[sl] = dma.start(box_transfer(staged_out_box[sl], static_cast<const std::byte*>(out), slot_l2,
                                                   false, 2));
      l3_store_pending[sl] = true;
      staged_out[sl] = false;
    };

    // Issue the loads of tile i (and of its filters when it opens a channel block).
    const auto load = [&](std::int64_t i) {
      const tile_position p = position(g, shape, i);
      map_box box{};
      input_region(g, p, box);
      const int s = slot(i);
      for (int k = 0; k < operands; ++k) {
        std::byte* dense = l1 + l.input[static_cast<std::size_t>(s)] + static_cast<std::size_t>(k) * operand_bytes;
        if (spilled_in[k]) {
          dma.wait(spill_handle[i % 2][k]);
          in_handle[s][k] = dma.start(linear_transfer(spill_slot(i, k), dense, box.bytes(), true, 1));
        } else {
          in_handle[s][k] = dma.start(box_transfer(box, static_cast<const std::byte*>(in[k]), dense, true, 1));
        }
      }
      if ((spilled_in[0] || spilled_in[1]) && i + 1 < count) stage_in(i + 1);
      if (has_weights && opens_block(i)) {
        const int ws = weight_slot(p.block);
        weight_handle[ws] = dma.start(linear_transfer(filter_source(p.c0), l1 + l.weights[static_cast<std::size_t>(ws)],
                                                      static_cast<std::size_t>(p.c) * g.weight_bytes_per_channel, true,
                                                      1));
      }
    };

    if (spilled_in[0] || spilled_in[1]) stage_in(0);
    load(0);
    for (std::int64_t i = 0; i < count; ++i) {
      const tile_position p = position(g, shape, i);
      const int s = slot(i);
      const int ws = weight_slot(p.block);
      if constexpr (!Options.skip_input_wait) {
        for (int k = 0; k < operands; ++k) dma.wait(in_handle[s][k]);
      }
      if (has_weights && opens_block(i)) dma.wait(weight_handle[ws]);
      const bool doubled = l.solution.cost.activations_doubled;
      if (doubled && i + 1 < count) load(i + 1);  // prefetch into the other buffers
      if (out_pending[s]) {                        // the store of tile i-2 (or i-1) read this buffer
        dma.wait(out_handle[s]);
        out_pending[s] = false;
      }

      map_box box{};
      tile_args args = input_region(g, p, box);
      for (int k = 0; k < operands; ++k) {
        args.input[k] = l1 + l.input[static_cast<std::size_t>(s)] + static_cast<std::size_t>(k) * operand_bytes;
        dma.declare_read(args.input[k], box.bytes());
      }
      if (has_weights) {
        args.weights = l1 + l.weights[static_cast<std::size_t>(ws)];
        dma.declare_read(args.weights, static_cast<std::size_t>(p.c) * g.weight_bytes_per_channel);
      }
      args.output = l1 + l.output[static_cast<std::size_t>(s)];
      args.scratch = l1 + l.scratch;
      args.n = p.n, args.y0 = p.y0, args.x0 = p.x0, args.c0 = p.c0, args.h = p.h, args.w = p.w, args.c = p.c;
      const map_box out_box{g.out_h, g.out_w, g.out_c, g.out_elem_bytes, p.n, p.y0, p.h, p.x0, p.w, p.c0, p.c};
      dma.declare_write(args.output, out_box.bytes());
      Node::template run_tile<Net::tensors, Target::desc.kernels>(args);
      dma.compute(static_cast<std::uint64_t>(out_box.bytes() / static_cast<std::size_t>(g.out_elem_bytes)) *
                  static_cast<std::uint64_t>(g.macs_per_output > 0 ? g.macs_per_output : 1));

      if (spilled_out) {
        const int sl = static_cast<int>(i % 2);
        drain(1 - sl);  // tile i-1: L2 -> L3
        if (l3_store_pending[sl]) {  // tile i-2 still leaves this L2 slot
          dma.wait(l3_store_handle[sl]);
          l3_store_pending[sl] = false;
        }
        std::byte* slot_l2 = l2 + plan.spill_output_slot[static_cast<std::size_t>(sl)];
        out_handle[s] = dma.start(linear_transfer(static_cast<const std::byte*>(args.output), slot_l2, out_box.bytes(),
                                                  false, 1));
        staged_out_box[sl] = out_box;
        staged_out[sl] = true;
        staged_l1_slot[sl] = s;
      } else {
        out_handle[s] = dma.start(box_transfer(out_box, static_cast<const std::byte*>(out),
                                               static_cast<std::byte*>(args.output), false, 1));
      }
      out_pending[s] = true;
      if (!doubled && i + 1 < count) load(i + 1);
    }
    if (spilled_out) {
      drain(static_cast<int>((count - 1) % 2));
      for (int sl = 0; sl < 2; ++sl)
        if (l3_store_pending[sl]) dma.wait(l3_store_handle[sl]);
    }
    for (int s = 0; s < 2; ++s)
      if (out_pending[s]) dma.wait(out_handle[s]);
  }
};

}  // namespace tessera
