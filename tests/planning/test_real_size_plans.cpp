// A real-sized layer that fits: a 3x3 convolution (3 -> 8 channels) over a 1024 x 1024 RGB image
// on the stm32h7 preset with 16 MiB of L2 (tests/compile_fail/real_size_does_not_fit.cpp is the
// same layer where L2 cannot hold it), planned as an executor plans it under DORY's objective
// and under the latency objective, at the compiler's default constexpr limits. Building this
// file is the test. Both searches reach the tile solver's work budget
// (target_desc::search_budget; DORY's walk alone costs clang about 3 M steps unbudgeted, the
// latency search more) and keep the best tile found, marked cut_short.
#include <tessera/tessera.hpp>

#include "../support/real_size_network.hpp"

namespace {

constexpr tessera::target_desc roomy(tessera::tiling_objective objective) {
  tessera::target_desc t = tessera::targets::stm32h7;
  t.levels[1].bytes = 16 * 1024 * 1024;
  t.objective = objective;
  return t;
}

template <tessera::tiling_objective Objective>
struct plans {
  using run = tessera::tiled_executor<big::network, tessera::target<roomy(Objective)>>;
  static constexpr const tessera::layer_l1_plan& conv = run::plan.layers[0];
  static_assert(run::plan.fits && run::schedule_is_safe);
  static_assert(conv.tiled && conv.solution.feasible && conv.solution.cost.tiles > 1);
  static_assert(conv.solution.cut_short && conv.solution.work <= tessera::default_search_budget + 1000);
  static_assert(conv.bytes <= roomy(Objective).levels[0].bytes);
  static constexpr bool value = true;
};
static_assert(plans<tessera::tiling_objective::dory_l1>::value);
static_assert(plans<tessera::tiling_objective::latency>::value);

}  // namespace
