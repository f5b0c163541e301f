// What a step program moves and computes, counted at compile time: steps per kind, transfers
// and bytes per level and direction, DMA queue depth. Tests static_assert on it; reports print it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include <tessera/schedule/emit.hpp>
#include <tessera/schedule/transfers.hpp>

namespace tessera::schedule {

struct program_totals {
  std::int64_t issues = 0, waits = 0, computes = 0, tile_computes = 0;
  /// Indexed by the transfer's outer level: [1] = L2 <-> L1, [2] = L3 <-> L2.
  std::array<std::uint64_t, 3> bytes_in{}, bytes_out{};
  std::array<std::int64_t, 3> transfers_in{}, transfers_out{};
  std::array<std::uint64_t, transfer_role_count> bytes_by_role{};
  int handles = 0;
};

template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN, std::size_t N>
constexpr program_totals totals(const graph_summary<NT, NI, NO, NN>& net, const target_plan<NT, NN>& plan,
                                const step_program<N>& program) {
  program_totals t{};
  t.handles = program.handles;
  for (const step& s : program.steps) {
    switch (s.kind) {
      case step_kind::issue: {
        ++t.issues;
        const transfer_desc d = describe(net, plan, s);
        const auto level = static_cast<std::size_t>(d.outer_level);
        (d.inbound ? t.bytes_in : t.bytes_out)[level] += d.bytes();
        ++(d.inbound ? t.transfers_in : t.transfers_out)[level];
        t.bytes_by_role[static_cast<std::size_t>(s.role)] += d.bytes();
        break;
      }
      case step_kind::wait: ++t.waits; break;
      case step_kind::compute:
        ++t.computes;
        if (s.tile >= 0) ++t.tile_computes;
        break;
      case step_kind::done: break;
    }
  }
  return t;
}

}  // namespace tessera::schedule
