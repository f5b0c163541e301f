// Random strided DMA transfers for the DMA policy tests, and the copy they must perform,
// computed with plain index arithmetic (no pointers, no for_each_row).
#pragma once

#include <cstddef>
#include <random>
#include <vector>

#include <tessera/dma/transfer.hpp>

namespace tessera::testing {

/// A random strided copy between two buffers with margins around each footprint, so that bytes
/// the copy must not touch exist and can be checked. Rows never overlap rows of the same side;
/// strides are negative one time in four (the copy then walks that side backwards).
struct copy_case {
  std::vector<std::byte> src_buf, dst_buf;
  std::ptrdiff_t src_base = 0, dst_base = 0;  // offset of row 0 of plane 0 in each buffer
  dma::transfer t;

  dma::transfer bound() const {  // the transfer with pointers into this case's (possibly moved) buffers
    dma::transfer b = t;
    b.src = src_buf.data() + src_base;
    b.dst = const_cast<std::byte*>(dst_buf.data()) + dst_base;
    return b;
  }
};

struct random_copy_options {
  bool dense_sometimes = false;   ///< one side in four without gaps (the one-memcpy-per-plane path)
  bool avoid_poison = false;      ///< no 0xA5 byte in the data, so "not poison" is checkable
  bool random_direction = false;  ///< random outer level (1 or 2) and direction
};

inline copy_case random_case(std::mt19937& rng, int dims, random_copy_options options = {}) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  copy_case c;
  c.t.row_bytes = static_cast<std::size_t>(pick(1, 40));
  c.t.rows = dims >= 2 ? static_cast<std::size_t>(pick(1, 6)) : 1;
  c.t.planes = dims >= 3 ? static_cast<std::size_t>(pick(1, 4)) : 1;
  if (options.random_direction) {
    c.t.outer_level = pick(1, 2);
    c.t.inbound = pick(0, 1) == 1;
  }
  auto side = [&](std::ptrdiff_t& row_stride, std::ptrdiff_t& plane_stride, std::vector<std::byte>& buf,
                  std::ptrdiff_t& base) {
    const auto rb = static_cast<std::ptrdiff_t>(c.t.row_bytes);
    const auto rows = static_cast<std::ptrdiff_t>(c.t.rows), planes = static_cast<std::ptrdiff_t>(c.t.planes);
    const bool dense = options.dense_sometimes && pick(0, 3) == 0;
    row_stride = rb + (dense ? 0 : pick(0, 8));
    plane_stride = (rows - 1) * row_stride + rb + (dense ? 0 : pick(0, 16));
    if (!dense && pick(0, 3) == 0) row_stride = -row_stride;
    if (!dense && pick(0, 3) == 0) plane_stride = -plane_stride;
    auto lowest = [](std::ptrdiff_t n, std::ptrdiff_t s) { return s < 0 ? n * s : 0; };
    auto highest = [](std::ptrdiff_t n, std::ptrdiff_t s) { return s > 0 ? n * s : 0; };
    const std::ptrdiff_t lo = lowest(planes - 1, plane_stride) + lowest(rows - 1, row_stride);
    const std::ptrdiff_t hi = highest(planes - 1, plane_stride) + highest(rows - 1, row_stride) + rb;
    constexpr std::ptrdiff_t margin = 8;
    buf.resize(static_cast<std::size_t>(hi - lo + 2 * margin));
    for (auto& b : buf) b = static_cast<std::byte>(pick(0, options.avoid_poison ? 0xA4 : 0xFF));
    base = margin - lo;
  };
  side(c.t.src_row_stride, c.t.src_plane_stride, c.src_buf, c.src_base);
  side(c.t.dst_row_stride, c.t.dst_plane_stride, c.dst_buf, c.dst_base);
  return c;
}

/// The destination buffer after the copy, and (optionally) which of its bytes the copy writes.
inline std::vector<std::byte> naive_copy(const copy_case& c, std::vector<bool>* written = nullptr) {
  std::vector<std::byte> out = c.dst_buf;
  if (written) written->assign(out.size(), false);
  for (std::size_t p = 0; p < c.t.planes; ++p)
    for (std::size_t r = 0; r < c.t.rows; ++r)
      for (std::size_t i = 0; i < c.t.row_bytes; ++i) {
        const auto pp = static_cast<std::ptrdiff_t>(p), rr = static_cast<std::ptrdiff_t>(r);
        const auto ii = static_cast<std::ptrdiff_t>(i);
        const std::ptrdiff_t s = c.src_base + pp * c.t.src_plane_stride + rr * c.t.src_row_stride + ii;
        const auto d = static_cast<std::size_t>(c.dst_base + pp * c.t.dst_plane_stride + rr * c.t.dst_row_stride + ii);
        out[d] = c.src_buf[static_cast<std::size_t>(s)];
        if (written) (*written)[d] = true;
      }
  return out;
}

}  // namespace tessera::testing
