// Runs a network over caller-provided memory, node by node, with one kernel family's kernels.
//
//   alignas(16) static std::byte arena[tessera::executor<net>::arena_bytes];
//   tessera::executor<net>::run(arena, {input}, {output});
//
// Every pointer is the arena base plus a compile-time offset, or a caller buffer: nothing is
// allocated and nothing is decided at run time. An optional observer sees every tensor right
// after the node that writes it (the tests use it to compare intermediate activations).
#pragma once

#include <array>
#include <cstddef>
#include <utility>

#include <boost/hana/for_each.hpp>
#include <boost/hana/tuple.hpp>
#include <boost/hana/type.hpp>

#include <tessera/planning/arena_plan.hpp>

namespace tessera {

/// Observer that does nothing (the default): the calls compile away.
struct no_observer {
  constexpr void operator()(int /*node*/, tensor_id /*tensor*/, const void* /*data*/) const {}
};

/// The caller's graph input and output buffers, and where a tensor lives among them. Both
/// executors use it; they differ only in where the other tensors live.
template <class Net>
struct caller_buffers {
  using inputs_t = std::array<const void*, Net::inputs.size()>;
  using outputs_t = std::array<void*, Net::outputs.size()>;

  /// The caller's buffer of tensor `t`, or nullptr when `t` is not a graph input or output.
  static void* find(tensor_id t, const inputs_t& inputs, const outputs_t& outputs) {
    for (std::size_t i = 0; i < Net::outputs.size(); ++i)
      if (Net::outputs[i] == t) return outputs[i];
    for (std::size_t i = 0; i < Net::inputs.size(); ++i)
      if (Net::inputs[i] == t) return const_cast<void*>(inputs[i]);  // read-only by construction
    return nullptr;
  }
};

/// `Family`: the kernels that run the nodes (default: the best the compiler targets; the
/// arena holds that family's scratch). A family the build cannot run falls back to the reference.
template <class Net, kernels::kernel_family Family = kernels::native_family>
struct executor {
  static constexpr auto plan = plan_arena(Net::summary, {}, true, Family);
  static constexpr std::size_t arena_bytes = plan.arena_bytes;

  using inputs_t = typename caller_buffers<Net>::inputs_t;
  using outputs_t = typename caller_buffers<Net>::outputs_t;

  /// `arena`: at least `arena_bytes` bytes, 16-byte aligned. `inputs`/`outputs`: one buffer per
  /// graph input/output, in the element type and physical shape of its tensor.
  template <class Observer = no_observer>
  static void run(std::byte* arena, const inputs_t& inputs, const outputs_t& outputs, Observer&& observer = {}) {
    int index = 0;
    boost::hana::for_each(node_types{}, [&](auto node_type) {
      using node = typename decltype(node_type)::type;
      run_node<node>(index, arena, inputs, outputs, observer);
      ++index;
    });
  }

 private:
  using node_types = typename Net::node_types;

  static void* locate(tensor_id t, std::byte* arena, const inputs_t& inputs, const outputs_t& outputs) {
    const std::int64_t offset = plan.tensor_offset[static_cast<std::size_t>(t)];
    if (offset >= 0) return arena + offset;
    return caller_buffers<Net>::find(t, inputs, outputs);
  }

  template <class Node, class Observer>
  static void run_node(int index, std::byte* arena, const inputs_t& inputs, const outputs_t& outputs,
                       Observer& observer) {
    void* in[Node::inputs.size()];
    void* out[Node::outputs.size()];
    for (std::size_t i = 0; i < Node::inputs.size(); ++i) in[i] = locate(Node::inputs[i], arena, inputs, outputs);
    for (std::size_t i = 0; i < Node::outputs.size(); ++i)
      out[i] = locate(Node::outputs[i], arena, inputs, outputs);
    void* scratch = arena + plan.scratch_offset[static_cast<std::size_t>(index)];
    Node::template run<Net::tensors, Family>(in, out, scratch);
    for (std::size_t i = 0; i < Node::outputs.size(); ++i) observer(index, Node::outputs[i], out[i]);
  }
};

}  // namespace tessera
