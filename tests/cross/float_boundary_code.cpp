// The float ends as firmware builds them (core/float_boundary.hpp, runtime/float_executor.hpp):
// compiled for Cortex-M4 with hard float and with soft float (cross/cortex_m4_float_boundary*),
// without exceptions and RTTI, and checked for heap and exception references like
// target_code.cpp. Soft float must call only libgcc's IEEE routines (__aeabi_fdiv, ...), no libm.
#include <tessera/tessera.hpp>

#include "../support/tiny_networks.hpp"

using network = tiny::features::network;

// A partially float network: the uint8 image is a float input, the int32 logits stay integer.
inline constexpr tessera::float_ends<1, 1> float_ends{
    .inputs = {{{.is_float = true, .scale = 0.0235294122f, .zero_point = 0}}},
    .outputs = {{{}}}};
using float_flat = tessera::float_executor<network, float_ends>;

alignas(16) static std::byte arena[float_flat::arena_bytes];

extern "C" void infer_float(const float* image, std::int32_t* logits) { float_flat::run(arena, {image}, {logits}); }

extern "C" void quantize_s8(const float* x, std::int8_t* q, unsigned n, float scale, int zero_point) {
  tessera::quantize_linear(x, q, n, scale, zero_point);
}

extern "C" void dequantize_u8(const std::uint8_t* q, float* x, unsigned n, float scale, int zero_point) {
  tessera::dequantize_linear(q, x, n, scale, zero_point);
}
