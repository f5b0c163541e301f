// One DMA transfer: an up-to-3D strided copy between a memory level and an inner one.
//
// Every DMA policy (synchronous memcpy on hardware without DMA, the simulator for host tests,
// vendor DMA engines later) takes this one description, so the executor's pipeline is written
// once. The shape is the one GAP8's cluster DMA and Deeploy's tiler use: a tile of a
// channels-last tensor is a few planes of rows of contiguous bytes.
//
// Example: the 8x8x16 (HxWxC, u8) tile at row 4, column 8 of a 32x32x16 L2 tensor, loaded into
// a dense L1 buffer, is one 2D transfer:
//
//   row_bytes = 8 * 16 = 128 bytes (8 pixels of 16 channels are contiguous in L2)
//   rows = 8,  src_row_stride = 32 * 16 = 512 bytes,  dst_row_stride = 128 bytes
//   src = l2 + (4 * 32 + 8) * 16,  dst = l1
//
// Strides are signed so that a copy can walk rows backwards; rows of one side are expected not
// to overlap each other (the DMA engines we target do not define that case either).
#pragma once

#include <cstddef>

namespace tessera::dma {

/// An up-to-3D strided copy. Innermost: `row_bytes` contiguous bytes; then `rows` rows
/// (strides src_row_stride/dst_row_stride bytes); then `planes` planes (strides *_plane_stride).
/// A 1D copy has rows = planes = 1.
struct transfer {
  std::byte* dst = nullptr;
  const std::byte* src = nullptr;
  std::size_t row_bytes = 0;
  std::size_t rows = 1;
  std::size_t planes = 1;
  std::ptrdiff_t src_row_stride = 0, dst_row_stride = 0;
  std::ptrdiff_t src_plane_stride = 0, dst_plane_stride = 0;
  int outer_level = 1;  ///< memory level index of the outer side (1 = L2, 2 = L3); the level whose cost model applies
  bool inbound = true;  ///< true: outer -> inner (load), false: inner -> outer (store)
  /// The compute engine whose memory the inner side is: 0 the CPU's, k accelerator k's, whose
  /// DMA path moves it (target_desc::transfer_path).
  int engine = 0;
  constexpr std::size_t bytes() const { return row_bytes * rows * planes; }
};

using handle = int;  ///< returned by start(); pass to wait()

/// Calls `f(dst_row, src_row)` for every row of `t`, planes outermost, in increasing (plane, row)
/// order. The one place the stride arithmetic lives: the copies and the simulator's hazard
/// detector both walk a transfer through it, so they cannot disagree on its footprint.
template <class F>
constexpr void for_each_row(const transfer& t, F&& f) {
  if (t.row_bytes == 0) return;
  for (std::size_t p = 0; p < t.planes; ++p) {
    const auto pp = static_cast<std::ptrdiff_t>(p);
    for (std::size_t r = 0; r < t.rows; ++r) {
      const auto rr = static_cast<std::ptrdiff_t>(r);
      f(t.dst + pp * t.dst_plane_stride + rr * t.dst_row_stride,
        t.src + pp * t.src_plane_stride + rr * t.src_row_stride);
    }
  }
}

/// Performs the copy element by element (the synchronous semantics every policy must match):
/// after it returns, every destination row holds the bytes its source row held.
inline void copy_now(const transfer& t) {
  for_each_row(t, [&](std::byte* d, const std::byte* s) {
    for (std::size_t i = 0; i < t.row_bytes; ++i) d[i] = s[i];
  });
}

}  // namespace tessera::dma
