// The compile-time proof that a step program is free of hazards.
//
// `check()` walks the program once, keeping what a careful engineer keeps in mind when reading
// a double-buffered schedule: the transfers in flight on each DMA queue entry (with the exact
// bytes their two sides touch), what every L1 and L2 buffer slot holds (which tile's input,
// which block's filters, which tile's result) and how many reads it still owes, and how far
// each layer's output has reached its tensor. It reports the first step that
//   - reads a buffer before the transfer filling it was waited for, or that holds another
//     tile's data (read_before_wait, stale_read),
//   - writes bytes an in-flight transfer reads or writes (write_in_flight),
//   - starts a transfer whose destination meets an in-flight transfer (refill_in_flight), or
//     overwrites data still owed to a reader (overwrite_live),
//   - uses buffers that overlap or leave their memory level (overlapping_buffers, out_of_bounds),
//   - loads tensor bytes whose producing store has not completed (read_unproduced),
//   - stores an output slot that holds no result for that tile (store_before_compute),
//   - misuses the DMA queue (bad_wait, handle_in_use), or ends with transfers in flight or
//     results never stored (never_waited, lost_output).
// `proven_safe<>()` turns a report into one diagnostic naming the layer, the tile, the buffer
// and the hazard kind. The simulated DMA (dma/simulated_policy.hpp) remains the independent
// check at run time.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include <tessera/core/fixed_name.hpp>
#include <tessera/diagnostics/errors.hpp>
#include <tessera/graph/network.hpp>
#include <tessera/planning/no_op_aliases.hpp>
#include <tessera/planning/target_plan.hpp>
#include <tessera/schedule/emit.hpp>
#include <tessera/schedule/step.hpp>
#include <tessera/schedule/tile_walk.hpp>
#include <tessera/schedule/transfers.hpp>

namespace tessera::schedule {

enum class hazard : std::uint8_t {
  none,
  read_before_wait,
  stale_read,
  write_in_flight,
  refill_in_flight,
  overwrite_live,
  overlapping_buffers,
  out_of_bounds,
  read_unproduced,
  store_before_compute,
  bad_wait,
  handle_in_use,
  never_waited,
  lost_output,
  incomplete_layer,  ///< a layer is declared done while stores of its output are pending
  lost_scratch,      ///< a tile marked `prepared` whose scratch was overwritten or never prepared
};

constexpr const char* name_of(hazard h) {
  constexpr const char* names[] = {"none",           "read before wait",    "stale read",
                                   "write while a transfer is in flight", "refill while in flight",
                                   "overwrite live data", "overlapping buffers", "out of bounds",
                                   "read of unproduced data", "store before compute", "bad wait",
                                   "queue entry in use", "never waited", "lost output", "incomplete layer",
                                   "prepared scratch lost"};
  return names[static_cast<int>(h)];
}

struct hazard_report {
  hazard kind = hazard::none;
  int step = -1;
  int layer = -1;
  std::int64_t tile = -1;
  fixed_name buffer{};  ///< e.g. "L1 input slot 1", "L2 staging slot 0", "tensor conv1_out"
  constexpr bool ok() const { return kind == hazard::none; }
};

namespace check_detail {

enum class area : std::uint8_t { l1, l2, l3, caller, filters };

/// Bytes one side of a transfer or a kernel touches: a range of an area, and for tensors the
/// exact box (two column tiles of one map interleave without sharing a byte).
struct region {
  area where = area::l1;
  std::int32_t tensor = -1;
  std::int64_t lo = 0, hi = 0;
  bool is_box = false;
  map_box box{};
};

constexpr bool meets(const region& a, const region& b) {
  if (a.where != b.where || a.lo >= b.hi || b.lo >= a.hi) return false;
  if (a.where == area::filters) return false;  // read-only constants
  if (a.where == area::caller && a.tensor != b.tensor) return false;
  // Boxes compare element by element only over the same extents (a reader behind a reshape,
  // or one reading an image whole, sees the bytes under other extents: the ranges decide).
  if (a.is_box && b.is_box && a.tensor == b.tensor && a.box.height == b.box.height && a.box.width == b.box.width &&
      a.box.depth == b.box.depth && a.box.elem == b.box.elem)
    return a.box.meets(b.box);
  return true;
}

/// What a buffer slot holds.
struct content {
  transfer_role role = transfer_role::input;  ///< input, filters (index: block), output, stage_filters (index: chunk), spill_input, spill_output
  int layer = -1;
  std::int64_t index = -1;
  int operand = 0;
  friend constexpr bool operator==(const content&, const content&) = default;
};

struct buffer_state {  ///< a live slot (the live ones are kept packed, see `live_`)
  region where{};
  content what{};
  std::int64_t readers = 0;  ///< reads it still owes
  int filling = -1;          ///< queue entry of the transfer filling it, -1 once landed
};

struct flight {
  bool on = false;
  step issued{};
  region src{}, dst{};
};

/// Tiles of a layer whose results reached their tensor: every tile below `prefix`, and the
/// ones flagged in `window` above it (stores complete slightly out of order at a layer's end).
struct progress {
  std::int64_t prefix = 0;
  std::uint64_t window = 0;
  constexpr void complete(std::int64_t tile) {
    if (tile < prefix || tile - prefix >= 64) return;
    window |= std::uint64_t{1} << (tile - prefix);
    while (window & 1u) {
      window >>= 1;
      ++prefix;
    }
  }
};

inline constexpr std::int64_t whole = INT64_MAX / 2;  ///< progress of a layer that ran at once
inline constexpr std::size_t max_buffers = 32;  ///< live slots at once (a layer pair uses about 12)

constexpr void append(fixed_name& n, std::size_t& at, const char* s) {
  while (*s != '\0' && at + 1 < fixed_name::capacity) n.text[at++] = *s++;
}
constexpr void append(fixed_name& n, std::size_t& at, std::int64_t v) {
  char digits[20]{};
  int count = 0;
  do {
    digits[count++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v > 0 && count < 20);
  while (count > 0 && at + 1 < fixed_name::capacity) n.text[at++] = digits[--count];
}

template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN>
class checker {
 public:
  constexpr checker(const graph_summary<NT, NI, NO, NN>& net, const target_plan<NT, NN>& plan)
      : net_(net), plan_(plan), nodes_(net.nodes.data()), layers_(plan.layers.data()) {
    for (int& p : producer_) p = -1;
    for (std::size_t n = 0; n < NN; ++n)
      for (int o = 0; o < net.nodes[n].output_count; ++o)
        producer_[static_cast<std::size_t>(net.nodes[n].outputs[static_cast<std::size_t>(o)])] = static_cast<int>(n);
    // An alias that runs nothing (planning/no_op_aliases.hpp) has no steps: its output's bytes
    // are produced by whatever produced the tensor it aliases.
    const planning_detail::tensor_roots<NT> roots = planning_detail::roots_of(net, plan);
    for (std::size_t t = 0; t < NT; ++t) {
      producer_[t] = producer_[static_cast<std::size_t>(roots.root[t])];
      reshaped_[t] = roots.reshaped[t];
      root_[t] = roots.root[t];
    }
  }

  hazard_report report{};

  constexpr bool visit(const step& s, int index) {
    step_ = index;
    switch (s.kind) {
      case step_kind::issue: start(s); break;
      case step_kind::wait: wait(s); break;
      case step_kind::compute: s.tile < 0 ? compute_whole(s) : compute_tile(s); break;
      case step_kind::done: done(s); break;
    }
    return report.ok();
  }

  constexpr void finish(int steps) {
    step_ = steps;
    for (int i = 0; i < active_count_; ++i) {
      const flight& f = flights_[static_cast<std::size_t>(active_[static_cast<std::size_t>(i)])];
      return fail(hazard::never_waited, f.issued.layer, f.issued.tile, f.dst);
    }
    for (int i = 0; i < live_; ++i) {
      const buffer_state& b = buffers_[static_cast<std::size_t>(i)];
      if (b.what.role == transfer_role::output && b.readers > 0)
        return fail(hazard::lost_output, b.what.layer, b.what.index, b.where);
    }
  }

 private:
  // --- naming -----------------------------------------------------------------------------
  /// "L1 input slot 1", "L2 staging slot 0", "tensor conv", ...: the buffer of the plan that
  /// `r` starts in (the one with the highest start at or below it), as layer `layer` sees L1.
  constexpr fixed_name name(const region& r, int layer) const {
    fixed_name n{};
    std::size_t at = 0;
    if (r.tensor >= 0) {
      append(n, at, "tensor ");
      append(n, at, net_.tensors[static_cast<std::size_t>(r.tensor)].name.c_str());
      return n;
    }
    struct candidate {
      const char* what = nullptr;
      std::size_t offset = 0;
      int slot = -1;
    };
    std::array<candidate, 7> list{};
    if (r.where == area::l1 && layer >= 0) {
      const layer_l1_plan& l = layers_[static_cast<std::size_t>(layer)];
      list = {{{"L1 input", l.input[0], 0}, {"L1 input", l.input[1], 1}, {"L1 output", l.output[0], 0},
               {"L1 output", l.output[1], 1}, {"L1 filters", l.weights[0], 0}, {"L1 filters", l.weights[1], 1},
               {"L1 scratch", l.scratch, -1}}};
    } else if (r.where == area::l2) {
      list = {{{"L2 staging", plan_.staging_slot[0], 0}, {"L2 staging", plan_.staging_slot[1], 1},
               {"L2 spill input", plan_.spill_input_slot[0], 0}, {"L2 spill input", plan_.spill_input_slot[1], 1},
               {"L2 spill output", plan_.spill_output_slot[0], 0}, {"L2 spill output", plan_.spill_output_slot[1], 1},
               {}}};
      if (plan_.staging_bytes + plan_.spill_staging_bytes == 0) list = {};
    }
    const candidate* best = nullptr;
    for (const candidate& c : list)
      if (c.what != nullptr && static_cast<std::int64_t>(c.offset) <= r.lo && (best == nullptr || c.offset > best->offset))
        best = &c;
    if (best == nullptr) {
      append(n, at, r.where == area::l1 ? "L1 bytes " : r.where == area::l2 ? "L2 bytes " : "filters ");
      append(n, at, r.lo);
      return n;
    }
    append(n, at, best->what);
    if (best->slot >= 0) {
      append(n, at, " slot ");
      append(n, at, std::int64_t{best->slot});
    }
    return n;
  }
  constexpr void fail(hazard h, int layer, std::int64_t tile, const region& r) {
    if (!report.ok()) return;
    report = {h, step_, layer, tile, fixed_name::of(name(r, layer).c_str())};  // as a literal's (clang prints it)
  }

  // --- regions ----------------------------------------------------------------------------
  constexpr region tensor_region(int t, const map_box* box) const {
    const auto id = static_cast<std::size_t>(t);
    region r{};
    // An alias that runs nothing under the same extents (a Cast) is its root's bytes and boxes:
    // regions of both compare box by box (meets); under other extents (a reshape), by bytes.
    r.tensor = reshaped_[id] ? t : root_[id];
    const std::int64_t bytes = static_cast<std::int64_t>(net_.tensors[id].bytes());
    std::int64_t base = 0;
    if (plan_.in_l3[id]) {
      r.where = area::l3;
      base = plan_.l3.tensor_offset[id];
    } else if (plan_.l2.tensor_offset[id] >= 0) {
      r.where = area::l2;
      base = plan_.l2.tensor_offset[id];
    } else {
      r.where = area::caller;
    }
    if (box == nullptr) {
      r.lo = base;
      r.hi = base + bytes;
      return r;
    }
    r.is_box = true;
    r.box = *box;
    r.lo = base + box->offset();
    r.hi = base + box->end_offset();
    return r;
  }
  constexpr region side(const endpoint& e, const transfer_desc& d) const {
    if (e.where == space::tensor) return tensor_region(e.index, &d.box);
    region r{};
    r.where = e.where == space::l1 ? area::l1 : e.where == space::l2 ? area::l2 : area::filters;
    r.lo = e.offset;
    r.hi = e.offset + static_cast<std::int64_t>(d.bytes());
    return r;
  }
  constexpr bool in_bounds(const region& r) const {
    if (r.where == area::l1) {  // inside one local memory's used range: plan.local[0] is the CPU's L1
      for (const local_region& m : plan_.local)
        if (r.lo >= static_cast<std::int64_t>(m.base) && r.hi <= static_cast<std::int64_t>(m.base + m.bytes))
          return true;
      return false;
    }
    if (r.where == area::l2 && r.tensor < 0) return r.lo >= 0 && r.hi <= static_cast<std::int64_t>(plan_.l2_bytes);
    return true;
  }
  static constexpr region l1(const l1_span& b) {
    return {area::l1, -1, static_cast<std::int64_t>(b.offset), static_cast<std::int64_t>(b.offset + b.bytes)};
  }

  // --- buffer slots -----------------------------------------------------------------------
  // Live slots are kept packed in buffers_[0, live_) and transfers in flight listed in
  // active_[0, active_count_): the walk costs a few dozen operations per step, so that long
  // programs stay far inside the compiler's constexpr budget.
  constexpr buffer_state* find(const content& c) {
    for (int i = 0; i < live_; ++i)
      if (buffers_[static_cast<std::size_t>(i)].what == c) return &buffers_[static_cast<std::size_t>(i)];
    return nullptr;
  }
  constexpr void release(buffer_state* b) {
    *b = buffers_[static_cast<std::size_t>(--live_)];
  }
  /// A read of the slot holding `c`, expected at `where`; false (and a report) when it fails.
  /// A missing result is a store before compute, unless a kernel reads it in L1 (`in_l1`).
  constexpr bool consume(const content& c, const region& where, int layer, std::int64_t tile, bool in_l1 = false) {
    buffer_state* b = find(c);
    if (b == nullptr || b->where.where != where.where || b->where.lo != where.lo) {
      fail(c.role == transfer_role::output && !in_l1 ? hazard::store_before_compute : hazard::stale_read, layer, tile,
           where);
      return false;
    }
    if (b->filling >= 0) {
      fail(hazard::read_before_wait, layer, tile, where);
      return false;
    }
    if (--b->readers <= 0) release(b);
    return true;
  }
  /// Bytes about to be written (by a kernel or a transfer): nothing in flight may touch them
  /// and no slot may still owe reads of them.
  constexpr bool writable(const region& r, hazard in_flight, int layer, std::int64_t tile) {
    for (int i = 0; i < active_count_; ++i) {
      const flight& f = flights_[static_cast<std::size_t>(active_[static_cast<std::size_t>(i)])];
      if (meets(r, f.src) || meets(r, f.dst)) {
        fail(in_flight, layer, tile, r);
        return false;
      }
    }
    for (int i = 0; i < live_; ++i) {
      const buffer_state& b = buffers_[static_cast<std::size_t>(i)];
      if (b.readers > 0 && meets(r, b.where)) {
        fail(hazard::overwrite_live, layer, tile, b.where);
        return false;
      }
    }
    return true;
  }
  constexpr void hold(const region& r, const content& c, std::int64_t readers, int filling) {
    if (live_ < static_cast<int>(max_buffers)) {
      buffers_[static_cast<std::size_t>(live_++)] = {r, c, readers, filling};
      return;
    }
    fail(hazard::overlapping_buffers, c.layer, c.index, r);  // more live slots than the checker tracks
  }

  // --- production of tensors --------------------------------------------------------------
  /// Whether every byte of `box` (null: the whole tensor) of tensor `t` has been produced.
  constexpr bool produced(int t, const map_box* box) const {
    const int p = producer_[static_cast<std::size_t>(t)];
    if (reshaped_[static_cast<std::size_t>(t)]) box = nullptr;  // a box of a reshape: the whole tensor
    if (p < 0) return true;  // a graph input
    const progress& done = progress_[static_cast<std::size_t>(p)];
    if (done.prefix >= whole) return true;
    const layer_l1_plan& l = layers_[static_cast<std::size_t>(p)];
    if (!l.tiled) return false;
    const tile_geometry& g = nodes_[static_cast<std::size_t>(p)].geometry;
    const std::int64_t needed =
        box != nullptr ? last_tile_meeting(g, l.solution.tile, *box) + 1 : l.solution.cost.tiles;
    return done.prefix >= needed;
  }

  // --- steps ------------------------------------------------------------------------------
  constexpr void start(const step& s) {
    if (s.handle < 0 || s.handle >= max_handles) return fail(hazard::bad_wait, s.layer, s.tile, {});
    const transfer_desc d = describe(net_, plan_, s);
    const region src = side(d.src, d), dst = side(d.dst, d);
    if (!in_bounds(src)) return fail(hazard::out_of_bounds, s.layer, s.tile, src);
    if (!in_bounds(dst)) return fail(hazard::out_of_bounds, s.layer, s.tile, dst);
    if (kept_.on && meets(dst, kept_.where)) kept_.on = false;
    const layer_l1_plan& l = layers_[s.layer];
    const tile_geometry& g = nodes_[s.layer].geometry;
    // What the source must hold.
    switch (s.role) {
      case transfer_role::input:
        if (d.src.where == space::l2) {
          if (!consume({transfer_role::spill_input, s.layer, s.tile, s.operand}, src, s.layer, s.tile)) return;
        } else if (!produced(d.src.index, &d.box)) {
          return fail(hazard::read_unproduced, s.layer, s.tile, src);
        }
        break;
      case transfer_role::spill_input:
        if (!produced(d.src.index, &d.box)) return fail(hazard::read_unproduced, s.layer, s.tile, src);
        break;
      case transfer_role::filters:
        if (d.src.where == space::l2) {
          const int chunk = position(g, l.solution.tile, s.tile).c0 / l.stage_channels;
          const auto at =
              static_cast<std::int64_t>(plan_.staging_slot[s.operand] + consumer_filter_offset(g, l.stage_channels));
          if (!consume({transfer_role::stage_filters, s.layer, chunk, 0}, region{area::l2, -1, at, at + 1}, s.layer, s.tile))
            return;
        }
        break;
      case transfer_role::producer_filters:
        if (d.src.where == space::l2) {
          const int chunk = position(g, l.solution.tile, s.tile).c0 / l.stage_channels;
          const auto at = static_cast<std::int64_t>(plan_.staging_slot[s.operand]);
          if (!consume({transfer_role::stage_producer_filters, s.layer, chunk, 0}, region{area::l2, -1, at, at + 1},
                       s.layer, s.tile))
            return;
        }
        break;
      case transfer_role::output:
        if (!consume({transfer_role::output, s.layer, s.tile, 0}, src, s.layer, s.tile)) return;
        break;
      case transfer_role::spill_output:
        if (!consume({transfer_role::spill_output, s.layer, s.tile, 0}, src, s.layer, s.tile)) return;
        break;
      case transfer_role::stage_filters:
      case transfer_role::stage_producer_filters: break;  // from constant filters
    }
    // The destination must be free of transfers in flight and of data still owed to readers.
    if (!writable(dst, hazard::refill_in_flight, s.layer, s.tile)) return;
    // Only then the queue entry: a reused entry is usually the symptom of one of the above.
    flight& f = flights_[static_cast<std::size_t>(s.handle)];
    if (f.on) return fail(hazard::handle_in_use, s.layer, s.tile, dst);
    // What the destination will hold.
    switch (s.role) {
      case transfer_role::input: hold(dst, {transfer_role::input, s.layer, s.tile, s.operand}, 1, s.handle); break;
      case transfer_role::spill_input:
        hold(dst, {transfer_role::spill_input, s.layer, s.tile, s.operand}, 1, s.handle);
        break;
      case transfer_role::filters:
      case transfer_role::producer_filters:
        hold(dst, {s.role, s.layer, position(g, l.solution.tile, s.tile).block, 0}, grid_of(g, l.solution.tile).per_block(),
             s.handle);
        break;
      case transfer_role::stage_filters:
      case transfer_role::stage_producer_filters: {  // read by each L1 filter block of the chunk
        const filter_chunk c = chunk_of(l, g, s.tile);
        hold(dst, {s.role, s.layer, s.tile, 0}, (c.channels + l.solution.tile.c - 1) / l.solution.tile.c, s.handle);
        break;
      }
      case transfer_role::output:
        if (d.dst.where == space::l2) hold(dst, {transfer_role::spill_output, s.layer, s.tile, 0}, 1, s.handle);
        break;
      case transfer_role::spill_output: break;
    }
    f = {true, s, src, dst};
    active_[static_cast<std::size_t>(active_count_++)] = s.handle;
  }

  constexpr void wait(const step& s) {
    if (s.handle < 0 || s.handle >= max_handles) return fail(hazard::bad_wait, s.layer, s.tile, {});
    flight& f = flights_[static_cast<std::size_t>(s.handle)];
    if (!f.on) return fail(hazard::bad_wait, s.layer, s.tile, {});
    const step& w = f.issued;  // the wait names the transfer it expects: it must be the one in flight
    if (w.role != s.role || w.layer != s.layer || w.tile != s.tile || w.operand != s.operand || w.slot != s.slot)
      return fail(hazard::bad_wait, s.layer, s.tile, f.dst);
    f.on = false;
    for (int i = 0; i < active_count_; ++i)
      if (active_[static_cast<std::size_t>(i)] == s.handle) {
        active_[static_cast<std::size_t>(i)] = active_[static_cast<std::size_t>(--active_count_)];
        break;
      }
    for (int i = 0; i < live_; ++i)
      if (buffers_[static_cast<std::size_t>(i)].filling == s.handle) buffers_[static_cast<std::size_t>(i)].filling = -1;
    // A store into a tensor completes part of the layer's output.
    if ((f.issued.role == transfer_role::output || f.issued.role == transfer_role::spill_output) &&
        f.dst.tensor >= 0)
      progress_[f.issued.layer].complete(f.issued.tile);
  }

  constexpr void compute_tile(const step& s) {
    const layer_l1_plan& l = layers_[s.layer];
    if (!l.tiled || s.tile >= l.solution.cost.tiles) return fail(hazard::stale_read, s.layer, s.tile, {});
    const tile_buffers bufs = buffers_of(net_, plan_, s);
    // A prepared tile keeps what the previous tile of its filter block left in the same scratch.
    const region scratch = l1(bufs.scratch);
    if (s.prepared != 0 && !(kept_.on && kept_.layer == s.layer && kept_.block == bufs.at.block &&
                             kept_.where.lo == scratch.lo && kept_.where.hi == scratch.hi))
      return fail(hazard::lost_scratch, s.layer, s.tile, scratch);
    kept_ = {bufs.scratch.bytes > 0 && s.engine == 0 && bufs.intermediate.bytes == 0, s.layer, bufs.at.block, scratch};
    // What the tile reads (inputs, filters), then what it writes (output, scratch).
    region used[7]{};
    int reads = 0;
    for (int k = 0; k < bufs.operands; ++k) {
      const region r = l1(bufs.inputs[static_cast<std::size_t>(k)]);
      // An operand read in L1 (l1_forwarding.hpp) is its producer's result tile, where it computed it.
      const content what = k == l.forwarded_operand
                               ? content{transfer_role::output,
                                         producer_[static_cast<std::size_t>(nodes_[s.layer].inputs[static_cast<std::size_t>(k)])], 0, 0}
                               : content{transfer_role::input, s.layer, s.tile, k};
      if (!consume(what, r, s.layer, s.tile, k == l.forwarded_operand)) return;
      used[reads++] = r;
    }
    if (bufs.weights.bytes > 0) {
      const region r = l1(bufs.weights);
      if (!consume({transfer_role::filters, s.layer, bufs.at.block, 0}, r, s.layer, s.tile)) return;
      used[reads++] = r;
    }
    if (bufs.producer_weights.bytes > 0) {  // a fused block's producer filters
      const region r = l1(bufs.producer_weights);
      if (!consume({transfer_role::producer_filters, s.layer, bufs.at.block, 0}, r, s.layer, s.tile)) return;
      used[reads++] = r;
    }
    int count = reads;
    const region out = l1(bufs.output);
    used[count++] = out;
    if (bufs.intermediate.bytes > 0) used[count++] = l1(bufs.intermediate);
    if (bufs.scratch.bytes > 0) used[count++] = scratch;
    for (int a = 0; a < count; ++a) {
      if (!in_bounds(used[a])) return fail(hazard::out_of_bounds, s.layer, s.tile, used[a]);
      for (int b = a + 1; b < count; ++b)
        if (meets(used[a], used[b])) return fail(hazard::overlapping_buffers, s.layer, s.tile, used[b]);
    }
    // Reads of bytes a transfer is still writing.
    for (int a = 0; a < reads; ++a)
      for (int i = 0; i < active_count_; ++i)
        if (meets(used[a], flights_[active_[i]].dst)) return fail(hazard::read_before_wait, s.layer, s.tile, used[a]);
    for (int a = reads; a < count; ++a)
      if (!writable(used[a], hazard::write_in_flight, s.layer, s.tile)) return;
    // Its readers: the store, and the next layer when it reads the result in L1.
    const int readers = (l.output_unstored ? 0 : 1) + (l.output_forwarded ? 1 : 0);
    if (readers > 0) hold(out, {transfer_role::output, s.layer, s.tile, 0}, readers, -1);
  }

  constexpr void compute_whole(const step& s) {
    kept_.on = false;
    const node_summary& node = nodes_[s.layer];
    for (int k = 0; k < node.input_count; ++k) {
      const int t = node.inputs[static_cast<std::size_t>(k)];
      const region r = tensor_region(t, nullptr);
      if (!produced(t, nullptr)) return fail(hazard::read_unproduced, s.layer, -1, r);
      for (int i = 0; i < active_count_; ++i)
        if (meets(r, flights_[static_cast<std::size_t>(active_[static_cast<std::size_t>(i)])].dst))
          return fail(hazard::read_before_wait, s.layer, -1, r);
    }
    for (int o = 0; o < node.output_count; ++o) {
      const region r = tensor_region(node.outputs[static_cast<std::size_t>(o)], nullptr);
      if (!writable(r, hazard::write_in_flight, s.layer, -1)) return;
    }
    progress_[s.layer].prefix = whole;
  }

  constexpr void done(const step& s) {
    const layer_l1_plan& l = layers_[s.layer];
    const node_summary& node = nodes_[s.layer];
    for (int o = 0; o < node.output_count; ++o)
      if (!l.output_unstored && !produced(node.outputs[static_cast<std::size_t>(o)], nullptr))
        return fail(hazard::incomplete_layer, s.layer, l.tiled ? l.solution.cost.tiles - 1 : -1,
                    tensor_region(node.outputs[static_cast<std::size_t>(o)], nullptr));
  }

  const graph_summary<NT, NI, NO, NN>& net_;
  const target_plan<NT, NN>& plan_;
  // Plain arrays and pointers on the hot path: GCC evaluates every std::array::operator[] as a
  // function call; C arrays cut the proof's compile time by a quarter and its memory by a fifth
  // (CNN_Linear1 at L1 = 2,336 B, 14,605 steps).
  const node_summary* nodes_;
  const layer_l1_plan* layers_;
  int step_ = 0;
  flight flights_[max_handles]{};
  int active_[max_handles]{};
  int active_count_ = 0;
  buffer_state buffers_[max_buffers]{};
  int live_ = 0;
  progress progress_[NN]{};
  int producer_[NT]{};
  bool reshaped_[NT]{};  ///< seen through a reshape that runs nothing: a box of it is no box of its producer
  int root_[NT]{};       ///< the tensor whose bytes it is (planning_detail::roots_of)
  /// The scratch the last tile computed on, while nothing else has written it.
  struct kept_scratch {
    bool on = false;
    int layer = -1;
    int block = -1;
    region where{};
  } kept_{};
};

}  // namespace check_detail

/// Walks `program` and returns its first hazard (kind none when there is none).
/// Walks steps [begin, end) of `program` with checker `c` (stops at the first hazard).
template <class Checker, std::size_t N>
constexpr void walk(Checker& c, const step_program<N>& program, std::size_t begin, std::size_t end) {
  if (program.out_of_handles && c.report.ok()) c.report.kind = hazard::handle_in_use;
  for (std::size_t i = begin; i < end && i < N && c.report.ok(); ++i) c.visit(program.steps[i], static_cast<int>(i));
  if (end >= N && c.report.ok()) c.finish(static_cast<int>(N));
}

/// Walks `program` and returns its first hazard (kind none when there is none). One constant
/// evaluation: fine for tests and small programs; `proven_safe` splits long programs.
template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN, std::size_t N>
constexpr hazard_report check(const graph_summary<NT, NI, NO, NN>& net, const target_plan<NT, NN>& plan,
                              const step_program<N>& program) {
  if (!plan.fits) return {};
  check_detail::checker<NT, NI, NO, NN> c(net, plan);
  walk(c, program, 0, N);
  return c.report;
}

/// Steps per constant evaluation of the proof (256 under clang, 2,048 under GCC): a step costs a
/// few thousand clang steps, so a proof of tens of thousands of steps is split into chunks that
/// each resume from the previous chunk's checker state.
inline constexpr std::size_t steps_per_chunk = 256 * constexpr_budget_factor;

namespace check_detail {
template <const auto& Net, const auto& Plan, const auto& Program, std::size_t Chunk>
struct checked {
  static constexpr auto state = [] {
    auto c = checked<Net, Plan, Program, Chunk - 1>::state;
    walk(c, Program, Chunk * steps_per_chunk, (Chunk + 1) * steps_per_chunk);
    return c;
  }();
};
template <const auto& Net, const auto& Plan, const auto& Program>
struct checked<Net, Plan, Program, 0> {
  static constexpr auto state = [] {
    checker c(Net, Plan);
    if (Plan.fits) walk(c, Program, 0, steps_per_chunk);
    return c;
  }();
};
}  // namespace check_detail

/// True when `Program` has no hazard; otherwise one diagnostic names the layer, the tile, the
/// buffer, the hazard kind and the step index.
template <const auto& Net, const auto& Plan, const auto& Program>
constexpr bool proven_safe() {
  constexpr std::size_t chunks = Program.size() == 0 ? 1 : (Program.size() + steps_per_chunk - 1) / steps_per_chunk;
  constexpr hazard_report r = check_detail::checked<Net, Plan, Program, chunks - 1>::state.report;
  if constexpr (!r.ok()) {
    diagnostics::schedule_hazard<Net.nodes[static_cast<std::size_t>(r.layer < 0 ? 0 : r.layer)].name, r.tile,
                                 r.buffer, r.kind, r.step>{};
  }
  return r.ok();
}

}  // namespace tessera::schedule
