// MobileNetV1-0.25 (96x96, tests/models/torch) planned on a two-level target at every L1 size
// from smallest_l1_bytes to untiled_l1_bytes in 4 kB steps (plus 12,288 B, where the previous
// solver exceeded GCC's constexpr operation limit), and on a GAP8-like three-level target
// with L1 = 35,600 B. Each point is planned as an executor plans it (one `static constexpr`
// member in a user's build), each layer's tile in its own constant evaluation
// (`layer_solutions`), within GCC's and clang's default limits. And on the DIANA-like preset
// with the latency objective, as an executor plans it (fusion, dispatch, prefetch passes, the
// hazard proof), where the search of the first convolution (on the CPU: 48 x 48 x 8, a flat,
// compute-bound landscape) and of a depthwise layer on the engine exceeded clang's step limit.
#include <cstddef>
#include <utility>

#include <tessera/tessera.hpp>

#include "mobilenet_v1_025.hpp"

namespace {

using net = mobilenet_v1_025::network;

template <std::size_t L1>
inline constexpr tessera::target_desc two_levels{.name = "sweep",
                                                 .levels = {{{"L1", L1, 8, 10, 30}, {"L2", 4096 * 1024, 8, 10, 30}}},
                                                 .level_count = 2,
                                                 .cores = 8};

constexpr std::size_t lowest = tessera::smallest_l1_bytes(net::summary, two_levels<0>);
constexpr std::size_t highest = tessera::untiled_l1_bytes(net::summary, two_levels<0>);
constexpr std::size_t step = 4096;
constexpr std::size_t points = (highest - lowest + step - 1) / step + 1;  // the last one is `highest`
static_assert(lowest <= 12288 && 12288 <= highest);

constexpr std::size_t l1_at(std::size_t i) { return i + 1 < points ? lowest + i * step : highest; }

template <std::size_t L1>
struct plans_at {
  static_assert(tessera::plan_for(net::summary, two_levels<L1>, tessera::layer_solutions<net::summary, two_levels<L1>>).fits,
                "MobileNetV1-0.25: the L1 sweep must plan");
  static constexpr bool value = true;
};

template <std::size_t... I>
constexpr bool sweep(std::index_sequence<I...>) {
  return (plans_at<l1_at(I)>::value && ...);
}
static_assert(sweep(std::make_index_sequence<points>{}));
static_assert(plans_at<12288>::value);

// GAP8-like: three levels, L1 = 35,600 B.
inline constexpr tessera::target_desc gap8_35600 = [] {
  tessera::target_desc t = tessera::targets::gap8;
  t.levels[0].bytes = 35600;
  return t;
}();
static_assert(tessera::plan_for(net::summary, gap8_35600, tessera::layer_solutions<net::summary, gap8_35600>).fits,
              "MobileNetV1-0.25 on GAP8 with L1 = 35,600 B");

inline constexpr tessera::target_desc diana_latency = [] {
  tessera::target_desc t = tessera::targets::diana;
  t.objective = tessera::tiling_objective::latency;
  return t;
}();
using diana_run = tessera::tiled_executor<net, tessera::target<diana_latency>>;
static_assert(diana_run::plan.fits && diana_run::schedule_is_safe, "MobileNetV1-0.25 on DIANA, latency objective");

}  // namespace
