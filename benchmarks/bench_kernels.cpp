// Host speed of the kernels: GMAC/s of the scalar reference and of the x86 family on the layers
// of the CMSIS-NN comparison (docs/benchmarks.md), wall time, median of several runs. Built
// twice (CMakeLists.txt): for SSE4.1 and, where the CPU has it, AVX2. Each optimized result is
// also compared with the reference's.
//
//   cmake --build build --target tessera_bench_kernels_avx2 && build/benchmarks/tessera_bench_kernels_avx2
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include <tessera/kernels/dispatch.hpp>

namespace k = tessera::kernels;
using k::reference::conv2d_dims;
using k::reference::gemm_dims;

namespace {

constexpr k::kernel_family family = k::native_family;

struct buffers {
  std::vector<std::int8_t> input, weights, out_ref, out_fast;
  std::vector<std::int32_t> bias, mul, add;
  std::vector<std::byte> scratch;
};

std::uint32_t state = 12345;
int next(int lo, int hi) {
  state ^= state << 13;
  state ^= state >> 17;
  state ^= state << 5;
  return lo + static_cast<int>(state % static_cast<std::uint32_t>(hi - lo + 1));
}

tessera::requant_params per_channel(buffers& b, int channels, int fan_in) {
  b.mul.resize(channels), b.add.resize(channels), b.bias.resize(channels);
  for (int c = 0; c < channels; ++c) {
    b.mul[c] = next(1 << 14, 1 << 15);
    b.add[c] = next(-(1 << 16), 1 << 16);
    b.bias[c] = next(-1000, 1000);
  }
  int shift = 16;
  for (int f = fan_in; f > 1; f /= 4) ++shift;
  return {true, b.mul.data(), b.add.data(), channels, 1, shift, -128, 127};
}

/// Median seconds of `f` over enough runs to fill ~0.2 s (at least 5).
template <class F>
double median_seconds(F&& f) {
  std::vector<double> times;
  double total = 0;
  while (times.size() < 5 || (total < 0.2 && times.size() < 200)) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    times.push_back(s);
    total += s;
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

void row(const char* layer, const char* shape, std::int64_t macs, double reference_s, double fast_s, const char* variant,
         bool exact) {
  fmt::print("{:<4} {:<44} {:>9} {:>9.2f} {:>9.2f} {:>8.1f}x  {:<10} {}\n", layer, shape, macs, macs / reference_s / 1e9,
             macs / fast_s / 1e9, reference_s / fast_s, variant, exact ? "yes" : "NO");
}

template <conv2d_dims D>
bool conv_layer(const char* layer, const char* shape) {
  buffers b;
  const int cin_per_group = D.in_c / D.groups;
  b.input.resize(std::size_t(D.in_h) * D.in_w * D.in_c);
  b.weights.resize(std::size_t(D.out_c) * D.kernel_h * D.kernel_w * cin_per_group);
  for (auto& v : b.input) v = static_cast<std::int8_t>(next(-128, 127));
  for (auto& v : b.weights) v = static_cast<std::int8_t>(next(-128, 127));
  const auto rq = per_channel(b, D.out_c, D.kernel_h * D.kernel_w * cin_per_group);
  constexpr tessera::requant_params shape_only{true, nullptr, nullptr, D.out_c, 1, 0, -128, 127};
  constexpr auto variant = k::choose_conv2d<family, std::int8_t, std::int8_t, std::int8_t>(D, shape_only);
  b.scratch.resize(k::conv2d_scratch_bytes<family>(variant, D) + 16);
  const std::size_t out = std::size_t(D.out_h) * D.out_w * D.out_c;
  b.out_ref.resize(out), b.out_fast.resize(out);
  const double reference_s = median_seconds([&] {
    k::reference::conv2d(D, b.input.data(), b.weights.data(), b.bias.data(), rq, b.out_ref.data(), nullptr);
  });
  const double fast_s = median_seconds([&] {
    k::conv2d<family, variant>(D, b.input.data(), b.weights.data(), b.bias.data(), rq, b.out_fast.data(),
                               b.scratch.data());
  });
  const bool exact = b.out_ref == b.out_fast;
  row(layer, shape, std::int64_t(out) * D.kernel_h * D.kernel_w * cin_per_group, reference_s, fast_s,
      k::variant_name(variant), exact);
  return exact;
}

template <gemm_dims D>
bool fc_layer(const char* layer, const char* shape) {
  buffers b;
  b.input.resize(std::size_t(D.m) * D.k), b.weights.resize(std::size_t(D.n) * D.k);
  for (auto& v : b.input) v = static_cast<std::int8_t>(next(-128, 127));
  for (auto& v : b.weights) v = static_cast<std::int8_t>(next(-128, 127));
  const auto rq = per_channel(b, D.n, D.k);
  constexpr tessera::requant_params shape_only{true, nullptr, nullptr, D.n, 1, 0, -128, 127};
  constexpr auto run_family = k::choose_gemm<family, std::int8_t, std::int8_t, std::int8_t>(D, shape_only);
  b.scratch.resize(k::gemm_scratch_bytes<run_family>(D) + 16);
  b.out_ref.resize(std::size_t(D.m) * D.n), b.out_fast.resize(std::size_t(D.m) * D.n);
  const double reference_s = median_seconds([&] {
    k::reference::gemm(D, b.input.data(), b.weights.data(), b.bias.data(), rq, b.out_ref.data(), nullptr);
  });
  const double fast_s = median_seconds([&] {
    k::gemm<run_family>(D, b.input.data(), b.weights.data(), b.bias.data(), rq, b.out_fast.data(), b.scratch.data());
  });
  const bool exact = b.out_ref == b.out_fast;
  row(layer, shape, std::int64_t{D.m} * D.n * D.k, reference_s, fast_s, k::family_name(run_family), exact);
  return exact;
}

}  // namespace

int main() {
#if defined(__AVX2__)
  const char* isa = "AVX2";
#else
  const char* isa = "SSE4.1";
#endif
  fmt::print("Host kernels: reference vs {} family built for {} (GMAC/s, wall time, median)\n", k::family_name(family), isa);
  fmt::print("{:<4} {:<44} {:>9} {:>9} {:>9} {:>9}  {:<10} {}\n", "", "layer", "MACs", "ref", "fast", "speedup",
             "kernel", "exact");
  bool ok = true;
  ok &= conv_layer<conv2d_dims{1, 32, 32, 16, 32, 32, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1}>("L1", "conv 3x3 s1 p1, 16->16, 32x32");
  ok &= conv_layer<conv2d_dims{1, 32, 32, 16, 16, 16, 32, 3, 3, 2, 2, 1, 1, 1, 1, 1}>("L2", "conv 3x3 s2 p1, 16->32, 32x32");
  ok &= conv_layer<conv2d_dims{1, 8, 8, 64, 8, 8, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1}>("L3", "conv 3x3 s1 p1, 64->64, 8x8");
  ok &= conv_layer<conv2d_dims{1, 48, 48, 32, 48, 48, 64, 1, 1, 1, 1, 1, 1, 0, 0, 1}>("L4", "conv 1x1, 32->64, 48x48");
  ok &= conv_layer<conv2d_dims{1, 24, 24, 64, 24, 24, 64, 3, 3, 1, 1, 1, 1, 1, 1, 64}>("L5", "depthwise 3x3 s1 p1, 64 ch, 24x24");
  ok &= conv_layer<conv2d_dims{1, 48, 48, 32, 24, 24, 32, 3, 3, 2, 2, 1, 1, 1, 1, 32}>("L6", "depthwise 3x3 s2 p1, 32 ch, 48x48");
  ok &= conv_layer<conv2d_dims{1, 49, 10, 1, 25, 5, 64, 10, 4, 2, 2, 1, 1, 4, 1, 1}>("L7", "conv 10x4 s2, pads t4 b5 l1 r1, 1->64, 49x10");
  ok &= fc_layer<gemm_dims{1, 10, 256}>("L8a", "fully connected 256->10");
  ok &= fc_layer<gemm_dims{1, 128, 640}>("L8b", "fully connected 640->128");
  // MobileNetV2 pointwise layers whose input channels are 8 mod 16 (issue 14, item 5: the AVX2
  // k-tail): 0.35 width at 96x96.
  ok &= conv_layer<conv2d_dims{1, 48, 48, 8, 48, 48, 48, 1, 1, 1, 1, 1, 1, 0, 0, 1}>("L9", "conv 1x1, 8->48, 48x48");
  ok &= conv_layer<conv2d_dims{1, 12, 12, 24, 12, 12, 144, 1, 1, 1, 1, 1, 1, 0, 0, 1}>("L10", "conv 1x1, 24->144, 12x12");
  ok &= conv_layer<conv2d_dims{1, 6, 6, 56, 6, 6, 336, 1, 1, 1, 1, 1, 1, 0, 0, 1}>("L11", "conv 1x1, 56->336, 6x6");
  return ok ? 0 : 1;
}
