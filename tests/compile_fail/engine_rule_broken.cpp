// expect-error: engine_rule_broken<[^,]*"dw2"}, [^,]*"digital"}, tessera::rule::padding>
// The user forces the second depthwise layer onto the digital accelerator, whose rules refuse
// its asymmetric padding (top 1, bottom 1, left 0, right 1): the build names layer, engine and
// the broken rule instead of running it wrongly.
#include <tessera/tessera.hpp>

#include "../support/tiny_networks.hpp"

inline constexpr tessera::target_desc forced = [] {
  tessera::target_desc t = tessera::targets::diana;
  t.engine_overrides[0] = {"dw2", 1};
  return t;
}();
using run = tessera::tiled_executor<tiny::separable::network, tessera::target<forced>>;
constexpr auto bytes = run::l2_bytes;
