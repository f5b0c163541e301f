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

#include "../support/random_transfers.hpp"

namespace {

using tessera::dma::transfer;

using tessera::testing::copy_case;
using tessera::testing::naive_copy;

copy_case random_case(std::mt19937& rng, int dims) {
  return tessera::testing::random_case(rng, dims, {.dense_sometimes = true});
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
