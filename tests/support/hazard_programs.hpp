// Step programs with one hazard each, shared by the compile-fail tests (the checker must name
// it) and tests/runtime/test_schedule_hazards.cpp (the simulated DMA must catch it): the tiny
// feature network planned with a small L1 (many tiles, double buffering), its emitted program,
// one edit per hazard (tests/support/program_surgery.hpp), and `expect_safe<Program>`, which
// instantiates the checker's diagnostic when `Program` has a hazard.
#pragma once

#include <tessera/schedule/hazard_check.hpp>
#include <tessera/tessera.hpp>

#include "program_surgery.hpp"
#include "tiny_networks.hpp"

namespace hazard_test {
using net = tiny::features::network;
inline constexpr tessera::target_desc small_l1{.name = "small",
                                               .levels = {{{"L1", 800, 8, 2, 10}, {"L2", 64 * 1024, 8, 2, 10}}},
                                               .level_count = 2,
                                               .cores = 2};
using run = tessera::tiled_executor<net, tessera::target<small_l1>>;
inline constexpr const auto& program = run::program;
using tessera::schedule::step_kind;
using tessera::schedule::transfer_role;

template <const auto& Program, const auto& Plan = run::plan>
inline constexpr bool expect_safe = tessera::schedule::proven_safe<net::summary, Plan, Program>();

// Tile 1 of conv computes before waiting for its input load: the checker names the layer,
// the tile, the buffer and the hazard.
inline constexpr auto read_before_wait =
    surgery::move(program, surgery::find(program, surgery::is_compute(0, 1)),
                  surgery::find(program, surgery::is(step_kind::wait, transfer_role::input, 0, 1)));

// Tile 2 of conv writes its output slot while the store of tile 0 from that slot is still in
// flight (the wait before the slot's reuse is gone).
inline constexpr auto write_in_flight =
    surgery::erase(program, surgery::find(program, surgery::is(step_kind::wait, transfer_role::output, 0, 0)));

// The load of conv's tile 2 is issued before tile 0's load into the same slot was waited for.
inline constexpr auto refill_in_flight =
    surgery::move(program, surgery::find(program, surgery::is(step_kind::issue, transfer_role::input, 0, 2)),
                  surgery::find(program, surgery::is(step_kind::wait, transfer_role::input, 0, 0)));

// The depthwise layer's first load is issued while conv's first store, which writes rows that
// load reads, is still in flight. (Issued after conv's tile 0 was stored it would be legal:
// the checker knows which of conv's tiles the load's box needs.)
inline constexpr auto read_unproduced =
    surgery::move(program, surgery::find(program, surgery::is(step_kind::issue, transfer_role::input, 1, 0)),
                  surgery::find(program, surgery::is(step_kind::issue, transfer_role::output, 0, 0)) + 1);

// conv's first store is issued before the tile that fills its slot computed.
inline constexpr auto store_before_compute =
    surgery::move(program, surgery::find(program, surgery::is(step_kind::issue, transfer_role::output, 0, 0)),
                  surgery::find(program, surgery::is_compute(0, 0)));

// The classifier's last store is never waited for: the layer is declared done (observers
// would read its output) while the store is in flight.
inline constexpr auto never_waited =
    surgery::erase(program, surgery::find_last(program, surgery::is(step_kind::wait, transfer_role::output, 4)));

// conv's tile 1 is never loaded: its compute would read what the slot held before.
inline constexpr auto stale_read_without_wait =
    surgery::erase(program, surgery::find(program, surgery::is(step_kind::wait, transfer_role::input, 0, 1)));
inline constexpr auto stale_read = surgery::erase(
    stale_read_without_wait, surgery::find(stale_read_without_wait, surgery::is(step_kind::issue, transfer_role::input, 0, 1)));

// conv's first tile claims a prepared scratch (what a previous tile of its filter block left):
// no tile ran before it. And the depthwise layer's first tile claims what conv's last left.
inline constexpr auto prepared_first_tile = surgery::mark_prepared(program, surgery::find(program, surgery::is_compute(0, 0)));
inline constexpr auto prepared_across_layers =
    surgery::mark_prepared(program, surgery::find(program, surgery::is_compute(1, 0)));

// A plan whose conv output slots were laid over its input slots: the emitted program is
// correct step by step, but tile 0 reads and writes the same L1 bytes.
inline constexpr auto overlapping_plan = [] {
  auto p = run::plan;
  p.layers[0].output = p.layers[0].input;
  return p;
}();
}  // namespace hazard_test
