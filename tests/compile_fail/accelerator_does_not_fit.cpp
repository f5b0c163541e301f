// expect-error: does_not_fit<[^,]*"conv"}, [^,]*"DIG-ACT"}, 96, 64>
// The first layer runs on the digital accelerator (its rules admit a 3x3 convolution), whose
// 64-byte activation memory cannot hold its smallest tile: a 3x3x3 input window and a 1x1x8
// output, each 16-byte aligned and double-buffered (2 * (32 + 16) = 96 bytes).
#include <tessera/tessera.hpp>

#include "../support/tiny_networks.hpp"

inline constexpr tessera::target_desc tiny_engine = [] {
  tessera::target_desc t = tessera::targets::diana;
  t.accelerators[0].activations.bytes = 64;
  return t;
}();
using run = tessera::tiled_executor<tiny::separable::network, tessera::target<tiny_engine>>;
constexpr auto bytes = run::l2_bytes;
