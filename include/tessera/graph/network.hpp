// The network: a constexpr type graph of tensors and nodes.
//
//   using network = tessera::network<tensors, tessera::graph_inputs<0>, tessera::graph_outputs<9>,
//                                    tessera::op::conv<"conv_0", {...}, w0, b0, rq0>, ...>;
//
// The node types come in execution order. `network` validates every node against the tensor
// table and the graph's structure at compile time (one diagnostic naming the layer), and
// summarises it as plain constexpr data (`summary`) for the planner, the executor and reports.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>

#include <boost/hana/tuple.hpp>
#include <boost/hana/type.hpp>

#include <tessera/diagnostics/errors.hpp>
#include <tessera/graph/node.hpp>
#include <tessera/graph/tensor.hpp>
#include <tessera/kernels/family.hpp>
#include <tessera/planning/tile_geometry.hpp>

namespace tessera {

template <tensor_id... Ids>
struct graph_inputs {
  static constexpr std::array<tensor_id, sizeof...(Ids)> ids{Ids...};
};
template <tensor_id... Ids>
struct graph_outputs {
  static constexpr std::array<tensor_id, sizeof...(Ids)> ids{Ids...};
};

inline constexpr int max_node_inputs = 8;
inline constexpr int max_node_outputs = 2;

/// Plain-data view of one node: what the planner and the reports need.
struct node_summary {
  fixed_name name;
  op_kind kind = op_kind::reshape;
  std::array<tensor_id, max_node_inputs> inputs{};
  int input_count = 0;
  std::array<tensor_id, max_node_outputs> outputs{};
  int output_count = 0;
  bool is_alias = false;
  /// Kernel scratch when the whole layer runs at once, per kernel family (index: the family).
  std::array<std::size_t, kernels::family_count> scratch{};
  /// The same with the node's least-scratch variant (the node's `run_lean`), which a plan
  /// within a RAM budget may choose (planning/ram_budget.hpp); equal to `scratch` when the
  /// node has one variant.
  std::array<std::size_t, kernels::family_count> lean_scratch{};
  /// Whether the family's whole-layer kernel may write output 0 over input 0 (same address),
  /// which a flat plan may use when nothing reads the input afterwards (arena_buffers.hpp).
  std::array<bool, kernels::family_count> in_place{};
  /// Scratch of one tile, per kernel family (nullptr: none), for the tile solver.
  std::array<scratch_function, kernels::family_count> tile_scratch{};
  /// The kernel each family runs this node with ("conv", "dw-chw", "reference", ...; nullptr
  /// for nodes that only move data), for the plan reports.
  std::array<const char*, kernels::family_count> kernel{};
  std::int64_t macs = 0;
  std::size_t constant_bytes = 0;
  tile_geometry geometry{};  ///< how the layer tiles through L1 (in_place: runs on its L2 buffers)
  /// How `geometry` grows with a run-time sequence length (capacity 0: it does not).
  sequence_growth growth{};
  /// The depthwise layer of a fused block (planning/fusion.hpp): it runs inside the next
  /// node's tiles, which read its input; it has no steps and its output is never stored.
  bool absorbed = false;
  /// A fused block: its depthwise node is this many nodes before it (0: not a block).
  int producer_offset = 0;
  /// Its weights are all -1, 0 or 1 (declared by the node, checked against the weights): what
  /// an analog engine's rules ask for (target/engine.hpp).
  bool ternary_weights = false;
};

/// Plain-data view of a whole network (sizes fixed by the network type).
template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN>
struct graph_summary {
  std::array<tensor_desc, NT> tensors;
  std::array<tensor_id, NI> inputs;
  std::array<tensor_id, NO> outputs;
  std::array<node_summary, NN> nodes;
};

enum class graph_error : std::uint8_t {
  none,
  tensor_out_of_range,   ///< a node or the graph names a tensor id outside the table
  used_before_defined,   ///< a node reads a tensor no earlier node (or graph input) produced
  defined_twice,         ///< two nodes write the same tensor, or a node writes a graph input
  output_never_defined,  ///< a graph output no node produces
  tensor_too_large,      ///< a tensor's bytes, or all tensors' together, exceed what this target
                         ///< addresses (half its std::size_t range): they would wrap on a 32-bit core
};

/// Bytes the tensors of one network may take on the target the code is compiled for: half of
/// std::size_t's range (2 GiB on a 32-bit core), so that arena offsets, alignment and kernel
/// scratch added to them stay representable.
inline constexpr std::int64_t addressable_bytes =
    static_cast<std::int64_t>(std::numeric_limits<std::size_t>::max() / 2);  // fits: size_t has 32 or 64 bits

struct graph_check {
  graph_error error = graph_error::none;
  int node = -1;    ///< offending node index, or -1
  int tensor = -1;  ///< offending tensor id
};

/// Structural validation: topological order, single definition, ids in range, sizes the
/// target can address (at most `max_bytes` in all).
template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN>
constexpr graph_check check_graph(const graph_summary<NT, NI, NO, NN>& g,
                                  std::int64_t max_bytes = addressable_bytes) {
  std::array<bool, NT> defined{};
  const auto in_range = [](tensor_id t) { return t >= 0 && static_cast<std::size_t>(t) < NT; };
  for (tensor_id t : g.inputs) {
    if (!in_range(t)) return {graph_error::tensor_out_of_range, -1, t};
    defined[static_cast<std::size_t>(t)] = true;
  }
  for (std::size_t n = 0; n < NN; ++n) {
    const node_summary& node = g.nodes[n];
    for (int i = 0; i < node.input_count; ++i) {
      const tensor_id t = node.inputs[static_cast<std::size_t>(i)];
      if (!in_range(t)) return {graph_error::tensor_out_of_range, static_cast<int>(n), t};
      if (!defined[static_cast<std::size_t>(t)]) return {graph_error::used_before_defined, static_cast<int>(n), t};
    }
    for (int i = 0; i < node.output_count; ++i) {
      const tensor_id t = node.outputs[static_cast<std::size_t>(i)];
      if (!in_range(t)) return {graph_error::tensor_out_of_range, static_cast<int>(n), t};
      if (defined[static_cast<std::size_t>(t)]) return {graph_error::defined_twice, static_cast<int>(n), t};
      defined[static_cast<std::size_t>(t)] = true;
    }
  }
  for (tensor_id t : g.outputs) {
    if (!in_range(t)) return {graph_error::tensor_out_of_range, -1, t};
    if (!defined[static_cast<std::size_t>(t)]) return {graph_error::output_never_defined, -1, t};
  }
  // Sizes in 64 bits before any planner narrows them to std::size_t: on a 32-bit core a 4 GiB
  // tensor (a tiny file: a Pad to 65536 x 65537) would wrap to a few bytes, plan into a small
  // L2 and fault at run time. The sum bounds every arena.
  std::int64_t total = 0;
  for (std::size_t t = 0; t < NT; ++t) {
    const std::int64_t b = g.tensors[t].byte_count();
    if (b > max_bytes || total > max_bytes - b) return {graph_error::tensor_too_large, -1, static_cast<int>(t)};
    total += b;
  }
  return {};
}

namespace detail {
/// The tensor table one position short of the capacity: every sequence extent less one.
template <auto const& Tensors>
inline constexpr auto one_position_shorter = [] {
  auto shorter = Tensors;
  for (tensor_desc& t : shorter.tensors)
    if (t.sequence_axis >= 0) --t.dims.dims[static_cast<std::size_t>(t.sequence_axis)];
  return shorter;
}();

/// The extent of the network's sequence tensors (all are declared at the capacity), 0: none.
template <auto const& Tensors>
constexpr int sequence_capacity() {
  for (const tensor_desc& t : Tensors.tensors)
    if (t.sequence_axis >= 0) return t.dims[t.sequence_axis];
  return 0;
}

/// The geometry of a node that touches a sequence tensor (`s.geometry` at the capacity, and its
/// `s.growth`): it tiles through L1 at a run-time length when its op says its tiles take their
/// extents from their arguments (`tiles_at_length`) and planning it one position shorter changes
/// only extents a tile never splits (output and input channels, kept whole, the MACs per output
/// and a whole operand: sequence_growth); otherwise it runs on its L2 buffers over the live
/// length (in_place).
template <auto const& Tensors, class Node>
constexpr void follow_sequence(node_summary& s) {
  tile_geometry& g = s.geometry;
  constexpr int capacity = sequence_capacity<Tensors>();
  if constexpr (requires { Node::tiles_at_length; } && capacity >= 2) {
    if (g.kind == tiling_kind::tiled && !g.fused()) {
      tile_geometry shorter = Node::template tile_geometry_of<one_position_shorter<Tensors>>();
      if (g.out_c != shorter.out_c) g.channel_step = g.out_c, shorter.channel_step = shorter.out_c;  // never split
      sequence_growth d{capacity,
                        g.out_c - shorter.out_c,
                        g.in_c - shorter.in_c,
                        g.channel_step - shorter.channel_step,
                        g.macs_per_output - shorter.macs_per_output,
                        g.whole_operand_bytes - shorter.whole_operand_bytes,
                        false};
      if constexpr (Node::inputs.size() >= 2) d.whole_operand_is_state = Tensors[Node::inputs[1]].state;
      // Everything else must be the capacity's: set the growing fields to it and compare.
      shorter.out_c = g.out_c, shorter.in_c = g.in_c, shorter.channel_step = g.channel_step;
      shorter.macs_per_output = g.macs_per_output, shorter.whole_operand_bytes = g.whole_operand_bytes;
      if (shorter == g && (d.out_c != 0 || d.in_c != 0 || d.whole_operand_bytes != 0)) {
        s.growth = d;
        return;
      }
    }
  }
  g.kind = tiling_kind::in_place;
}

template <auto const& Tensors, graph_node Node>
constexpr node_summary summarize() {
  node_summary s{};
  s.name = Node::name;
  s.kind = Node::kind;
  static_assert(Node::inputs.size() <= max_node_inputs && Node::outputs.size() <= max_node_outputs);
  for (std::size_t i = 0; i < Node::inputs.size(); ++i) s.inputs[i] = Node::inputs[i];
  s.input_count = static_cast<int>(Node::inputs.size());
  for (std::size_t i = 0; i < Node::outputs.size(); ++i) s.outputs[i] = Node::outputs[i];
  s.output_count = static_cast<int>(Node::outputs.size());
  s.is_alias = Node::is_alias;
  if constexpr (requires { Node::ternary_weights; }) s.ternary_weights = Node::ternary_weights;
  [&]<std::size_t... F>(std::index_sequence<F...>) {
    ((s.scratch[F] = Node::template scratch_bytes<Tensors, static_cast<kernels::kernel_family>(F)>()), ...);
    if constexpr (requires { Node::template lean_scratch_bytes<Tensors, kernels::kernel_family::reference>(); }) {
      ((s.lean_scratch[F] = Node::template lean_scratch_bytes<Tensors, static_cast<kernels::kernel_family>(F)>()), ...);
    } else {
      s.lean_scratch = s.scratch;
    }
    if constexpr (requires { Node::template writes_in_place<Tensors, kernels::kernel_family::reference>(); }) {
      ((s.in_place[F] = Node::template writes_in_place<Tensors, static_cast<kernels::kernel_family>(F)>()), ...);
    }
    if constexpr (requires { &Node::template tile_scratch<Tensors, kernels::kernel_family::reference>; }) {
      ((s.tile_scratch[F] = &Node::template tile_scratch<Tensors, static_cast<kernels::kernel_family>(F)>), ...);
    }
    if constexpr (requires { Node::template kernel_name<Tensors, kernels::kernel_family::reference>(); }) {
      ((s.kernel[F] = Node::template kernel_name<Tensors, static_cast<kernels::kernel_family>(F)>()), ...);
    }
  }(std::make_index_sequence<kernels::family_count>{});
  s.macs = Node::template macs<Tensors>();
  s.constant_bytes = Node::constant_bytes;
  if constexpr (requires { Node::template tile_geometry_of<Tensors>(); }) {
    s.geometry = Node::template tile_geometry_of<Tensors>();
    if constexpr (touches_sequence<Tensors, Node>()) follow_sequence<Tensors, Node>(s);
  }
  return s;
}

/// The node can run over a run-time length: it has `run_at(length, in, out, scratch)`.
template <auto const& Tensors, class Node>
concept runs_at_length = requires { &Node::template run_at<Tensors, kernels::kernel_family::reference>; };

/// The node's own check, and a sequence tensor only where the node can follow its length (the
/// run_at lookup only for nodes that touch one: networks without state pay nothing for it).
template <auto const& Tensors, class Node>
constexpr check_result layer_check() {
  if constexpr (touches_sequence<Tensors, Node>()) {
    if constexpr (!runs_at_length<Tensors, Node>) return {check_error::sequence};
  }
  return Node::template check<Tensors>();
}

/// True when no node failed (`Failed` == N); otherwise instantiates the diagnostic that names
/// the first failing node (one error at a time, as a short-circuiting fold would, without a
/// fold: see graph_nodes).
template <auto const& Tensors, std::size_t Failed, std::size_t N, class NodeTypes>
constexpr bool layers_are_valid() {
  if constexpr (Failed < N) {
    using Node = typename decltype(+boost::hana::at_c<Failed>(NodeTypes{}))::type;
    constexpr check_result r = layer_check<Tensors, Node>();
    diagnostics::layer_check_failed<Node::name, Node::kind, r.error, r.expected,
                                    Tensors[Node::outputs[0]].dims>{};
  }
  return Failed >= N;
}

/// Checks the structure (only once every layer is valid, to report one error at a time).
template <bool LayersValid, graph_check Check>
constexpr bool graph_is_valid() {
  if constexpr (LayersValid && Check.error != graph_error::none) {
    diagnostics::graph_check_failed<Check.error, Check.node, Check.tensor>{};
  }
  return Check.error == graph_error::none;
}
}  // namespace detail

template <auto const& Tensors, class Inputs, class Outputs, class... Nodes>
  requires graph_nodes<Nodes...>
struct network {
  static constexpr const auto& tensors = Tensors;
  static constexpr std::size_t tensor_count = std::remove_cvref_t<decltype(Tensors)>::size();
  static constexpr std::size_t node_count = sizeof...(Nodes);
  static constexpr auto inputs = Inputs::ids;
  static constexpr auto outputs = Outputs::ids;
  /// The node types, for walking them with Hana (`hana::for_each`).
  using node_types = boost::hana::tuple<boost::hana::type<Nodes>...>;
  /// One value per node, in graph order: `{f(std::type_identity<Node>{})...}`. Expands the pack
  /// once; indexing the node tuple per node instead costs the compiler O(nodes^2) (chain of 300
  /// nodes: 1.8 s and 200 MB more for one executor).
  template <class R, class F>
  static constexpr std::array<R, sizeof...(Nodes)> per_node(F f) {
    return {f(std::type_identity<Nodes>{})...};
  }

  // Layers first: a bad layer is the more useful message, and its summary may not be computable.
  static constexpr std::size_t first_invalid_layer =
      detail::first_false<sizeof...(Nodes)>({detail::layer_check<Tensors, Nodes>().ok()...});
  static constexpr bool layers_valid =
      detail::layers_are_valid<Tensors, first_invalid_layer, sizeof...(Nodes), node_types>();

  static constexpr graph_summary<tensor_count, inputs.size(), outputs.size(), node_count> summary{
      Tensors.tensors, inputs, outputs, {detail::summarize<Tensors, Nodes>()...}};

  static constexpr graph_check structure = check_graph(summary);
  static constexpr bool structure_valid = detail::graph_is_valid<layers_valid, structure>();
  static_assert(layers_valid && structure_valid, "tessera::network: see the diagnostic above");

  /// Some tensor's extent is a run-time sequence length: the network runs on a
  /// `sequence_executor` (runtime/sequence_executor.hpp), never on the fixed-shape executors.
  static constexpr bool has_sequence = [] {
    for (const tensor_desc& t : Tensors.tensors)
      if (t.sequence_axis >= 0) return true;
    return false;
  }();

  static constexpr std::int64_t macs() {
    std::int64_t total = 0;
    for (const auto& n : summary.nodes) total += n.macs;
    return total;
  }
  static constexpr std::size_t constant_bytes() {
    std::size_t total = 0;
    for (const auto& n : summary.nodes) total += n.constant_bytes;
    return total;
  }

  /// Input/output element type: `network::input_t<0>` is e.g. `std::uint8_t`.
  template <std::size_t I>
  using input_t = storage_t<Tensors[inputs[I]].type>;
  template <std::size_t I>
  using output_t = storage_t<Tensors[outputs[I]].type>;
  template <std::size_t I>
  static constexpr std::size_t input_elements = static_cast<std::size_t>(Tensors[inputs[I]].dims.elements());
  template <std::size_t I>
  static constexpr std::size_t output_elements = static_cast<std::size_t>(Tensors[outputs[I]].dims.elements());
};

}  // namespace tessera
