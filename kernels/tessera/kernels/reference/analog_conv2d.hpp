// The integer semantics of an analog in-memory-compute array (the analog-like engine of
// target/engine.hpp, modelled on DIANA's AIMC core), as the host model of that engine computes
// them. They are the engine's own, not the CPU's: a layer dispatched there computes different
// integers, which is why only layers whose weights are ternary go there, and why the test model
// of tests/models/analog is checked against a numpy model of these rules, not the CPU's.
// docs/semantics.md, "Analog-like engine".
#pragma once

#include <cstdint>

#include <tessera/core/requant.hpp>
#include <tessera/kernels/reference/conv2d.hpp>

namespace tessera::kernels::reference {

/// An engine's numerics: `input_bits` == 0 means the CPU's exact integers; otherwise the
/// analog array's (see conv2d_analog).
struct analog_numerics {
  int input_bits = 0;  ///< activations enter the array as signed `input_bits`-bit values
  int adc_min = 0;     ///< the ADC's range: the array's sum is clipped to [adc_min, adc_max]
  int adc_max = 0;
  constexpr bool exact() const { return input_bits == 0; }
  friend constexpr bool operator==(const analog_numerics&, const analog_numerics&) = default;
};

/// As conv2d, with the array's numerics (`a.exact()` false):
///   x'  = clamp(x, -2^(input_bits-1), 2^(input_bits-1) - 1)   (every input, u8 included)
///   s   = sum_{c,i,j} x'[...] * w[f][i][j][c]                   (padding contributes 0:
///                                                                 engines take pad_value 0 only)
///   out = rq.apply(bias[f] + clamp(s, adc_min, adc_max))
/// The weights are ternary (-1, 0, 1) where the dispatcher sends a layer here; the kernel
/// computes any int8 weights the same way.
template <class TIn, class TW, class TOut>
constexpr void conv2d_analog(const conv2d_dims& d, const TIn* input, const TW* weights, const std::int32_t* bias,
                             const requant_params& rq, TOut* output, const analog_numerics& a) {
  const std::int32_t in_hi = (std::int32_t{1} << (a.input_bits - 1)) - 1;
  const std::int32_t in_lo = -(std::int32_t{1} << (a.input_bits - 1));
  for (int n = 0; n < d.batch; ++n) {
    for (int y = 0; y < d.out_h; ++y) {
      for (int x = 0; x < d.out_w; ++x) {
        for (int f = 0; f < d.out_c; ++f) {
          std::int32_t sum = 0;
          for_each_tap(d, n, y, x, f, [&](std::int64_t in_index, std::int64_t w_index) {
            std::int32_t v = static_cast<std::int32_t>(input[in_index]);
            v = v < in_lo ? in_lo : v > in_hi ? in_hi : v;
            sum += v * static_cast<std::int32_t>(weights[w_index]);
          }, [](std::int64_t) {});
          const std::int32_t adc = sum < a.adc_min ? a.adc_min : sum > a.adc_max ? a.adc_max : sum;
          const std::int32_t acc = (bias != nullptr ? bias[f] : 0) + adc;
          const std::int64_t out_index = ((std::int64_t{n} * d.out_h + y) * d.out_w + x) * d.out_c + f;
          output[out_index] = static_cast<TOut>(rq.apply(acc, out_index));
        }
      }
    }
  }
}

}  // namespace tessera::kernels::reference
