// Runtime tests of the simulated DMA's trace (dma/trace.hpp): off by default; when on, its events
// follow the time model exactly (checked against an independent replay of the model), add up
// to the counters, and are in time order per lane; recording changes no counter.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "../support/random_transfers.hpp"

#include <tessera/dma/simulated_policy.hpp>

namespace {

using tessera::dma::event_kind;
using tessera::dma::handle;
using tessera::dma::trace_event;
using tessera::dma::transfer;
namespace targets = tessera::targets;

std::byte* bytes(std::vector<std::uint8_t>& v, std::size_t at = 0) { return reinterpret_cast<std::byte*>(v.data() + at); }

transfer linear(std::byte* dst, const std::byte* src, std::size_t n, bool inbound = true, int level = 1) {
  return {.dst = dst, .src = src, .row_bytes = n, .outer_level = level, .inbound = inbound};
}

std::uint64_t sum_of(const std::vector<trace_event>& trace, event_kind k) {
  std::uint64_t n = 0;
  for (const trace_event& e : trace)
    if (e.kind == k) n += e.cycles();
  return n;
}

/// The properties every trace has: sums equal the counters; per lane (each engine's transfers
/// that take time; the core's compute and stalls) each event starts after the previous ends;
/// a transfer runs on its outer level's engine.
template <class Policy>
void check_consistent(const Policy& dma, const tessera::target_desc& target) {
  const auto& s = dma.stats();
  const auto& trace = dma.trace();
  CHECK(sum_of(trace, event_kind::transfer) == s.dma_busy_cycles);
  CHECK(sum_of(trace, event_kind::compute) == s.compute_cycles);
  CHECK(sum_of(trace, event_kind::stall) == s.stall_cycles);
  std::array<std::uint64_t, tessera::dma::max_dma_engines> engine_end{};
  std::uint64_t core_end = 0;
  for (const trace_event& e : trace) {
    CHECK(e.begin <= e.end);
    if (e.kind == event_kind::transfer) {
      CHECK(e.engine == target.levels[static_cast<std::size_t>(e.outer_level)].dma_engine);
      if (e.cycles() == 0) continue;  // an empty transfer: an instant, off the engine
      CHECK(e.begin >= engine_end[static_cast<std::size_t>(e.engine)]);
      engine_end[static_cast<std::size_t>(e.engine)] = e.end;
    } else {
      CHECK(e.engine == 0);
      CHECK(e.begin >= core_end);
      core_end = e.end;
    }
  }
  CHECK(core_end == s.total_cycles);  // the CPU only computes or stalls
}

}  // namespace

TEST_CASE("trace: off by default; recording changes no counter", "[dma][simulated][trace]") {
  std::vector<std::uint8_t> l2(200), a(100);
  auto run = [&](bool record) {
    tessera::dma::simulated_policy<> dma{targets::gap8};
    if (record) dma.record_trace();
    CHECK(dma.recording_trace() == record);
    dma.compute(100);
    dma.wait(dma.start(linear(bytes(a), bytes(l2), 100)));
    dma.finish();
    CHECK(dma.trace().size() == (record ? 3u : 0u));
    return dma.stats();
  };
  const auto off = run(false), on = run(true);
  CHECK(off.total_cycles == on.total_cycles);
  CHECK(off.compute_cycles == on.compute_cycles);
  CHECK(off.dma_busy_cycles == on.dma_busy_cycles);
  CHECK(off.stall_cycles == on.stall_cycles);
}

TEST_CASE("trace: the hand-computed example, event by event", "[dma][simulated][trace]") {
  // gap8 L2: 100 bytes take 30 + 10 + ceil(100 / 8) = 53 cycles; 8 MACs per cycle.
  std::vector<std::uint8_t> l2(200), a(100), b(100), out(100);
  tessera::dma::simulated_policy<> dma{targets::gap8};
  dma.record_trace();
  dma.set_trace_tag(7);
  const handle ha = dma.start(linear(bytes(a), bytes(l2), 100));       // A [0, 53)
  const handle hb = dma.start(linear(bytes(b), bytes(l2, 100), 100));  // B [53, 106)
  dma.compute(320);  // [0, 40)
  dma.wait(ha);      // stall [40, 53)
  dma.set_trace_tag(8);
  dma.compute(8 * 100);                                                        // [53, 153)
  const handle hs = dma.start(linear(bytes(l2), bytes(out), 100, false, 2));  // L3 store [153, 503)
  dma.wait(hb);  // done at 106: no stall
  dma.wait(hs);  // stall [153, 503)
  dma.finish();

  const std::vector<trace_event>& t = dma.trace();
  REQUIRE(t.size() == 7);
  auto check = [](const trace_event& e, event_kind k, std::uint64_t begin, std::uint64_t end, handle id, int tag) {
    CHECK(e.kind == k);
    CHECK(e.begin == begin);
    CHECK(e.end == end);
    CHECK(e.id == id);
    CHECK(e.tag == tag);
  };
  check(t[0], event_kind::transfer, 0, 53, ha, 7);
  check(t[1], event_kind::transfer, 53, 106, hb, 7);
  check(t[2], event_kind::compute, 0, 40, -1, 7);
  check(t[3], event_kind::stall, 40, 53, ha, 7);
  check(t[4], event_kind::compute, 53, 153, -1, 8);
  check(t[5], event_kind::transfer, 153, 503, hs, 8);
  check(t[6], event_kind::stall, 153, 503, hs, 8);
  CHECK(t[0].dst == bytes(a));
  CHECK(t[0].src == bytes(l2));
  CHECK(t[0].bytes == 100);
  CHECK(t[0].inbound);
  CHECK(t[0].outer_level == 1);
  CHECK(t[2].macs == 320);
  CHECK(t[3].outer_level == 1);
  CHECK(t[5].outer_level == 2);
  CHECK_FALSE(t[5].inbound);
  check_consistent(dma, targets::gap8);
  CHECK(t[5].engine == 1);  // gap8: L3 on its own engine

  dma.reset();
  CHECK(dma.trace().empty());
  CHECK(dma.recording_trace());  // reset forgets events, not the choice to record
}

TEST_CASE("trace: a double-buffered pipeline", "[dma][simulated][trace]") {
  // Load tile i+1 while tile i computes, store tile i while tile i+1 computes: 8 tiles of 256
  // bytes on stm32h7 (AXI-SRAM: 4 B/cycle, latency 4, setup 20: 20 + 4 + 64 = 88 cycles each).
  constexpr std::size_t tiles = 8, tile = 256;
  std::vector<std::uint8_t> l2_in(tiles * tile, 1), l2_out(tiles * tile), in(2 * tile), out(2 * tile);
  tessera::dma::simulated_policy<> dma{targets::stm32h7};
  dma.record_trace();
  std::vector<handle> loads(tiles), stores(tiles);
  loads[0] = dma.start(linear(bytes(in), bytes(l2_in), tile));
  for (std::size_t i = 0; i < tiles; ++i) {
    dma.set_trace_tag(static_cast<int>(i));
    if (i + 1 < tiles) loads[i + 1] = dma.start(linear(bytes(in, (i + 1) % 2 * tile), bytes(l2_in, (i + 1) * tile), tile));
    dma.wait(loads[i]);
    if (i >= 2) dma.wait(stores[i - 2]);
    dma.compute(30 + 20 * i);  // 60 + 40 i cycles: the first tiles stall, the later ones do not
    stores[i] = dma.start(linear(bytes(l2_out, i * tile), bytes(out, i % 2 * tile), tile, false));
  }
  dma.wait(stores[tiles - 2]);
  dma.wait(stores[tiles - 1]);
  dma.finish();
  CHECK(dma.hazard_count() == 0);
  check_consistent(dma, targets::stm32h7);

  std::size_t transfers = 0, computes = 0;
  for (const trace_event& e : dma.trace()) {
    if (e.kind == event_kind::transfer) {
      ++transfers;
      CHECK(e.cycles() == 88);
      CHECK(e.bytes == tile);
    }
    if (e.kind == event_kind::compute) {
      CHECK(e.tag == static_cast<int>(computes));
      CHECK(e.cycles() == (30 + 20 * computes) * 2);
      ++computes;
    }
  }
  CHECK(transfers == 2 * tiles);
  CHECK(computes == tiles);
  CHECK(dma.stats().stall_cycles > 0);
  CHECK(dma.stats().stall_cycles < dma.stats().dma_busy_cycles);
}

TEST_CASE("trace: random transfer sequences follow the time model", "[dma][simulated][trace]") {
  // Random loads and stores (both levels), compute and waits in random order, a small queue
  // (4) so that a full queue also stalls, and finish() completing what was never waited. The
  // test replays the model on its own: a transfer begins at max(issue time, its engine free)
  // and lasts levels[outer].transfer_cycles(bytes); a stall ends when its transfer does. (gap8
  // moves L3 on an engine of its own.)
  std::mt19937 rng(2024);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  std::uint64_t full_queues = 0, stalls = 0;
  for (const tessera::target_desc& target : {targets::gap8, targets::siracusa, targets::stm32h7}) {
    for (int run = 0; run < 30; ++run) {
      tessera::dma::simulated_policy<4> dma{target};
      dma.record_trace();
      std::vector<std::unique_ptr<tessera::testing::copy_case>> cases;  // buffers live until the end
      std::vector<handle> pending;
      std::vector<std::uint64_t> issued_at;
      const int steps = pick(1, 40);
      for (int step = 0; step < steps; ++step) {
        const int what = pick(0, 2);
        if (what == 0) {
          cases.push_back(std::make_unique<tessera::testing::copy_case>(
              tessera::testing::random_case(rng, pick(1, 3), {.random_direction = true})));
          if (target.level_count == 2) cases.back()->t.outer_level = 1;
          pending.push_back(dma.start(cases.back()->bound()));
          issued_at.push_back(dma.now());  // after a full queue's forced wait, which start() ends with
        } else if (what == 1) {
          dma.compute(static_cast<std::uint64_t>(pick(0, 600)));
        } else if (!pending.empty()) {
          const auto k = static_cast<std::size_t>(pick(0, static_cast<int>(pending.size()) - 1));
          dma.wait(pending[k]);
          pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(k));
        }
      }
      dma.finish();
      full_queues += dma.hazard_count(tessera::dma::hazard_kind::queue_full);
      stalls += dma.stats().stall_cycles;
      INFO(target.name.c_str() << " run " << run << ", " << cases.size() << " transfers");
      check_consistent(dma, target);

      // Replay the model.
      std::vector<std::uint64_t> done(cases.size());
      std::array<std::uint64_t, tessera::dma::max_dma_engines> engine_free{};
      std::size_t n = 0;
      for (const trace_event& e : dma.trace()) {
        if (e.kind != event_kind::transfer) continue;
        REQUIRE(n < cases.size());
        const tessera::dma::transfer t = cases[n]->bound();
        CHECK(e.id == static_cast<handle>(n));
        CHECK(e.dst == t.dst);
        CHECK(e.src == t.src);
        CHECK(e.bytes == t.bytes());
        CHECK(e.inbound == t.inbound);
        CHECK(e.outer_level == t.outer_level);
        const std::size_t engine = target.levels[static_cast<std::size_t>(t.outer_level)].dma_engine;
        CHECK(e.begin == std::max(issued_at[n], engine_free[engine]));
        CHECK(e.cycles() == target.levels[static_cast<std::size_t>(t.outer_level)].transfer_cycles(t.bytes()));
        engine_free[engine] = e.end;
        done[n++] = e.end;
      }
      CHECK(n == cases.size());
      for (const trace_event& e : dma.trace()) {
        if (e.kind != event_kind::stall) continue;
        REQUIRE(e.id >= 0);
        REQUIRE(static_cast<std::size_t>(e.id) < n);
        CHECK(e.end == done[static_cast<std::size_t>(e.id)]);
      }
    }
  }
  CHECK(full_queues > 0);  // the sequences did exercise the full queue's stall
  CHECK(stalls > 0);
}
