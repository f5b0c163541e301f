// Reference table lookup: an elementwise function of an 8-bit tensor, given as its value at
// each of the 256 possible inputs. onnx2hpp computes the table offline from the float
// definition of a quantized Sigmoid (or Tanh, LeakyRelu, ...), so the device evaluates any
// such function exactly as the table says, with no arithmetic at all.
//
// Semantics: ../../../../docs/semantics.md ("LookupTable").
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>

namespace tessera::kernels::reference {

/// Entries of a table over every value of an 8-bit input.
inline constexpr std::size_t lookup_table_entries = 256;

/// Scratch needed by `lookup_table`: none.
constexpr std::size_t lookup_table_scratch_bytes(std::int64_t /*count*/) { return 0; }

/// The entry that serves input value `x`: x - min(TIn), so x + 128 for int8 and x for uint8
/// (entry 0 is the smallest input value).
template <class TIn>
constexpr std::size_t lookup_table_index(TIn x) {
  return static_cast<std::size_t>(static_cast<int>(x) - static_cast<int>(std::numeric_limits<TIn>::min()));
}

/// out[i] = table[lookup_table_index(in[i])] for i < count.
///
/// - `in`:    `count` int8 or uint8 values, any layout (the op is elementwise).
/// - `table`: 256 entries; entry k is the output for input value min(TIn) + k.
/// - `out`:   `count` values of the table's type. May alias `in` when both have the same type.
template <class TIn, class TOut>
constexpr void lookup_table(std::int64_t count, const TIn* in, const TOut* table, TOut* out) {
  static_assert(sizeof(TIn) == 1, "lookup_table: the input must be an 8-bit integer (int8 or uint8)");
  for (std::int64_t i = 0; i < count; ++i) out[i] = table[lookup_table_index(in[i])];
}

}  // namespace tessera::kernels::reference
