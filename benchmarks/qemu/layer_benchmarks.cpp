// Guest instructions per MAC of the layers CMSIS-NN is compared on (issue 4's anchor table),
// run through the same dispatch the ops use, with the build's native kernel family. Each layer
// is also checked bit for bit against the scalar reference (its time is not counted).
//
// Prints one machine-readable line per layer ("layer|shape|macs|instructions|variant") that
// scripts/bench-qemu.sh turns into the table in docs/benchmarks.md.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include <tessera/kernels/dispatch.hpp>
#include <tessera_qemu/instruction_counter.hpp>

namespace k = tessera::kernels;
using k::reference::conv2d_dims;
using k::reference::gemm_dims;

namespace {

constexpr k::kernel_family family = k::native_family;

alignas(16) std::int8_t input[48 * 48 * 32];
alignas(16) std::int8_t weights[128 * 640];  // the largest: L8b (L3 needs 64 * 64 * 9)
alignas(16) std::int32_t bias[128];
alignas(16) std::int32_t mul[128];
alignas(16) std::int32_t add[128];
alignas(16) std::int8_t output[48 * 48 * 64];
alignas(16) std::byte scratch[32 * 1024];

std::uint32_t state = 12345;
int next(int lo, int hi) {
  state ^= state << 13;
  state ^= state >> 17;
  state ^= state << 5;
  return lo + static_cast<int>(state % static_cast<std::uint32_t>(hi - lo + 1));
}

/// Per-channel requantization to int8, as CMSIS-NN's layers use (multipliers and shifts of a
/// trained network's range: outputs spread over the int8 range, not all clamped).
tessera::requant_params per_channel(int channels, int fan_in) {
  for (int c = 0; c < channels; ++c) {
    mul[c] = next(1 << 14, 1 << 15);
    add[c] = next(-(1 << 16), 1 << 16);
    bias[c] = next(-1000, 1000);
  }
  int shift = 16;
  for (int f = fan_in; f > 1; f /= 4) ++shift;  // keep the output spread as the fan-in grows
  return {true, mul, add, channels, 1, shift, -128, 127};
}

int failures = 0;

/// FNV-1a of the output: the reference's result is kept as a hash, not a second 147 kB buffer
/// (the Cortex-M55 board has 512 kB of data memory).
std::uint32_t output_hash(std::size_t bytes) {
  std::uint32_t h = 2166136261u;
  for (std::size_t i = 0; i < bytes; ++i) h = (h ^ static_cast<std::uint8_t>(output[i])) * 16777619u;
  return h;
}

void report(const char* layer, const char* shape, std::int64_t macs, std::uint64_t instructions, const char* variant,
            std::size_t out_bytes, std::uint32_t expected_hash) {
  const bool exact = output_hash(out_bytes) == expected_hash;
  failures += exact ? 0 : 1;
  std::printf("%s|%s|%ld|%llu|%s|%s\n", layer, shape, static_cast<long>(macs),
              static_cast<unsigned long long>(instructions), variant, exact ? "exact" : "MISMATCH");
}

template <conv2d_dims D>
void conv_layer(const char* layer, const char* shape) {
  constexpr int cin_per_group = D.in_c / D.groups;
  for (int i = 0; i < D.in_h * D.in_w * D.in_c; ++i) input[i] = static_cast<std::int8_t>(next(-128, 127));
  for (int i = 0; i < D.out_c * D.kernel_h * D.kernel_w * cin_per_group; ++i) weights[i] = static_cast<std::int8_t>(next(-128, 127));
  const tessera::requant_params rq = per_channel(D.out_c, D.kernel_h * D.kernel_w * cin_per_group);
  constexpr tessera::requant_params shape_only{true, nullptr, nullptr, D.out_c, 1, 0, -128, 127};
  constexpr auto variant = k::choose_conv2d<family, std::int8_t, std::int8_t, std::int8_t>(D, shape_only);
  static_assert(k::conv2d_scratch_bytes<family>(variant, D) <= sizeof(scratch), "layer benchmark: scratch too small");
  const std::size_t out_bytes = std::size_t(D.out_h) * D.out_w * D.out_c;
  k::reference::conv2d(D, input, weights, bias, rq, output, nullptr);
  const std::uint32_t expected = output_hash(out_bytes);
  std::memset(output, 0, out_bytes);
  const std::uint64_t start = tessera::qemu::guest_instructions();
  k::conv2d<family, variant>(D, input, weights, bias, rq, output, scratch);
  const std::uint64_t instructions = tessera::qemu::guest_instructions() - start;
  const std::int64_t macs = std::int64_t{D.out_h} * D.out_w * D.out_c * D.kernel_h * D.kernel_w * cin_per_group;
  report(layer, shape, macs, instructions, k::variant_name(variant), out_bytes, expected);
}

template <gemm_dims D>
void fc_layer(const char* layer, const char* shape) {
  for (int i = 0; i < D.m * D.k; ++i) input[i] = static_cast<std::int8_t>(next(-128, 127));
  for (int i = 0; i < D.n * D.k; ++i) weights[i] = static_cast<std::int8_t>(next(-128, 127));
  const tessera::requant_params rq = per_channel(D.n, D.k);
  constexpr tessera::requant_params shape_only{true, nullptr, nullptr, D.n, 1, 0, -128, 127};
  constexpr auto run_family = k::choose_gemm<family, std::int8_t, std::int8_t, std::int8_t>(D, shape_only);
  static_assert(k::gemm_scratch_bytes<run_family>(D) <= sizeof(scratch), "layer benchmark: scratch too small");
  const std::size_t out_bytes = std::size_t(D.m) * D.n;
  k::reference::gemm(D, input, weights, bias, rq, output, nullptr);
  const std::uint32_t expected = output_hash(out_bytes);
  std::memset(output, 0, out_bytes);
  const std::uint64_t start = tessera::qemu::guest_instructions();
  k::gemm<run_family>(D, input, weights, bias, rq, output, scratch);
  const std::uint64_t instructions = tessera::qemu::guest_instructions() - start;
  report(layer, shape, std::int64_t{D.m} * D.n * D.k, instructions, k::family_name(run_family), out_bytes, expected);
}

// {batch, in_h, in_w, in_c, out_h, out_w, out_c, kh, kw, sh, sw, dh, dw, pad_top, pad_left, groups}
constexpr conv2d_dims l1{1, 32, 32, 16, 32, 32, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1};
constexpr conv2d_dims l2{1, 32, 32, 16, 16, 16, 32, 3, 3, 2, 2, 1, 1, 1, 1, 1};
constexpr conv2d_dims l3{1, 8, 8, 64, 8, 8, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1};
constexpr conv2d_dims l4{1, 48, 48, 32, 48, 48, 64, 1, 1, 1, 1, 1, 1, 0, 0, 1};
constexpr conv2d_dims l5{1, 24, 24, 64, 24, 24, 64, 3, 3, 1, 1, 1, 1, 1, 1, 64};
constexpr conv2d_dims l6{1, 48, 48, 32, 24, 24, 32, 3, 3, 2, 2, 1, 1, 1, 1, 32};
// 49x10 input, kernel 10x4, stride 2, pads top 4 bottom 5 left 1 right 1: (49+9-10)/2+1 = 25, (10+2-4)/2+1 = 5.
constexpr conv2d_dims l7{1, 49, 10, 1, 25, 5, 64, 10, 4, 2, 2, 1, 1, 4, 1, 1};
constexpr gemm_dims l8a{1, 10, 256};
constexpr gemm_dims l8b{1, 128, 640};

}  // namespace

int main() {
  tessera::qemu::start_instruction_counter();
  std::printf("# kernels: %s\n", k::family_name(family));
  conv_layer<l1>("L1", "conv 3x3 s1 p1, 16->16, 32x32");
  conv_layer<l2>("L2", "conv 3x3 s2 p1, 16->32, 32x32");
  conv_layer<l3>("L3", "conv 3x3 s1 p1, 64->64, 8x8");
  conv_layer<l4>("L4", "conv 1x1, 32->64, 48x48");
  conv_layer<l5>("L5", "depthwise 3x3 s1 p1, 64 ch, 24x24");
  conv_layer<l6>("L6", "depthwise 3x3 s2 p1, 32 ch, 48x48");
  conv_layer<l7>("L7", "conv 10x4 s2, pads t4 b5 l1 r1, 1->64, 49x10");
  fc_layer<l8a>("L8a", "fully connected 256->10");
  fc_layer<l8b>("L8b", "fully connected 640->128");
  return failures;
}
