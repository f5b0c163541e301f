// Runtime tests of the transfer description, copy_now and the synchronous memcpy policy: strided
// 1D/2D/3D copies equal a naive copy written with plain index arithmetic, and the policy's
// asynchronous interface compiles away.
#include <cstddef>
#include <cstdint>
#include <random>
#include <type_traits>
#include <vector>

#include <catch2/catch.hpp>

#include <tessera/dma/memcpy_policy.hpp>
#include <tessera/dma/transfer.hpp>
#include <tessera/target/target.hpp>

namespace {

using tessera::dma::transfer;

/// A random strided copy between two buffers with margins around each footprint, so that bytes
/// the copy must not touch exist and can be checked. Rows never overlap rows of the same side;
/// strides are negative one time in four (the copy then walks that side backwards).
struct copy_case {
  std::vector<std::byte> src_buf, dst_buf;
  std::ptrdiff_t src_base = 0, dst_base = 0;  // offset of row 0 of plane 0 in each buffer
  transfer t;

  transfer bound() {  // the transfer with pointers into this case's (possibly moved) buffers
    transfer b = t;
    b.src = src_buf.data() + src_base;
    b.dst = dst_buf.data() + dst_base;
    return b;
  }
};

copy_case random_case(std::mt19937& rng, int dims) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  copy_case c;
  c.t.row_bytes = static_cast<std::size_t>(pick(1, 40));
  c.t.rows = dims >= 2 ? static_cast<std::size_t>(pick(1, 6)) : 1;
  c.t.planes = dims >= 3 ? static_cast<std::size_t>(pick(1, 4)) : 1;
  auto side = [&](std::ptrdiff_t& row_stride, std::ptrdiff_t& plane_stride, std::vector<std::byte>& buf,
                  std::ptrdiff_t& base) {
    const auto rb = static_cast<std::ptrdiff_t>(c.t.row_bytes);
    const auto rows = static_cast<std::ptrdiff_t>(c.t.rows), planes = static_cast<std::ptrdiff_t>(c.t.planes);
    const bool dense = pick(0, 3) == 0;  // exercises the one-memcpy-per-plane path
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
    for (auto& b : buf) b = static_cast<std::byte>(pick(0, 255));
    base = margin - lo;
  };
  side(c.t.src_row_stride, c.t.src_plane_stride, c.src_buf, c.src_base);
  side(c.t.dst_row_stride, c.t.dst_plane_stride, c.dst_buf, c.dst_base);
  return c;
}

/// The destination buffer after the copy, computed with indices (no pointers, no for_each_row).
std::vector<std::byte> naive_copy(const copy_case& c) {
  std::vector<std::byte> out = c.dst_buf;
  for (std::size_t p = 0; p < c.t.planes; ++p)
    for (std::size_t r = 0; r < c.t.rows; ++r)
      for (std::size_t i = 0; i < c.t.row_bytes; ++i) {
        const auto pp = static_cast<std::ptrdiff_t>(p), rr = static_cast<std::ptrdiff_t>(r);
        const auto ii = static_cast<std::ptrdiff_t>(i);
        const std::ptrdiff_t s = c.src_base + pp * c.t.src_plane_stride + rr * c.t.src_row_stride + ii;
        const std::ptrdiff_t d = c.dst_base + pp * c.t.dst_plane_stride + rr * c.t.dst_row_stride + ii;
        out[static_cast<std::size_t>(d)] = c.src_buf[static_cast<std::size_t>(s)];
      }
  return out;
}

static_assert(transfer{}.bytes() == 0);
static_assert(transfer{.row_bytes = 128, .rows = 8, .planes = 3}.bytes() == 3072);
static_assert(transfer{}.rows == 1 && transfer{}.planes == 1 && transfer{}.inbound && transfer{}.outer_level == 1);

// Target code must not pay for the asynchronous interface: no state, no heap.
static_assert(std::is_empty_v<tessera::dma::memcpy_policy>);
static_assert(std::is_trivially_copyable_v<tessera::dma::memcpy_policy>);
static_assert(std::is_same_v<tessera::target<tessera::targets::gap8>::dma_policy, tessera::dma::memcpy_policy>);

}  // namespace

TEST_CASE("copy_now and memcpy_policy equal a naive copy (random 1D/2D/3D shapes and strides)", "[dma][memcpy]") {
  std::mt19937 rng(20240611);
  for (int dims = 1; dims <= 3; ++dims) {
    for (int n = 0; n < 300; ++n) {
      copy_case c = random_case(rng, dims);
      const std::vector<std::byte> expected = naive_copy(c);
      INFO("dims " << dims << " case " << n << ": row_bytes " << c.t.row_bytes << " rows " << c.t.rows << " planes "
                   << c.t.planes << " strides src " << c.t.src_row_stride << "/" << c.t.src_plane_stride << " dst "
                   << c.t.dst_row_stride << "/" << c.t.dst_plane_stride);

      copy_case by_copy_now = c;
      tessera::dma::copy_now(by_copy_now.bound());
      REQUIRE(by_copy_now.dst_buf == expected);  // also: bytes outside the footprint untouched

      copy_case by_policy = c;
      tessera::dma::memcpy_policy dma{tessera::targets::gap8};
      const tessera::dma::handle h = dma.start(by_policy.bound());
      REQUIRE(by_policy.dst_buf == expected);  // synchronous: complete before wait()
      dma.wait(h);
      REQUIRE(by_policy.dst_buf == expected);
    }
  }
}

TEST_CASE("memcpy_policy: a 2D tile of a channels-last tensor", "[dma][memcpy]") {
  // The 2x3 pixel tile at row 1, column 2 of a 4x8x2 (HxWxC) u8 tensor: rows of 3 * 2 = 6
  // contiguous bytes, 8 * 2 = 16 bytes apart in the tensor, packed densely in the tile buffer.
  std::vector<std::uint8_t> tensor(4 * 8 * 2);
  for (std::size_t i = 0; i < tensor.size(); ++i) tensor[i] = static_cast<std::uint8_t>(i);
  std::vector<std::uint8_t> tile(12, 0);
  tessera::dma::memcpy_policy dma;
  dma.wait(dma.start({.dst = reinterpret_cast<std::byte*>(tile.data()),
                      .src = reinterpret_cast<const std::byte*>(tensor.data()) + (1 * 8 + 2) * 2,
                      .row_bytes = 6,
                      .rows = 2,
                      .src_row_stride = 16,
                      .dst_row_stride = 6}));
  CHECK(tile == std::vector<std::uint8_t>{20, 21, 22, 23, 24, 25, 36, 37, 38, 39, 40, 41});
}

TEST_CASE("memcpy_policy: a negative row stride flips rows", "[dma][memcpy]") {
  const std::vector<std::uint8_t> src{1, 2, 3, 4, 5, 6};  // three rows of two bytes
  std::vector<std::uint8_t> dst(6, 0);
  tessera::dma::memcpy_policy dma;
  dma.start({.dst = reinterpret_cast<std::byte*>(dst.data()),
             .src = reinterpret_cast<const std::byte*>(src.data()) + 4,  // last row first
             .row_bytes = 2,
             .rows = 3,
             .src_row_stride = -2,
             .dst_row_stride = 2});
  CHECK(dst == std::vector<std::uint8_t>{5, 6, 3, 4, 1, 2});
}

TEST_CASE("memcpy_policy: empty transfers and the no-op interface", "[dma][memcpy]") {
  tessera::dma::memcpy_policy dma;
  CHECK(dma.start(transfer{}) == 0);  // null pointers, zero bytes: nothing happens
  CHECK(dma.start(transfer{.row_bytes = 4, .rows = 0}) == 0);
  std::vector<std::uint8_t> buf{7, 7, 7};
  dma.declare_read(buf.data(), buf.size());
  dma.declare_write(buf.data(), buf.size());
  dma.compute(1000);
  dma.wait(0);
  dma.wait(12345);  // any handle: there is never anything to wait for
  dma.finish();
  CHECK(buf == std::vector<std::uint8_t>{7, 7, 7});
}
