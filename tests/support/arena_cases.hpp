// Arena planning cases as plain graph summaries (what the planner reads), built from buffers
// given by their bytes and lifetime, for the static and runtime tests of the arena planner.
#pragma once

#include <array>
#include <cstddef>

#include <tessera/graph/network.hpp>

namespace arena_cases {

/// A tensor written by node `first` and read last by node `last` (first <= last).
struct lifetime {
  int bytes = 0;
  int first = 0;
  int last = 0;
};

/// A graph whose arena buffers are exactly `rows` (tensors 1..NB, u8 {1, bytes}) plus each
/// node's `scratch` (in every kernel family). Tensor 0 is the graph input (read by node 0) and
/// tensor NB + 1 the graph output (written by the last node): caller buffers. A node writes
/// at most two tensors (tessera::max_node_outputs), the last node one besides the output: a
/// case that needs more does not compile.
template <std::size_t NB, std::size_t NN>
constexpr tessera::graph_summary<NB + 2, 1, 1, NN> lifetime_graph(const std::array<lifetime, NB>& rows,
                                                                  const std::array<int, NN>& scratch = {}) {
  tessera::graph_summary<NB + 2, 1, 1, NN> g{};
  g.tensors[0].type = tessera::dtype::u8;
  g.tensors[0].dims = tessera::shape{1, 1};
  g.tensors[NB + 1].type = tessera::dtype::u8;
  g.tensors[NB + 1].dims = tessera::shape{1, 1};
  g.inputs[0] = 0;
  g.outputs[0] = static_cast<tessera::tensor_id>(NB + 1);
  for (std::size_t n = 0; n < NN; ++n) {
    tessera::node_summary& node = g.nodes[n];
    node.kind = tessera::op_kind::add;
    if (n == 0) node.inputs[static_cast<std::size_t>(node.input_count++)] = 0;
    for (std::size_t r = 0; r < NB; ++r) {
      const auto id = static_cast<tessera::tensor_id>(r + 1);
      if (rows[r].first == static_cast<int>(n)) node.outputs[static_cast<std::size_t>(node.output_count++)] = id;
      else if (rows[r].last == static_cast<int>(n)) node.inputs[static_cast<std::size_t>(node.input_count++)] = id;
    }
    if (n + 1 == NN) node.outputs[static_cast<std::size_t>(node.output_count++)] = static_cast<tessera::tensor_id>(NB + 1);
    for (auto& s : node.scratch) s = static_cast<std::size_t>(scratch[n]);
  }
  for (std::size_t r = 0; r < NB; ++r) {
    g.tensors[r + 1].type = tessera::dtype::u8;
    g.tensors[r + 1].dims = tessera::shape{1, rows[r].bytes};
  }
  return g;
}

}  // namespace arena_cases
