// Networks with state that outlives a call: a KV cache that stays in place across the steps of
// an autoregressive decoder.
//
//   using run = tessera::sequence_executor<step::network>;
//   run::state cache;                                  // the caller's: buffers and length
//   alignas(16) static std::byte arena[run::arena_bytes];
//   run::step(arena, cache, {token, rope}, {output});  // appends the token's rows in place
//   cache.length(); cache.reset();
//
// onnx2hpp makes such a network from a model whose caches are graph inputs and their grown
// copies graph outputs (`--state IN=OUT --max-context N`): each pair becomes one state tensor
// (`tensor_desc::state`) at the capacity, the Concat that grew it a `state_append` that writes
// the call's rows after the cached ones, and what attention computes from the cache a sequence
// tensor whose extent is the run's length (graph/sequence.hpp). So a step writes its rows and
// reads the cache where it is: no step copies a cache, and the work grows with the length, not
// with the capacity.
//
// Two networks with equal `state_layout`s (the buffers' types and shapes, in their graph-output
// order, and the capacity) share one state type: a prefill network (a whole prompt from an
// empty state: only its state tensors have a sequence axis) fills the state that the one-step
// network then continues.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include <tessera/graph/network.hpp>
#include <tessera/ops/state_append.hpp>
#include <tessera/runtime/executor.hpp>

namespace tessera {

/// One state buffer as two networks sharing it must agree on.
struct state_buffer {
  dtype type = dtype::s8;
  shape dims{};  ///< physical, the sequence axis at the capacity
  int axis = 0;  ///< the sequence axis

  friend constexpr bool operator==(const state_buffer&, const state_buffer&) = default;
};

/// The state of a network: its buffers in graph-output order and the positions they hold.
template <std::size_t N>
struct state_layout {
  std::array<state_buffer, N> buffers{};
  int capacity = 0;

  static constexpr std::size_t alignment = 16;
  /// Byte offset of buffer `i` in the state's storage (each 16-byte aligned).
  constexpr std::size_t offset(std::size_t i) const {
    std::size_t at = 0;
    for (std::size_t k = 0; k < i; ++k) at += (bytes_of(k) + alignment - 1) / alignment * alignment;
    return at;
  }
  constexpr std::size_t bytes_of(std::size_t i) const {
    return static_cast<std::size_t>(buffers[i].dims.elements()) * size_of(buffers[i].type);
  }
  constexpr std::size_t bytes() const { return offset(N); }

  friend constexpr bool operator==(const state_layout&, const state_layout&) = default;
};

enum class step_status : std::uint8_t {
  ok,
  full,       ///< the call's rows do not fit the capacity: nothing was run or written
  not_empty,  ///< a prefill network runs on an empty state only: nothing was run or written
};

constexpr const char* to_string(step_status s) {
  switch (s) {
    case step_status::ok: return "ok";
    case step_status::full: return "the state is full";
    case step_status::not_empty: return "a prefill needs an empty state";
  }
  return "?";
}

namespace detail {
template <class Net>
struct state_calls;
}

/// The caller-owned state of networks with layout `L`: the buffers and how many positions
/// they hold. Positions past `length()` are never read, so `reset` only forgets them.
template <state_layout L>
class sequence_state {
 public:
  static constexpr auto layout = L;
  static constexpr int capacity = L.capacity;
  static constexpr std::size_t buffer_count = L.buffers.size();

  constexpr int length() const { return length_; }
  constexpr void reset() { length_ = 0; }

  /// Buffer `I` in its element type and physical shape (`layout.buffers[I].dims`).
  template <std::size_t I>
  auto* buffer() {
    static_assert(I < buffer_count, "tessera::sequence_state: no such buffer");
    return reinterpret_cast<storage_t<L.buffers[I].type>*>(storage_ + L.offset(I));
  }
  template <std::size_t I>
  const auto* buffer() const {
    static_assert(I < buffer_count, "tessera::sequence_state: no such buffer");
    return reinterpret_cast<const storage_t<L.buffers[I].type>*>(storage_ + L.offset(I));
  }

 private:
  template <class>
  friend struct detail::state_calls;
  void* data(std::size_t i) { return storage_ + L.offset(i); }

  alignas(state_layout<L.buffers.size()>::alignment) std::byte storage_[L.bytes() > 0 ? L.bytes() : 1]{};
  int length_ = 0;
};

namespace detail {
template <class Net>
constexpr std::size_t state_count() {
  std::size_t n = 0;
  for (tensor_id t : Net::outputs) n += Net::tensors[t].state ? 1 : 0;
  return n;
}

/// The state tensors of `Net` (its state graph outputs, in order) and the positions they hold.
template <class Net>
constexpr state_layout<state_count<Net>()> state_layout_of() {
  state_layout<state_count<Net>()> l{};
  std::size_t i = 0;
  for (tensor_id t : Net::outputs) {
    const tensor_desc& d = Net::tensors[t];
    if (!d.state) continue;
    l.buffers[i++] = {d.type, d.dims, d.sequence_axis};
    l.capacity = d.dims[d.sequence_axis];
  }
  return l;
}

/// What a network with state must be.
enum class state_rule : std::uint8_t {
  holds,
  no_state,                          ///< no graph output is a state tensor (tensor_desc::state)
  output_with_sequence_is_no_state,  ///< a graph output has a sequence axis but is no state
  state_without_sequence_axis,
  capacities_differ,                 ///< the state tensors' extents along their sequence axes
  state_written_by_other_node,       ///< a state tensor's writer is not its one-input append
  appends_add_different_rows,
  state_not_written_by_one_append,
  state_is_no_graph_output,          ///< state lives in the caller's buffers only
  sequence_tensor_exceeds_capacity,
  input_with_sequence,               ///< graph inputs have fixed extents (the caches are state)
};

/// The first rule of networks with state that `Net` breaks (`holds`: none).
template <class Net>
constexpr state_rule state_rule_broken() {
  const auto& s = Net::summary;
  int capacity = -1, rows = -1;
  for (tensor_id t : Net::outputs) {
    const tensor_desc& d = Net::tensors[t];
    if (d.sequence_axis >= 0 && !d.state) return state_rule::output_with_sequence_is_no_state;
    if (!d.state) continue;
    if (d.sequence_axis < 0) return state_rule::state_without_sequence_axis;
    if (capacity >= 0 && d.dims[d.sequence_axis] != capacity) return state_rule::capacities_differ;
    capacity = d.dims[d.sequence_axis];
    int writers = 0;
    for (const node_summary& n : s.nodes)
      for (int o = 0; o < n.output_count; ++o)
        if (n.outputs[static_cast<std::size_t>(o)] == t) {
          // The one writer of a state tensor is its append (a Concat on the device).
          if (n.kind != op_kind::concat || n.input_count != 1) return state_rule::state_written_by_other_node;
          const int r = Net::tensors[n.inputs[0]].dims[d.sequence_axis];
          if (rows >= 0 && r != rows) return state_rule::appends_add_different_rows;
          rows = r;
          ++writers;
        }
    if (writers != 1) return state_rule::state_not_written_by_one_append;
  }
  if (capacity < 0) return state_rule::no_state;
  for (std::size_t t = 0; t < Net::tensor_count; ++t) {
    const tensor_desc& d = Net::tensors[t];
    if (d.state) {
      bool is_output = false;
      for (tensor_id o : Net::outputs) is_output = is_output || o == static_cast<tensor_id>(t);
      if (!is_output) return state_rule::state_is_no_graph_output;
    }
    if (d.sequence_axis >= 0 && d.dims[d.sequence_axis] > capacity) return state_rule::sequence_tensor_exceeds_capacity;
  }
  for (tensor_id t : Net::inputs)
    if (Net::tensors[t].sequence_axis >= 0) return state_rule::input_with_sequence;
  return state_rule::holds;
}

template <class Net>
constexpr int rows_per_call() {
  for (const node_summary& n : Net::summary.nodes)
    if (n.output_count == 1 && Net::tensors[n.outputs[0]].state)
      return Net::tensors[n.inputs[0]].dims[Net::tensors[n.outputs[0]].sequence_axis];
  return 0;
}

template <state_rule Rule>
struct state_rule_failed {
  static_assert(Rule == state_rule::holds,
                "tessera: the network breaks a rule of networks with state; see 'state_rule_failed<rule>' in "
                "this message");
  static constexpr bool value = Rule == state_rule::holds;
};

/// What a step does around the network's run, for every executor of networks with state
/// (sequence_executor, tiled_executor): the state type, the call's admission, the graph
/// outputs with the state buffers in place, and the new length.
template <class Net>
struct state_calls {
  static_assert(state_rule_failed<state_rule_broken<Net>()>::value);
  static constexpr auto layout = state_layout_of<Net>();
  using state = sequence_state<layout>;
  static constexpr int capacity = layout.capacity;
  static constexpr int rows_per_call = detail::rows_per_call<Net>();
  static constexpr std::size_t user_outputs = Net::outputs.size() - state_count<Net>();
  static constexpr bool from_empty_only = [] {
    for (const tensor_desc& t : Net::tensors.tensors)
      if (t.sequence_axis >= 0 && !t.state) return false;
    return true;
  }();
  using outputs_t = std::array<void*, user_outputs>;

  /// Why the call cannot run on `s` (ok: it can).
  static constexpr step_status admit(const state& s) {
    if (from_empty_only && s.length_ != 0) return step_status::not_empty;
    if (s.length_ > capacity - rows_per_call) return step_status::full;
    return step_status::ok;
  }
  /// Every graph output in graph order: the state's buffers and the caller's `outputs`.
  template <class AllOutputs>
  static AllOutputs all_outputs(state& s, const outputs_t& outputs) {
    AllOutputs all{};
    std::size_t user = 0, held = 0;
    for (std::size_t i = 0; i < Net::outputs.size(); ++i)
      all[i] = Net::tensors[Net::outputs[i]].state ? s.data(held++) : outputs[user++];
    return all;
  }
  /// The positions the call runs over (the state's and its own rows).
  static constexpr int length_of_call(const state& s) { return s.length_ + rows_per_call; }
  static constexpr void appended(state& s) { s.length_ += rows_per_call; }
};
}  // namespace detail

/// Runs a network with state (see the top of this file) with `Family`'s kernels: over the
/// run-time length each node's `run_at` takes the family chosen for the capacity where it
/// accepts the live extents, else the reference (docs/architecture.md, "State that outlives a
/// call"); `RamBudget` as for `executor`.
template <class Net, kernels::kernel_family Family = kernels::native_family, std::size_t RamBudget = least_ram>
struct sequence_executor {
 private:
  using calls = detail::state_calls<Net>;
  using flat = executor<Net, Family, RamBudget>;

 public:
  static constexpr auto layout = calls::layout;
  using state = typename calls::state;
  static constexpr int capacity = calls::capacity;
  /// Positions one call appends to the state (1 for a one-step network, the prompt for a prefill).
  static constexpr int rows_per_call = calls::rows_per_call;
  /// Only the state tensors have a sequence axis: the network computes over exactly the rows it
  /// appends (a prefill exported with empty caches) and runs on an empty state only.
  static constexpr bool from_empty_only = calls::from_empty_only;
  static constexpr std::size_t arena_bytes = flat::arena_bytes;
  static constexpr auto plan = flat::plan;

  /// One buffer per graph input; one per graph output that is not state, in graph order.
  using inputs_t = typename flat::inputs_t;
  using outputs_t = typename calls::outputs_t;

  /// Runs the network over the state's positions and this call's rows, appending them to the
  /// state. `full` when they would exceed the capacity and `not_empty` for a prefill on a
  /// non-empty state: then nothing is run and nothing written.
  template <class Observer = no_observer>
  static step_status step(std::byte* arena, state& s, const inputs_t& inputs, const outputs_t& outputs,
                          Observer&& observer = {}) {
    if (const step_status refused = calls::admit(s); refused != step_status::ok) return refused;
    flat::run_at(arena, calls::length_of_call(s), inputs,
                 calls::template all_outputs<typename flat::outputs_t>(s, outputs), observer);
    calls::appended(s);
    return step_status::ok;
  }
};

}  // namespace tessera
