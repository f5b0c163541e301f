// The step program of a plan: every transfer, wait and compute of a network run, in order.
//
// Per tiled layer the pipeline is: the loads of tile i+1 are issued before tile i computes,
// the store of tile i right after it; before tile i writes an output slot, the store of tile
// i-2 from that slot is waited for. A channel block's filters load with its first tile
// (channel blocks are the outermost tile loop, so filters move once per layer). On
// three-level targets filters come from L3 through double-buffered L2 staging chunks (chunk
// k+1 is staged when chunk k is first needed) and activations the plan spilled to L3 pass
// through double-buffered L2 slots: an input tile moves L3 -> L2 one tile ahead of its L2 -> L1
// load, an output tile L1 -> L2 when stored and L2 -> L3 after the next tile computed.
// Layers that do not tile run as one compute step on their L2 buffers.
//
// Across layers (when consecutive tiled layers sit apart in L1, see place_for_prefetch):
// the next layer's first filter chunk moves L3 -> L2 as soon as this layer needs no more
// staging of its own (two L2 staging slots, chunks alternating across layers), or when it is
// not staged its first filter block moves straight into its L1 slot (behind this layer's last
// tile's loads, or at its start when it is one tile); during this layer's last
// tile the staged chunk moves into L1 and the next layer's first input tile loads when every
// result it reads is stored; this layer's last stores complete beside the next layer's first
// tile, and a load that reads them waits for exactly those.
//
// Aliases that run nothing (planning/no_op_aliases.hpp: a reshape or cast on the same L2 bytes)
// have no steps: the layers on both sides of one are consecutive, and a load of the alias's
// output waits for the stores of the layer that wrote its bytes.
//
// A layer that reads the previous layer's result in L1 (planning/l1_forwarding.hpp) has no load
// for that operand, and the previous layer no store when nothing else reads the result; its other
// operand, if any, loads at its start (its slot may lie over the previous layer's spent buffers).
//
// The emitter writes into a sink. An executor's program is emitted in chunks (`emission`): each
// chunk resumes the emitter where the previous one stopped, in its own constant evaluation, so
// that a long program stays within the compilers' per-evaluation limits; the chunks' steps are
// then counted and joined. `count_steps` and `emit_program` do the same in one evaluation.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>

#include <tessera/graph/network.hpp>
#include <tessera/planning/no_op_aliases.hpp>
#include <tessera/planning/target_plan.hpp>
#include <tessera/schedule/step.hpp>
#include <tessera/schedule/tile_walk.hpp>

namespace tessera::schedule {

/// DMA queue entries a program may use at once (the simulator's default queue depth).
inline constexpr int max_handles = 16;

namespace detail {

struct counting_sink {
  std::size_t size = 0;
  constexpr void push(const step&) { ++size; }
};

template <std::size_t N>
struct filling_sink {
  std::array<step, N> steps{};
  std::size_t size = 0;
  constexpr void push(const step& s) {
    if (size < N) steps[size] = s;
    ++size;
  }
};

template <class Sink, std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN>
class emitter {
 public:
  constexpr emitter(const graph_summary<NT, NI, NO, NN>& net, const target_plan<NT, NN>& plan)
      : net_(net), plan_(plan), roots_(planning_detail::roots_of(net, plan)) {}

  /// Emits the whole program.
  constexpr void run() { resume(static_cast<std::size_t>(-1)); }

  /// Emits from where the last call stopped, one tile (or one untiled layer) at a time, until
  /// the sink holds at least `limit` steps or the program ends; true when it ended. The emitter
  /// is a value (its references name the plan's static objects), so a long program is emitted
  /// in chunks, each in its own constant evaluation (`emitted`).
  constexpr bool resume(std::size_t limit) {
    if (!plan_.fits) return finished_ = true;  // nothing to schedule: the executor reports the plan's failure
    while (!finished_ && sink_.size < limit) {
      if (in_layer_) {
        tile(run_.next_tile++);
        if (run_.next_tile >= run_.count) end_layer();
      } else if (next_node_ < NN) {
        const std::size_t n = next_node_;
        if (has_no_steps(n)) {
          ++next_node_;
        } else if (plan_.layers[n].tiled) {
          begin_layer(static_cast<int>(n));
          if (run_.next_tile >= run_.count) end_layer();
        } else {
          settle_all();
          sink_.push(compute(static_cast<int>(n), -1));
          clock_ += plan_.layers[n].solution.cycles;
          sink_.push(layer_done(static_cast<int>(n)));
          ++next_node_;
        }
      } else {
        settle_all();
        finished_ = true;
      }
    }
    return finished_;
  }

  constexpr Sink& sink() { return sink_; }
  constexpr const Sink& sink() const { return sink_; }
  constexpr bool finished() const { return finished_; }

  int handles_used = 0;  ///< DMA queue entries the program needs
  bool out_of_handles = false;

 private:
  constexpr step start(transfer_role role, int layer, std::int64_t tile, int slot, int operand = 0) {
    int h = 0;
    while (h < max_handles && busy_[static_cast<std::size_t>(h)]) ++h;
    if (h == max_handles) {
      out_of_handles = true;
      h = 0;
    }
    busy_[static_cast<std::size_t>(h)] = true;
    if (h + 1 > handles_used) handles_used = h + 1;
    const step s = issue(role, layer, tile, slot, h, operand);
    sink_.push(s);
    return s;
  }
  constexpr void wait(const step& issued) {
    sink_.push(wait_for(issued));
    busy_[static_cast<std::size_t>(issued.handle)] = false;
  }

  struct pending {  ///< a transfer in flight on a buffer slot
    step s{};
    bool on = false;
  };

  /// A layer's filters in flight (into L1, or into an L2 staging slot): its own and, for a
  /// fused block, the producer's filters (its first layer's) in front of them.
  struct filter_load {
    step own{}, producer{};
    bool fused = false;
  };
  /// What layer n issued for layer n + 1 during its last tile (see open_next).
  struct opening {
    int layer = -1;
    bool has_inputs = false, has_filters = false, chunk_landed = false;
    int chunk_slot = 0;
    std::array<step, 2> in{};
    filter_load filters{};
  };
  constexpr filter_load start_filters(int layer, std::int64_t tile, int slot, int staging_slot = 0) {
    filter_load f{};
    if (net_.nodes[static_cast<std::size_t>(layer)].geometry.fused()) {
      f.producer = start(transfer_role::producer_filters, layer, tile, slot, staging_slot);
      f.fused = true;
    }
    f.own = start(transfer_role::filters, layer, tile, slot, staging_slot);
    return f;
  }
  /// Filter chunk `chunk` of `layer`, L3 -> L2 staging slot `staging_slot` (a fused block's first
  /// layer's filters for the chunk's channels in front).
  constexpr filter_load start_stage(int layer, int chunk, int staging_slot) {
    filter_load f{};
    if (net_.nodes[static_cast<std::size_t>(layer)].geometry.fused()) {
      f.producer = start(transfer_role::stage_producer_filters, layer, chunk, staging_slot);
      f.fused = true;
    }
    f.own = start(transfer_role::stage_filters, layer, chunk, staging_slot);
    return f;
  }
  constexpr void wait_filters(const filter_load& f) {
    if (f.fused) wait(f.producer);
    wait(f.own);
  }

  /// The layers that run, in order: absorbed nodes (fused blocks) and aliases that run nothing
  /// have no steps of their own.
  constexpr bool has_no_steps(std::size_t n) const { return planning_detail::has_no_steps(net_, plan_, n); }
  constexpr int next_layer(int n) const {
    int m = n + 1;
    while (m < static_cast<int>(NN) && has_no_steps(static_cast<std::size_t>(m))) ++m;
    return m;
  }
  constexpr int previous_layer(int m) const {
    int p = m - 1;
    while (p >= 0 && has_no_steps(static_cast<std::size_t>(p))) --p;
    return p;
  }

  // --- across layers ------------------------------------------------------------------------
  // Layer n issues layer n+1's first loads (`opening_`, `early_chunk_`); layer n's last stores
  // complete while layer n+1's first tile computes (`deferred_`).

  /// Whether layer `m` can load while layer `m - 1` computes: both tiled, apart in L1, and
  /// neither passing activations through L3 across the boundary.
  constexpr bool overlaps_previous(int m) const {
    if (m <= 0 || m >= static_cast<int>(NN)) return false;
    const int p = previous_layer(m);
    if (p < 0) return false;
    const layer_l1_plan& a = plan_.layers[static_cast<std::size_t>(p)];
    const layer_l1_plan& b = plan_.layers[static_cast<std::size_t>(m)];
    const node_summary& prev = net_.nodes[static_cast<std::size_t>(p)];
    const node_summary& next = net_.nodes[static_cast<std::size_t>(m)];
    if (!a.tiled || !b.tiled || !planning_detail::apart(a, prev.geometry, b, next.geometry)) return false;
    if (plan_.in_l3[static_cast<std::size_t>(prev.outputs[0])]) return false;
    for (int k = 0; k < next.input_count; ++k)
      if (plan_.in_l3[static_cast<std::size_t>(next.inputs[static_cast<std::size_t>(k)])]) return false;
    return true;
  }

  /// The highest tile of layer `producer` whose stored result tile `tile` of layer `layer` reads.
  constexpr std::int64_t needed_tile(int producer, int layer, std::int64_t tile) const {
    // Through a reshape a box of the operand is no box of the producer's output: all of it.
    const node_summary& reader = net_.nodes[static_cast<std::size_t>(layer)];
    for (int k = 0; k < reader.input_count; ++k)
      if (roots_.reshaped[static_cast<std::size_t>(reader.inputs[static_cast<std::size_t>(k)])] &&
          reads_output_of(layer, k, producer))
        return plan_.layers[static_cast<std::size_t>(producer)].solution.cost.tiles - 1;
    const tile_geometry& g = reader.geometry;
    const tile_position p = loading_position(g, plan_.layers[static_cast<std::size_t>(layer)].solution.tile, tile);
    const auto meeting = [&](int operand) {
      return last_tile_meeting(net_.nodes[static_cast<std::size_t>(producer)].geometry,
                               plan_.layers[static_cast<std::size_t>(producer)].solution.tile, operand_box(g, p, operand));
    };
    const std::int64_t first = meeting(0);
    if (g.whole_operand_bytes == 0) return first;
    const std::int64_t whole = meeting(1);
    return whole > first ? whole : first;
  }

  /// Before tile `tile` of `layer` loads its inputs: waits for the deferred stores of the
  /// previous layer that wrote bytes those loads read.
  constexpr void settle(int layer, std::int64_t tile) {
    if (deferred_layer_ < 0 || !loads_output_of(layer, deferred_layer_)) return;
    const std::int64_t needed = needed_tile(deferred_layer_, layer, tile);
    for (pending& d : deferred_)
      if (d.on && d.s.tile <= needed) {
        wait(d.s);
        d.on = false;
      }
  }
  /// Completes the previous layer: its last stores, then its `done` step.
  constexpr void settle_all() {
    if (deferred_layer_ < 0) return;
    for (pending& d : deferred_)
      if (d.on) {
        wait(d.s);
        d.on = false;
      }
    sink_.push(layer_done(deferred_layer_));
    deferred_layer_ = -1;
  }
  /// Whether operand `k` of `layer` is (an alias of) a tensor `producer` writes.
  constexpr bool reads_output_of(int layer, int k, int producer) const {
    const node_summary& writer = net_.nodes[static_cast<std::size_t>(producer)];
    const int root = roots_.root[static_cast<std::size_t>(net_.nodes[static_cast<std::size_t>(layer)].inputs[static_cast<std::size_t>(k)])];
    for (int o = 0; o < writer.output_count; ++o)
      if (root == writer.outputs[static_cast<std::size_t>(o)]) return true;
    return false;
  }
  /// Whether `layer` loads a tensor `producer` writes, or an alias of one (an operand it reads
  /// in L1 aside: see layer_l1_plan::forwarded_operand).
  constexpr bool loads_output_of(int layer, int producer) const {
    const int forwarded = l1_of(layer).forwarded_operand;
    for (int k = 0; k < net_.nodes[static_cast<std::size_t>(layer)].input_count; ++k)
      if (k != forwarded && reads_output_of(layer, k, producer)) return true;
    return false;
  }

  /// Two L2 staging slots: the next filter chunk can land while the current one feeds L1.
  constexpr bool two_staging_slots() const { return plan_.staging_slot[1] != plan_.staging_slot[0]; }
  /// The staging slot of the next L3 -> L2 filter chunk: chunks alternate across layers.
  constexpr int take_staging_slot() {
    const int slot = next_staging_slot_;
    if (two_staging_slots()) next_staging_slot_ ^= 1;
    return slot;
  }

  /// The tiled layer with filters whose first filters load next after `layer`'s, or -1.
  /// Staging reaches past layers without filters (a residual Add, a requantization, a pool) and
  /// past layers that run untiled on L2 (a Gather): they need no staging slot, and their compute
  /// is short, so the next filtered layer's first chunk (1 B/cycle from L3 on gap8) starts
  /// behind `layer` already.
  constexpr int next_filters_of(int layer) const {
    int m = next_layer(layer);
    const auto passes = [&](int k) {
      return k < static_cast<int>(NN) && (!plan_.layers[static_cast<std::size_t>(k)].tiled ||
                                          net_.nodes[static_cast<std::size_t>(k)].geometry.weight_bytes_per_channel == 0);
    };
    int ahead = m;
    while (passes(ahead)) ahead = next_layer(ahead);
    if (ahead != m && ahead < static_cast<int>(NN) && plan_.layers[static_cast<std::size_t>(ahead)].tiled &&
        plan_.layers[static_cast<std::size_t>(ahead)].stage_channels > 0)
      m = ahead;
    if (m >= static_cast<int>(NN) || !plan_.layers[static_cast<std::size_t>(m)].tiled) return -1;
    return net_.nodes[static_cast<std::size_t>(m)].geometry.weight_bytes_per_channel > 0 ? m : -1;
  }

  /// As soon as `layer` needs no more L2 staging of its own (its last filter chunk has landed,
  /// or it stages none): the next layer's first filter chunk moves L3 -> L2 behind this whole
  /// layer, or, on two-level targets, its first filter block moves straight into its L1 slot.
  constexpr void open_next_filters(int layer, bool layer_staged) {
    const int m = next_filters_of(layer);
    if (m < 0) return;
    if (second_chunk_.on && second_chunk_.layer == m) {  // staged two layers ahead already
      early_chunk_ = second_chunk_;
      second_chunk_.on = false;
      return;
    }
    const layer_l1_plan& l = plan_.layers[static_cast<std::size_t>(m)];
    if ((early_chunk_.on && early_chunk_.layer == m) || (opening_.layer == m && opening_.has_filters)) return;
    if (l.stage_channels > 0) {
      if (layer_staged && !two_staging_slots()) return;  // the one slot still feeds this layer
      const int slot = take_staging_slot();
      early_chunk_ = {m, start_stage(m, 0, slot), slot, true, landing_of(m)};
    } else if (overlaps_previous(m) && deferred_layer_ < 0) {  // L1 bytes of the layer before may still drain
      if (opening_.layer != m) opening_ = {};
      opening_.layer = m;
      opening_.filters = start_filters(m, 0, 0);
      opening_.has_filters = true;
    }
  }

  /// During the last tile of `layer`: the next layer's first filter block moves from L2 staging
  /// into L1, and its first input tile loads when the stores it reads have completed.
  constexpr void open_next(int layer, const std::array<pending, 2>& stores) {
    const int m = next_layer(layer);
    if (!overlaps_previous(m)) return;
    // Layer m shares L1's side with layer - 1, whose last stores may still drain (a one-tile
    // layer has not settled them yet). Issued before this layer's loads, they have landed by
    // now: waiting costs nothing and frees the bytes. A store held behind this layer's loads
    // (holds_last_store) has not: it is waited only if layer m needs it (loads its result, or
    // has buffers on its slot).
    if (needs_deferred_stores(m)) settle_all();
    const node_summary& next = net_.nodes[static_cast<std::size_t>(m)];
    if (opening_.layer != m) opening_ = {};
    opening_.layer = m;
    // Only a chunk that has landed by now on the modelled clock moves into L1 during this tile:
    // one issued at this one-tile layer's own start, say, would stall the CPU for a whole L3
    // transfer here. It moves into L1 at layer m's start instead, after this layer's compute.
    if (early_chunk_.on && early_chunk_.layer == m && early_chunk_.lands_at <= clock_) {  // into L1 now
      wait_filters(early_chunk_.s);
      early_chunk_.on = false;
      opening_.chunk_landed = true;
      opening_.chunk_slot = early_chunk_.slot;
      opening_.filters = start_filters(m, 0, 0, early_chunk_.slot);
      opening_.has_filters = true;
    } else if (!opening_.has_filters && next.geometry.weight_bytes_per_channel > 0 &&
               plan_.layers[static_cast<std::size_t>(m)].stage_channels == 0) {
      opening_.filters = start_filters(m, 0, 0);
      opening_.has_filters = true;
    }
    // Inputs: only when every result of this layer they read is stored (the current tile's is
    // not yet).
    if (loads_output_of(m, layer)) {
      const std::int64_t needed = needed_tile(layer, m, 0);
      if (needed >= plan_.layers[static_cast<std::size_t>(layer)].solution.cost.tiles - 1) return;
      for (const pending& o : stores)
        if (o.on && o.s.tile <= needed) return;  // still in flight: load it at the layer's start
    }
    // A layer that reads this one's result in L1 loads its other operand at its start: its slot
    // may lie over this layer's buffers (l1_forwarding.hpp place_forwarded).
    if (l1_of(m).forwarded_operand >= 0) return;
    for (int k = 0; k < next.input_count && k < 2; ++k)
      opening_.in[static_cast<std::size_t>(k)] = start(transfer_role::input, m, 0, 0, k);
    opening_.has_inputs = true;
  }

  // --- one tiled layer, a tile at a time ----------------------------------------------------
  // The pipeline's state between tiles lives in `run_`, so that emission can stop after any tile
  // and resume in another constant evaluation.

  struct staged_output {  ///< an output tile waiting in an L2 spill slot for its move to L3
    bool on = false;
    int l1_slot = 0;
    std::int64_t tile = 0;
  };
  struct layer_run {
    int layer = -1;
    std::int64_t count = 0;      ///< the layer's tiles
    std::int64_t next_tile = 0;  ///< the tile `tile()` computes next
    int operands = 0;
    bool has_weights = false, doubled = false, staged = false, keeps = false;
    std::array<bool, 2> spilled_in{};
    bool any_spilled_in = false, spilled_out = false;
    std::array<std::array<step, 2>, 2> in{};  // [slot][operand]
    std::array<filter_load, 2> weights{};
    std::array<pending, 2> out{};
    std::array<filter_load, 2> chunk{};
    int current_chunk = -1;
    std::array<int, 2> chunk_at{};               // staging slot of chunk k, by k % 2
    std::array<std::array<step, 2>, 2> spill_in{};  // [tile parity][operand]
    std::array<pending, 2> l3_store{};
    std::array<staged_output, 2> staged_out{};
    int previous_block = -1;  ///< the filter block of the tile computed last
  };

  constexpr const node_summary& node_of(int layer) const { return net_.nodes[static_cast<std::size_t>(layer)]; }
  constexpr const layer_l1_plan& l1_of(int layer) const { return plan_.layers[static_cast<std::size_t>(layer)]; }
  constexpr tile_position position_of(std::int64_t i) const {
    return position(node_of(run_.layer).geometry, l1_of(run_.layer).solution.tile, i);
  }
  constexpr int slot(std::int64_t i) const { return run_.doubled ? static_cast<int>(i % 2) : 0; }
  constexpr int weight_slot(int block) const {
    return l1_of(run_.layer).solution.cost.constants_doubled ? block % 2 : 0;
  }
  constexpr bool opens_block(std::int64_t i) const {
    return i == 0 || position_of(i - 1).block != position_of(i).block;
  }
  constexpr void stage(int k) {
    const int sl = take_staging_slot();
    run_.chunk[static_cast<std::size_t>(k % 2)] = start_stage(run_.layer, k, sl);
    run_.chunk_at[static_cast<std::size_t>(k % 2)] = sl;
  }
  constexpr void stage_in(std::int64_t j) {
    for (int k = 0; k < run_.operands; ++k)
      if (run_.spilled_in[static_cast<std::size_t>(k)])
        run_.spill_in[static_cast<std::size_t>(j % 2)][static_cast<std::size_t>(k)] =
            start(transfer_role::spill_input, run_.layer, j, static_cast<int>(j % 2), k);
  }
  /// Moves the output tile waiting in L2 spill slot `sl` on to L3.
  constexpr void drain(int sl) {
    staged_output& so = run_.staged_out[static_cast<std::size_t>(sl)];
    if (!so.on) return;
    pending& from = run_.out[static_cast<std::size_t>(so.l1_slot)];
    if (from.on) {  // its L1 -> L2 store must have landed
      wait(from.s);
      from.on = false;
    }
    run_.l3_store[static_cast<std::size_t>(sl)] = {start(transfer_role::spill_output, run_.layer, so.tile, sl), true};
    so.on = false;
  }
  /// The current layer's last filter block has moved out of its staging slot, while the next
  /// filtered layer's (one) chunk waits in the other: when L3 has a DMA engine of its own, the
  /// freed slot takes the first chunk of the filtered layer after that one, so that L3 keeps
  /// streaming during this layer's remaining compute (one engine would serve it before the next
  /// layer's first loads instead).
  constexpr void stage_second_ahead() {
    if (!plan_.l3_streams || !two_staging_slots() || !early_chunk_.on || second_chunk_.on) return;
    if (l1_of(early_chunk_.layer).stage_chunks != 1) return;
    const int m = next_filters_of(early_chunk_.layer);
    if (m < 0 || l1_of(m).stage_channels == 0) return;
    const int slot = take_staging_slot();
    second_chunk_ = {m, start_stage(m, 0, slot), slot, true, landing_of(m)};
  }
  /// Whether layer `m` has buffers on output slot `slot` of `layer` (its forwarded operand, that
  /// slot itself, aside: read, not written).
  constexpr bool meets_output_slot(int m, int layer, int slot) const {
    planning_detail::l1_ranges mine{};
    planning_detail::add_ranges(mine, l1_of(m), node_of(m).geometry, true);
    const layer_l1_plan& l = l1_of(layer);
    const std::size_t at = l.output[static_cast<std::size_t>(slot)];
    return mine.meets(planning_detail::l1_range{at, at + l.solution.cost.output_bytes});
  }
  /// Whether layer `m` loads the result of the layer whose stores are deferred, or has buffers
  /// on the L1 slot of one still in flight.
  constexpr bool needs_deferred_stores(int m) const {
    if (deferred_layer_ < 0) return false;
    if (loads_output_of(m, deferred_layer_)) return true;
    for (const pending& d : deferred_)
      if (d.on && meets_output_slot(m, deferred_layer_, d.s.slot)) return true;
    return false;
  }
  /// Whether `layer`'s last store (from L1 slot `slot`) waits to be issued until the next
  /// layer's first loads are: that layer loads none of the result (it reads it in L1, or not at
  /// all) and has no buffer on the slot the store reads, so nothing it does needs the store,
  /// while its first loads, queued behind the store on the same engine, would hold its first
  /// tile back. The store lands while that tile computes, as deferred stores do. Not when the
  /// result spills to L3: its last tile leaves L2 for L3 at the layer's end (drain), which
  /// waits for the store.
  constexpr bool holds_last_store(int layer, int slot) const {
    const int m = next_layer(layer);
    if (m >= static_cast<int>(NN) || !l1_of(m).tiled || loads_output_of(m, layer)) return false;
    if (plan_.in_l3[static_cast<std::size_t>(node_of(layer).outputs[0])]) return false;
    return !meets_output_slot(m, layer, slot);
  }
  /// Whether tile `i` of the current layer opens a filter block in a staging chunk it has not
  /// waited for.
  constexpr bool needs_new_chunk(std::int64_t i) const {
    if (!run_.staged || !opens_block(i)) return false;
    return position_of(i).c0 / l1_of(run_.layer).stage_channels != run_.current_chunk;
  }
  /// Issues the loads of tile `i` (`mine`: what the previous layer already moved for this one).
  constexpr void load(std::int64_t i, const opening& mine = {}) {
    layer_run& r = run_;
    const int layer = r.layer;
    const layer_l1_plan& l = l1_of(layer);
    const tile_position p = position_of(i);
    const int s = slot(i);
    if (i == 0 && mine.has_inputs) {  // loaded during the previous layer
      for (int k = 0; k < r.operands && k < 2; ++k) r.in[0][static_cast<std::size_t>(k)] = mine.in[static_cast<std::size_t>(k)];
    } else {
      settle(layer, i);
      for (int k = 0; k < r.operands; ++k) {
        if (k == l.forwarded_operand) continue;  // computed into this slot by the layer before
        if (r.spilled_in[static_cast<std::size_t>(k)]) wait(r.spill_in[static_cast<std::size_t>(i % 2)][static_cast<std::size_t>(k)]);
        r.in[static_cast<std::size_t>(s)][static_cast<std::size_t>(k)] = start(transfer_role::input, layer, i, s, k);
      }
    }
    if (r.any_spilled_in && i + 1 < r.count) stage_in(i + 1);
    if (r.has_weights && opens_block(i)) {
      int staging_slot = 0;
      bool last_chunk_landed = false;
      if (r.staged) {
        const int k = p.c0 / l.stage_channels;
        if (k != r.current_chunk) {  // the chunk must have landed before L1 reads it
          wait_filters(r.chunk[static_cast<std::size_t>(k % 2)]);
          r.current_chunk = k;
          if (k + 1 < l.stage_chunks) stage(k + 1);
          else last_chunk_landed = true;
        }
        staging_slot = r.chunk_at[static_cast<std::size_t>(k % 2)];
      }
      const int ws = weight_slot(p.block);
      if (i == 0 && mine.has_filters) r.weights[0] = mine.filters;
      else r.weights[static_cast<std::size_t>(ws)] = start_filters(layer, i, ws, staging_slot);
      // The next layer's first chunk queues behind this tile's filters, not in front of them:
      // the engine serves transfers in issue order, and this tile waits for its filters.
      if (last_chunk_landed) open_next_filters(layer, true);
    }
  }

  /// The steps before a tiled layer's first tile computes.
  constexpr void begin_layer(int layer) {
    const node_summary& node = node_of(layer);
    const tile_geometry& g = node.geometry;
    const layer_l1_plan& l = l1_of(layer);
    run_ = {};
    layer_run& r = run_;
    r.layer = layer;
    r.count = l.solution.cost.tiles;
    r.operands = node.input_count;
    r.has_weights = g.weight_bytes_per_channel > 0;
    r.doubled = l.solution.cost.activations_doubled;
    r.staged = r.has_weights && l.stage_channels > 0;
    for (int k = 0; k < r.operands && k < 2; ++k)
      r.spilled_in[static_cast<std::size_t>(k)] = plan_.in_l3[static_cast<std::size_t>(node.inputs[static_cast<std::size_t>(k)])];
    r.any_spilled_in = r.spilled_in[0] || r.spilled_in[1];
    r.spilled_out = plan_.in_l3[static_cast<std::size_t>(node.outputs[0])];
    in_layer_ = true;

    // What the previous layer already moved for this one.
    const opening mine = opening_.layer == layer ? opening_ : opening{};
    opening_ = {};
    if (r.staged) {
      if (mine.chunk_landed) {  // chunk 0 landed and fed L1 during the previous layer
        r.current_chunk = 0;
        r.chunk_at[0] = mine.chunk_slot;
        if (l.stage_chunks > 1) stage(1);
      } else if (early_chunk_.on && early_chunk_.layer == layer) {  // staged behind the previous layer
        r.chunk[0] = early_chunk_.s;
        r.chunk_at[0] = early_chunk_.slot;
        early_chunk_.on = false;
      } else {
        stage(0);
      }
    }
    if (r.any_spilled_in) stage_in(0);
    load(0, mine);
    // Unstaged, a layer of several tiles opens the next layer's filters with its last tile's
    // loads (below), not here: in front of its own tiles' loads they would delay them.
    if (r.staged ? mine.chunk_landed && l.stage_chunks == 1 : r.count == 1) open_next_filters(layer, r.staged);
    if (held_store_.on) {  // the previous layer's last store, behind this layer's first loads
      deferred_[static_cast<std::size_t>(held_store_.slot)] = {
          start(transfer_role::output, held_store_.layer, held_store_.tile, held_store_.slot), true};
      held_store_.on = false;
    }
    // Whether a tile may keep its kernel's preparation (step::prepared): the layer's kind (the
    // cost model's rule, on the CPU), and the previous tile's filter block (tracked here: a
    // position() per tile is what long programs spend their constexpr budget on).
    r.keeps = l.engine == 0 && keeps_preparation(g, l.solution.cost.scratch_bytes);
  }

  /// Tile `i` of the current layer: wait for its loads, prefetch the next, compute, store.
  constexpr void tile(std::int64_t i) {
    layer_run& r = run_;
    const int layer = r.layer;
    const tile_position p = position_of(i);
    const int s = slot(i);
    const int ws = weight_slot(p.block);
    const int forwarded = l1_of(layer).forwarded_operand;
    for (int k = 0; k < r.operands; ++k)
      if (k != forwarded) wait(r.in[static_cast<std::size_t>(s)][static_cast<std::size_t>(k)]);
    if (r.has_weights && opens_block(i)) {
      wait_filters(r.weights[static_cast<std::size_t>(ws)]);
      if (r.staged && p.c0 + p.c >= node_of(layer).geometry.out_c) stage_second_ahead();
    }
    // Prefetch into the other slots, unless tile i + 1 needs a filter chunk that has not landed
    // yet: waiting for it here would hold this tile's compute; it loads after the compute.
    const bool early = r.doubled && i + 1 < r.count && !needs_new_chunk(i + 1);
    if (early) load(i + 1);
    pending& o = r.out[static_cast<std::size_t>(s)];
    if (o.on) {  // the store of tile i-2 (or i-1) still reads this slot
      wait(o.s);
      o.on = false;
    }
    if (i + 1 == r.count) open_next(layer, r.out);
    // The compute engine: 0 the CPU (its cores share the tile), k an accelerator.
    step c = compute(layer, i, s, r.has_weights ? ws : 0, l1_of(layer).engine);
    c.prepared = r.keeps && p.block == r.previous_block;
    r.previous_block = p.block;
    sink_.push(c);
    clock_ += l1_of(layer).solution.cycles / static_cast<std::uint64_t>(r.count);
    if (i == 0) {
      settle_all();  // the previous layer's last stores ran beside this first tile
      if (!r.staged && r.count == 1) open_next_filters(layer, false);
    }
    if (r.spilled_out) {
      const int sl = static_cast<int>(i % 2);
      drain(1 - sl);  // tile i-1: L2 -> L3
      pending& l3 = r.l3_store[static_cast<std::size_t>(sl)];
      if (l3.on) {  // tile i-2 still leaves this L2 slot
        wait(l3.s);
        l3.on = false;
      }
      r.staged_out[static_cast<std::size_t>(sl)] = {true, s, i};
    }
    if (!l1_of(layer).output_unstored) {
      if (i + 1 == r.count && holds_last_store(layer, s)) held_store_ = {layer, s, i, true};
      else o = {start(transfer_role::output, layer, i, s), true};
    }
    if (!early && i + 1 < r.count) load(i + 1);
    // The next layer's first filters queue behind the last tile's loads: they land while the
    // last tile computes (the window the latency model credits, planning/target_plan.hpp).
    // Measured against opening them behind the second tile's loads: ToyADMOS on siracusa
    // (latency objective) 45,026 cycles against 47,378, ResNet-8 on the DIANA-like preset's
    // CPU/engine mix 199,073 against 196,329; a rule from each tile's slack is left to do.
    if (!r.staged && i + 2 == r.count) open_next_filters(layer, false);
  }

  /// The steps after a tiled layer's last tile.
  constexpr void end_layer() {
    layer_run& r = run_;
    in_layer_ = false;
    ++next_node_;
    if (r.spilled_out) {
      drain(static_cast<int>((r.count - 1) % 2));
      for (pending& l3 : r.l3_store)
        if (l3.on) wait(l3.s);
    }
    if (overlaps_previous(next_layer(r.layer))) {  // the next layer's first tile computes while these land
      deferred_ = r.out;
      deferred_layer_ = r.layer;
      return;
    }
    for (pending& o : r.out)
      if (o.on) wait(o.s);
    if (held_store_.on && held_store_.layer == r.layer) {  // only it lands beside the next layer's first tile
      deferred_ = {};
      deferred_layer_ = r.layer;
      return;
    }
    sink_.push(layer_done(r.layer));
  }

  const graph_summary<NT, NI, NO, NN>& net_;
  const target_plan<NT, NN>& plan_;
  planning_detail::tensor_roots<NT> roots_{};
  Sink sink_{};
  bool busy_[max_handles]{};  // a C array: cheaper for GCC to evaluate than std::array
  opening opening_{};
  struct early_chunk {
    int layer = -1;
    filter_load s{};
    int slot = 0;
    bool on = false;
    std::uint64_t lands_at = 0;  ///< when it lands on the modelled clock (landing_of)
  };
  early_chunk early_chunk_{};
  early_chunk second_chunk_{};  ///< the first chunk of the filtered layer after early_chunk_'s
  struct held_output {  ///< a layer's last store, issued behind the next layer's first loads
    int layer = -1, slot = 0;
    std::int64_t tile = 0;
    bool on = false;
  };
  held_output held_store_{};
  /// Modelled compute time of the steps emitted so far (the layers' modelled cycles, a tile's
  /// share each): a lower bound of when the CPU gets there, since stalls only add to it.
  std::uint64_t clock_ = 0;
  /// When the first filter chunk of `layer`, issued now, lands on the modelled clock: its L3
  /// transfers (a fused block's first-layer filters, then its own) from now, ignoring transfers
  /// queued before it.
  constexpr std::uint64_t landing_of(int layer) const {
    const tile_geometry& g = node_of(layer).geometry;
    const layer_l1_plan& l = l1_of(layer);
    const int channels = l.stage_channels < g.out_c ? l.stage_channels : g.out_c;
    return clock_ + plan_.l3_level.transfer_cycles(producer_filter_bytes(g, channels)) +
           plan_.l3_level.transfer_cycles(g.weight_bytes_per_channel * static_cast<std::size_t>(channels));
  }
  int next_staging_slot_ = 0;
  std::array<pending, 2> deferred_{};
  int deferred_layer_ = -1;
  // Where emission stands: the next node, and whether a tiled layer is under way (`run_`).
  std::size_t next_node_ = 0;
  bool in_layer_ = false;
  bool finished_ = false;
  layer_run run_{};
};

}  // namespace detail

/// A network's schedule on a target: the steps in execution order and the DMA queue entries
/// the replay needs.
template <std::size_t N>
struct step_program {
  std::array<step, N> steps{};
  int handles = 0;
  bool out_of_handles = false;  ///< the emitter needed more than max_handles entries (a bug)
  static constexpr std::size_t size() { return N; }
};

template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN>
constexpr std::size_t count_steps(const graph_summary<NT, NI, NO, NN>& net, const target_plan<NT, NN>& plan) {
  detail::emitter<detail::counting_sink, NT, NI, NO, NN> e(net, plan);
  e.run();
  return e.sink().size;
}

/// The whole program in one constant evaluation (tests, small programs; an executor takes
/// `emitted_program`, which splits long ones).
template <std::size_t N, std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN>
constexpr step_program<N> emit_program(const graph_summary<NT, NI, NO, NN>& net, const target_plan<NT, NN>& plan) {
  detail::emitter<detail::filling_sink<N>, NT, NI, NO, NN> e(net, plan);
  e.run();
  step_program<N> program{};
  program.steps = e.sink().steps;
  program.handles = e.handles_used;
  program.out_of_handles = e.out_of_handles;
  return program;
}

/// Program steps per constant evaluation of the emitter (1,024 under clang, 8,192 under GCC). A
/// step costs the emitter some hundred clang steps, so a program of thousands of tiles (a small
/// L1) is emitted in chunks, each resuming the previous chunk's emitter, as the hazard proof is
/// checked in chunks (`steps_per_chunk`).
inline constexpr std::size_t steps_per_emission = 1024 * constexpr_budget_factor;

namespace detail {
/// The steps one unit of emission (a tile, or a layer that does not tile, with the steps around
/// it) may add beyond a chunk's limit; emission checks it (`emission::fits_chunks`).
inline constexpr std::size_t unit_steps_bound = 512;
template <std::size_t Limit>
using chunk_sink = filling_sink<Limit + unit_steps_bound>;

template <class Sink, std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN>
constexpr emitter<Sink, NT, NI, NO, NN> emitter_of(const graph_summary<NT, NI, NO, NN>& net,
                                                   const target_plan<NT, NN>& plan) {
  return {net, plan};
}

/// The emitter after chunk `Chunk` (of at least `Limit` steps each), with that chunk's steps
/// in its sink.
template <const auto& Net, const auto& Plan, std::size_t Limit, std::size_t Chunk>
struct emitted {
  static constexpr auto state = [] {
    auto e = emitted<Net, Plan, Limit, Chunk - 1>::state;
    e.sink() = {};
    e.resume(Limit);
    return e;
  }();
};
template <const auto& Net, const auto& Plan, std::size_t Limit>
struct emitted<Net, Plan, Limit, 0> {
  static constexpr auto state = [] {
    auto e = emitter_of<chunk_sink<Limit>>(Net, Plan);
    e.resume(Limit);
    return e;
  }();
};

/// The number of chunks: the first whose emitter finished, plus one.
template <const auto& Net, const auto& Plan, std::size_t Limit, std::size_t Chunk = 0>
constexpr std::size_t emitted_chunks() {
  if constexpr (emitted<Net, Plan, Limit, Chunk>::state.finished()) {
    return Chunk + 1;
  } else {
    return emitted_chunks<Net, Plan, Limit, Chunk + 1>();
  }
}
}  // namespace detail

/// The program of `Plan`, emitted in chunks of at least `Limit` steps (the last may hold fewer),
/// each in its own constant evaluation, and joined: the same steps as `emit_program`.
template <const auto& Net, const auto& Plan, std::size_t Limit = steps_per_emission>
struct emission {
  static constexpr std::size_t chunks = detail::emitted_chunks<Net, Plan, Limit>();

 private:
  using sink = detail::chunk_sink<Limit>;
  template <std::size_t... K>
  static constexpr auto sinks(std::index_sequence<K...>) {
    return std::array<const sink*, chunks>{&detail::emitted<Net, Plan, Limit, K>::state.sink()...};
  }
  static constexpr auto chunk_sinks = sinks(std::make_index_sequence<chunks>{});
  static constexpr auto& last = detail::emitted<Net, Plan, Limit, chunks - 1>::state;

 public:
  /// Every chunk's steps stayed within its sink (a unit added at most unit_steps_bound).
  static constexpr bool fits_chunks = [] {
    for (const sink* c : chunk_sinks)
      if (c->size > c->steps.size()) return false;
    return true;
  }();
  static_assert(fits_chunks, "tessera: a unit of the schedule emitted more steps than unit_steps_bound");
  static constexpr std::size_t size = [] {
    std::size_t n = 0;
    for (const sink* c : chunk_sinks) n += c->size;
    return n;
  }();
  static constexpr step_program<size> program = [] {
    step_program<size> p{};
    // Through pointers: clang counts std::array's operator[] as calls, about twice the steps
    // (a 100,000-step program would not join within its 2^20).
    step* out = p.steps.data();
    for (const sink* c : chunk_sinks) {
      const step* in = c->steps.data();
      for (std::size_t i = 0; i < c->size; ++i) *out++ = in[i];
    }
    p.handles = last.handles_used;
    p.out_of_handles = last.out_of_handles;
    return p;
  }();
};

/// The program of `Plan` (see `emission`).
template <const auto& Net, const auto& Plan>
inline constexpr const auto& emitted_program = emission<Net, Plan>::program;

}  // namespace tessera::schedule
