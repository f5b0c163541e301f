// expect-error: does_not_fit<[^,]*"conv"}, [^,]*"DIG-WEIGHTS"}, 64, 16>
// The digital accelerator's weight memory (16 bytes here) cannot hold the filters of the first
// convolution's smallest channel block, one output channel (3x3x3 = 27 int8 weights, 16-byte
// aligned: 32), double-buffered because the layer then has several blocks: 64 bytes.
#include <tessera/tessera.hpp>

#include "../support/tiny_networks.hpp"

inline constexpr tessera::target_desc tiny_weights = [] {
  tessera::target_desc t = tessera::targets::diana;
  t.accelerators[0].weights.bytes = 16;
  return t;
}();
using run = tessera::tiled_executor<tiny::separable::network, tessera::target<tiny_weights>>;
constexpr auto bytes = run::l2_bytes;
