// The torch DS-CNN (tests/models/torch) on the DIANA-like preset with the latency objective: its
// first convolution (on the CPU: the engine refuses its 10x4 kernel) tiles in channel blocks,
// and the depthwise layer after it (on the engine, behind a Cast that runs nothing) loads its
// first tile's channels while the convolution still stores its last blocks. The hazard proof
// compares the Cast's boxes with those of the tensor it aliases (schedule/hazard_check.hpp
// `tensor_region`) and accepts the schedule; comparing the two views by their bytes, it
// rejected it (refill_in_flight at the convolution's tile 3). Building this file is the test.
// The same layers show which sides of a layer the latency model credits with L1 forwarding,
// and (on gap8) that planning its pointwise -> depthwise candidates stays within the budget.
#include <tessera/tessera.hpp>

#include "ds_cnn_kws.hpp"

namespace {

inline constexpr tessera::target_desc diana_latency = [] {
  tessera::target_desc t = tessera::targets::diana;
  t.objective = tessera::tiling_objective::latency;
  return t;
}();
using run = tessera::tiled_executor<ds_cnn_kws::network, tessera::target<diana_latency>>;
static_assert(run::plan.layers[2].engine == 0 && run::plan.layers[2].solution.cost.tiles > 1 &&
              run::plan.layers[4].engine == 1);
static_assert(run::schedule_is_safe);

// The latency model credits L1 forwarding only on the sides of a layer where a CPU layer that
// tiles is its neighbour: the first convolution, which reads the network's input and writes the
// engine's, has neither side on this preset; on siracusa (no engine) the side towards the
// depthwise layer is credited, the input's still not.
template <const tessera::target_desc& T>
constexpr const auto& problems = tessera::layer_problems<tessera::fused_summary<ds_cnn_kws::network::summary, T>, T>;
static_assert(!problems<diana_latency>[2].problem.latency.forwarded_input &&
              !problems<diana_latency>[2].problem.latency.forwarded_output);
inline constexpr tessera::target_desc siracusa_latency = [] {
  tessera::target_desc t = tessera::targets::siracusa;
  t.objective = tessera::tiling_objective::latency;
  return t;
}();
static_assert(!problems<siracusa_latency>[2].problem.latency.forwarded_input &&
              problems<siracusa_latency>[2].problem.latency.forwarded_output);

// gap8 with the latency objective (as the benchmark's rows plan it): the DS-CNN's pointwise ->
// depthwise candidates (64 -> 64 channels, 25 x 5) may split their output channels; without a
// floor for their pointwise kernel over the whole layer (tile_solver.hpp
// producer_window_floor: their whole-width tiles carry rows, which the per-tile floor
// leaves out) each candidate's search walked 2,779 tiles, over GCC's constexpr budget.
inline constexpr tessera::target_desc gap8_latency = [] {
  tessera::target_desc t = tessera::targets::gap8;
  t.objective = tessera::tiling_objective::latency;
  t.first_load_hidden = true;
  return t;
}();
static_assert(tessera::tiled_executor<ds_cnn_kws::network, tessera::target<gap8_latency>>::plan.fits);

}  // namespace
