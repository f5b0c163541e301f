// Compile-time tensor shapes.
//
// A `shape` is a plain structural value (usable as a template argument) holding the
// *physical* dimensions of a device tensor, outermost first. Activations of convolutions
// and pools are channels-last: a 2D feature map is {N, H, W, C}, a 1D one {N, W, C}.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>

namespace tessera {

inline constexpr int max_rank = 5;

struct shape {
  int rank = 0;
  std::array<int, max_rank> dims{};

  constexpr shape() = default;
  constexpr shape(std::initializer_list<int> list) {
    for (int d : list) dims[rank++] = d;
  }

  constexpr int operator[](int axis) const { return dims[axis]; }
  /// Dimension counted from the innermost one: `from_back(0)` is the last dimension.
  constexpr int from_back(int i) const { return i < rank ? dims[rank - 1 - i] : 1; }

  constexpr std::int64_t elements() const {
    std::int64_t n = 1;
    for (int i = 0; i < rank; ++i) n *= dims[i];
    return n;
  }
  /// Product of the dimensions before `axis` (the "outer" count of a row-major tensor).
  constexpr std::int64_t outer(int axis) const {
    std::int64_t n = 1;
    for (int i = 0; i < axis; ++i) n *= dims[i];
    return n;
  }
  /// Product of the dimensions after `axis` (the stride of `axis` in a row-major tensor).
  constexpr std::int64_t inner(int axis) const {
    std::int64_t n = 1;
    for (int i = axis + 1; i < rank; ++i) n *= dims[i];
    return n;
  }

  friend constexpr bool operator==(const shape&, const shape&) = default;
};

}  // namespace tessera
