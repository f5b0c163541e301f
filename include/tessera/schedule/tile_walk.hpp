// The order in which a layer's tiles run and where each one lies: channel blocks outermost
// (a block's filters load once), then images, rows and columns. The step program, its hazard
// checker and the executor all locate tiles through these functions.
#pragma once

#include <cstdint>

#include <tessera/planning/tile_geometry.hpp>
#include <tessera/schedule/box.hpp>

namespace tessera::schedule {

/// Tile `index` of a layer: its output box and channel block. `carried`: the input rows at the
/// top of its window that the tile does not load, because a pointwise -> depthwise block that
/// carries rows (carries_rows) takes their intermediate rows from the tile above (carried_rows:
/// the block's input map and its intermediate map have the same rows, the pointwise kernel
/// being 1x1); set by loading_position only, 0 for every other tile and every other position.
struct tile_position {
  int n = 0, y0 = 0, x0 = 0, c0 = 0, h = 0, w = 0, c = 0, block = 0;
  int carried = 0;
};

struct tile_grid {
  int rows = 1, cols = 1, blocks = 1, batch = 1;
  constexpr std::int64_t per_block() const { return std::int64_t{batch} * rows * cols; }
  constexpr std::int64_t count() const { return per_block() * blocks; }
};

constexpr tile_grid grid_of(const tile_geometry& g, const tile_shape& t) {
  const auto ceil = [](int a, int b) { return (a + b - 1) / b; };
  return {ceil(g.out_h, t.h), ceil(g.out_w, t.w), ceil(g.out_c, t.c), g.batch};
}

namespace tile_walk_detail {
/// Block, image, row block and column block of tile `i`, in integer type I: 32 bits whenever
/// the tile counts fit (the firmware walks its steps with this; on a 32-bit core a 64-bit
/// division is a library call of a hundred cycles or more, four per position).
template <class I>
constexpr void split(const tile_grid& grid, I i, tile_position& p, const tile_shape& t) {
  const I per_image = static_cast<I>(grid.rows) * static_cast<I>(grid.cols);
  const I per_block = per_image * static_cast<I>(grid.batch);
  p.block = static_cast<int>(i / per_block);
  I r = i % per_block;
  p.n = static_cast<int>(r / per_image);
  r %= per_image;
  p.y0 = static_cast<int>(r / static_cast<I>(grid.cols)) * t.h;
  p.x0 = static_cast<int>(r % static_cast<I>(grid.cols)) * t.w;
}
}  // namespace tile_walk_detail

constexpr tile_position position(const tile_geometry& g, const tile_shape& t, std::int64_t i) {
  const tile_grid grid = grid_of(g, t);
  tile_position p{};
  if (i >= 0 && i <= INT32_MAX && grid.per_block() <= INT32_MAX)
    tile_walk_detail::split<std::uint32_t>(grid, static_cast<std::uint32_t>(i), p, t);
  else
    tile_walk_detail::split<std::int64_t>(grid, i, p, t);
  p.c0 = p.block * t.c;
  p.h = g.out_h - p.y0 < t.h ? g.out_h - p.y0 : t.h;
  p.w = g.out_w - p.x0 < t.w ? g.out_w - p.x0 : t.w;
  p.c = g.out_c - p.c0 < t.c ? g.out_c - p.c0 : t.c;
  return p;
}

/// position, with the rows the tile carries (tile_position::carried): for where a tile's input is
/// loaded or found (the step program's input transfers, the executor's buffers, the tiles a load
/// waits for), so that they all see the box input_box gives. Every other use of a position (the
/// walk's blocks, outputs, filters: the hot path of every layer) has no need of it.
constexpr tile_position loading_position(const tile_geometry& g, const tile_shape& t, std::int64_t i) {
  tile_position p = position(g, t, i);
  if (g.pointwise_first() && carries_rows(g, p.w)) p.carried = carried_rows(g, p.y0, t.h);
  return p;
}

/// The highest index among the tiles of a layer (geometry `g`, tile `t`) whose results a read
/// of `box` needs, or -1 when it needs none. Tile indices grow with block, image, row and
/// column, so the highest one meets the box's last block, image, row and column. A box of the
/// tensor seen with other extents (a reader behind a reshape) needs every tile.
constexpr std::int64_t last_tile_meeting(const tile_geometry& g, const tile_shape& t, const map_box& box) {
  const tile_grid grid = grid_of(g, t);
  if (box.height != g.out_h || box.width != g.out_w || box.depth != g.out_c || box.elem != g.out_elem_bytes)
    return grid.count() - 1;
  if (box.bytes() == 0) return -1;
  const std::int64_t block = (box.channel + box.channels - 1) / t.c;
  const std::int64_t row = (box.row + box.rows - 1) / t.h, col = (box.col + box.cols - 1) / t.w;
  return block * grid.per_block() + (std::int64_t{box.n} * grid.rows + row) * grid.cols + col;
}

constexpr map_box output_box(const tile_geometry& g, const tile_position& p) {
  return {g.out_h, g.out_w, g.out_c, g.out_elem_bytes, p.n, p.y0, p.h, p.x0, p.w, p.c0, p.c};
}

/// The input box a tile loads (padding excluded; one operand) and, in `args`, its window and the
/// tile's share of the layer's padding (border tiles pad, inner tiles read their halo). The box
/// is the window less the `carried` rows at its top (tile_position, loading_position), which the
/// tile does not load.
constexpr map_box input_box(const tile_geometry& g, const tile_position& p, tile_args* args = nullptr) {
  const int r0 = window::origin(p.y0, g.stride_h, g.pad_top);
  const int r1 = r0 + window::span(p.h, g.stride_h, g.kernel_h, g.dilation_h);
  const int q0 = window::origin(p.x0, g.stride_w, g.pad_left);
  const int q1 = q0 + window::span(p.w, g.stride_w, g.kernel_w, g.dilation_w);
  const int row_begin = r0 > 0 ? r0 : 0, row_end = r1 < g.in_h ? r1 : g.in_h;
  const int col_begin = q0 > 0 ? q0 : 0, col_end = q1 < g.in_w ? q1 : g.in_w;
  const int rows = row_end > row_begin ? row_end - row_begin : 0;
  const int cols = col_end > col_begin ? col_end - col_begin : 0;
  const int channels = g.channel_lockstep ? p.c : g.in_c;
  if (args != nullptr) {
    args->in_rows = rows;
    args->in_cols = cols;
    args->in_channels = channels;
    args->pad_top = row_begin - r0;
    args->pad_left = col_begin - q0;
    args->pad_bottom = r1 > g.in_h ? r1 - g.in_h : 0;
    args->pad_right = q1 > g.in_w ? q1 - g.in_w : 0;
  }
  const int carried = p.carried < rows ? p.carried : rows;
  return {g.in_h, g.in_w, g.in_c, g.in_elem_bytes, p.n, row_begin + carried, rows - carried, col_begin, cols,
          g.channel_lockstep ? p.c0 : 0, channels};
}

/// The box operand `k` of tile `p` reads: its input box, or for a whole operand the bytes of
/// the tile's image (a map of one row per image; `image_stride` > 0: the first bytes of rows that
/// long, a state tensor's images at the capacity read at a run-time length).
constexpr map_box operand_box(const tile_geometry& g, const tile_position& p, int k, std::size_t image_stride = 0) {
  if (k == 0 || g.whole_operand_bytes == 0) return input_box(g, p);
  const int bytes = static_cast<int>(g.whole_operand_bytes);
  const int stride = image_stride > 0 ? static_cast<int>(image_stride) : bytes;
  return {1, 1, stride, 1, p.n, 0, 1, 0, 1, 0, bytes};
}

}  // namespace tessera::schedule
