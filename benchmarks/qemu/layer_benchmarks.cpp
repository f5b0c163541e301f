// Guest instructions per MAC of the layers CMSIS-NN is compared on (issue 4's anchor table),
// run through the same dispatch the ops use, with the build's native kernel family. Each layer
// is also checked bit for bit against the scalar reference (its time is not counted).
//
// Prints one machine-readable line per layer
// ("layer|shape|macs|instructions|variant|exact|saturated outputs per mille") that
// scripts/bench-qemu.sh turns into the table in docs/benchmarks.md.
//
// The data is chosen so the check tests something: uniform int8 activations and weights, and
// per-channel requantization scaled to the accumulator's spread (its standard deviation is
// sqrt(fan_in) times that of one product), so that outputs spread over the int8 range and only
// a few percent saturate; the share is printed per layer.
//
// TESSERA_BENCH_NO_REFERENCE (target tessera_layer_benchmarks_trace) leaves the reference runs
// out: scripts/cortex_m_cycles.py traces every executed instruction of that build, and the
// reference kernels would be 15 times the instructions of the measured ones. Its lines say
// "unchecked"; the checked build runs the same data.
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
// Room for the largest layer scratch, also with a larger arm_dsp weight-cache budget
// (TESSERA_ARM_DSP_WEIGHT_CACHE_BYTES: L3 caches 64 x 144 groups x 8 bytes = 72 KiB).
alignas(16) std::byte scratch[96 * 1024];

std::uint32_t state = 12345;
int next(int lo, int hi) {
  state ^= state << 13;
  state ^= state >> 17;
  state ^= state << 5;
  return lo + static_cast<int>(state % static_cast<std::uint32_t>(hi - lo + 1));
}

/// Integer square root (set-up code: no libm on the firmware).
std::int64_t isqrt(std::int64_t v) {
  std::int64_t r = 0;
  while ((r + 1) * (r + 1) <= v) ++r;
  return r;
}

/// Per-channel requantization to int8 as a trained network's layer has it: multipliers in
/// [2^14, 2^15) and one shift chosen so that an accumulator of `fan_in` products of uniform
/// int8 values (standard deviation 74 each, so 5,461 * sqrt(fan_in) for the sum) maps to an
/// output standard deviation of 28-57 (the nearest power of two): outputs spread over the int8
/// range and at most a few percent lie beyond +-127. The additive term moves each channel by up to 2 output units.
tessera::requant_params per_channel(int channels, int fan_in) {
  const std::int64_t accumulator_sigma = 5461 * isqrt(std::int64_t{fan_in} * 100) / 10;
  const std::int64_t scale = (std::int64_t{3} << 13) * accumulator_sigma / 40;  // mean multiplier / output sigma
  int shift = 0;
  while ((std::int64_t{1} << (shift + 1)) <= scale) ++shift;
  if (scale - (std::int64_t{1} << shift) > (std::int64_t{1} << (shift + 1)) - scale) ++shift;  // nearest power of 2
  for (int c = 0; c < channels; ++c) {
    mul[c] = next(1 << 14, (1 << 15) - 1);
    add[c] = next(-2, 2) * (std::int32_t{1} << shift);
    bias[c] = next(-1000, 1000);
  }
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
  std::size_t saturated = 0;
  for (std::size_t i = 0; i < out_bytes; ++i) saturated += (output[i] == -128 || output[i] == 127) ? 1 : 0;
#if defined(TESSERA_BENCH_NO_REFERENCE)
  static_cast<void>(expected_hash);
  const char* verdict = "unchecked";
#else
  const bool exact = output_hash(out_bytes) == expected_hash;
  failures += exact ? 0 : 1;
  const char* verdict = exact ? "exact" : "MISMATCH";
#endif
  std::printf("%s|%s|%ld|%llu|%s|%s|%u\n", layer, shape, static_cast<long>(macs),
              static_cast<unsigned long long>(instructions), variant, verdict,
              static_cast<unsigned>(saturated * 1000 / out_bytes));
}

/// The reference result's hash (0 in the trace build, which does not check).
template <class Run>
std::uint32_t reference_hash(Run run, std::size_t out_bytes) {
#if defined(TESSERA_BENCH_NO_REFERENCE)
  static_cast<void>(run);
  static_cast<void>(out_bytes);
  return 0;
#else
  run();
  return output_hash(out_bytes);
#endif
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
  const std::uint32_t expected =
      reference_hash([&] { k::reference::conv2d(D, input, weights, bias, rq, output, nullptr); }, out_bytes);
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
  const std::uint32_t expected =
      reference_hash([&] { k::reference::gemm(D, input, weights, bias, rq, output, nullptr); }, out_bytes);
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
