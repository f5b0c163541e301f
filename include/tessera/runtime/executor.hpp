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
#include <cstdint>
#include <type_traits>
#include <utility>

#include <tessera/planning/arena_plan.hpp>
#include <tessera/planning/ram_budget.hpp>
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
/// `RamBudget`: the arena bytes the layers' kernels may use (planning/ram_budget.hpp): by
/// default the least the network needs (each layer's variant with the fewest bytes at its step,
/// outputs written over inputs where the kernel allows); a larger budget lets layers take
/// faster variants that fit it; tessera::any_ram takes them all.
template <class Net, kernels::kernel_family Family = kernels::native_family, std::size_t RamBudget = least_ram>
struct executor {
  static constexpr auto plan = plan_within_ram(Net::summary, Family, kernels::runnable(Family), RamBudget);
  static constexpr std::size_t arena_bytes = plan.arena_bytes;

  using inputs_t = typename caller_buffers<Net>::inputs_t;
  using outputs_t = typename caller_buffers<Net>::outputs_t;

  /// `arena`: at least `arena_bytes` bytes, 16-byte aligned. `inputs`/`outputs`: one buffer per
  /// graph input/output, in the element type and physical shape of its tensor.
  template <class Observer = no_observer>
  static void run(std::byte* arena, const inputs_t& inputs, const outputs_t& outputs, Observer&& observer = {}) {
    static_assert(!Net::has_sequence,
                  "tessera::executor: the network has state and a run-time sequence length; run it with "
                  "tessera::sequence_executor (runtime/sequence_executor.hpp)");
    for (std::size_t n = 0; n < Net::node_count; ++n) run_node(n, 0, arena, inputs, outputs, observer);
  }

  /// A network with a run-time sequence length over `length` positions; `outputs` include the
  /// state buffers. Called by sequence_executor, which checks `length` against the capacity.
  template <class Observer = no_observer>
  static void run_at(std::byte* arena, int length, const inputs_t& inputs, const outputs_t& outputs,
                     Observer&& observer = {}) {
    for (std::size_t n = 0; n < Net::node_count; ++n) run_node(n, length, arena, inputs, outputs, observer);
  }

 private:
  // What the loop needs at run time, laid out at compile time so that the firmware carries a few
  // bytes per node (not the summary): each node's whole-layer call, and its tensors as places -
  // an arena offset (>= 0), or ~k for caller buffer k (the outputs, then the inputs: a graph
  // input that is also an output is the output buffer, as caller_buffers::find says).
  // Each node's whole-layer call: its least-scratch variant where the plan chose it (the lean
  // variants are instantiated only for a plan that runs some).
  static constexpr bool runs_lean = [] {
    for (bool lean : plan.choices.lean)
      if (lean) return true;
    return false;
  }();
  static constexpr auto calls = [] {
    auto own = Net::template per_node<runtime_detail::whole_layer_fn>(runtime_detail::whole_layer_of<Net::tensors, Family>{});
    if constexpr (runs_lean) {
      const auto lean = Net::template per_node<runtime_detail::whole_layer_fn>(
          runtime_detail::lean_layer_of<Net::tensors, Family>{});
      for (std::size_t n = 0; n < Net::node_count; ++n)
        if (plan.choices.lean[n]) own[n] = lean[n];
    }
    return own;
  }();
  // The nodes over a run-time sequence length (none in a network without state).
  static constexpr const auto& calls_at_length = runtime_detail::calls_at_length_of<Net, Family>;
  static_assert([] {
    for (std::size_t n = 0; n < Net::node_count; ++n)
      if (calls[n] == nullptr && (calls_at_length.empty() || calls_at_length[n] == nullptr)) return false;
    return true;
  }(), "tessera::executor: the plan runs a node's least-scratch variant that the node does not provide");

  struct node_places {
    std::uint32_t scratch = 0;  ///< arena offset of the node's scratch
    std::uint16_t first = 0;    ///< its inputs, then its outputs, from places[first]
    std::uint8_t inputs = 0, outputs = 0;
  };
  static constexpr std::int32_t nowhere = INT32_MIN;
  static constexpr std::int32_t place_of(tensor_id t) {
    for (std::size_t i = 0; i < Net::outputs.size(); ++i)
      if (Net::outputs[i] == t) return ~static_cast<std::int32_t>(i);
    for (std::size_t i = 0; i < Net::inputs.size(); ++i)
      if (Net::inputs[i] == t) return ~static_cast<std::int32_t>(Net::outputs.size() + i);
    const std::int64_t offset = plan.tensor_offset[static_cast<std::size_t>(t)];
    return offset >= 0 ? static_cast<std::int32_t>(offset) : nowhere;  // nowhere: never allocated
  }
  static constexpr std::size_t place_count = [] {
    std::size_t count = 0;
    for (const auto& node : Net::summary.nodes) count += static_cast<std::size_t>(node.input_count + node.output_count);
    return count;
  }();
  static_assert(arena_bytes < (std::size_t{1} << 31) && place_count < 65536,
                "tessera::executor: arena or graph beyond the run-time table's 31-bit offsets / 16-bit indices");
  static constexpr auto places = [] {
    std::array<std::int32_t, place_count> out{};
    std::size_t at = 0;
    for (const auto& node : Net::summary.nodes) {
      for (int i = 0; i < node.input_count; ++i) out[at++] = place_of(node.inputs[static_cast<std::size_t>(i)]);
      for (int i = 0; i < node.output_count; ++i) out[at++] = place_of(node.outputs[static_cast<std::size_t>(i)]);
    }
    return out;
  }();
  static constexpr auto nodes = [] {
    std::array<node_places, Net::node_count> out{};
    std::size_t at = 0;
    for (std::size_t n = 0; n < Net::node_count; ++n) {
      const node_summary& node = Net::summary.nodes[n];
      out[n] = {static_cast<std::uint32_t>(plan.scratch_offset[n]), static_cast<std::uint16_t>(at),
                static_cast<std::uint8_t>(node.input_count), static_cast<std::uint8_t>(node.output_count)};
      at += static_cast<std::size_t>(node.input_count + node.output_count);
    }
    return out;
  }();

  static void* locate(std::int32_t place, std::byte* arena, const inputs_t& inputs, const outputs_t& outputs) {
    if (place >= 0) return arena + place;
    if (place == nowhere) return nullptr;
    const auto k = static_cast<std::size_t>(~place);
    return k < outputs.size() ? outputs[k] : const_cast<void*>(inputs[k - outputs.size()]);  // inputs: read only
  }

  template <class Observer>
  static void run_node(std::size_t n, int length, std::byte* arena, const inputs_t& inputs, const outputs_t& outputs,
                       Observer& observer) {
    const node_places& node = nodes[n];
    void* in[max_node_inputs]{};
    void* out[max_node_outputs]{};
    for (int i = 0; i < node.inputs; ++i) in[i] = locate(places[node.first + i], arena, inputs, outputs);
    for (int i = 0; i < node.outputs; ++i)
      out[i] = locate(places[node.first + node.inputs + i], arena, inputs, outputs);
    if constexpr (Net::has_sequence) {
      if (calls_at_length[n] != nullptr) calls_at_length[n](length, in, out, arena + node.scratch);
      else calls[n](in, out, arena + node.scratch);
    } else {
      calls[n](in, out, arena + node.scratch);
    }
    if constexpr (!std::is_same_v<std::remove_cvref_t<Observer>, no_observer>) {
      for (int i = 0; i < node.outputs; ++i)
        observer(static_cast<int>(n), Net::summary.nodes[n].outputs[static_cast<std::size_t>(i)], out[i]);
    }
  }
};

}  // namespace tessera
