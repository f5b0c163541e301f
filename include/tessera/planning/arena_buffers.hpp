// The buffers of an activation arena, read off a graph: one per tensor group (a tensor and the
// Reshape-like nodes that alias it) and one per node's kernel scratch, each with its bytes and
// the steps (node indices) it is live. Shared by the arena planner (arena_plan.hpp) and DORY's
// bidirectional stack (bidirectional_stack.hpp), so both pack exactly the same buffers.
//
// Graph inputs and outputs live in caller buffers and are not planned. Every other buffer lives
// from the node that writes it to the last node that reads it; a node's inputs and outputs are
// live at the same step, so they never overlap - except where a plan allows in-place kernels
// (layer_choices::in_place): a node whose kernel may write its output over its input, run last
// on that input, gives its output the input's buffer, as a Reshape-like node does.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include <tessera/graph/network.hpp>

namespace tessera {

inline constexpr std::size_t arena_alignment = 16;

namespace planning_detail {

constexpr std::size_t align_up(std::size_t v, std::size_t a) { return (v + a - 1) / a * a; }

// Every member defaults to zero on purpose. GCC 12 drops non-zero default member initializers
// of the elements of a value-initialized std::array when the same constexpr function is
// evaluated a second time with the same template arguments (two networks of equal sizes in
// one translation unit): an `offset = -1` default silently became 0 and the arena came out
// empty. tests/static/test_plan.cpp ("twin networks") guards it.
struct buffer {
  std::size_t bytes = 0;
  int first = 0;  ///< first step it is live (node index)
  int last = 0;   ///< last step it is live
  bool used = false;
  std::size_t offset = 0;
};

constexpr void touch(buffer& buf, std::size_t bytes, int step) {
  if (!buf.used) {
    buf.used = true;
    buf.first = step;
    buf.last = step;
  }
  if (bytes > buf.bytes) buf.bytes = bytes;
  if (step < buf.first) buf.first = step;
  if (step > buf.last) buf.last = step;
}

/// Tensors outside the arena: graph inputs and outputs (caller buffers) plus `elsewhere`.
template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN>
constexpr std::array<bool, NT> outside_arena(const graph_summary<NT, NI, NO, NN>& g,
                                             const std::array<bool, NT>& elsewhere = {}) {
  std::array<bool, NT> outside = elsewhere;
  for (tensor_id t : g.inputs) outside[static_cast<std::size_t>(t)] = true;
  for (tensor_id t : g.outputs) outside[static_cast<std::size_t>(t)] = true;
  return outside;
}

}  // namespace planning_detail

/// What a plan decides per layer beyond offsets (a flat plan within a RAM budget,
/// planning/ram_budget.hpp): which nodes run their least-scratch variant, and whether kernels
/// that may write their output over their input do so. The defaults are the plan without
/// either: every node's own variant, no buffer shared by a node's input and output.
template <std::size_t NN>
struct layer_choices {
  std::array<bool, NN> lean{};  ///< node n runs `run_lean` with its `lean_scratch` (never in place)
  bool in_place = false;        ///< outputs take their input's buffer where the kernel allows
  /// The family whose kernels run the nodes (node_summary::in_place is per family: a plan made
  /// for a family this build cannot run falls back to the reference, which never works in place).
  kernels::kernel_family runs_with = kernels::kernel_family::reference;
};

namespace planning_detail {

/// Alias groups: each tensor points at the tensor whose buffer it uses. A Reshape-like node's
/// output shares its input's buffer when both are arena tensors; with `choices.in_place`, so
/// does the output of a node whose kernel writes in place, when that node is the last to read
/// any tensor of its input's group (`group_last`: the last node reading a member, kept up to
/// date as groups grow). O(nodes x inputs + tensors).
template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN>
constexpr std::array<std::size_t, NT> alias_roots(const graph_summary<NT, NI, NO, NN>& g,
                                                  const std::array<bool, NT>& outside,
                                                  const layer_choices<NN>& choices = {}) {
  std::array<std::size_t, NT> root{};
  for (std::size_t t = 0; t < NT; ++t) root[t] = t;
  std::array<int, NT> last_read{};  // last node reading each tensor, plus one (0: none)
  if (choices.in_place)
    for (std::size_t n = 0; n < NN; ++n)
      for (int i = 0; i < g.nodes[n].input_count; ++i)
        last_read[static_cast<std::size_t>(g.nodes[n].inputs[static_cast<std::size_t>(i)])] = static_cast<int>(n) + 1;
  std::array<int, NT> group_last = last_read;  // per root
  const auto runs_with = static_cast<std::size_t>(choices.runs_with);
  for (std::size_t k = 0; k < NN; ++k) {
    const node_summary& n = g.nodes[k];
    const bool in_place =
        choices.in_place && !choices.lean[k] && n.in_place[runs_with] && n.input_count >= 1 && n.output_count == 1;
    if (!n.is_alias && !in_place) continue;
    const auto in = static_cast<std::size_t>(n.inputs[0]);
    const auto out = static_cast<std::size_t>(n.outputs[0]);
    if (outside[in] || outside[out]) continue;
    const std::size_t r = root[in];  // inputs precede outputs: root[in] is final
    if (!n.is_alias && group_last[r] != static_cast<int>(k) + 1) continue;  // read later: keep it
    root[out] = r;
    if (last_read[out] > group_last[r]) group_last[r] = last_read[out];
  }
  return root;
}

/// The arena's buffers: 0..NT-1 are tensor groups (indexed by their root tensor), NT..NT+NN-1
/// node scratch; `used` marks the ones that exist.
template <std::size_t NT, std::size_t NN>
struct arena_buffers {
  std::array<bool, NT> outside{};     ///< caller buffer or another memory level
  std::array<std::size_t, NT> root{};  ///< alias group of each tensor
  std::array<buffer, NT + NN> buffers{};
};

/// The buffers of `g`'s arena. Tensors marked in `elsewhere` are left out like caller buffers;
/// `with_scratch` adds every node's kernel scratch as the kernels of `family` need it.
/// `choices`: lean variants' scratch and in-place outputs (layer_choices; none by default).
template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN>
constexpr arena_buffers<NT, NN> collect_buffers(const graph_summary<NT, NI, NO, NN>& g, const std::array<bool, NT>& elsewhere,
                                                bool with_scratch, kernels::kernel_family family,
                                                const layer_choices<NN>& choices = {}) {
  arena_buffers<NT, NN> a{};
  a.outside = outside_arena(g, elsewhere);
  a.root = alias_roots(g, a.outside, choices);
  for (std::size_t n = 0; n < NN; ++n) {
    const node_summary& node = g.nodes[n];
    const int step = static_cast<int>(n);
    for (int i = 0; i < node.input_count + node.output_count; ++i) {
      const auto t = static_cast<std::size_t>(i < node.input_count ? node.inputs[static_cast<std::size_t>(i)]
                                                                  : node.outputs[static_cast<std::size_t>(i - node.input_count)]);
      if (a.outside[t]) continue;
      touch(a.buffers[a.root[t]], g.tensors[t].bytes(), step);
    }
    const std::size_t scratch = (choices.lean[n] ? node.lean_scratch : node.scratch)[static_cast<std::size_t>(family)];
    if (with_scratch && scratch > 0) touch(a.buffers[NT + n], scratch, step);
  }
  return a;
}

}  // namespace planning_detail
}  // namespace tessera
