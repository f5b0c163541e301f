// The search behind the fusion selector (planning/fusion.hpp, choose_fusion): the set of
// non-overlapping fused blocks of least cost along the node order, each layer and candidate
// block priced in L2 <-> L1 bytes and modelled cycles. One shortest path serves every criterion
// (`cheapest`, weighing by bytes, cycles or a mix); by_traffic_no_slower, the fewest bytes
// within the unfused network's cycles, is a budgeted shortest path (a knapsack): a Lagrangian
// relaxation gives an incumbent and an exact search over Pareto fronts the optimum
// (`fewest_bytes_no_slower`; docs/planning.md, "Fewest bytes, no slower"). Plain constexpr code
// over arrays, independent of the graph and the target.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace tessera {

namespace fusion_detail {
/// A layer's or a block's cost on the selector's two scales: L2 <-> L1 bytes (fusion_cost
/// by_traffic) and modelled cycles (by_latency); a criterion that needs one scale leaves the
/// other 0 (the time model costs steps, and a 1,500-layer chain's selection runs in one
/// constant evaluation).
struct priced {
  std::uint64_t bytes = 0, cycles = 0;
  constexpr priced operator+(const priced& o) const { return {bytes + o.bytes, cycles + o.cycles}; }
};

/// What the selector weighs at each node `n`: the node alone, the block that ends at it (its
/// first node `first[n]`, -1 when none can) and the user's word on that block (`choice[n]`: 1
/// forced fused, -1 never, 0 the criterion decides).
template <std::size_t NN>
struct fusion_candidates {
  std::array<priced, NN> alone{}, block{};
  std::array<int, NN> first{}, choice{};
};

/// Blocks marked at their last node with the distance to their first node (0: none), and what
/// the network costs with them on both scales.
template <std::size_t NN>
struct fusion_selection {
  std::array<int, NN> fused{};
  priced total{};
};

/// The set of non-overlapping blocks of least total `weigh` (a number per layer or block: its
/// bytes, its cycles or a mix), by the shortest path of the header comment. Forced blocks weigh
/// nothing (every path that can take one does) but count their real cost in `total`. Ties stay
/// unfused.
template <std::size_t NN, class Weigh>
constexpr fusion_selection<NN> cheapest(const fusion_candidates<NN>& c, Weigh weigh) {
  using weight = decltype(weigh(priced{}));
  std::array<weight, NN + 1> cost{};  // cost[i]: the least weight of layers [0, i)
  std::array<priced, NN + 1> total{};
  std::array<int, NN + 1> start{};  // start[i] > 0: the path to i ends with a block of that many nodes
  for (std::size_t i = 1; i <= NN; ++i) {
    const std::size_t last = i - 1;
    cost[i] = cost[last] + weigh(c.alone[last]);
    total[i] = total[last] + c.alone[last];
    const int d = c.first[last], choice = c.choice[last];
    if (d < 0 || choice < 0) continue;
    const auto from = static_cast<std::size_t>(d);
    const weight with = cost[from] + (choice > 0 ? weight{} : weigh(c.block[last]));
    if (choice > 0 || with < cost[i]) {
      cost[i] = with;
      total[i] = total[from] + c.block[last];
      start[i] = static_cast<int>(i - from);
    }
  }
  fusion_selection<NN> out{};
  out.total = total[NN];
  for (std::size_t i = NN; i >= 1;) {
    if (start[i] > 0) {
      out.fused[i - 1] = start[i] - 1;
      i -= static_cast<std::size_t>(start[i]);
    } else {
      --i;
    }
  }
  return out;
}

/// The modelled cycles of the network with the forced blocks only: what by_traffic_no_slower
/// may spend.
template <std::size_t NN>
constexpr std::uint64_t unfused_cycles(const fusion_candidates<NN>& c) {
  fusion_candidates<NN> forced_only = c;
  for (int& choice : forced_only.choice) choice = choice > 0 ? 1 : -1;
  return cheapest(forced_only, [](const priced& p) { return p.cycles; }).total.cycles;
}

/// The fewest bytes within `budget` cycles by Lagrangian relaxation. A budgeted shortest path is
/// a knapsack; its relaxation is not:
/// weighing each layer and block by bytes + lambda x cycles, the cheapest set's cycles fall as
/// lambda grows (lambda = 0 is the traffic criterion, a large lambda the latency criterion,
/// which is never slower than the budget, the budget's own set being one of its choices).
/// Bisection on lambda finds the set on the boundary of the (bytes, cycles) hull just inside
/// the budget: the least-bytes set within it whenever one lies on the hull (a set inside the
/// hull that spends the slack better is the relaxation's gap: up to 20% more bytes on random
/// chains, tests/runtime/test_fusion.cpp). lambda spans [2^-24, 2^24] (a
/// block's bytes and cycles differ in scale by far less) in steps of 2^(1/4096): 18 selections,
/// each O(nodes), in doubles (IEEE arithmetic, the same in every compiler's constant evaluation).
template <std::size_t NN>
constexpr fusion_selection<NN> relaxed_fewest_bytes(const fusion_candidates<NN>& c, std::uint64_t budget) {
  const auto mixed = [&](double lambda) {
    return cheapest(c, [lambda](const priced& p) {
      return static_cast<double>(p.bytes) + lambda * static_cast<double>(p.cycles);
    });
  };
  fusion_selection<NN> best = cheapest(c, [](const priced& p) { return p.cycles; });
  // lambda = 2^(k / 4096): 196,609 values about 0.017% apart; 18 halvings of k find the boundary.
  const auto lambda_at = [](int k) {
    constexpr double roots[12]{1.4142135623730951, 1.189207115002721,  1.0905077326652577, 1.0442737824274138,
                               1.0218971486541166, 1.0108892860517005, 1.0054299011128027, 1.0027112750502025,
                               1.0013547198921082, 1.0006771306930664, 1.0003385080526823, 1.0001692397053021};
    double lambda = 1;
    for (int e = k >= 0 ? k / 4096 : (k - 4095) / 4096; e != 0; e += e > 0 ? -1 : 1) lambda = e > 0 ? lambda * 2 : lambda / 2;
    const int fraction = ((k % 4096) + 4096) % 4096;  // 2^(fraction / 4096), bit by bit
    for (int bit = 0; bit < 12; ++bit)
      if ((fraction >> (11 - bit)) & 1) lambda *= roots[bit];
    return lambda;
  };
  int low = -24 * 4096, high = 24 * 4096;  // too bytes-minded at `low`, within the budget at `high`
  while (high - low > 1) {
    const int middle = low + (high - low) / 2;
    const fusion_selection<NN> s = mixed(lambda_at(middle));
    if (s.total.cycles <= budget) {
      high = middle;
      if (s.total.bytes < best.total.bytes || (s.total.bytes == best.total.bytes && s.total.cycles < best.total.cycles))
        best = s;
    } else {
      low = middle;
    }
  }
  return best;
}

/// Pareto fronts of the exact search: per node, the (bytes, cycles) of the block sets of the
/// layers before it that no other set beats on both, bytes ascending and cycles descending.
/// `Capacity` bounds a front; a search whose front outgrows it gives up (pareto_fewest_bytes).
struct partial_set {
  priced total{};
  int previous = -1;   ///< its entry in the front it extends
  bool block = false;  ///< extended by the block ending here (else by the layer alone)
};

/// The fewest bytes within `budget` cycles, exactly: a shortest path over Pareto fronts (each
/// node's front from its predecessor's, each partial set extended by the layer, and the front
/// of the block's first node's, extended by the block, merged in O(front)). A partial set is
/// dropped when even the cheapest rest of the network (each scale's own least, ignoring the
/// overrides: a lower bound) takes it past the budget or past `incumbent`'s bytes (the
/// relaxation's set); fronts then stay a few sets wide. `false` when a
/// front outgrows `Capacity` (the caller keeps the incumbent) or nothing beats the incumbent.
template <std::size_t NN, std::size_t Capacity = 32>
constexpr bool pareto_fewest_bytes(const fusion_candidates<NN>& c, std::uint64_t budget,
                                   const fusion_selection<NN>& incumbent, fusion_selection<NN>& out) {
  // rest[i]: the least bytes and the least cycles of nodes [i, NN), each on its own.
  std::array<priced, NN + 1> rest{};
  std::array<int, NN> block_from{};  // the block beginning at each node (at most one), or -1
  for (int& b : block_from) b = -1;
  for (std::size_t n = 0; n < NN; ++n)
    if (c.first[n] >= 0) block_from[static_cast<std::size_t>(c.first[n])] = static_cast<int>(n);
  for (std::size_t i = NN; i-- > 0;) {
    rest[i] = rest[i + 1] + c.alone[i];
    if (block_from[i] >= 0) {
      const priced via = c.block[static_cast<std::size_t>(block_from[i])] + rest[static_cast<std::size_t>(block_from[i]) + 1];
      rest[i] = {via.bytes < rest[i].bytes ? via.bytes : rest[i].bytes, via.cycles < rest[i].cycles ? via.cycles : rest[i].cycles};
    }
  }
  std::array<std::array<partial_set, Capacity>, NN + 1> front{};
  std::array<std::size_t, NN + 1> size{};
  size[0] = 1;
  for (std::size_t i = 1; i <= NN; ++i) {
    const std::size_t last = i - 1;
    const int d = c.first[last], choice = c.choice[last];
    const bool alone_ok = d < 0 || choice <= 0, block_ok = d >= 0 && choice >= 0;
    const auto from = block_ok ? static_cast<std::size_t>(d) : 0;
    std::size_t a = 0, b = 0;  // merge the two extensions, bytes ascending
    const auto extended = [&](bool by_block, std::size_t k) {
      const partial_set& e = front[by_block ? from : last][k];
      return partial_set{e.total + (by_block ? c.block[last] : c.alone[last]), static_cast<int>(k), by_block};
    };
    std::size_t n = 0;
    while ((alone_ok && a < size[last]) || (block_ok && b < size[from])) {
      bool take_block = !(alone_ok && a < size[last]);
      if (!take_block && block_ok && b < size[from]) {
        const partial_set x = extended(false, a), y = extended(true, b);
        take_block = y.total.bytes < x.total.bytes || (y.total.bytes == x.total.bytes && y.total.cycles < x.total.cycles);
      }
      const partial_set e = extended(take_block, take_block ? b++ : a++);
      if (e.total.cycles + rest[i].cycles > budget || e.total.bytes + rest[i].bytes >= incumbent.total.bytes) continue;
      if (n > 0 && e.total.cycles >= front[i][n - 1].total.cycles) continue;  // beaten by a set with fewer bytes
      if (n == Capacity) return false;
      front[i][n++] = e;
    }
    size[i] = n;
  }
  if (size[NN] == 0) return false;
  out = {};
  out.total = front[NN][0].total;  // the fewest bytes
  for (std::size_t i = NN, k = 0; i > 0;) {
    const partial_set& e = front[i][k];
    k = static_cast<std::size_t>(e.previous);
    if (e.block) {
      const auto d = static_cast<std::size_t>(c.first[i - 1]);
      out.fused[i - 1] = static_cast<int>(i - 1 - d);
      i = d;
    } else {
      --i;
    }
  }
  return true;
}

/// by_traffic_no_slower: the fewest bytes among the block sets no slower (in the selector's
/// modelled cycles) than the network without the criterion's blocks (the forced blocks only:
/// unfused_cycles). The traffic criterion's set when that is no slower; else the exact search
/// (pareto_fewest_bytes), pruned by the relaxation's set (relaxed_fewest_bytes), which it keeps
/// when a front outgrows its bound (a budgeted shortest path is a knapsack: the exact search is
/// pseudo-polynomial at worst, the relaxation O(nodes) per lambda).
template <std::size_t NN>
constexpr fusion_selection<NN> fewest_bytes_no_slower(const fusion_candidates<NN>& c) {
  const std::uint64_t budget = unfused_cycles(c);
  const fusion_selection<NN> lean = cheapest(c, [](const priced& p) { return p.bytes; });
  if (lean.total.cycles <= budget) return lean;
  const fusion_selection<NN> relaxed = relaxed_fewest_bytes(c, budget);
  fusion_selection<NN> exact{};
  return pareto_fewest_bytes(c, budget, relaxed, exact) ? exact : relaxed;
}
}  // namespace fusion_detail

}  // namespace tessera
