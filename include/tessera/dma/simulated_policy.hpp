// The simulated DMA policy (host tests only): counts traffic, models time, detects hazards.
//
// It behaves like an asynchronous engine that is maximally unkind to a wrong pipeline:
// - start() fills the destination with poison (0xA5) at once and copies nothing yet;
// - wait() performs the copy, reading the source as it is *then*.
// So a kernel that reads a buffer before waiting for the load into it computes on poison, and a
// kernel that overwrites a buffer a store still reads stores the new data: a missing wait gives
// wrong results in the tests, not only a log line. The detector names the bug as well: every
// kernel access is declared (declare_read / declare_write) and checked against the exact
// row-by-row footprints of the transfers in flight (not bounding boxes: two stores writing
// adjacent column tiles of one tensor interleave but do not overlap).
//
// Time model: DMA engines serving transfers in issue order, each its own queue (the engine of a
// transfer is its path's `dma_engine`: on gap8 L3 <-> L2 runs beside L2 <-> L1, on DIANA an
// accelerator's DMA path beside the CPU's). A transfer begins when the CPU has issued it and its
// engine is free, and lasts `path.transfer_cycles(bytes)`, its path being
// `target_desc::transfer_path(outer_level, engine)`: the outer level's figures, or those of the
// accelerator whose memory the transfer's inner side is.
// compute() advances the CPU clock; wait() advances it to the transfer's completion, and the
// difference is stall time. Example (gap8 L2: 8 B/cycle, latency 10, setup 30): a 100-byte load
// takes 30 + 10 + ceil(100 / 8) = 53 cycles; issued at 0 and waited after 40 cycles of
// compute, the CPU stalls 13 cycles; `overlap()` is then 1 - 13 / 53 = 0.755.
//
// Trace (opt-in, `record_trace(true)`; off by default, so untraced runs allocate nothing more):
// the same model, kept as events (dma/trace.hpp) for the plan pictures. The example above
// records transfer #0 [0, 53) on engine 0, compute [0, 40) and a stall on #0 [40, 53) on core 0.
// Transfers are recorded when issued (their times are known then), so the trace is in time
// order per lane (engine, core), not overall.
#pragma once

#include <algorithm>
#include <array>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <tessera/dma/trace.hpp>
#include <tessera/dma/transfer.hpp>
#include <tessera/target/target.hpp>

namespace tessera::dma {

/// DMA engines the simulator keeps apart (memory_level::dma_engine; higher ones share the last).
inline constexpr std::size_t max_dma_engines = 4;

enum class hazard_kind : std::uint8_t {
  overlapping_transfers,  ///< a started transfer's footprint meets one still in flight
  read_before_wait,       ///< a kernel reads bytes an in-flight transfer writes
  write_while_read,       ///< a kernel writes bytes an in-flight transfer (a store) still reads
  write_while_filled,     ///< a kernel writes bytes an in-flight transfer (a load) writes
  never_waited,           ///< finish() found the transfer still in flight
  bad_handle,             ///< wait() on a handle already waited, or never returned by start()
  queue_full,             ///< more than MaxInFlight transfers in flight
  bad_level,              ///< outer_level is not a level of the target, or is L1
  wrong_memory,           ///< a side of the transfer lies outside the memory its level names (bind_memories)
};
inline constexpr std::size_t hazard_kind_count = 9;

/// The text that starts every hazard_log() line of kind `k`.
constexpr const char* name_of(hazard_kind k) {
  constexpr const char* names[hazard_kind_count] = {
      "overlapping transfers", "read before wait", "write while a transfer reads it",
      "write into a buffer being filled", "transfer never waited", "bad handle",
      "too many transfers in flight", "bad memory level", "transfer outside its memory"};
  return names[static_cast<std::size_t>(k)];
}

/// DMA traffic between one outer level and the levels inside it.
struct level_traffic {
  std::uint64_t bytes_in = 0;       ///< loaded from this level (bytes)
  std::uint64_t bytes_out = 0;      ///< stored to this level (bytes)
  std::uint64_t transfers_in = 0;
  std::uint64_t transfers_out = 0;
};

struct dma_stats {
  std::array<level_traffic, 3> levels{};  ///< indexed by outer level: [1] = L2, [2] = L3; [0] unused
  std::uint64_t total_cycles = 0;         ///< CPU clock (cycles); final after finish()
  std::uint64_t compute_cycles = 0;       ///< cycles spent in compute()
  std::uint64_t dma_busy_cycles = 0;      ///< cycles the engines spent transferring, summed
  std::uint64_t stall_cycles = 0;         ///< cycles the CPU spent in wait() for an engine
  std::array<std::uint64_t, max_dma_engines> engine_busy_cycles{};  ///< dma_busy_cycles per engine

  /// The busiest engine's transfer cycles: no schedule ends before that engine is done, so a
  /// run takes at least max(compute_cycles, busiest_engine_cycles()).
  constexpr std::uint64_t busiest_engine_cycles() const {
    std::uint64_t most = 0;
    for (const std::uint64_t c : engine_busy_cycles) most = c > most ? c : most;
    return most;
  }

  /// Fraction of DMA busy time hidden behind compute, in [0, 1]; 1 when nothing was transferred.
  /// A stall happens only while the engine is busy (on the awaited transfer or those before it),
  /// so stall_cycles <= dma_busy_cycles and the clamp is only a guard.
  constexpr double overlap() const {
    if (dma_busy_cycles == 0) return 1.0;
    const double hidden = 1.0 - static_cast<double>(stall_cycles) / static_cast<double>(dma_busy_cycles);
    return hidden < 0.0 ? 0.0 : hidden;
  }
};

namespace detail {

/// Half-open address range [lo, hi).
struct byte_range {
  std::uintptr_t lo = 0, hi = 0;
};

/// The bytes one side of a transfer touches, as sorted, merged, disjoint ranges.
inline void footprint_of(const transfer& t, bool dst_side, std::vector<byte_range>& out) {
  out.clear();
  for_each_row(t, [&](std::byte* d, const std::byte* s) {
    const auto lo = reinterpret_cast<std::uintptr_t>(dst_side ? static_cast<const std::byte*>(d) : s);
    out.push_back({lo, lo + t.row_bytes});
  });
  std::sort(out.begin(), out.end(), [](const byte_range& a, const byte_range& b) { return a.lo < b.lo; });
  std::size_t n = 0;
  for (const byte_range& r : out) {
    if (n > 0 && r.lo <= out[n - 1].hi) {
      out[n - 1].hi = std::max(out[n - 1].hi, r.hi);
    } else {
      out[n++] = r;
    }
  }
  out.resize(n);
}

struct overlap_result {
  std::uint64_t bytes = 0;  ///< total overlapping bytes
  byte_range first{};       ///< lowest overlapping range
};

/// Intersection of two footprints (both sorted and disjoint), by a merge walk.
inline overlap_result overlap_of(const std::vector<byte_range>& a, const std::vector<byte_range>& b) {
  overlap_result r;
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const std::uintptr_t lo = std::max(a[i].lo, b[j].lo), hi = std::min(a[i].hi, b[j].hi);
    if (lo < hi) {
      if (r.bytes == 0) r.first = {lo, hi};
      r.bytes += hi - lo;
    }
    (a[i].hi < b[j].hi) ? ++i : ++j;
  }
  return r;
}

}  // namespace detail

/// `MaxInFlight`: transfers the engine queues at once. Starting one more is reported
/// (`queue_full`) and blocks the CPU until the oldest completes, as a full hardware queue does.
template <std::size_t MaxInFlight = 16>
class simulated_policy {
  static_assert(MaxInFlight > 0, "simulated_policy: MaxInFlight must be at least 1");

 public:
  static constexpr std::byte poison{0xA5};
  static constexpr std::size_t max_log_entries = 32;  ///< hazards past this are counted, not logged

  /// `desc.levels[1..level_count-1]` give the cost model; `macs_per_cycle_x16` the compute model.
  explicit simulated_policy(const target_desc& desc) : desc_(desc) {}

  /// Queues `t`: checks it against the transfers in flight, poisons its destination, counts its
  /// bytes and times it. The copy itself happens in wait(h). Returns a handle (0, 1, 2, ...).
  handle start(const transfer& t) {
    if (in_flight_ == MaxInFlight) {
      slot& oldest = oldest_slot();
      report(hazard_kind::queue_full, "%zu already queued; transfer #%zu blocks until #%d completes", MaxInFlight,
             states_.size(), oldest.id);
      retire(oldest, state::forced);
    }
    const auto id = static_cast<handle>(states_.size());
    states_.push_back(state::in_flight);
    slot& s = free_slot();
    s.used = true;
    s.id = id;
    s.t = t;
    detail::footprint_of(t, true, s.dst);
    detail::footprint_of(t, false, s.src);
    check_start(s);
    check_memories(s);

    int level = t.outer_level;
    if (level < 1 || level >= desc_.level_count) {
      report(hazard_kind::bad_level, "transfer #%d names level %d; target '%s' has outer levels 1..%d", id, level,
             desc_.name.c_str(), desc_.level_count - 1);
      level = std::clamp(level, 1, 2);  // still time it, but count it nowhere
    } else {
      level_traffic& traffic = stats_.levels[static_cast<std::size_t>(level)];
      (t.inbound ? traffic.bytes_in : traffic.bytes_out) += t.bytes();
      ++(t.inbound ? traffic.transfers_in : traffic.transfers_out);
    }
    const memory_level& path = desc_.transfer_path(level, t.engine);
    const std::size_t engine = engine_of(path);
    if (t.bytes() > 0) {
      const std::uint64_t duration = path.transfer_cycles(t.bytes());
      const std::uint64_t begin = std::max(cpu_, engine_free_[engine]);
      s.done = begin + duration;
      engine_free_[engine] = s.done;
      stats_.dma_busy_cycles += duration;
      stats_.engine_busy_cycles[engine] += duration;
      if (tracing_) trace_.push_back(transfer_event(s, level, engine, begin));
    } else {
      s.done = cpu_;  // an empty transfer is complete at once and costs nothing
      // It never occupies the engine: recorded as an instant at issue time (which may fall
      // inside another transfer's span), so the per-lane order holds for spans that take time.
      if (tracing_) trace_.push_back(transfer_event(s, level, engine, cpu_));
    }
    for (const detail::byte_range& r : s.dst)
      std::memset(reinterpret_cast<void*>(r.lo), std::to_integer<int>(poison), r.hi - r.lo);
    ++in_flight_;
    return id;
  }

  /// Blocks until transfer `h` completes (the CPU clock advances to its completion; the gap is
  /// stall cycles) and performs its copy. Waiting twice or on an unknown handle is reported.
  void wait(handle h) {
    if (h < 0 || static_cast<std::size_t>(h) >= states_.size()) {
      return report(hazard_kind::bad_handle, "wait on #%d, which start() never returned", h);
    }
    state& st = states_[static_cast<std::size_t>(h)];
    if (st == state::forced) {  // already retired and reported (queue_full / never_waited)
      st = state::waited;
      return;
    }
    if (st == state::waited) return report(hazard_kind::bad_handle, "wait on #%d, which was already waited", h);
    for (slot& s : slots_)
      if (s.used && s.id == h) retire(s, state::waited);
  }

  /// The executor's L1 and L2 buffers (bytes from `l1` / `l2`; nullptr: that level unknown).
  /// From then on every transfer's inner side must lie inside the memory one level in from the
  /// level it names (L1 for an L2 transfer, L2 for an L3 one) and its outer side outside that
  /// memory: a load that lands in L2 instead of L1, or an L3 transfer labelled L2, is reported
  /// (wrong_memory).
  void bind_memories(const std::byte* l1, std::size_t l1_bytes, const std::byte* l2, std::size_t l2_bytes) {
    inner_[0] = {reinterpret_cast<std::uintptr_t>(l1), reinterpret_cast<std::uintptr_t>(l1) + (l1 ? l1_bytes : 0)};
    inner_[1] = {reinterpret_cast<std::uintptr_t>(l2), reinterpret_cast<std::uintptr_t>(l2) + (l2 ? l2_bytes : 0)};
  }

  /// The kernel is about to read `bytes` bytes at `p`: reported if an in-flight transfer writes any.
  void declare_read(const void* p, std::size_t bytes) { check_access(p, bytes, false); }
  /// The kernel is about to write `bytes` bytes at `p`: reported if an in-flight transfer reads
  /// or writes any.
  void declare_write(const void* p, std::size_t bytes) { check_access(p, bytes, true); }

  /// The kernel performs `macs` multiply-accumulates: the CPU clock advances by
  /// ceil(macs * 16 / macs_per_cycle_x16) cycles.
  void compute(std::uint64_t macs) {
    const std::uint64_t rate = desc_.macs_per_cycle_x16 == 0 ? 16 : desc_.macs_per_cycle_x16;
    compute_cycles((macs * 16 + rate - 1) / rate, macs);
  }
  /// The kernel computes for `cycles` cycles (`macs` multiply-accumulates, for the trace): the
  /// executors call this with the target's cost model (tile_compute_cycles).
  void compute_cycles(std::uint64_t cycles, std::uint64_t macs = 0) {
    if (tracing_) trace_.push_back({.kind = event_kind::compute, .begin = cpu_, .end = cpu_ + cycles, .macs = macs, .tag = tag_});
    cpu_ += cycles;
    stats_.compute_cycles += cycles;
    stats_.total_cycles = cpu_;
  }

  /// End of a run: completes every transfer still in flight (oldest first), reporting each one.
  void finish() {
    while (in_flight_ > 0) {
      slot& s = oldest_slot();
      report(hazard_kind::never_waited, "transfer %s", describe(s).c_str());
      retire(s, state::forced);
    }
  }

  /// Forgets everything: clocks, counters, hazards, handles (transfers in flight are dropped).
  void reset() {
    for (slot& s : slots_) s.used = false;
    in_flight_ = 0;
    states_.clear();
    cpu_ = 0;
    engine_free_ = {};
    stats_ = {};
    hazard_counts_ = {};
    log_.clear();
    trace_.clear();  // recording stays on or off, as chosen
    tag_ = -1;
  }

  /// Starts (or stops) keeping the timed events of later calls; events already kept stay.
  void record_trace(bool on = true) { tracing_ = on; }
  bool recording_trace() const { return tracing_; }
  /// The events recorded since the last reset(): each transfer when it is issued, each compute()
  /// (also those of 0 cycles), each stall (wait(), a full queue, finish()) when it ends.
  const std::vector<trace_event>& trace() const { return trace_; }
  /// Tags the events recorded from now on (e.g. with a layer index; -1: none). Costs nothing
  /// when not recording.
  void set_trace_tag(int tag) { tag_ = tag; }

  const dma_stats& stats() const { return stats_; }
  std::uint64_t hazard_count() const {
    std::uint64_t n = 0;
    for (std::uint64_t c : hazard_counts_) n += c;
    return n;
  }
  std::uint64_t hazard_count(hazard_kind k) const { return hazard_counts_[static_cast<std::size_t>(k)]; }
  /// One line per hazard (the first max_log_entries): kind, transfers, offsets and byte counts.
  const std::vector<std::string>& hazard_log() const { return log_; }
  std::size_t in_flight() const { return in_flight_; }
  /// The CPU clock (cycles).
  std::uint64_t now() const { return cpu_; }

 private:
  enum class state : std::uint8_t { in_flight, waited, forced };

  struct slot {
    bool used = false;
    handle id = -1;
    transfer t{};
    std::uint64_t done = 0;  ///< completion time (cycles)
    std::vector<detail::byte_range> dst, src;
  };

  slot& free_slot() {
    for (slot& s : slots_)
      if (!s.used) return s;
    return slots_[0];  // unreachable: start() makes room first
  }
  slot& oldest_slot() {  // handles grow with issue order, so the smallest id is the oldest
    slot* oldest = nullptr;
    for (slot& s : slots_)
      if (s.used && (oldest == nullptr || s.id < oldest->id)) oldest = &s;
    return *oldest;
  }

  void retire(slot& s, state how) {
    copy_now(s.t);
    if (s.done > cpu_) {
      if (tracing_) {
        trace_.push_back({.kind = event_kind::stall, .begin = cpu_, .end = s.done, .id = s.id,
                          .outer_level = s.t.outer_level, .inbound = s.t.inbound, .bytes = s.t.bytes(), .tag = tag_,
                          .compute_engine = s.t.engine});
      }
      stats_.stall_cycles += s.done - cpu_;
      cpu_ = s.done;
    }
    stats_.total_cycles = cpu_;
    s.used = false;
    --in_flight_;
    states_[static_cast<std::size_t>(s.id)] = how;
  }

  /// `level`: its outer level (a bad level is clamped to 1 or 2, as timed); `engine`: the DMA
  /// engine that ran it.
  trace_event transfer_event(const slot& s, int level, std::size_t engine, std::uint64_t begin) const {
    return {.kind = event_kind::transfer,
            .engine = static_cast<int>(engine),
            .begin = begin,
            .end = s.done,
            .id = s.id,
            .outer_level = level,
            .inbound = s.t.inbound,
            .bytes = s.t.bytes(),
            .dst = s.t.dst,
            .src = s.t.src,
            .tag = tag_,
            .compute_engine = s.t.engine};
  }

  std::string describe(const slot& s) const {
    const int l = s.t.outer_level;
    const char* level = (l >= 0 && l < 3) ? desc_.levels[static_cast<std::size_t>(l)].name.c_str() : "?";
    char text[96];
    std::snprintf(text, sizeof text, "#%d (%s %s, %zu bytes)", s.id, s.t.inbound ? "load from" : "store to",
                  level, s.t.bytes());
    return text;
  }

  static std::ptrdiff_t offset(std::uintptr_t address, const void* base) {
    return static_cast<std::ptrdiff_t>(address - reinterpret_cast<std::uintptr_t>(base));
  }

  void check_start(const slot& s) {
    const detail::overlap_result self = detail::overlap_of(s.dst, s.src);
    if (self.bytes > 0) {
      report(hazard_kind::overlapping_transfers, "transfer %s reads and writes the same %llu bytes (first at dst%+td)",
             describe(s).c_str(), static_cast<unsigned long long>(self.bytes), offset(self.first.lo, s.t.dst));
    }
    for (const slot& o : slots_) {
      if (!o.used || &o == &s) continue;
      // One report per conflicting pair: the first relation that holds.
      const char* relation = "destination meets the destination";
      bool on_source = false;  // which side of the new transfer met: offsets are from its start
      detail::overlap_result r = detail::overlap_of(s.dst, o.dst);
      if (r.bytes == 0) {
        relation = "destination meets the source";
        r = detail::overlap_of(s.dst, o.src);
      }
      if (r.bytes == 0) {
        relation = "source meets the destination";
        on_source = true;
        r = detail::overlap_of(s.src, o.dst);
      }
      if (r.bytes == 0) continue;
      report(hazard_kind::overlapping_transfers,
             "new transfer %s: its %s of in-flight %s on %llu bytes (first [%+td, %+td) from the new %s)",
             describe(s).c_str(), relation, describe(o).c_str(), static_cast<unsigned long long>(r.bytes),
             offset(r.first.lo, on_source ? s.t.src : s.t.dst), offset(r.first.hi, on_source ? s.t.src : s.t.dst),
             on_source ? "src" : "dst");
    }
  }

  /// wrong_memory (see bind_memories): the inner side inside the inner memory, the outer outside.
  void check_memories(const slot& s) {
    const int level = s.t.outer_level;
    if (level < 1 || level > 2 || s.t.bytes() == 0) return;
    const detail::byte_range& inner = inner_[static_cast<std::size_t>(level - 1)];
    if (inner.lo == inner.hi) return;
    const std::vector<detail::byte_range>& near = s.t.inbound ? s.dst : s.src;
    const std::vector<detail::byte_range>& far = s.t.inbound ? s.src : s.dst;
    const char* inner_name = desc_.levels[static_cast<std::size_t>(level - 1)].name.c_str();
    for (const detail::byte_range& r : near)
      if (r.lo < inner.lo || r.hi > inner.hi)
        return report(hazard_kind::wrong_memory, "transfer %s: its %s lies outside %s (at %+td from %s's start)",
                      describe(s).c_str(), s.t.inbound ? "destination" : "source", inner_name,
                      static_cast<std::ptrdiff_t>(r.lo - inner.lo), inner_name);
    for (const detail::byte_range& r : far)
      if (r.lo < inner.hi && inner.lo < r.hi)
        return report(hazard_kind::wrong_memory, "transfer %s: its %s lies inside %s, the memory it should leave",
                      describe(s).c_str(), s.t.inbound ? "source" : "destination", inner_name);
  }

  void check_access(const void* p, std::size_t bytes, bool write) {
    if (bytes == 0 || in_flight_ == 0) return;
    const auto lo = reinterpret_cast<std::uintptr_t>(p);
    const std::vector<detail::byte_range> access{{lo, lo + bytes}};
    for (const slot& s : slots_) {
      if (!s.used) continue;
      hazard_kind kind = write ? hazard_kind::write_while_filled : hazard_kind::read_before_wait;
      const char* side = "dst";
      const std::byte* base = s.t.dst;
      detail::overlap_result r = detail::overlap_of(access, s.dst);
      if (r.bytes == 0 && write) {
        kind = hazard_kind::write_while_read;
        side = "src";
        base = s.t.src;
        r = detail::overlap_of(access, s.src);
      }
      if (r.bytes == 0) continue;
      report(kind, "kernel %s of %zu bytes meets in-flight %s on %llu bytes (first [%+td, %+td) of the access, %s%+td)",
             write ? "write" : "read", bytes, describe(s).c_str(), static_cast<unsigned long long>(r.bytes),
             offset(r.first.lo, p), offset(r.first.hi, p), side, offset(r.first.lo, base));
    }
  }

  /// Counts a hazard and logs "<kind>: <printf-formatted details>" while the log has room.
  __attribute__((format(printf, 3, 4))) void report(hazard_kind k, const char* format, ...) {
    ++hazard_counts_[static_cast<std::size_t>(k)];
    if (log_.size() >= max_log_entries) return;
    char text[320];
    const int head = std::snprintf(text, sizeof text, "%s: ", name_of(k));
    std::va_list args;
    va_start(args, format);
    std::vsnprintf(text + head, sizeof text - static_cast<std::size_t>(head), format, args);
    va_end(args);
    log_.emplace_back(text);
  }

  target_desc desc_;
  std::array<slot, MaxInFlight> slots_{};
  std::size_t in_flight_ = 0;
  std::vector<state> states_;  ///< by handle: lets wait() tell "waited twice" from "unknown"
  std::uint64_t cpu_ = 0;          ///< CPU clock (cycles)
  std::array<std::uint64_t, max_dma_engines> engine_free_{};  ///< when each DMA engine finishes its queue (cycles)
  /// The DMA engine that serves a transfer on `path` (clamped into the engines modelled).
  static std::size_t engine_of(const memory_level& path) {
    const std::size_t e = path.dma_engine;
    return e < max_dma_engines ? e : max_dma_engines - 1;
  }
  dma_stats stats_{};
  std::array<std::uint64_t, hazard_kind_count> hazard_counts_{};
  std::array<detail::byte_range, 2> inner_{};  ///< bind_memories: L1, L2 (empty: not bound)
  std::vector<std::string> log_;
  bool tracing_ = false;
  int tag_ = -1;
  std::vector<trace_event> trace_;
};

}  // namespace tessera::dma
