// Which engine runs each layer (seeds/004, HTVM): the CPU (engine 0) or one of the target's
// accelerators (engines 1, 2, ...; target/engine.hpp), decided at compile time from each
// engine's rule table, the target's dispatch policy and the user's per-layer overrides.
//
// Rules decide who can run a layer; the policy decides who does among those who can:
// - first_match: the first accelerator whose rules all hold, else the CPU;
// - mixed (HTVM's policy for DIANA): the first and the last layer with filters and every
//   depthwise layer on the first accelerator that takes them (the digital engine, listed
//   first), the other layers preferring the later accelerators (the analog engine);
// - an override (target_desc::engine_overrides, by node name) forces a layer onto an engine,
//   the CPU included; forcing a layer onto an accelerator whose rules it breaks fails the
//   build with `engine_rule_broken<layer, engine, rule>`.
// Fused depthwise -> pointwise blocks are CPU blocks: the fusion selector leaves alone the
// layers an accelerator takes (planning/fusion.hpp).
#pragma once

#include <array>
#include <cstddef>

#include <tessera/core/fixed_name.hpp>
#include <tessera/graph/network.hpp>
#include <tessera/target/engine.hpp>
#include <tessera/target/target.hpp>

namespace tessera {

/// One layer's assignment.
struct layer_engine {
  int engine = 0;                  ///< 0: the CPU, k: accelerator k
  bool forced = false;             ///< by an override
  rule broken = rule::holds;       ///< a forced accelerator's broken rule (the build fails)
  rule first_refusal = rule::holds;  ///< on the CPU: the first accelerator's broken rule, for the reports
};

namespace dispatch_detail {

constexpr bool has_filters(const node_summary& n) {
  return n.geometry.kind == tiling_kind::tiled && n.geometry.weight_bytes_per_channel > 0 && !n.absorbed;
}

/// The first accelerator in [from, to] whose rules hold for `n` (0: none).
constexpr int first_taker(const target_desc& t, const node_summary& n, int from, int to) {
  for (int e = from; e <= to; ++e)
    if (first_broken_rule(t.accelerator(e), n) == rule::holds) return e;
  return 0;
}

/// The engine of node `n` when the first and last layers with filters are `first`, `last`.
constexpr layer_engine assign(const target_desc& t, const node_summary& n, std::size_t index, std::size_t first,
                              std::size_t last) {
  layer_engine out{};
  if (t.accelerator_count == 0) return out;
  for (const engine_override& o : t.engine_overrides) {
    if (o.layer.empty() || !(o.layer == n.name)) continue;
    out.forced = true;
    out.engine = o.engine;
    if (o.engine < 0 || o.engine > t.accelerator_count) {
      out.broken = rule::no_engine;
      out.engine = 0;
    } else if (o.engine > 0) {
      out.broken = first_broken_rule(t.accelerator(o.engine), n);
    }
    return out;
  }
  const int count = t.accelerator_count;
  if (t.dispatch == dispatch_policy::mixed && count > 1) {
    const bool edge = has_filters(n) && (index == first || index == last);
    const bool to_first = edge || engine_op_of(n) == engine_op::depthwise;
    out.engine = to_first ? first_taker(t, n, 1, count) : first_taker(t, n, 2, count);
    if (out.engine == 0 && !to_first) out.engine = first_taker(t, n, 1, 1);
  } else {
    out.engine = first_taker(t, n, 1, count);
  }
  if (out.engine == 0) out.first_refusal = first_broken_rule(t.accelerator(1), n);
  return out;
}

template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN>
constexpr std::array<std::size_t, 2> filtered_ends(const graph_summary<NT, NI, NO, NN>& g) {
  std::array<std::size_t, 2> ends{NN, NN};
  for (std::size_t n = 0; n < NN; ++n) {
    if (!has_filters(g.nodes[n])) continue;
    if (ends[0] == NN) ends[0] = n;
    ends[1] = n;
  }
  return ends;
}

}  // namespace dispatch_detail

/// The engine of node `n` of `g` on `t`.
template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN>
constexpr layer_engine engine_for(const graph_summary<NT, NI, NO, NN>& g, const target_desc& t, std::size_t n) {
  if (t.accelerator_count == 0) return {};
  const auto ends = t.dispatch == dispatch_policy::mixed ? dispatch_detail::filtered_ends(g)
                                                          : std::array<std::size_t, 2>{NN, NN};
  return dispatch_detail::assign(t, g.nodes[n], n, ends[0], ends[1]);
}

/// Every node's engine.
template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN>
constexpr std::array<layer_engine, NN> dispatch_layers(const graph_summary<NT, NI, NO, NN>& g, const target_desc& t) {
  std::array<layer_engine, NN> out{};
  if (t.accelerator_count == 0) return out;
  const auto ends = dispatch_detail::filtered_ends(g);
  for (std::size_t n = 0; n < NN; ++n) out[n] = dispatch_detail::assign(t, g.nodes[n], n, ends[0], ends[1]);
  return out;
}

}  // namespace tessera

namespace tessera::diagnostics {

/// A forced assignment (target_desc::engine_overrides) puts a layer on an engine whose rules it
/// breaks: layer name, engine name, the rule.
template <fixed_name Layer, fixed_name Engine, rule Broken>
struct engine_rule_broken {
  static constexpr bool rule_holds = Broken == rule::holds;  // named: see diagnostics/errors.hpp
  static_assert(rule_holds,
                "tessera: a layer is forced onto an engine that cannot run it; see 'engine_rule_broken<layer, "
                "engine, broken rule>'");
  static constexpr bool value = rule_holds;
};

}  // namespace tessera::diagnostics
