// Boxes of channels-last maps and the up-to-3D copies that move them between a map and a
// dense buffer: one place for the stride arithmetic of every tile load and store.
//
// Example: rows [4, 12) x columns [8, 16) x all 16 channels of a 32x32x16 u8 map is a
// full-depth box: 2D, row_bytes = 8 * 16 = 128, rows = 8, map row stride 32 * 16 = 512,
// dense row stride 128, map offset (4 * 32 + 8) * 16 = 2176.
#pragma once

#include <cstddef>

namespace tessera {

/// A box [row, row + rows) x [col, col + cols) x [channel, channel + channels) of image `n` of
/// a map of extents {height, width, depth}, with `elem` bytes per element.
struct map_box {
  int height = 1, width = 1, depth = 1, elem = 1;
  int n = 0, row = 0, rows = 0, col = 0, cols = 0, channel = 0, channels = 0;

  constexpr std::size_t bytes() const {
    return static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols) * static_cast<std::size_t>(channels) *
           static_cast<std::size_t>(elem);
  }
  /// Byte offset of the box's first element in the map.
  constexpr std::ptrdiff_t offset() const {
    return ((static_cast<std::ptrdiff_t>(n) * height + row) * width + col) * depth * elem +
           static_cast<std::ptrdiff_t>(channel) * elem;
  }
  /// One past the byte offset of the box's last element in the map.
  constexpr std::ptrdiff_t end_offset() const {
    if (bytes() == 0) return offset();
    const map_box last{height, width, depth, elem, n, row + rows - 1, 1, col + cols - 1, 1, channel + channels - 1, 1};
    return last.offset() + elem;
  }
  /// Whether two boxes of the same map share an element.
  constexpr bool meets(const map_box& o) const {
    const auto apart = [](int a0, int a1, int b0, int b1) { return a1 <= b0 || b1 <= a0; };
    if (bytes() == 0 || o.bytes() == 0 || n != o.n) return false;
    return !apart(row, row + rows, o.row, o.row + o.rows) && !apart(col, col + cols, o.col, o.col + o.cols) &&
           !apart(channel, channel + channels, o.channel, o.channel + o.channels);
  }
};

/// The shape of the copy between a box of a map and a dense [rows][cols][channels] buffer.
/// Dimensions merge where the box is contiguous: full-depth boxes are 2D, full-width
/// full-depth boxes 1D; a channel slice is 3D (planes = rows, rows = columns).
struct box_copy {
  std::size_t row_bytes = 0, rows = 1, planes = 1;
  std::ptrdiff_t map_row_stride = 0, map_plane_stride = 0;
  std::ptrdiff_t dense_row_stride = 0, dense_plane_stride = 0;
};

constexpr box_copy copy_of(const map_box& box) {
  box_copy c{};
  if (box.rows <= 0 || box.cols <= 0 || box.channels <= 0) return c;  // row_bytes 0: nothing moves
  const std::ptrdiff_t map_row = static_cast<std::ptrdiff_t>(box.width) * box.depth * box.elem;
  const std::ptrdiff_t map_col = static_cast<std::ptrdiff_t>(box.depth) * box.elem;
  const std::ptrdiff_t dense_col = static_cast<std::ptrdiff_t>(box.channels) * box.elem;
  const std::ptrdiff_t dense_row = dense_col * box.cols;
  if (box.channels == box.depth && box.cols == box.width) {
    c.row_bytes = static_cast<std::size_t>(dense_row) * static_cast<std::size_t>(box.rows);
  } else if (box.channels == box.depth) {
    c.row_bytes = static_cast<std::size_t>(dense_row);
    c.rows = static_cast<std::size_t>(box.rows);
    c.map_row_stride = map_row;
    c.dense_row_stride = dense_row;
  } else {
    c.row_bytes = static_cast<std::size_t>(dense_col);
    c.rows = static_cast<std::size_t>(box.cols);
    c.planes = static_cast<std::size_t>(box.rows);
    c.map_row_stride = map_col;
    c.dense_row_stride = dense_col;
    c.map_plane_stride = map_row;
    c.dense_plane_stride = dense_row;
  }
  return c;
}

}  // namespace tessera
