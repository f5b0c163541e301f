// Compile-time diagnostics. Each is a class template whose arguments carry the facts (layer
// name, error, shapes, bytes) and whose static_assert fires when it is instantiated, so the
// compiler prints one message with those facts instead of a cascade (CTRE/fmt style).
//
// GCC prints the class's arguments in "In instantiation of 'struct ...'", clang in the note "in
// instantiation of template class '...' requested here"; names print as text in both
// (core/fixed_name.hpp). Clang also prints the failed condition with the arguments substituted
// ("due to requirement '...'"), and an enum argument substituted into an expression prints as
// its value - a character, for the uint8_t-based enums: `(tessera::check_error)'\x04'`. So a
// condition that would show an enum is a named member (`layer_is_valid`), which clang prints
// by its name; the enum reads by name in the class's arguments.
#pragma once

#include <cstddef>
#include <cstdint>

#include <tessera/core/fixed_name.hpp>
#include <tessera/core/shape.hpp>
#include <tessera/graph/node.hpp>

namespace tessera {
enum class graph_error : std::uint8_t;
}

namespace tessera::diagnostics {

template <auto...>
inline constexpr bool always_false = false;

/// A layer's tensors do not fit its op: wrong output shape, rank, constant size or type.
/// Read the arguments: layer name, op, error, the shape the op computes, the declared shape.
template <fixed_name Layer, op_kind Op, check_error Error, shape Computed, shape Declared>
struct layer_check_failed {
  static constexpr bool layer_is_valid = always_false<Layer, Error>;
  static_assert(layer_is_valid,
                "tessera: layer check failed; see 'layer_check_failed<layer name, op, error, computed shape, "
                "declared shape>' in this message");
};

/// The graph's structure is broken (see `graph_error`): node index and tensor id.
template <graph_error Error, int Node, int Tensor>
struct graph_check_failed {
  static constexpr bool structure_is_valid = always_false<Error, Node, Tensor>;
  static_assert(structure_is_valid,
                "tessera: invalid graph structure; see 'graph_check_failed<error, node index, tensor id>'");
  static constexpr bool value = false;
};

/// A buffer does not fit a memory level: layer, level, bytes needed and available.
template <fixed_name Layer, fixed_name Level, std::size_t Needed, std::size_t Available>
struct does_not_fit {
  static_assert(Needed <= Available,
                "tessera: the network does not fit the target; see 'does_not_fit<layer, memory level, bytes "
                "needed, bytes available>'");
  static constexpr bool value = Needed <= Available;
};

/// Beside an L1 `does_not_fit`: the L1 the whole network needs at least (its largest smallest
/// tile) and the layer that needs it, which may come after the first failing layer.
template <fixed_name Level, std::size_t NetworkNeeds, fixed_name LargestLayer, std::size_t Available>
struct network_needs_at_least {
  static_assert(NetworkNeeds <= Available,
                "tessera: the whole network needs at least this much of the level; see "
                "'network_needs_at_least<memory level, bytes the network needs, the layer that needs them, bytes "
                "available>'");
  static constexpr bool value = NetworkNeeds <= Available;
};

}  // namespace tessera::diagnostics

namespace tessera::schedule {
enum class hazard : std::uint8_t;
}

namespace tessera::diagnostics {

/// A step program would corrupt data: layer, tile (-1: the whole layer), buffer, hazard kind
/// and the index of the offending step (schedule/hazard_check.hpp explains each kind).
template <fixed_name Layer, long long Tile, fixed_name Buffer, schedule::hazard Kind, int Step>
struct schedule_hazard {
  static constexpr bool schedule_is_safe = always_false<Tile, Kind, Step>;
  static_assert(schedule_is_safe,
                "tessera: the schedule has a hazard; see 'schedule_hazard<layer, tile, buffer, hazard kind, step>'");
};

}  // namespace tessera::diagnostics
