// The row walk of Add/Sub, written once: the layouts of `binary_layout_supported`
// (common/micro_tile.hpp) are rows of the innermost axis, A contiguous and B either contiguous
// too or one row broadcast over all the others (a per-channel operand). Families supply what
// one row costs them: `row(a_row, b_row, out_row, channels)`.
#pragma once

#include <cstddef>
#include <cstdint>

#include <tessera/kernels/reference/binary.hpp>

namespace tessera::kernels::algorithm {

template <class TA, class TB, class TOut, class Row>
void binary_rows(const reference::binary_dims& d, const TA* a, const TB* b, TOut* out, Row&& row) {
  if (d.rank < 1) return;
  const int channels = d.out[static_cast<std::size_t>(d.rank - 1)];
  std::int64_t total = 1;
  bool b_row = false;  // B is one row broadcast over the outer axes
  for (int ax = 0; ax < d.rank; ++ax) {
    const auto i = static_cast<std::size_t>(ax);
    total *= d.out[i];
    if (ax < d.rank - 1 && d.out[i] != 1 && d.b_stride[i] == 0) b_row = true;
  }
  if (total == 0) return;
  const std::int64_t rows = total / channels;
  for (std::int64_t r = 0; r < rows; ++r) {
    row(a + r * channels, b_row ? b : b + r * channels, out + r * channels, channels);
  }
}

}  // namespace tessera::kernels::algorithm
