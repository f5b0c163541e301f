// The exported torchvision MobileNetV2-0.35 at 96x96 (tests/models/exported/torch_mobilenet_v2)
// planned with the latency objective on gap8 (first loads hidden, as the benchmark's rows plan
// it) and on the DIANA-like preset, within GCC's and clang's default constexpr limits. Building
// this file is the test. Before the latency search's bounds saw the pointwise kernel's
// recomputed window overlap (tile_solver.hpp producer_window_floor), the last tile's slack and
// the channel granules of a relaxed bound (relaxed_channel_slots), two searches exceeded GCC's
// budget: the pointwise -> depthwise candidate of features.2 on gap8 (8 -> 48 at 48 x 48, then
// 3 x 3 stride 2: 8,968 candidates, then 1,712) and features.2's depthwise layer on DIANA's
// digital engine (2,910, then 1,884). Clang's 2^20 steps were still too few for several of its
// searches (features.2's expansion on gap8: 2.9 M steps); the solver's work budget
// (target_desc::search_budget) now stops each within it, and the searches it cut are marked.
#include <tessera/tessera.hpp>

#include "mobilenet_v2.hpp"

namespace {

inline constexpr tessera::target_desc gap8_latency = [] {
  tessera::target_desc t = tessera::targets::gap8;
  t.objective = tessera::tiling_objective::latency;
  t.first_load_hidden = true;
  return t;
}();
using on_gap8 = tessera::tiled_executor<mobilenet_v2::network, tessera::target<gap8_latency>>;
static_assert(on_gap8::plan.fits && on_gap8::schedule_is_safe);

inline constexpr tessera::target_desc diana_latency = [] {
  tessera::target_desc t = tessera::targets::diana;
  t.objective = tessera::tiling_objective::latency;
  return t;
}();
using on_diana = tessera::tiled_executor<mobilenet_v2::network, tessera::target<diana_latency>>;
static_assert(on_diana::plan.fits && on_diana::schedule_is_safe);

/// Tiled layers of `plan` whose search reached the budget.
template <class Plan>
constexpr int searches_cut_short(const Plan& plan) {
  int cut = 0;
  for (const auto& layer : plan.layers) cut += layer.tiled && layer.solution.cut_short;
  return cut;
}
static_assert(searches_cut_short(on_gap8::plan) > 0 && searches_cut_short(on_diana::plan) > 0);

}  // namespace
