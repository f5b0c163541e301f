// DMA descriptors of tiles: a box of a channels-last map in L2 (or flash) against a dense L1
// buffer. One place for the stride arithmetic of loads and stores.
#pragma once

#include <cstddef>

#include <tessera/dma/transfer.hpp>

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
  constexpr std::ptrdiff_t offset() const {
    return ((static_cast<std::ptrdiff_t>(n) * height + row) * width + col) * depth * elem +
           static_cast<std::ptrdiff_t>(channel) * elem;
  }
};

/// The transfer that copies `box` between `map` (outer level) and a dense [rows][cols][channels]
/// buffer `dense` (L1). Merges dimensions where the box is contiguous: full-depth boxes are 2D,
/// full-width full-depth boxes 1D; a channel slice is 3D.
constexpr dma::transfer box_transfer(const map_box& box, const std::byte* map, std::byte* dense, bool load,
                                     int outer_level) {
  dma::transfer t{};
  t.outer_level = outer_level;
  t.inbound = load;
  if (box.rows <= 0 || box.cols <= 0 || box.channels <= 0) return t;  // row_bytes 0: nothing moves
  const std::ptrdiff_t map_row = static_cast<std::ptrdiff_t>(box.width) * box.depth * box.elem;
  const std::ptrdiff_t map_col = static_cast<std::ptrdiff_t>(box.depth) * box.elem;
  const std::ptrdiff_t dense_col = static_cast<std::ptrdiff_t>(box.channels) * box.elem;
  const std::ptrdiff_t dense_row = dense_col * box.cols;
  std::ptrdiff_t map_row_stride = 0, map_plane_stride = 0, dense_row_stride = 0, dense_plane_stride = 0;
  if (box.channels == box.depth && box.cols == box.width) {
    t.row_bytes = static_cast<std::size_t>(dense_row) * static_cast<std::size_t>(box.rows);
  } else if (box.channels == box.depth) {
    t.row_bytes = static_cast<std::size_t>(dense_row);
    t.rows = static_cast<std::size_t>(box.rows);
    map_row_stride = map_row;
    dense_row_stride = dense_row;
  } else {
    t.row_bytes = static_cast<std::size_t>(dense_col);
    t.rows = static_cast<std::size_t>(box.cols);
    t.planes = static_cast<std::size_t>(box.rows);
    map_row_stride = map_col;
    dense_row_stride = dense_col;
    map_plane_stride = map_row;
    dense_plane_stride = dense_row;
  }
  // The map side is const for loads; for stores it is the (mutable) destination.
  std::byte* map_at = const_cast<std::byte*>(map) + box.offset();
  struct side {
    std::byte* at;
    std::ptrdiff_t row_stride, plane_stride;
  };
  const side map_side{map_at, map_row_stride, map_plane_stride};
  const side dense_side{dense, dense_row_stride, dense_plane_stride};
  const side& from = load ? map_side : dense_side;
  const side& to = load ? dense_side : map_side;
  t.src = from.at;
  t.src_row_stride = from.row_stride;
  t.src_plane_stride = from.plane_stride;
  t.dst = to.at;
  t.dst_row_stride = to.row_stride;
  t.dst_plane_stride = to.plane_stride;
  return t;
}

/// A 1D transfer of `bytes` contiguous bytes.
constexpr dma::transfer linear_transfer(const std::byte* src, std::byte* dst, std::size_t bytes, bool load,
                                        int outer_level) {
  dma::transfer t{};
  t.src = src;
  t.dst = dst;
  t.row_bytes = bytes;
  t.outer_level = outer_level;
  t.inbound = load;
  return t;
}

}  // namespace tessera
