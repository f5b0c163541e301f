// What an issue step moves: `describe()` turns a step into a full transfer description
// (memory levels, buffers and offsets, the 1-3D box, bytes) from the plan. The executor binds
// it to pointers at run time; the hazard checker, the tests and the reports read it at compile
// time. One function, so the schedule that is checked is the schedule that runs.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include <tessera/graph/network.hpp>
#include <tessera/planning/target_plan.hpp>
#include <tessera/schedule/box.hpp>
#include <tessera/schedule/step.hpp>
#include <tessera/schedule/tile_walk.hpp>

namespace tessera::schedule {

/// Where one side of a transfer lies.
enum class space : std::uint8_t {
  l1,       ///< the L1 buffer (offset from its base)
  l2,       ///< the L2 buffer: activation arena, filter staging and spill slots (offset from its base)
  tensor,   ///< activation tensor `index`, wherever the plan keeps it (L2 arena, L3 arena, caller buffer)
  filters,  ///< the constant filters of layer `index` (flash; on three-level targets they stand for L3)
};

struct endpoint {
  space where = space::l1;
  std::int32_t index = 0;  ///< tensor id (tensor) or layer (filters)
  std::int64_t offset = 0;  ///< bytes from the start of the space (tensor: of the tensor)
  std::ptrdiff_t row_stride = 0, plane_stride = 0;
};

struct transfer_desc {
  endpoint src{}, dst{};
  std::size_t row_bytes = 0, rows = 1, planes = 1;
  int outer_level = 1;  ///< the level whose cost model applies (1 = L2, 2 = L3)
  bool inbound = true;  ///< outer -> inner
  /// The compute engine whose memory the L1-side end is (0: the CPU's L1; k: accelerator k's,
  /// moved by its DMA path, target_desc::transfer_path).
  int engine = 0;
  /// The map-side box, for transfers between a tensor and a dense buffer (else bytes() == 0).
  map_box box{};
  constexpr std::size_t bytes() const { return row_bytes * rows * planes; }
};

namespace detail {
/// A copy between `box` of tensor `t` and a dense buffer at `dense`.
constexpr transfer_desc box_transfer(const map_box& box, int t, endpoint dense, bool load, int outer_level) {
  const box_copy c = copy_of(box);
  const endpoint map{space::tensor, t, box.offset(), c.map_row_stride, c.map_plane_stride};
  dense.row_stride = c.dense_row_stride;
  dense.plane_stride = c.dense_plane_stride;
  transfer_desc d{};
  d.src = load ? map : dense;
  d.dst = load ? dense : map;
  d.row_bytes = c.row_bytes;
  d.rows = c.rows;
  d.planes = c.planes;
  d.outer_level = outer_level;
  d.inbound = load;
  d.box = box;
  return d;
}
constexpr transfer_desc linear_transfer(endpoint src, endpoint dst, std::size_t bytes, bool load, int outer_level) {
  transfer_desc d{};
  d.src = src;
  d.dst = dst;
  d.row_bytes = bytes;
  d.outer_level = outer_level;
  d.inbound = load;
  return d;
}
}  // namespace detail

/// Filter chunk `k` of a staged layer: its first output channel and channel count.
struct filter_chunk {
  int c0 = 0, channels = 0;
};
constexpr filter_chunk chunk_of(const layer_l1_plan& l, const tile_geometry& g, int k) {
  const int c0 = k * l.stage_channels;
  return {c0, g.out_c - c0 < l.stage_channels ? g.out_c - c0 : l.stage_channels};
}

/// Bytes [offset, offset + bytes) of L1.
struct l1_span {
  std::size_t offset = 0, bytes = 0;
};

/// The L1 buffers a compute step of a tiled layer uses: its input tiles (one per operand), its
/// filter block, its output tile and its scratch, with where the tile lies. The executor
/// points the kernel at them, the hazard proof checks them and the pictures draw them.
struct tile_buffers {
  tile_position at{};
  std::array<l1_span, 2> inputs{};
  int operands = 0;
  l1_span weights{}, output{}, scratch{};  ///< bytes 0: none
  /// Fused blocks: the producer's filters (its first layer's) and the intermediate tile
  /// (`scratch` is then the kernels' own scratch, after the intermediate).
  l1_span producer_weights{}, intermediate{};
};

/// What describe() and buffers_of() read of a node: its tensors and its tile geometry. They
/// take a graph summary (its node_summary has these members too) or `wired_nodes`, the part of
/// it the tiled executor keeps for its run-time loop: whatever that loop reads is emitted into
/// the firmware, and a node summary also holds the node's name, kernel names, scratch per
/// family and the tile solver's scratch functions, whose addresses compile them into the
/// firmware too (six per layer; GCC's inliner rescanned them all: a 600-layer firmware build
/// spent 14 of its 85 s there).
struct wired_node {
  tile_geometry geometry{};
  std::array<tensor_id, max_node_inputs> inputs{};
  std::array<tensor_id, max_node_outputs> outputs{};
  int input_count = 0;
  int output_count = 0;
  int producer_offset = 0;  ///< node_summary::producer_offset
};
template <std::size_t NN>
struct wired_nodes {
  std::array<wired_node, NN> nodes{};
};
template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN>
constexpr wired_nodes<NN> wiring_of(const graph_summary<NT, NI, NO, NN>& g) {
  wired_nodes<NN> w{};
  for (std::size_t n = 0; n < NN; ++n) {
    const node_summary& s = g.nodes[n];
    w.nodes[n] = {s.geometry, s.inputs, s.outputs, s.input_count, s.output_count, s.producer_offset};
  }
  return w;
}

namespace detail {
/// buffers_of with the layer's geometry `g` and tile `tile` (the plan's, or a run's: at_length).
template <class Node, std::size_t NT, std::size_t NN>
constexpr tile_buffers buffers_with(const Node& node, const tile_geometry& g, const tile_shape& tile,
                                    const target_plan<NT, NN>& plan, const step& s, tile_args* pads) {
  const layer_l1_plan& l = plan.layers[s.layer];
  tile_buffers b{};
  b.at = loading_position(g, tile, s.tile);
  const std::size_t in_bytes = input_box(g, b.at, pads).bytes();
  b.operands = node.input_count < 2 ? node.input_count : 2;
  for (int k = 0; k < b.operands; ++k)  // slots as planned (at the capacity)
    b.inputs[static_cast<std::size_t>(k)] = {l.input[s.slot] + operand_offset(l, node.geometry, k),
                                             k > 0 && g.whole_operand_bytes > 0 ? g.whole_operand_bytes : in_bytes};
  const std::size_t filters = static_cast<std::size_t>(b.at.c) * g.weight_bytes_per_channel;
  if (g.weight_bytes_per_channel > 0) b.weights = {l.weights[s.operand], filters};
  b.output = {l.output[s.slot], output_box(g, b.at).bytes()};
  b.scratch = {l.scratch, l.solution.cost.scratch_bytes};
  if (g.fused()) {  // the layout the tile solver costed (fused_layout_of; the filter slot's: the plan's tile)
    const fused_layout f = fused_layout_of(g, {b.at.h, b.at.w, b.at.c}, std::size_t{0}, std::size_t{0});
    b.producer_weights = {l.weights[s.operand], producer_filter_bytes(g, b.at.c)};
    b.weights = {l.weights[s.operand] + consumer_filter_offset(g, tile.c), filters};
    b.intermediate = {l.scratch, f.intermediate_bytes};
    b.scratch = {l.scratch + f.kernel_scratch, l.solution.cost.scratch_bytes - f.kernel_scratch};
  }
  return b;
}
}  // namespace detail

/// `pads` (optional) receives the tile's share of the layer's padding (input_box). `net`: a
/// graph summary or its wired_nodes. `run`: a run over `run.length` positions of a network with
/// a run-time sequence length (the layer's boxes clipped to it: at_length), into the buffers
/// planned at the capacity; none: the plan's own extents.
template <class Nodes, std::size_t NT, std::size_t NN>
constexpr tile_buffers buffers_of(const Nodes& net, const target_plan<NT, NN>& plan, const step& s,
                                  tile_args* pads = nullptr, const live_extent& run = {}) {
  const auto& node = net.nodes[s.layer];
  if (run.applies()) {
    const tile_geometry live = at_length(node.geometry, run);
    return detail::buffers_with(node, live, at_length(plan.layers[s.layer].solution.tile, live, run), plan, s, pads);
  }
  return detail::buffers_with(node, node.geometry, plan.layers[s.layer].solution.tile, plan, s, pads);
}

namespace detail {
/// describe with the layer's geometry `g` and tile `tile` (the plan's, or a run's: at_length);
/// `image_stride` as for operand_box.
template <class Node, std::size_t NT, std::size_t NN>
constexpr transfer_desc describe_with(const Node& node, const tile_geometry& g, const tile_shape& tile,
                                      std::size_t image_stride, const target_plan<NT, NN>& plan, const step& s) {
  const layer_l1_plan& l = plan.layers[s.layer];
  const auto wbytes = g.weight_bytes_per_channel;
  switch (s.role) {
    case transfer_role::input: {
      const map_box box = operand_box(g, loading_position(g, tile, s.tile), s.operand, image_stride);
      const auto offset = l.input[s.slot] + operand_offset(l, node.geometry, s.operand);
      const endpoint dense{space::l1, 0, static_cast<std::int64_t>(offset)};
      const int t = node.inputs[s.operand];
      if (plan.in_l3[static_cast<std::size_t>(t)]) {
        const endpoint slot{space::l2, 0,
                            static_cast<std::int64_t>(plan.spill_input_slot[static_cast<std::size_t>(s.tile % 2)] +
                                                      operand_offset(l, node.geometry, s.operand))};
        return detail::linear_transfer(slot, dense, box.bytes(), true, 1);
      }
      return detail::box_transfer(box, t, dense, true, 1);
    }
    case transfer_role::spill_input: {
      const map_box box = operand_box(g, loading_position(g, tile, s.tile), s.operand, image_stride);
      const endpoint slot{space::l2, 0,
                          static_cast<std::int64_t>(plan.spill_input_slot[s.slot] + operand_offset(l, node.geometry, s.operand))};
      return detail::box_transfer(box, node.inputs[s.operand], slot, true, 2);
    }
    case transfer_role::producer_filters: {  // the absorbed first node's filters for the block's channels
      const tile_position p = position(g, tile, s.tile);
      const endpoint dst{space::l1, 0, static_cast<std::int64_t>(l.weights[s.slot])};
      const std::size_t bytes = producer_filter_bytes(g, p.c);
      if (l.stage_channels > 0) {  // from the front of the L2 staging slot that holds this block's chunk
        const int k = p.c0 / l.stage_channels;
        const endpoint src{space::l2, 0,
                           static_cast<std::int64_t>(plan.staging_slot[s.operand] +
                                                     producer_filter_offset(g, p.c0 - k * l.stage_channels))};
        return detail::linear_transfer(src, dst, bytes, true, 1);
      }
      const endpoint src{space::filters, s.layer - node.producer_offset,
                         static_cast<std::int64_t>(producer_filter_offset(g, p.c0))};
      return detail::linear_transfer(src, dst, bytes, true, 1);
    }
    case transfer_role::stage_producer_filters: {
      const filter_chunk c = chunk_of(l, g, s.tile);
      const endpoint src{space::filters, s.layer - node.producer_offset,
                         static_cast<std::int64_t>(producer_filter_offset(g, c.c0))};
      const endpoint dst{space::l2, 0, static_cast<std::int64_t>(plan.staging_slot[s.slot])};
      return detail::linear_transfer(src, dst, producer_filter_bytes(g, c.channels), true, 2);
    }
    case transfer_role::filters: {
      const tile_position p = position(g, tile, s.tile);
      const endpoint dst{space::l1, 0,
                         static_cast<std::int64_t>(l.weights[s.slot] + consumer_filter_offset(g, tile.c))};
      const std::size_t bytes = static_cast<std::size_t>(p.c) * wbytes;
      if (l.stage_channels > 0) {  // from the L2 staging slot that holds this block's chunk
        const int k = p.c0 / l.stage_channels;
        const endpoint src{space::l2, 0,
                           static_cast<std::int64_t>(plan.staging_slot[s.operand] +
                                                     consumer_filter_offset(g, l.stage_channels) +
                                                     static_cast<std::size_t>(p.c0 - k * l.stage_channels) * wbytes)};
        return detail::linear_transfer(src, dst, bytes, true, 1);
      }
      const endpoint src{space::filters, s.layer, static_cast<std::int64_t>(static_cast<std::size_t>(p.c0) * wbytes)};
      return detail::linear_transfer(src, dst, bytes, true, 1);
    }
    case transfer_role::stage_filters: {
      const filter_chunk c = chunk_of(l, g, s.tile);
      const endpoint src{space::filters, s.layer, static_cast<std::int64_t>(static_cast<std::size_t>(c.c0) * wbytes)};
      const endpoint dst{space::l2, 0,
                         static_cast<std::int64_t>(plan.staging_slot[s.slot] + consumer_filter_offset(g, l.stage_channels))};
      return detail::linear_transfer(src, dst, static_cast<std::size_t>(c.channels) * wbytes, true, 2);
    }
    case transfer_role::output: {
      const map_box box = output_box(g, position(g, tile, s.tile));
      const endpoint dense{space::l1, 0, static_cast<std::int64_t>(l.output[s.slot])};
      const int t = node.outputs[0];
      if (plan.in_l3[static_cast<std::size_t>(t)]) {
        const endpoint slot{space::l2, 0,
                            static_cast<std::int64_t>(plan.spill_output_slot[static_cast<std::size_t>(s.tile % 2)])};
        return detail::linear_transfer(dense, slot, box.bytes(), false, 1);
      }
      return detail::box_transfer(box, t, dense, false, 1);
    }
    case transfer_role::spill_output: {
      const map_box box = output_box(g, position(g, tile, s.tile));
      const endpoint slot{space::l2, 0, static_cast<std::int64_t>(plan.spill_output_slot[s.slot])};
      return detail::box_transfer(box, node.outputs[0], slot, false, 2);
    }
  }
  return {};
}
}  // namespace detail

/// The transfer an issue step starts (see `transfer_role` for each role's endpoints). `net`: a
/// graph summary or its wired_nodes; `run` as for buffers_of (a run's transfer moves the live
/// part of the planned box, into the planned slot; a state tensor read whole keeps the
/// capacity's stride between its images).
template <class Nodes, std::size_t NT, std::size_t NN>
constexpr transfer_desc describe(const Nodes& net, const target_plan<NT, NN>& plan, const step& s,
                                 const live_extent& run = {}) {
  const auto& node = net.nodes[s.layer];
  transfer_desc d{};
  if (run.applies()) {
    const tile_geometry live = at_length(node.geometry, run);
    d = detail::describe_with(node, live, at_length(plan.layers[s.layer].solution.tile, live, run),
                              run.growth->whole_operand_is_state ? node.geometry.whole_operand_bytes : 0, plan, s);
  } else {
    d = detail::describe_with(node, node.geometry, plan.layers[s.layer].solution.tile, 0, plan, s);
  }
  // An accelerator layer's L1 buffers are its own memories (the plan's local space).
  if ((d.inbound ? d.dst : d.src).where == space::l1) d.engine = plan.layers[s.layer].engine;
  return d;
}

}  // namespace tessera::schedule
