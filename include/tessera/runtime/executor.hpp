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

#include <tessera/planning/arena_plan.hpp>
#include <tessera/runtime/node_calls.hpp>

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
    for (std::size_t n = 0; n < Net::node_count; ++n) run_node(n, arena, inputs, outputs, observer);
  }

 private:
  /// Per node: its whole-layer call (runtime/node_calls.hpp).
  static constexpr auto nodes =
      Net::template per_node<runtime_detail::node_calls>(runtime_detail::calls_of<Net::tensors, Family>{});

  static void* locate(tensor_id t, std::byte* arena, const inputs_t& inputs, const outputs_t& outputs) {
    const std::int64_t offset = plan.tensor_offset[static_cast<std::size_t>(t)];
    if (offset >= 0) return arena + offset;
    return caller_buffers<Net>::find(t, inputs, outputs);
  }

  template <class Observer>
  static void run_node(std::size_t n, std::byte* arena, const inputs_t& inputs, const outputs_t& outputs,
                       Observer& observer) {
    const node_summary& layer = Net::summary.nodes[n];
    void* in[max_node_inputs]{};
    void* out[max_node_outputs]{};
    for (int i = 0; i < layer.input_count; ++i)
      in[i] = locate(layer.inputs[static_cast<std::size_t>(i)], arena, inputs, outputs);
    for (int i = 0; i < layer.output_count; ++i)
      out[i] = locate(layer.outputs[static_cast<std::size_t>(i)], arena, inputs, outputs);
    nodes[n].whole(in, out, arena + plan.scratch_offset[n]);
    for (int i = 0; i < layer.output_count; ++i)
      observer(static_cast<int>(n), layer.outputs[static_cast<std::size_t>(i)], out[i]);
  }
};

}  // namespace tessera
