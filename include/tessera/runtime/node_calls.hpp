// What the executors call on a node, as a table of plain function pointers per network.
//
// Each function here is named by the node type, the tensor table and the kernel family only,
// never by the network: a per-node function that is a member of `executor<Net>` carries the
// whole network in its symbol name, so a graph of N nodes cost the compiler O(N^2) bytes of
// names (a chain of 1,000 Identity nodes: 80 s and 1 GB to compile one tiled executor). The
// executors' own loop is written once per network, not once per node, which also keeps the
// per-node code to the kernel call itself.
#pragma once

#include <array>
#include <type_traits>

#include <tessera/graph/sequence.hpp>
#include <tessera/kernels/family.hpp>
#include <tessera/kernels/reference/analog_conv2d.hpp>
#include <tessera/planning/tile_geometry.hpp>

namespace tessera::runtime_detail {

/// A whole layer on its buffers: `in`/`out` in the node's input/output order, then its scratch.
using whole_layer_fn = void (*)(void* const* in, void* const* out, void* scratch);
/// A whole layer over the first `length` positions of its sequence tensors (graph/sequence.hpp).
using layer_at_length_fn = void (*)(int length, void* const* in, void* const* out, void* scratch);
/// One L1 tile of a layer (nodes that tile through L1).
using tile_fn = void (*)(const tile_args&);
/// One tile with an analog engine's numerics (nodes an analog engine can run: convolutions).
using analog_tile_fn = void (*)(const tile_args&, const kernels::reference::analog_numerics&);

struct node_calls {
  whole_layer_fn whole = nullptr;
  tile_fn tile = nullptr;            ///< nullptr: the node never tiles
  const void* filters = nullptr;     ///< the constant filters a DMA stages (conv, gemm), else nullptr
};

template <class Node, auto const& Tensors, kernels::kernel_family Family>
void run_whole_layer(void* const* in, void* const* out, void* scratch) {
  Node::template run<Tensors, Family>(in, out, scratch);
}

template <class Node, auto const& Tensors, kernels::kernel_family Family>
void run_layer_at_length(int length, void* const* in, void* const* out, void* scratch) {
  Node::template run_at<Tensors, Family>(length, in, out, scratch);
}

template <class Node, auto const& Tensors, kernels::kernel_family Family>
void run_lean_layer(void* const* in, void* const* out, void* scratch) {
  Node::template run_lean<Tensors, Family>(in, out, scratch);
}

template <class Node, auto const& Tensors, kernels::kernel_family Family>
void run_one_tile(const tile_args& args) {
  Node::template run_tile<Tensors, Family>(args);
}

/// `Net::per_node<whole_layer_fn>(whole_layer_of<Net::tensors, Family>{})`: the flat
/// executor's table (whole layers only, so no tile function is instantiated).
/// A node over a run-time sequence length has no whole-layer call (nullptr): it runs through
/// `at_length_of`.
template <auto const& Tensors, kernels::kernel_family Family>
struct whole_layer_of {
  template <class Node>
  constexpr whole_layer_fn operator()(std::type_identity<Node>) const {
    if constexpr (detail::touches_sequence<Tensors, Node>()) return nullptr;
    else return &run_whole_layer<Node, Tensors, Family>;
  }
};

/// `Net::per_node<layer_at_length_fn>(at_length_of<Net::tensors, Family>{})`: the call of each
/// node that touches a sequence tensor (nullptr for the others), for the sequence executor.
template <auto const& Tensors, kernels::kernel_family Family>
struct at_length_of {
  template <class Node>
  constexpr layer_at_length_fn operator()(std::type_identity<Node>) const {
    if constexpr (detail::touches_sequence<Tensors, Node>()) return &run_layer_at_length<Node, Tensors, Family>;
    else return nullptr;
  }
};

/// Each node's call over a run-time length (nullptr for the nodes that do not touch a sequence
/// tensor), for the executors of networks with state; empty for a network without any, so that
/// other firmware carries no such table.
template <class Net, kernels::kernel_family Family>
inline constexpr auto calls_at_length_of = [] {
  if constexpr (Net::has_sequence)
    return Net::template per_node<layer_at_length_fn>(at_length_of<Net::tensors, Family>{});
  else
    return std::array<layer_at_length_fn, 0>{};
}();

/// `Net::per_node<whole_layer_fn>(lean_layer_of<Net::tensors, Family>{})`: each node's
/// least-scratch variant where it has one that differs (nullptr otherwise), for the nodes a
/// plan within a RAM budget runs lean (planning/ram_budget.hpp).
template <auto const& Tensors, kernels::kernel_family Family>
struct lean_layer_of {
  template <class Node>
  constexpr whole_layer_fn operator()(std::type_identity<Node>) const {
    if constexpr (requires { Node::template lean_variant<Tensors, Family>; }) {
      if constexpr (Node::template lean_variant<Tensors, Family> != Node::template variant<Tensors, Family>)
        return &run_lean_layer<Node, Tensors, Family>;
    }
    return nullptr;
  }
};

/// `Net::per_node<node_calls>(calls_of<Net::tensors, Family>{})`: the tiled executor's table.
template <auto const& Tensors, kernels::kernel_family Family>
struct calls_of {
  template <class Node>
  constexpr node_calls operator()(std::type_identity<Node> node) const {
    node_calls calls{whole_layer_of<Tensors, Family>{}(node)};
    if constexpr (requires { Node::template tile_geometry_of<Tensors>(); })
      calls.tile = &run_one_tile<Node, Tensors, Family>;
    if constexpr (requires { Node::filter_data(); }) calls.filters = Node::filter_data();
    return calls;
  }
};

/// `Net::per_node<analog_tile_fn>(analog_tiles_of<Net::tensors>{})`: the host model of an
/// analog engine computes with these (only targets with such an engine build the table).
template <auto const& Tensors>
struct analog_tiles_of {
  template <class Node>
  constexpr analog_tile_fn operator()(std::type_identity<Node>) const {
    if constexpr (requires { &Node::template run_tile_analog<Tensors>; })
      return &Node::template run_tile_analog<Tensors>;
    else
      return nullptr;
  }
};

}  // namespace tessera::runtime_detail
