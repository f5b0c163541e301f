// Reference ReduceSum and ReduceMean (Deeploy's IntegerMean) over any set of axes.
//
//     sum  = the exact sum of the reduced values (int64 here; op::reduce checks that it fits
//            the output type)
//     mean = integer_mean(sum, L), L the number of values reduced into one output
//            (<tessera/core/integer_division.hpp>: a rounding shift for L = 2^s, else a
//            division rounding half away from zero)
//
// keepdims does not change the data: the output is row-major over the kept axes either way.
// Semantics: ../../../../docs/semantics.md ("ReduceSum", "ReduceMean / IntegerMean").
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include <tessera/core/integer_division.hpp>
#include <tessera/core/shape.hpp>

namespace tessera::kernels::reference {

enum class reduce_op : std::uint8_t { sum, mean };

struct reduce_dims {
  int rank = 0;
  std::array<int, max_rank> in{};         ///< the input's extents
  std::array<bool, max_rank> reduced{};  ///< the axes summed over

  /// Values per output element (L).
  constexpr std::int64_t length() const {
    std::int64_t l = 1;
    for (int ax = 0; ax < rank; ++ax)
      if (reduced[static_cast<std::size_t>(ax)]) l *= in[static_cast<std::size_t>(ax)];
    return l;
  }
  constexpr std::int64_t elements() const {
    std::int64_t n = 1;
    for (int ax = 0; ax < rank; ++ax) n *= in[static_cast<std::size_t>(ax)];
    return n;
  }
};

/// Scratch needed by `reduce`: none.
constexpr std::size_t reduce_scratch_bytes(const reduce_dims&) { return 0; }

/// For each output element (row-major over the kept axes), the sum or the mean of the input
/// values that share its kept coordinates.
///
/// - `in`:  row-major over `d.in`, integers of any type (true values: an unsigned input needs
///          no offset).
/// - `out`: elements() / length() values; TOut holds the result (op::reduce checks it).
template <class TIn, class TOut>
constexpr void reduce(reduce_op op, const reduce_dims& d, const TIn* in, TOut* out) {
  std::array<std::int64_t, max_rank> stride{};
  std::int64_t s = 1;
  for (int ax = d.rank - 1; ax >= 0; --ax) {
    stride[static_cast<std::size_t>(ax)] = s;
    s *= d.in[static_cast<std::size_t>(ax)];
  }
  const std::int64_t length = d.length();
  const std::int64_t outputs = d.elements() / length;
  for (std::int64_t o = 0; o < outputs; ++o) {
    std::int64_t base = 0;  // offset of the output's kept coordinates, reduced ones at 0
    for (std::int64_t rest = o, ax = d.rank - 1; ax >= 0; --ax) {
      const auto a = static_cast<std::size_t>(ax);
      if (d.reduced[a]) continue;
      base += rest % d.in[a] * stride[a];
      rest /= d.in[a];
    }
    std::int64_t acc = 0;
    for (std::int64_t r = 0; r < length; ++r) {
      std::int64_t offset = base;
      for (std::int64_t rest = r, ax = d.rank - 1; ax >= 0; --ax) {
        const auto a = static_cast<std::size_t>(ax);
        if (!d.reduced[a]) continue;
        offset += rest % d.in[a] * stride[a];
        rest /= d.in[a];
      }
      acc += static_cast<std::int64_t>(in[offset]);
    }
    out[o] = static_cast<TOut>(op == reduce_op::mean ? integer_mean(acc, length) : acc);
  }
}

}  // namespace tessera::kernels::reference
