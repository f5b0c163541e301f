// Runtime tests of the simulated DMA policy: copies equal a naive copy once waited, poison is
// visible before, each hazard fires exactly when it should (and never on a correct
// double-buffered pipeline), traffic counts, and the time model on hand-computed examples.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "../support/random_transfers.hpp"

#include <tessera/dma/dma.hpp>

namespace {

using tessera::dma::handle;
using tessera::dma::hazard_kind;
using tessera::dma::transfer;
using sim = tessera::dma::simulated_policy<>;
namespace targets = tessera::targets;

constexpr std::byte poison{0xA5};

std::byte* bytes(std::vector<std::uint8_t>& v, std::size_t at = 0) { return reinterpret_cast<std::byte*>(v.data() + at); }

/// Contiguous `n`-byte transfer (1D).
transfer linear(std::byte* dst, const std::byte* src, std::size_t n, bool inbound = true, int level = 1) {
  return {.dst = dst, .src = src, .row_bytes = n, .outer_level = level, .inbound = inbound};
}

/// True when the policy saw exactly `n` hazards of kind `k` and none of any other kind.
template <class Policy>
bool only(const Policy& dma, hazard_kind k, std::uint64_t n) {
  for (std::size_t i = 0; i < tessera::dma::hazard_kind_count; ++i) {
    const auto kind = static_cast<hazard_kind>(i);
    if (dma.hazard_count(kind) != (kind == k ? n : 0)) return false;
  }
  return true;
}

bool log_mentions(const sim& dma, const std::string& text) {
  return std::any_of(dma.hazard_log().begin(), dma.hazard_log().end(),
                     [&](const std::string& line) { return line.find(text) != std::string::npos; });
}

// --- Random strided copies (tests/support/random_transfers.hpp) --------------------------------

using tessera::testing::copy_case;
using tessera::testing::naive_copy;

copy_case random_case(std::mt19937& rng, int dims) {
  return tessera::testing::random_case(rng, dims, {.avoid_poison = true, .random_direction = true});
}

// --- A double-buffered tile pipeline: y = 2x + 1 over an 8x64 u8 tensor in column tiles -------

struct pipeline_options {
  bool skip_load_wait = false;   // the test-only switch: "forget" to wait for the load of tile i
  bool skip_store_wait = false;  // forget to wait for store i-2 before reusing its buffer
  std::uint64_t macs_per_tile = 0;
};

constexpr std::size_t rows = 8, width = 64, tile_width = 16, tiles = width / tile_width, tile_bytes = rows * tile_width;

std::vector<std::uint8_t> pipeline_input() {
  std::vector<std::uint8_t> x(rows * width);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<std::uint8_t>(i * 7 + 3);
  return x;
}

std::vector<std::uint8_t> pipeline_expected(const std::vector<std::uint8_t>& x) {
  std::vector<std::uint8_t> y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) y[i] = static_cast<std::uint8_t>(2 * x[i] + 1);
  return y;
}

/// Load tile i+1, compute tile i, store tile i (the previous store still in flight), swapping
/// two input and two output L1 buffers. Column tiles make every load and store a 2D transfer
/// whose rows interleave with the neighbouring tile's rows in L2.
template <class Policy>
std::vector<std::uint8_t> run_pipeline(Policy& dma, std::vector<std::uint8_t> l2_in, pipeline_options opt = {}) {
  std::vector<std::uint8_t> l2_out(rows * width, 0);
  std::array<std::vector<std::uint8_t>, 2> in_buf{std::vector<std::uint8_t>(tile_bytes), std::vector<std::uint8_t>(tile_bytes)};
  std::array<std::vector<std::uint8_t>, 2> out_buf = in_buf;
  // One column tile: `rows` rows of `tile_width` bytes, `width` bytes apart on the L2 side.
  constexpr transfer tile{.row_bytes = tile_width, .rows = rows, .src_row_stride = width, .dst_row_stride = width};
  auto load = [&](std::size_t i) {
    transfer t = tile;
    t.src = bytes(l2_in, i * tile_width);
    t.dst = bytes(in_buf[i % 2]);
    t.dst_row_stride = tile_width;
    return dma.start(t);
  };
  auto store = [&](std::size_t i) {
    transfer t = tile;
    t.src = bytes(out_buf[i % 2]);
    t.src_row_stride = tile_width;
    t.dst = bytes(l2_out, i * tile_width);
    t.inbound = false;
    return dma.start(t);
  };
  std::array<handle, 2> loads{}, stores{};
  loads[0] = load(0);
  for (std::size_t i = 0; i < tiles; ++i) {
    if (i + 1 < tiles) loads[(i + 1) % 2] = load(i + 1);  // its buffer was last read by compute i-1
    if (!opt.skip_load_wait) dma.wait(loads[i % 2]);
    if (i >= 2 && !opt.skip_store_wait) dma.wait(stores[i % 2]);  // store i-2 reads out_buf[i % 2]
    std::vector<std::uint8_t>& x = in_buf[i % 2];
    std::vector<std::uint8_t>& y = out_buf[i % 2];
    dma.declare_read(x.data(), x.size());
    dma.declare_write(y.data(), y.size());
    for (std::size_t k = 0; k < tile_bytes; ++k) y[k] = static_cast<std::uint8_t>(2 * x[k] + 1);
    dma.compute(opt.macs_per_tile);
    stores[i % 2] = store(i);
  }
  dma.wait(stores[tiles % 2]);  // store tiles-2
  dma.wait(stores[(tiles + 1) % 2]);  // store tiles-1
  dma.finish();
  return l2_out;
}

}  // namespace

TEST_CASE("simulated_policy: copies equal a naive copy once waited, poison before", "[dma][simulated]") {
  std::mt19937 rng(20240612);
  for (int dims = 1; dims <= 3; ++dims) {
    for (int n = 0; n < 300; ++n) {
      copy_case c = random_case(rng, dims);
      std::vector<bool> written;
      const std::vector<std::byte> expected = naive_copy(c, &written);
      INFO("dims " << dims << " case " << n);
      sim dma{targets::gap8};
      const handle h = dma.start(c.bound());
      for (std::size_t i = 0; i < c.dst_buf.size(); ++i) {
        // Poison exactly on the footprint; the gaps between rows and planes are untouched.
        REQUIRE(c.dst_buf[i] == (written[i] ? poison : expected[i]));
      }
      dma.wait(h);
      REQUIRE(c.dst_buf == expected);
      dma.finish();
      REQUIRE(dma.hazard_count() == 0);
      const auto& traffic = dma.stats().levels[static_cast<std::size_t>(c.t.outer_level)];
      CHECK((c.t.inbound ? traffic.bytes_in : traffic.bytes_out) == c.t.bytes());
      CHECK((c.t.inbound ? traffic.transfers_in : traffic.transfers_out) == 1);
    }
  }
}

TEST_CASE("simulated_policy: the copy reads the source at wait time, as hardware does", "[dma][simulated]") {
  std::vector<std::uint8_t> l2{1, 2, 3, 4}, l1(4, 0);
  sim dma{targets::gap8};
  const handle h = dma.start(linear(bytes(l1), bytes(l2), 4));
  CHECK(l1 == std::vector<std::uint8_t>(4, 0xA5));
  dma.declare_write(l2.data() + 1, 1);
  l2[1] = 99;  // too early: the engine has not read it yet
  dma.wait(h);
  CHECK(l1 == std::vector<std::uint8_t>{1, 99, 3, 4});
  CHECK(only(dma, hazard_kind::write_while_read, 1));
}

TEST_CASE("simulated_policy: read before wait", "[dma][simulated][hazard]") {
  std::vector<std::uint8_t> l2(64, 1), a(32), b(32);
  sim dma{targets::gap8};
  const handle h = dma.start(linear(bytes(a), bytes(l2), 32));
  dma.declare_read(b.data(), b.size());   // another buffer
  dma.declare_read(l2.data(), l2.size());  // the load's source: reading it is fine
  dma.declare_write(l2.data() + 40, 8);   // outside the source
  CHECK(dma.hazard_count() == 0);
  dma.declare_read(a.data() + 10, 4);
  CHECK(only(dma, hazard_kind::read_before_wait, 1));
  CHECK(log_mentions(dma, "read before wait: kernel read of 4 bytes"));
  CHECK(log_mentions(dma, "dst+10"));  // where in the load's destination
  dma.wait(h);
  dma.declare_read(a.data(), a.size());
  dma.finish();
  CHECK(only(dma, hazard_kind::read_before_wait, 1));
}

TEST_CASE("simulated_policy: write while a store reads the buffer", "[dma][simulated][hazard]") {
  std::vector<std::uint8_t> l2(64), out(32, 7);
  sim dma{targets::gap8};
  const handle h = dma.start(linear(bytes(l2), bytes(out), 32, /*inbound=*/false));
  dma.declare_read(out.data(), out.size());  // reading what a store reads is fine
  CHECK(dma.hazard_count() == 0);
  dma.declare_write(out.data() + 31, 1);
  CHECK(only(dma, hazard_kind::write_while_read, 1));
  CHECK(log_mentions(dma, "src+31"));
  dma.wait(h);
  dma.declare_write(out.data(), out.size());
  CHECK(only(dma, hazard_kind::write_while_read, 1));
  // Reading the store's L2 destination before the wait is a read before wait.
  const handle h2 = dma.start(linear(bytes(l2), bytes(out), 32, false));
  dma.declare_read(l2.data(), 1);
  dma.wait(h2);
  CHECK(dma.hazard_count(hazard_kind::read_before_wait) == 1);
}

TEST_CASE("simulated_policy: write into a buffer being filled", "[dma][simulated][hazard]") {
  std::vector<std::uint8_t> l2(64), a(32);
  sim dma{targets::gap8};
  const handle h = dma.start(linear(bytes(a), bytes(l2), 32));
  dma.declare_write(a.data() + 8, 24);
  CHECK(only(dma, hazard_kind::write_while_filled, 1));
  dma.wait(h);
  dma.declare_write(a.data(), a.size());
  CHECK(only(dma, hazard_kind::write_while_filled, 1));
}

TEST_CASE("simulated_policy: overlapping transfers", "[dma][simulated][hazard]") {
  std::vector<std::uint8_t> l2(256), a(64), b(64);
  SECTION("destination meets a destination: two loads into one buffer") {
    sim dma{targets::gap8};
    const handle h1 = dma.start(linear(bytes(a), bytes(l2), 64));
    const handle h2 = dma.start(linear(bytes(a, 32), bytes(l2, 64), 16));
    CHECK(only(dma, hazard_kind::overlapping_transfers, 1));
    CHECK(log_mentions(dma, "destination meets the destination"));
    dma.wait(h1);
    dma.wait(h2);
  }
  SECTION("destination meets a source: a load into a buffer a store still reads") {
    sim dma{targets::gap8};
    const handle h1 = dma.start(linear(bytes(l2), bytes(a), 64, false));
    const handle h2 = dma.start(linear(bytes(a), bytes(l2, 128), 64));
    CHECK(only(dma, hazard_kind::overlapping_transfers, 1));
    CHECK(log_mentions(dma, "destination meets the source"));
    dma.wait(h1);
    dma.wait(h2);
  }
  SECTION("source meets a destination: a store from a buffer a load still fills") {
    sim dma{targets::gap8};
    const handle h1 = dma.start(linear(bytes(a), bytes(l2), 64));
    const handle h2 = dma.start(linear(bytes(l2, 128), bytes(a, 60), 4, false));
    CHECK(only(dma, hazard_kind::overlapping_transfers, 1));
    CHECK(log_mentions(dma, "source meets the destination"));
    CHECK(log_mentions(dma, "on 4 bytes (first [+0, +4) from the new src)"));  // offsets in the side that met
    dma.wait(h1);
    dma.wait(h2);
  }
  SECTION("a transfer that reads its own destination") {
    sim dma{targets::gap8};
    dma.wait(dma.start(linear(bytes(a, 8), bytes(a), 16)));
    CHECK(only(dma, hazard_kind::overlapping_transfers, 1));
  }
  SECTION("not: two loads from one source into two buffers, then one after the other's wait") {
    sim dma{targets::gap8};
    const handle h1 = dma.start(linear(bytes(a), bytes(l2), 64));
    const handle h2 = dma.start(linear(bytes(b), bytes(l2), 64));
    dma.wait(h1);
    dma.wait(h2);
    dma.wait(dma.start(linear(bytes(a), bytes(l2, 64), 64)));
    dma.finish();
    CHECK(dma.hazard_count() == 0);
  }
  SECTION("not: two 2D stores whose rows interleave (exact footprints, not bounding boxes)") {
    sim dma{targets::gap8};
    // Columns [0, 8) and [8, 16) of a 4x16 tensor: bounding boxes overlap, bytes do not.
    const handle h1 = dma.start({.dst = bytes(l2), .src = bytes(a), .row_bytes = 8, .rows = 4,
                                 .src_row_stride = 8, .dst_row_stride = 16, .inbound = false});
    const handle h2 = dma.start({.dst = bytes(l2, 8), .src = bytes(b), .row_bytes = 8, .rows = 4,
                                 .src_row_stride = 8, .dst_row_stride = 16, .inbound = false});
    CHECK(dma.hazard_count() == 0);
    // A third column tile at column 15 meets both: its rows [15, 23), [31, 39), [47, 55), [63, 71)
    // overlap the second tile's [8, 16), [24, 32), [40, 48), [56, 64) on 1 byte each (4 bytes) and
    // the first's [16, 24), [32, 40), [48, 56) on 7 bytes each for its first three rows (21 bytes).
    const handle h3 = dma.start({.dst = bytes(l2, 15), .src = bytes(b, 32), .row_bytes = 8, .rows = 4,
                                 .src_row_stride = 8, .dst_row_stride = 16, .inbound = false});
    CHECK(only(dma, hazard_kind::overlapping_transfers, 2));
    CHECK(log_mentions(dma, "on 4 bytes (first [+0, +1) from the new dst)"));
    CHECK(log_mentions(dma, "on 21 bytes (first [+1, +8) from the new dst)"));
    dma.wait(h1);
    dma.wait(h2);
    dma.wait(h3);
  }
}

TEST_CASE("simulated_policy: handles", "[dma][simulated][hazard]") {
  std::vector<std::uint8_t> l2(16, 3), a(16);
  sim dma{targets::gap8};
  const handle h = dma.start(linear(bytes(a), bytes(l2), 16));
  CHECK(h == 0);
  CHECK(dma.start(linear(bytes(a), bytes(l2), 0)) == 1);  // empty: completes at once, no overlap
  dma.wait(1);
  dma.wait(h);
  CHECK(dma.hazard_count() == 0);
  dma.wait(h);
  CHECK(only(dma, hazard_kind::bad_handle, 1));
  CHECK(log_mentions(dma, "already waited"));
  dma.wait(2);
  dma.wait(-1);
  CHECK(only(dma, hazard_kind::bad_handle, 3));
  CHECK(log_mentions(dma, "never returned"));
  CHECK(a == l2);
}

TEST_CASE("simulated_policy: transfers never waited are completed and reported by finish", "[dma][simulated][hazard]") {
  std::vector<std::uint8_t> l2{1, 2, 3, 4}, a(4);
  sim dma{targets::gap8};
  dma.start(linear(bytes(a), bytes(l2), 4));
  CHECK(dma.in_flight() == 1);
  dma.finish();
  CHECK(only(dma, hazard_kind::never_waited, 1));
  CHECK(dma.in_flight() == 0);
  CHECK(a == l2);
  dma.wait(0);  // reported once only
  CHECK(dma.hazard_count() == 1);
}

TEST_CASE("simulated_policy: a full queue blocks on the oldest transfer", "[dma][simulated][hazard]") {
  std::vector<std::uint8_t> l2(300, 9), a(300);
  tessera::dma::simulated_policy<2> dma{targets::gap8};
  const handle h0 = dma.start(linear(bytes(a, 0), bytes(l2, 0), 100));
  const handle h1 = dma.start(linear(bytes(a, 100), bytes(l2, 100), 100));
  const handle h2 = dma.start(linear(bytes(a, 200), bytes(l2, 200), 100));
  CHECK(only(dma, hazard_kind::queue_full, 1));
  CHECK(dma.now() == 53);  // the CPU waited for transfer 0 (53 cycles, see the time model test)
  CHECK(a[0] == 9);
  dma.wait(h0);  // already completed: not a second report
  dma.wait(h1);
  dma.wait(h2);
  dma.finish();
  CHECK(only(dma, hazard_kind::queue_full, 1));
  CHECK(a == l2);
}

TEST_CASE("simulated_policy: transfers must name an outer level of the target", "[dma][simulated][hazard]") {
  std::vector<std::uint8_t> l2(8), a(8);
  sim dma{targets::siracusa};  // L1 and L2 only
  dma.wait(dma.start(linear(bytes(a), bytes(l2), 8, true, 1)));
  CHECK(dma.hazard_count() == 0);
  dma.wait(dma.start(linear(bytes(a), bytes(l2), 8, true, 2)));
  dma.wait(dma.start(linear(bytes(a), bytes(l2), 8, true, 0)));
  CHECK(only(dma, hazard_kind::bad_level, 2));
  CHECK(log_mentions(dma, "target 'siracusa' has outer levels 1..1"));
  CHECK(dma.stats().levels[1].transfers_in == 1);  // the bad ones are counted nowhere
  CHECK(dma.stats().levels[2].transfers_in == 0);
}

TEST_CASE("simulated_policy: bound memories: each side of a transfer in the memory its level names",
          "[dma][simulated][hazard]") {
  std::vector<std::uint8_t> l1(64), l2(64), l3(64);
  sim dma{targets::gap8};  // L1, L2, L3
  dma.bind_memories(bytes(l1), l1.size(), bytes(l2), l2.size());
  dma.wait(dma.start(linear(bytes(l1, 8), bytes(l2), 16, true, 1)));    // L2 -> L1
  dma.wait(dma.start(linear(bytes(l2, 32), bytes(l1), 16, false, 1)));  // L1 -> L2
  dma.wait(dma.start(linear(bytes(l2), bytes(l3), 16, true, 2)));       // L3 -> L2 staging
  dma.wait(dma.start(linear(bytes(l3), bytes(l2, 16), 16, false, 2)));  // L2 -> L3 spill
  CHECK(dma.hazard_count() == 0);
  SECTION("a load that lands in L2 instead of L1") {
    dma.wait(dma.start(linear(bytes(l2, 16), bytes(l2, 40), 8, true, 1)));
    CHECK(only(dma, hazard_kind::wrong_memory, 1));
    CHECK(log_mentions(dma, "its destination lies outside L1"));
  }
  SECTION("a load that runs past the end of L1") {
    dma.wait(dma.start(linear(bytes(l1, 60), bytes(l2), 8, true, 1)));
    CHECK(only(dma, hazard_kind::wrong_memory, 1));
  }
  SECTION("an L3 transfer labelled L2: its inner side is L2, not L1") {
    dma.wait(dma.start(linear(bytes(l2), bytes(l3), 16, true, 1)));
    CHECK(only(dma, hazard_kind::wrong_memory, 1));
  }
  SECTION("a store from L1 into L1") {
    dma.wait(dma.start(linear(bytes(l1, 32), bytes(l1), 16, false, 1)));
    CHECK(only(dma, hazard_kind::wrong_memory, 1));
    CHECK(log_mentions(dma, "its destination lies inside L1, the memory it should leave"));
  }
}

TEST_CASE("simulated_policy: the log is capped, the counts are not; reset forgets", "[dma][simulated]") {
  std::vector<std::uint8_t> l2(8), a(8);
  sim dma{targets::gap8};
  const handle h = dma.start(linear(bytes(a), bytes(l2), 8));
  for (int i = 0; i < 40; ++i) dma.declare_read(a.data(), 1);
  CHECK(dma.hazard_count(hazard_kind::read_before_wait) == 40);
  CHECK(dma.hazard_log().size() == sim::max_log_entries);
  dma.wait(h);
  dma.compute(800);
  dma.reset();
  CHECK(dma.hazard_count() == 0);
  CHECK(dma.hazard_log().empty());
  CHECK(dma.now() == 0);
  CHECK(dma.stats().levels[1].bytes_in == 0);
  CHECK(dma.stats().compute_cycles == 0);
  CHECK(dma.start(linear(bytes(a), bytes(l2), 8)) == 0);  // handles restart too
  dma.wait(0);
  CHECK(dma.hazard_count() == 0);
}

TEST_CASE("simulated_policy: a correct double-buffered pipeline is hazard-free and exact", "[dma][simulated][pipeline]") {
  const std::vector<std::uint8_t> x = pipeline_input();
  sim dma{targets::gap8};
  CHECK(run_pipeline(dma, x) == pipeline_expected(x));
  INFO((dma.hazard_log().empty() ? std::string{} : dma.hazard_log().front()));
  CHECK(dma.hazard_count() == 0);
  const auto& l2 = dma.stats().levels[1];
  CHECK(l2.bytes_in == rows * width);
  CHECK(l2.bytes_out == rows * width);
  CHECK(l2.transfers_in == tiles);
  CHECK(l2.transfers_out == tiles);
  CHECK(dma.stats().levels[2].bytes_in + dma.stats().levels[2].bytes_out == 0);

  tessera::dma::memcpy_policy sync;  // the same pipeline, synchronously
  CHECK(run_pipeline(sync, x) == pipeline_expected(x));
}

TEST_CASE("simulated_policy: removing a wait gives wrong data and fires the detector", "[dma][simulated][pipeline]") {
  const std::vector<std::uint8_t> x = pipeline_input();
  SECTION("the load wait") {
    sim dma{targets::gap8};
    const std::vector<std::uint8_t> y = run_pipeline(dma, x, {.skip_load_wait = true});
    CHECK(y != pipeline_expected(x));
    CHECK(y[0] == static_cast<std::uint8_t>(2 * 0xA5 + 1));  // computed on poison
    // Tile i reads a buffer with load i in flight, and from tile 2 on also load i-2 (never
    // waited either): 1 + 1 + 2 + 2 reports, one per in-flight transfer it meets.
    CHECK(dma.hazard_count(hazard_kind::read_before_wait) == 6);
    CHECK(dma.hazard_count(hazard_kind::overlapping_transfers) == tiles - 2);  // load i+1 onto load i-1
    CHECK(dma.hazard_count(hazard_kind::never_waited) == tiles);
  }
  SECTION("the store wait") {
    sim dma{targets::gap8};
    const std::vector<std::uint8_t> y = run_pipeline(dma, x, {.skip_store_wait = true});
    CHECK(y != pipeline_expected(x));
    CHECK(dma.hazard_count(hazard_kind::write_while_read) == tiles - 2);
    CHECK(dma.hazard_count(hazard_kind::never_waited) == tiles - 2);
    CHECK(dma.hazard_count(hazard_kind::read_before_wait) == 0);
  }
}

TEST_CASE("simulated_policy: time model, hand-computed", "[dma][simulated][time]") {
  // gap8 L2: 8 B/cycle, latency 10, setup 30, so 100 bytes take 30 + 10 + ceil(100 / 8) = 53
  // cycles. gap8 computes 128 / 16 = 8 MACs per cycle. One engine, FIFO: A runs [0, 53),
  // B runs [53, 106).
  std::vector<std::uint8_t> l2(200), a(100), b(100);
  sim dma{targets::gap8};
  CHECK(targets::gap8.levels[1].transfer_cycles(100) == 53);
  const handle ha = dma.start(linear(bytes(a), bytes(l2), 100));
  const handle hb = dma.start(linear(bytes(b), bytes(l2, 100), 100));

  SECTION("short compute: the CPU stalls") {
    dma.compute(320);  // 320 / 8 = 40 cycles: cpu = 40
    dma.wait(ha);      // A done at 53: stall 53 - 40 = 13, cpu = 53
    CHECK(dma.now() == 53);
    dma.wait(hb);      // B done at 106: stall 106 - 53 = 53, cpu = 106
    dma.finish();
    const auto& s = dma.stats();
    CHECK(s.total_cycles == 106);
    CHECK(s.compute_cycles == 40);
    CHECK(s.dma_busy_cycles == 106);
    CHECK(s.stall_cycles == 66);                          // 13 + 53
    CHECK(s.overlap() == Approx(40.0 / 106.0));           // 1 - 66 / 106
  }
  SECTION("long compute: transfers fully hidden") {
    dma.compute(8 * 200);  // 200 cycles, after both transfers completed (106)
    dma.wait(ha);
    dma.wait(hb);
    const auto& s = dma.stats();
    CHECK(s.total_cycles == 200);
    CHECK(s.stall_cycles == 0);
    CHECK(s.overlap() == 1.0);
  }
  SECTION("waiting B first waits for A too (FIFO)") {
    dma.wait(hb);  // stall 106, cpu 106
    dma.wait(ha);  // already done: no stall
    CHECK(dma.stats().stall_cycles == 106);
    CHECK(dma.stats().overlap() == 0.0);
  }
}

TEST_CASE("simulated_policy: time model, engine idle and other levels", "[dma][simulated][time]") {
  std::vector<std::uint8_t> l2(200), a(100);
  SECTION("a transfer issued after the engine went idle starts at issue time") {
    sim dma{targets::gap8};
    dma.wait(dma.start(linear(bytes(a), bytes(l2), 100)));  // [0, 53): stall 53, cpu 53
    dma.compute(8 * 47);                                     // cpu 100
    dma.wait(dma.start(linear(bytes(a), bytes(l2, 100), 100)));  // [100, 153): stall 53
    CHECK(dma.now() == 153);
    CHECK(dma.stats().dma_busy_cycles == 106);
    CHECK(dma.stats().stall_cycles == 106);
    CHECK(dma.stats().overlap() == 0.0);
  }
  SECTION("L3 costs apply to outer_level 2") {
    sim dma{targets::gap8};  // L3: 1 B/cycle, latency 150, setup 100: 100 + 150 + 100 = 350 cycles
    dma.wait(dma.start(linear(bytes(a), bytes(l2), 100, true, 2)));
    CHECK(dma.now() == 350);
    CHECK(dma.stats().levels[2].bytes_in == 100);
    CHECK(dma.stats().levels[2].transfers_in == 1);
  }
  SECTION("gap8 moves L3 <-> L2 on an engine of its own: an L2 load does not queue behind an L3 one") {
    sim dma{targets::gap8};
    std::vector<std::uint8_t> c(100);
    const handle l3 = dma.start(linear(bytes(a), bytes(l2), 100, true, 2));  // engine 1: [0, 350)
    const handle first = dma.start(linear(bytes(c), bytes(l2, 100), 100));   // engine 0: [0, 53)
    const handle second = dma.start(linear(bytes(c), bytes(l2, 100), 100));  // engine 0: [53, 106)
    dma.wait(first);
    CHECK(dma.now() == 53);
    dma.wait(second);
    CHECK(dma.now() == 106);
    dma.wait(l3);
    CHECK(dma.now() == 350);
    const auto& s = dma.stats();
    CHECK(s.engine_busy_cycles[0] == 106);
    CHECK(s.engine_busy_cycles[1] == 350);
    CHECK(s.dma_busy_cycles == 456);            // summed over the engines
    CHECK(s.busiest_engine_cycles() == 350);    // no run is shorter than that
  }
  SECTION("one engine for every level (stm32h7-like presets): FIFO across levels") {
    tessera::target_desc one = targets::gap8;
    one.levels[2].dma_engine = 0;
    sim dma{one};
    const handle l3 = dma.start(linear(bytes(a), bytes(l2), 100, true, 2));  // [0, 350)
    const handle after = dma.start(linear(bytes(a), bytes(l2, 100), 100));   // [350, 403)
    dma.wait(after);
    CHECK(dma.now() == 403);
    dma.wait(l3);
    CHECK(dma.stats().busiest_engine_cycles() == dma.stats().dma_busy_cycles);
  }
  SECTION("compute rounds up to whole cycles") {
    sim gap{targets::gap8};  // 8 MACs per cycle
    gap.compute(1);
    gap.compute(9);
    CHECK(gap.stats().compute_cycles == 1 + 2);
    sim m7{targets::stm32h7};  // macs_per_cycle_x16 = 8: half a MAC per cycle
    m7.compute(10);
    CHECK(m7.now() == 20);
    CHECK(m7.stats().overlap() == 1.0);  // no DMA at all
  }
}

TEST_CASE("simulated_policy: pipelines keep overlap in [0, 1] and the clocks consistent", "[dma][simulated][time]") {
  const std::vector<std::uint8_t> x = pipeline_input();
  std::mt19937 rng(7);
  for (const tessera::target_desc& target : {targets::gap8, targets::siracusa, targets::stm32h7}) {
    for (int n = 0; n < 20; ++n) {
      sim dma{target};
      const std::uint64_t macs = std::uniform_int_distribution<std::uint64_t>(0, 4000)(rng);
      CHECK(run_pipeline(dma, x, {.macs_per_tile = macs}) == pipeline_expected(x));
      const auto& s = dma.stats();
      INFO(target.name.c_str() << " macs/tile " << macs);
      CHECK(dma.hazard_count() == 0);
      CHECK(s.overlap() >= 0.0);
      CHECK(s.overlap() <= 1.0);
      CHECK(s.stall_cycles <= s.dma_busy_cycles);
      CHECK(s.total_cycles == s.compute_cycles + s.stall_cycles);  // the CPU only computes or stalls
      CHECK(s.total_cycles >= s.busiest_engine_cycles());          // every transfer was waited
    }
  }
}
