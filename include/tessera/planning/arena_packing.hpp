// Packing lifetimes into one arena: every buffer is a rectangle (its steps by its bytes), and
// the arena is as high as the highest rectangle. Plain constexpr code over arrays, independent
// of graphs: arena_plan.hpp turns a network's tensors and scratch into items and calls these.
//
// The problem is NP-hard (dynamic storage allocation), so the planner layers three tools,
// cheapest first, and stops as soon as one reaches `live_bound` (no placement can be lower):
//
//   first_fit   an order of the items, each at the lowest offset where it collides with no
//               placed item live at the same time. Greedy by size is TFLite Micro's plan.
//               O(B log B + K log K) for B items, K of them pairs live together.
//   search      exact branch and bound over "gravity" placements, with a work budget.
//
// (DORY's bidirectional stack, the third, needs the graph: bidirectional_stack.hpp.)
//
// Sizes are multiples of the arena alignment, so every offset the tools produce (0 or the top
// of another item) is aligned too.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>

namespace tessera::packing {

// Every member defaults to zero: see planning_detail::buffer in arena_buffers.hpp (GCC 12).
struct item {
  std::size_t bytes = 0;  ///< a multiple of the arena alignment, > 0
  int first = 0;          ///< first step it is live
  int last = 0;           ///< last step it is live (inclusive)
};

constexpr bool live_together(const item& a, const item& b) { return a.first <= b.last && b.first <= a.last; }

/// The largest total of bytes live at one step: every placement is at least this high.
template <std::size_t S, std::size_t N>
constexpr std::size_t live_bound(const std::array<item, N>& items, std::size_t count) {
  std::array<std::size_t, S> live{};
  for (std::size_t k = 0; k < count; ++k)
    for (int s = items[k].first; s <= items[k].last; ++s) live[static_cast<std::size_t>(s)] += items[k].bytes;
  std::size_t bound = 0;
  for (std::size_t v : live) bound = v > bound ? v : bound;
  return bound;
}

/// Orders for first_fit. `size` is TFLite Micro's (largest first, then born first); the others
/// win where greedy by size leaves a hole nothing fills (the planner tries them all).
enum class order_key : std::uint8_t {
  size,    ///< bytes, descending
  area,    ///< bytes x steps, descending: long-lived mid-size buffers before short big ones
  length,  ///< steps live, descending, then bytes: the long-lived ones settle at the bottom
  birth,   ///< first step, ascending, then bytes: a stack-like sweep along the schedule
};

/// The item indices [0, count) in `key`'s order; ties by bytes (descending), first step, index,
/// so the order is total and every correct sort gives the same. A bottom-up merge sort over
/// keys computed once, through pointers: GCC counts each call of a constant evaluation, and
/// std::sort with a comparator (iterator wrappers, a call per comparison) cost about 2,300
/// operations an item, a quarter of what 1,500 layers may spend on the whole plan.
template <std::size_t N>
constexpr std::array<std::size_t, N> ordered(const std::array<item, N>& items, std::size_t count, order_key key) {
  // Three keys per item, all ascending (a descending one is stored complemented).
  std::array<std::uint64_t, 3 * N> keys_storage{};
  std::uint64_t* const keys = keys_storage.data();
  const item* const it = items.data();
  for (std::size_t i = 0; i < count; ++i) {
    const auto bytes = static_cast<std::uint64_t>(it[i].bytes);
    const auto first = static_cast<std::uint64_t>(it[i].first);
    const auto steps = static_cast<std::uint64_t>(it[i].last - it[i].first + 1);
    std::uint64_t* const k = keys + 3 * i;
    k[1] = ~bytes;  // the tie-breaks of every order
    k[2] = first;
    switch (key) {
      case order_key::size: k[0] = ~bytes; break;
      case order_key::area: k[0] = ~(bytes * steps); break;
      case order_key::length: k[0] = ~steps; break;
      case order_key::birth: k[0] = first; break;
    }
  }
  std::array<std::size_t, N> order{};
  std::array<std::size_t, N> other{};
  std::size_t* from = order.data();
  std::size_t* to = other.data();
  for (std::size_t i = 0; i < count; ++i) from[i] = i;
  for (std::size_t width = 1; width < count; width *= 2) {
    for (std::size_t lo = 0; lo < count; lo += 2 * width) {
      const std::size_t mid = lo + width < count ? lo + width : count;
      const std::size_t hi = lo + 2 * width < count ? lo + 2 * width : count;
      std::size_t l = lo, r = mid, out = lo;
      while (l < mid && r < hi) {
        const std::uint64_t* const a = keys + 3 * from[l];
        const std::uint64_t* const b = keys + 3 * from[r];
        const bool right_first = a[0] != b[0]   ? b[0] < a[0]
                                 : a[1] != b[1] ? b[1] < a[1]
                                 : a[2] != b[2] ? b[2] < a[2]
                                                : from[r] < from[l];
        to[out++] = right_first ? from[r++] : from[l++];
      }
      while (l < mid) to[out++] = from[l++];
      while (r < hi) to[out++] = from[r++];
    }
    std::size_t* const swap = from;
    from = to;
    to = swap;
  }
  if (from != order.data()) order = other;
  return order;
}

/// For each item, the items live at the same time as it, in compressed rows, in the order a
/// sweep over the items by first step meets them. The sweep keeps the set of items still live:
/// O(B + S + K) for B items, S steps and K pairs, where testing every pair is O(B^2). Built once
/// per plan and shared by every first fit. Flat arrays indexed through pointers: GCC counts
/// every call of a constant evaluation (each std::array or std::vector subscript, each
/// push_back: about 350 operations), and a vector per row with a comparison sort cost about
/// 17,000 operations an item (1,500 layers exceeded its budget here). The rows are one
/// transient constexpr allocation: only the compiler runs the planner.
template <std::size_t N>
class conflict_rows {
 public:
  constexpr conflict_rows(const std::array<item, N>& items, std::size_t count) {
    const item* const it = items.data();
    std::size_t* const at = at_.data();
    // The items by first step (ties in any order): a counting sort over the steps where they
    // are fewer than N, as in an arena plan (steps are nodes, items tensors and scratch), else
    // the merge sort of `ordered`.
    std::size_t steps = 0;
    for (std::size_t k = 0; k < count; ++k)
      if (static_cast<std::size_t>(it[k].first) >= steps) steps = static_cast<std::size_t>(it[k].first) + 1;
    std::array<std::size_t, N> by_first_storage{};
    std::size_t* const by_first = by_first_storage.data();
    if (steps <= N) {
      std::array<std::size_t, N + 1> next_storage{};  // per step, where its next item goes in by_first
      std::size_t* const next = next_storage.data();
      for (std::size_t k = 0; k < count; ++k) ++next[it[k].first + 1];
      for (std::size_t s = 1; s <= steps; ++s) next[s] += next[s - 1];
      for (std::size_t k = 0; k < count; ++k) by_first[next[it[k].first]++] = k;
    } else {
      by_first_storage = ordered(items, count, order_key::birth);
    }

    // Two sweeps in the same order: the first counts each item's conflicts, the second writes
    // them (i is born while j, born before, is still live).
    std::array<std::size_t, N> live_storage{};  // items born so far that may still be live
    std::size_t* const live = live_storage.data();
    std::array<std::size_t, N> fill_storage{};
    std::size_t* const fill = fill_storage.data();
    for (int pass = 0; pass < 2; ++pass) {
      std::size_t live_count = 0;
      for (std::size_t b = 0; b < count; ++b) {
        const std::size_t i = by_first[b];
        std::size_t kept = 0;
        for (std::size_t l = 0; l < live_count; ++l) {
          const std::size_t j = live[l];
          if (it[j].last < it[i].first) continue;  // dead before i is born: dead for all later ones too
          live[kept++] = j;
          if (pass == 0) {
            ++at[i + 1];
            ++at[j + 1];
          } else {
            rows_[fill[i]++] = j;
            rows_[fill[j]++] = i;
          }
        }
        live[kept] = i;
        live_count = kept + 1;
      }
      if (pass == 0) {
        for (std::size_t i = 1; i <= count; ++i) at[i] += at[i - 1];
        for (std::size_t i = 0; i < count; ++i) fill[i] = at[i];
        rows_ = new std::size_t[at[count]]();
      }
    }
  }
  constexpr ~conflict_rows() { delete[] rows_; }
  conflict_rows(const conflict_rows&) = delete;
  conflict_rows& operator=(const conflict_rows&) = delete;

  /// The items live together with item i: [begin(i), end(i)).
  constexpr const std::size_t* begin(std::size_t i) const { return rows_ + at_.data()[i]; }
  constexpr const std::size_t* end(std::size_t i) const { return rows_ + at_.data()[i + 1]; }

 private:
  std::array<std::size_t, N + 1> at_{};  ///< item i's row starts at rows_[at_[i]]
  std::size_t* rows_ = nullptr;
};

/// Places the items in `order`, each at the lowest offset where no placed item that is live at
/// the same time collides; writes `offset` and returns the peak. Per item, its placed conflicts
/// in offset order: a gap below the next one either holds it or the offset moves past that
/// item. O(B log B + K log K) for K pairs live together (a chain of 1,000 layers: a few
/// thousand); sweeping all placed items was O(B^2) (500 convolutions exceeded GCC's constexpr
/// limit), bumping until nothing collides O(B^3).
template <std::size_t N>
constexpr std::size_t first_fit(const std::array<item, N>& items, std::size_t count, const conflict_rows<N>& conflicts,
                                const std::array<std::size_t, N>& order, std::array<std::size_t, N>& offset) {
  const item* const it = items.data();
  std::size_t* const off = offset.data();
  std::array<bool, N> placed_storage{};
  bool* const placed = placed_storage.data();
  std::array<std::size_t, N> below_storage{};  // the current item's placed conflicts
  std::size_t* const below = below_storage.data();
  std::size_t peak = 0;
  for (std::size_t k = 0; k < count; ++k) {
    const std::size_t i = order.data()[k];
    const std::size_t bytes = it[i].bytes;
    std::size_t placed_below = 0;
    for (const std::size_t *c = conflicts.begin(i), *end = conflicts.end(i); c != end; ++c)
      if (placed[*c]) below[placed_below++] = *c;
    // Equal offsets may come in any order: the offset reached is the same.
    std::sort(below, below + placed_below, [&](std::size_t x, std::size_t y) { return off[x] < off[y]; });
    std::size_t at = 0;
    for (std::size_t b = 0; b < placed_below; ++b) {
      const std::size_t j = below[b];
      if (off[j] >= at + bytes) break;                           // the gap below it fits
      if (off[j] + it[j].bytes > at) at = off[j] + it[j].bytes;  // move past it
    }
    off[i] = at;
    placed[i] = true;
    if (at + bytes > peak) peak = at + bytes;
  }
  return peak;
}

/// The same, for one order (conflicts computed here).
template <std::size_t N>
constexpr std::size_t first_fit(const std::array<item, N>& items, std::size_t count,
                                const std::array<std::size_t, N>& order, std::array<std::size_t, N>& offset) {
  const conflict_rows<N> conflicts(items, count);
  return first_fit(items, count, conflicts, order, offset);
}

template <std::size_t N>
struct search_result {
  std::array<std::size_t, N> offset{};
  std::size_t peak = 0;
  std::size_t work = 0;   ///< item and step visits spent (the budget's unit)
  bool improved = false;  ///< the search found a lower placement than the one it started from
  bool complete = false;  ///< it proved `peak` optimal (reached the bound or exhausted the tree)
};

/// Exact branch and bound, in the spirit of MiniMalloc (Moffitt, ASPLOS 2023): lowers
/// `best` (on entry: a placement and its peak) until it reaches `target` (a lower bound), the
/// tree is exhausted, or `budget` visits (items and steps looked at) are spent (checked once
/// per node, so it may overrun by one node's visits).
///
/// Why these placements are enough (the search is exact): drop every item of an optimal placement as far as it goes
/// ("gravity"): each then sits at 0 or on the top of an item live at the same time, and the
/// peak did not grow. List the items by (offset, rank): each one's offset is then the highest
/// top, over its lifetime, of the items listed before it (the "skyline"), because anything
/// listed before it and live with it lies below it. So the search only builds such lists: at
/// each depth it picks the next item and puts it on the skyline over its lifetime; it never
/// picks an item whose skyline is below the previous item's offset (it would come earlier in
/// the list), nor an equal one of lower rank, nor an item before an identical twin of lower
/// rank. Children are tried lowest offset first (the first dive is a best-fit skyline packing).
///
/// Pruning: every unplaced item b ends up at least at floor(b) = max(last offset, skyline over
/// b's lifetime), so a state cannot beat `best` if, for an unplaced b, floor(b) + bytes(b)
/// reaches it, or if, at a step s, the lowest floor of the unplaced items live at s plus their
/// bytes does.
///
/// Cost per node: one pass over the unplaced items' lifetimes (their floors, the next child
/// and the bound together) and one over the steps; undoing a placement recomputes the skyline
/// over that lifetime from the items still placed. O(B + S) state, no recursion (GCC's
/// constexpr depth limit is 512), no calls in the loops (GCC memoizes constexpr calls: a
/// lambda per item cost 500 MB of compiler memory).
template <std::size_t S, std::size_t N>
constexpr void search(const std::array<item, N>& items, std::size_t count, std::size_t target, std::size_t budget,
                      search_result<N>& best) {
  constexpr std::size_t none = N;
  best.improved = false;
  best.complete = best.peak <= target;
  if (best.complete || count == 0) return;

  // Plain arrays inside: GCC evaluates every std::array::operator[] as a call, which made a
  // visit cost ~200 constexpr operations; a built-in subscript is one.
  std::size_t bytes[N] = {};
  int first[N] = {}, last[N] = {};
  for (std::size_t k = 0; k < count; ++k) {
    bytes[k] = items[k].bytes;
    first[k] = items[k].first;
    last[k] = items[k].last;
  }
  // Rank: longest lifetime first, then largest; the search tries ties in this order, and it
  // breaks the symmetry between items at one offset (they are never live together).
  const std::array<std::size_t, N> by_rank = ordered(items, count, order_key::length);
  std::size_t rank[N] = {};
  for (std::size_t r = 0; r < count; ++r) rank[by_rank[r]] = r;
  // Identical items (same steps and bytes) are interchangeable: the higher-ranked twin waits
  // for the lower-ranked one. Neighbours in rank order with equal steps and bytes are twins
  // (rank sorts by length, bytes, first, index, and equal first and length mean equal last).
  std::size_t twin_before[N] = {};
  for (std::size_t r = 0; r < count; ++r) {
    const std::size_t i = by_rank[r];
    const std::size_t j = r > 0 ? by_rank[r - 1] : none;
    twin_before[i] = j != none && bytes[j] == bytes[i] && first[j] == first[i] && last[j] == last[i] ? j : none;
  }

  constexpr std::size_t steps = S > 0 ? S : 1;  // (no zero-length arrays)
  std::size_t sky[steps] = {};    // top of the placed items at each step
  std::size_t rem[steps] = {};    // bytes of unplaced items live at each step
  std::size_t floor[steps] = {};  // lowest floor of the unplaced items live at each step
  for (std::size_t k = 0; k < count; ++k)
    for (int s = first[k]; s <= last[k]; ++s) rem[s] += bytes[k];
  bool placed[N] = {};
  std::size_t offset[N] = {};
  std::size_t path[N] = {};            // the item placed at each depth
  std::size_t peak_before[N] = {};     // the peak before it
  std::size_t tried_at[N + 1] = {};    // the last child tried at each depth: offset ...
  std::size_t tried_rank[N + 1] = {};  // ... and rank + 1 (0: none yet, the node is new)
  std::size_t node_bound[N + 1] = {};  // the bound of the node at each depth
  std::size_t depth = 0;
  std::size_t peak = 0;
  std::size_t work = best.work;

  while (work < budget) {  // out of budget: `best` stands, not proven
    const std::size_t last_offset = depth > 0 ? offset[path[depth - 1]] : 0;
    const std::size_t last_rank = depth > 0 ? rank[path[depth - 1]] : 0;
    const bool fresh = tried_rank[depth] == 0;
    if (fresh)
      for (std::size_t s = 0; s < S; ++s) floor[s] = best.peak;
    // One pass: each unplaced item's floor, the next child (the smallest (offset, rank) after
    // the last one tried here) and, on a node's first visit, its bound.
    std::size_t pick = none, pick_at = 0;
    std::size_t bound = peak;
    for (std::size_t i = 0; i < count; ++i) {
      if (placed[i]) continue;
      std::size_t at = 0;
      for (int s = first[i]; s <= last[i]; ++s) at = sky[s] > at ? sky[s] : at;
      work += static_cast<std::size_t>(last[i] - first[i]) + 1;
      if (fresh) {
        const std::size_t low = at > last_offset ? at : last_offset;
        bound = low + bytes[i] > bound ? low + bytes[i] : bound;
        for (int s = first[i]; s <= last[i]; ++s) floor[s] = low < floor[s] ? low : floor[s];
      }
      if (twin_before[i] != none && !placed[twin_before[i]]) continue;
      if (depth > 0 && (at < last_offset || (at == last_offset && rank[i] < last_rank))) continue;
      if (at < tried_at[depth] || (at == tried_at[depth] && rank[i] + 1 <= tried_rank[depth])) continue;
      if (pick == none || at < pick_at || (at == pick_at && rank[i] < rank[pick])) {
        pick = i;
        pick_at = at;
      }
    }
    work += count;
    if (fresh) {
      for (std::size_t s = 0; s < S; ++s)
        if (rem[s] > 0 && floor[s] + rem[s] > bound) bound = floor[s] + rem[s];
      work += S;
      node_bound[depth] = bound;
    }
    // (On a later visit the bound still holds, but `best` may have come down to it.)
    if (pick == none || node_bound[depth] >= best.peak) {  // done with this node
      if (depth == 0) {
        best.complete = true;  // the tree is exhausted: `best` is optimal
        break;
      }
      // Undo the placement that led here, recomputing the skyline over its lifetime.
      const std::size_t i = path[--depth];
      placed[i] = false;
      peak = peak_before[depth];
      for (int s = first[i]; s <= last[i]; ++s) {
        rem[s] += bytes[i];
        sky[s] = 0;
      }
      for (std::size_t d = 0; d < depth; ++d) {
        const std::size_t j = path[d];
        const std::size_t top = offset[j] + bytes[j];
        const int from = first[j] > first[i] ? first[j] : first[i];
        const int to = last[j] < last[i] ? last[j] : last[i];
        for (int s = from; s <= to; ++s) sky[s] = top > sky[s] ? top : sky[s];
      }
      work += depth + static_cast<std::size_t>(last[i] - first[i]) + 1;
      continue;
    }
    tried_at[depth] = pick_at;
    tried_rank[depth] = rank[pick] + 1;
    const std::size_t top = pick_at + bytes[pick];
    if (top >= best.peak) continue;  // this child alone reaches the incumbent

    placed[pick] = true;
    offset[pick] = pick_at;
    path[depth] = pick;
    peak_before[depth] = peak;
    peak = top > peak ? top : peak;
    for (int s = first[pick]; s <= last[pick]; ++s) {
      sky[s] = top;
      rem[s] -= bytes[pick];
    }
    ++depth;
    tried_at[depth] = 0;
    tried_rank[depth] = 0;
    if (depth == count) {  // a complete placement, lower than the incumbent (the node bounds)
      for (std::size_t k = 0; k < count; ++k) best.offset[k] = offset[k];
      best.peak = peak;
      best.improved = true;
      if (peak <= target) {
        best.complete = true;
        break;
      }
      tried_rank[depth] = 1;  // a leaf: no children, the next pass backs up
    }
  }
  best.work = work;
}

}  // namespace tessera::packing
