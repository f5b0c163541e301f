// Reshape-like nodes that run nothing in a tiled plan, and the tensors whose bytes they name.
//
// An alias (op::reshape: Reshape, Flatten, Identity, a Cast that keeps the bytes) whose output
// has its input's L2 bytes runs no code. The step program gives it no steps, and what follows a
// tensor's bytes looks through it to the tensor it aliases: which layer's stores a load waits
// for, whether a layer can load while the one before computes (schedule/emit.hpp), which layer
// produced what a load reads (schedule/hazard_check.hpp), whether a layer reads the previous
// layer's result in L1 (l1_forwarding.hpp). Exported models put such nodes between most layers
// (torch: a Cast before and after every quantized Gemm; a decoder: the reshapes to and from
// heads); without this each of them stopped the pipeline as an untiled layer does.
#pragma once

#include <array>
#include <cstddef>

#include <tessera/graph/network.hpp>

namespace tessera::planning_detail {

/// Whether node `n` runs nothing in the tiled plan: an untiled alias whose output lies on its
/// input's bytes in the L2 arena (an alias from or to a caller's buffer copies).
/// `Plan`: a target_plan.
template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN, class Plan>
constexpr bool runs_nothing(const graph_summary<NT, NI, NO, NN>& g, const Plan& plan, std::size_t n) {
  const node_summary& node = g.nodes[n];
  if (!node.is_alias || node.absorbed || plan.layers[n].tiled || node.input_count != 1 || node.output_count != 1)
    return false;
  const auto in = static_cast<std::size_t>(node.inputs[0]);
  const auto out = static_cast<std::size_t>(node.outputs[0]);
  return !plan.in_l3[in] && !plan.in_l3[out] && plan.l2.tensor_offset[in] >= 0 &&
         plan.l2.tensor_offset[in] == plan.l2.tensor_offset[out];
}

/// Before a plan exists (tile problems, the fused-block selector): whether node `n` will have
/// no steps of its own, as has_no_steps decides once planned, assuming an alias keeps its
/// input's bytes (an alias from or to a caller's buffer does copy: then it is a layer on L2).
template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN>
constexpr bool runs_no_steps(const graph_summary<NT, NI, NO, NN>& g, std::size_t n) {
  const node_summary& node = g.nodes[n];
  return node.absorbed || (node.is_alias && node.input_count == 1 && node.output_count == 1);
}

/// Whether node `n` has no steps of its own in the tiled program: absorbed into a fused block
/// (it runs inside the next node's tiles) or an alias that runs nothing. The layers that run,
/// in order, are the others (schedule/emit.hpp, l1_forwarding.hpp).
template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN, class Plan>
constexpr bool has_no_steps(const graph_summary<NT, NI, NO, NN>& g, const Plan& plan, std::size_t n) {
  return g.nodes[n].absorbed || runs_nothing(g, plan, n);
}

/// Per tensor, the tensor whose bytes it is (itself, or through aliases that run nothing the
/// first tensor of the chain), and whether it sees them under other extents than that tensor
/// (a reshape: a box of it is not a box of the root).
template <std::size_t NT>
struct tensor_roots {
  int root[NT]{};  // C arrays: read per step by the emitter and the proof (GCC's constexpr budget)
  bool reshaped[NT]{};
};

template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN, class Plan>
constexpr tensor_roots<NT> roots_of(const graph_summary<NT, NI, NO, NN>& g, const Plan& plan) {
  tensor_roots<NT> r{};
  for (std::size_t t = 0; t < NT; ++t) r.root[t] = static_cast<int>(t);
  for (std::size_t n = 0; n < NN; ++n) {
    if (!runs_nothing(g, plan, n)) continue;
    const auto in = static_cast<std::size_t>(g.nodes[n].inputs[0]);
    const auto out = static_cast<std::size_t>(g.nodes[n].outputs[0]);
    r.root[out] = r.root[in];
    r.reshaped[out] = r.reshaped[in] || g.tensors[out].dims != g.tensors[static_cast<std::size_t>(r.root[in])].dims;
  }
  return r;
}

}  // namespace tessera::planning_detail
