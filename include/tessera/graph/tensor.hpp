// Tensors of the type graph: one descriptor per tensor, gathered in a table.
//
// The table is a constexpr object that the generated header defines once; node types refer to
// tensors by their index in it, and the network, the planner and the report read shapes and
// types from it as constant expressions.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>

#include <tessera/core/dtype.hpp>
#include <tessera/core/fixed_name.hpp>
#include <tessera/core/shape.hpp>

namespace tessera {

/// Index of a tensor in its network's tensor table.
using tensor_id = int;

struct tensor_desc {
  fixed_name name;
  dtype type = dtype::s8;
  shape dims;  ///< physical (device) shape, channels-last for feature maps
  /// A tensor whose extent along this physical axis is the sequence length, known only at run
  /// time (runtime/sequence_executor.hpp); `dims` holds the largest, the state's capacity. -1:
  /// every extent is fixed.
  std::int8_t sequence_axis = -1;
  /// State that outlives a call (a KV cache): a caller-owned buffer of `dims`, of which the
  /// first `length` entries along `sequence_axis` are valid. The other sequence tensors are
  /// stored compactly at the run's length (`live_dims`).
  bool state = false;

  /// Bytes as the planners count them; check_graph has made sure byte_count() fits.
  constexpr std::size_t bytes() const { return static_cast<std::size_t>(byte_count()); }
  /// Bytes in 64 bits whatever the target's std::size_t, saturated at INT64_MAX (a hostile
  /// shape cannot wrap it): check_graph compares it with what the target can address before
  /// any planner narrows it to std::size_t.
  constexpr std::int64_t byte_count() const {
    constexpr std::int64_t limit = std::numeric_limits<std::int64_t>::max();
    std::int64_t n = static_cast<std::int64_t>(size_of(type));
    for (int i = 0; i < dims.rank; ++i) {
      const std::int64_t d = dims[i] > 0 ? dims[i] : 0;
      if (d != 0 && n > limit / d) return limit;
      n *= d;
    }
    return n;
  }
};

/// The extents of `t` in a run over `length` positions (its `dims` when it has no sequence axis).
constexpr shape live_dims(const tensor_desc& t, int length) {
  shape s = t.dims;
  if (t.sequence_axis >= 0) s.dims[static_cast<std::size_t>(t.sequence_axis)] = length;
  return s;
}

template <std::size_t N>
struct tensor_table {
  std::array<tensor_desc, N> tensors;

  static constexpr std::size_t size() { return N; }
  constexpr const tensor_desc& operator[](tensor_id id) const { return tensors[static_cast<std::size_t>(id)]; }
};
template <class... T>
tensor_table(T...) -> tensor_table<sizeof...(T)>;

}  // namespace tessera
