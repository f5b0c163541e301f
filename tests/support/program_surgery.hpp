// Hand edits of step programs for the hazard tests: find a step, erase it, move it. Each edit
// returns a new program (constexpr), so a test can feed it to the compile-time checker and
// replay it through the simulated DMA.
#pragma once

#include <cstddef>

#include <tessera/schedule/emit.hpp>

namespace surgery {

using tessera::schedule::step;
using tessera::schedule::step_kind;
using tessera::schedule::step_program;
using tessera::schedule::transfer_role;

/// Index of the `nth` step (0-based) for which `match(step)` holds, or -1.
template <std::size_t N, class Match>
constexpr int find(const step_program<N>& p, Match match, int nth = 0) {
  for (std::size_t i = 0; i < N; ++i)
    if (match(p.steps[i]) && nth-- == 0) return static_cast<int>(i);
  return -1;
}

template <std::size_t N, class Match>
constexpr int find_last(const step_program<N>& p, Match match) {
  for (std::size_t i = N; i-- > 0;)
    if (match(p.steps[i])) return static_cast<int>(i);
  return -1;
}

template <std::size_t N>
constexpr step_program<N - 1> erase(const step_program<N>& p, int at) {
  step_program<N - 1> out{};
  out.handles = p.handles;
  for (std::size_t i = 0, j = 0; i < N; ++i)
    if (static_cast<int>(i) != at) out.steps[j++] = p.steps[i];
  return out;
}

/// Moves the step at `from` so that it runs just before the step now at `before`.
template <std::size_t N>
constexpr step_program<N> move(const step_program<N>& p, int from, int before) {
  step_program<N> out = p;
  const step moved = p.steps[static_cast<std::size_t>(from)];
  if (from > before) {
    for (int i = from; i > before; --i) out.steps[static_cast<std::size_t>(i)] = out.steps[static_cast<std::size_t>(i - 1)];
    out.steps[static_cast<std::size_t>(before)] = moved;
  } else {
    for (int i = from; i + 1 < before; ++i) out.steps[static_cast<std::size_t>(i)] = out.steps[static_cast<std::size_t>(i + 1)];
    out.steps[static_cast<std::size_t>(before - 1)] = moved;
  }
  return out;
}

/// The program with the step at `at` marked as keeping the previous tile's prepared scratch.
template <std::size_t N>
constexpr step_program<N> mark_prepared(const step_program<N>& p, int at) {
  step_program<N> out = p;
  out.steps[static_cast<std::size_t>(at)].prepared = 1;
  return out;
}

constexpr auto is(step_kind kind, transfer_role role, int layer = -1, int tile = -1) {
  return [=](const step& s) {
    return s.kind == kind && s.role == role && (layer < 0 || s.layer == layer) && (tile < 0 || s.tile == tile);
  };
}
constexpr auto is_compute(int layer, int tile) {
  return [=](const step& s) { return s.kind == step_kind::compute && s.layer == layer && s.tile == tile; };
}

}  // namespace surgery
