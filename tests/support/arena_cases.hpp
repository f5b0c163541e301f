// Arena planning cases as plain graph summaries (what the planner reads), built from buffers
// given by their bytes and lifetime, for the static and runtime tests of the arena planner.
#pragma once

#include <array>
#include <cstddef>

#include <tessera/graph/network.hpp>
#include <tessera/planning/arena_plan.hpp>

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

/// The brute-force check of an arena plan: every buffer 16-byte aligned and inside the arena,
/// and no two buffers live at the same step share a byte (every pair is compared). The buffers
/// are the plan's own choices' (lean scratch, in-place outputs sharing their input's group;
/// tests/static/test_ram_budget.cpp checks when an output may share).
template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN>
constexpr bool valid_plan(const tessera::graph_summary<NT, NI, NO, NN>& g, const tessera::arena_plan<NT, NN>& plan,
                          const std::array<bool, NT>& elsewhere = {}, bool with_scratch = true,
                          tessera::kernels::kernel_family family = tessera::kernels::native_family) {
  auto a = tessera::planning_detail::collect_buffers(g, elsewhere, with_scratch, family, plan.choices);
  for (std::size_t t = 0; t < NT; ++t) {
    if (a.outside[t] != (plan.tensor_offset[t] == tessera::arena_plan<NT, NN>::caller_buffer)) return false;
    if (!a.outside[t] && plan.tensor_offset[t] != plan.tensor_offset[a.root[t]]) return false;  // aliases share
    if (!a.outside[t]) a.buffers[a.root[t]].offset = static_cast<std::size_t>(plan.tensor_offset[t]);
  }
  for (std::size_t n = 0; n < NN; ++n) a.buffers[NT + n].offset = static_cast<std::size_t>(plan.scratch_offset[n]);
  for (std::size_t i = 0; i < a.buffers.size(); ++i) {
    const auto& x = a.buffers[i];
    if (!x.used || x.bytes == 0) continue;
    if (x.offset % tessera::arena_alignment != 0 || x.offset + x.bytes > plan.arena_bytes) return false;
    for (std::size_t j = i + 1; j < a.buffers.size(); ++j) {
      const auto& y = a.buffers[j];
      if (!y.used || y.bytes == 0 || x.first > y.last || y.first > x.last) continue;
      if (x.offset < y.offset + y.bytes && y.offset < x.offset + x.bytes) return false;
    }
  }
  return true;
}

}  // namespace arena_cases
