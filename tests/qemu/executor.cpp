// The executors on the core: the hand-written networks of tests/support/tiny_networks.hpp run
// with the family the compiler targets (arm_dsp / arm_mve, reference where a family declines a
// layer), flat and tiled (the smallest L1 the planner allows, so every layer is cut into tiles,
// and the STM32H7 preset; the smallest-L1 plan also with every tile's rows split over eight
// emulated cores, tessera::serial_team<8>), bit-exact with the flat executor on the reference
// kernels; and the reference outputs equal the host's (a checksum computed on x86-64, see
// `host_checksum`); and fused depthwise/pointwise blocks of both orders (tiny::separable).
//
// Builds on the host too (`g++ -std=c++20 -DTESSERA_QEMU_HOST -Iinclude -Ikernels
// tests/qemu/executor.cpp`), which prints the checksum of the host's reference outputs.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include <tessera/dma/memcpy_policy.hpp>
#include <tessera/tessera.hpp>

#include "../support/tiny_networks.hpp"

#if !defined(TESSERA_QEMU_HOST)
#include <tessera_qemu/board.hpp>
#endif

namespace {

using tessera::kernels::kernel_family;
constexpr kernel_family native = tessera::kernels::native_family;

/// FNV-1a over the reference outputs of every trial of both networks, on x86-64 (g++ 12, -O2).
constexpr std::uint32_t host_checksum = 0x3a6b45f6u;
constexpr int trials = 16;

/// A two-level target with `L1` bytes of L1 that runs the native family's kernels.
template <std::size_t L1>
inline constexpr tessera::target_desc small_l1{
    .name = "small-l1",
    .levels = {{{"L1", L1, 4, 4, 20}, {"L2", 256 * 1024, 4, 4, 20}}},
    .level_count = 2,
    .cores = 1,
    .kernels = native,
    .micro_tile_channels = tessera::kernels::family_traits<native>::conv_tile.channels,
    .micro_tile_width = tessera::kernels::family_traits<native>::conv_tile.width};

struct checksum {
  std::uint32_t value = 2166136261u;
  void add(const void* data, std::size_t bytes) {
    const auto* p = static_cast<const std::uint8_t*>(data);
    for (std::size_t i = 0; i < bytes; ++i) value = (value ^ p[i]) * 16777619u;
  }
};

int failures = 0;

void compare(const char* network, const char* variant, int trial, const void* expected, const void* actual,
             std::size_t bytes) {
  if (std::memcmp(expected, actual, bytes) != 0) {
    std::printf("MISMATCH %s %s trial %d\n", network, variant, trial);
    ++failures;
  }
}

template <class Input, std::size_t InputCount, class Output, std::size_t OutputCount, class Net>
void check_network(const char* name, checksum& sum) {
  using reference = tessera::executor<Net, kernel_family::reference>;
  using flat = tessera::executor<Net, native>;
  constexpr std::size_t l1_min = tessera::smallest_l1_bytes(Net::summary, small_l1<0>);
  using tiled_small = tessera::tiled_executor<Net, tessera::target<small_l1<l1_min>>>;
  using tiled_h7 = tessera::tiled_executor<Net, tessera::target<tessera::targets::stm32h7>>;

  alignas(16) static std::byte reference_arena[reference::arena_bytes];
  alignas(16) static std::byte flat_arena[flat::arena_bytes];
  alignas(16) static std::byte small_l2[tiled_small::l2_bytes];
  alignas(16) static std::byte small_l1_buffer[tiled_small::l1_bytes];
  alignas(16) static std::byte h7_l2[tiled_h7::l2_bytes];
  alignas(16) static std::byte h7_l1[tiled_h7::l1_bytes];

  std::uint32_t seed = 12345;
  for (int trial = 0; trial < trials; ++trial) {
    std::array<Input, InputCount> input{};
    for (auto& v : input) {
      seed = seed * 1664525u + 1013904223u;
      v = static_cast<Input>(seed >> 24);
    }
    std::array<Output, OutputCount> expected{}, actual{};
    reference::run(reference_arena, {input.data()}, {expected.data()});
    sum.add(expected.data(), sizeof(expected));

    actual.fill(Output{-1});
    flat::run(flat_arena, {input.data()}, {actual.data()});
    compare(name, "flat", trial, expected.data(), actual.data(), sizeof(actual));

    actual.fill(Output{-1});
    tessera::dma::memcpy_policy dma;
    tiled_small::run(small_l2, small_l1_buffer, {input.data()}, {actual.data()}, dma);
    compare(name, "tiled (smallest L1)", trial, expected.data(), actual.data(), sizeof(actual));

    actual.fill(Output{-1});
    tessera::serial_team<8> eight;
    tiled_small::run(eight, small_l2, small_l1_buffer, {input.data()}, {actual.data()}, dma);
    compare(name, "tiled (smallest L1, rows split over 8 cores)", trial, expected.data(), actual.data(), sizeof(actual));

    actual.fill(Output{-1});
    tiled_h7::run(h7_l2, h7_l1, {input.data()}, {actual.data()}, dma);
    compare(name, "tiled (stm32h7)", trial, expected.data(), actual.data(), sizeof(actual));
  }
  std::printf("%-8s %d trials: flat and tiled (L1 %u bytes on 1 and 8 cores, stm32h7) %s family vs reference\n", name, trials,
              static_cast<unsigned>(l1_min), tessera::kernels::family_name(native));
}

/// `small_l1` with `L1` bytes fusing by traffic: pointwise -> depthwise blocks allowed or not.
/// Without L1 forwarding, which at 8 kB keeps every one-tile result in L1 unfused (no block
/// would move fewer bytes, and the fused kernels would go untested).
template <std::size_t L1, bool PointwiseFirst>
inline constexpr tessera::target_desc fusing_l1 = [] {
  tessera::target_desc t = small_l1<L1>;
  t.fusion = tessera::fusion_policy::by_traffic;
  t.fuse_pointwise_first = PointwiseFirst;
  t.l1_forwarding = false;
  return t;
}();

/// One fused plan of the separable network, `blocks` fused blocks of which `pointwise_first`
/// pointwise first (checked at compile time), against the reference executor.
template <tessera::target_desc Target, int Blocks, int PointwiseFirst>
void check_fused_plan(const char* variant) {
  using net = tiny::separable::network;
  using reference = tessera::executor<net, kernel_family::reference>;
  using tiled = tessera::tiled_executor<net, tessera::target<Target>>;
  static_assert([] {
    int blocks = 0, pointwise_first = 0;
    for (const auto& node : tiled::summary.nodes) {
      blocks += node.geometry.fused() ? 1 : 0;
      pointwise_first += node.geometry.pointwise_first() ? 1 : 0;
    }
    return blocks == Blocks && pointwise_first == PointwiseFirst;
  }());
  alignas(16) static std::byte reference_arena[reference::arena_bytes];
  alignas(16) static std::byte l2[tiled::l2_bytes];
  alignas(16) static std::byte l1[tiled::l1_bytes];
  for (int trial = 0; trial < trials; ++trial) {
    const auto input = tiny::separable::random_image(static_cast<std::uint32_t>(100 + trial));
    tiny::separable::logits expected{}, actual{};
    reference::run(reference_arena, {input.data()}, {expected.data()});
    actual.fill(-1);
    tessera::dma::memcpy_policy dma;
    tiled::run(l2, l1, {input.data()}, {actual.data()}, dma);
    compare("separable", variant, trial, expected.data(), actual.data(), sizeof(actual));
    actual.fill(-1);
    tessera::serial_team<8> eight;
    tiled::run(eight, l2, l1, {input.data()}, {actual.data()}, dma);
    compare("separable", variant, trial, expected.data(), actual.data(), sizeof(actual));
  }
}

/// Fused depthwise/pointwise blocks with the native family's kernels (each block runs its two
/// nodes' own tile functions): pointwise first (pw1+dw2) and depthwise first (dw1+pw1,
/// dw2+pw2), with an L1 that holds the layers whole and one that cuts the blocks into tiles.
void check_fused() {
  check_fused_plan<fusing_l1<8192, true>, 1, 1>("fused, pointwise first");
  check_fused_plan<fusing_l1<8192, false>, 2, 0>("fused, depthwise first");
  check_fused_plan<fusing_l1<2048, true>, 1, 1>("fused in tiles, pointwise first");
  std::printf("separable %d trials: fused blocks of both orders (L1 8 kB and 2 kB, 1 and 8 cores) %s family vs reference\n",
              trials, tessera::kernels::family_name(native));
}

}  // namespace

int main() {
  checksum sum;
  check_network<std::uint8_t, 16, std::int32_t, 3, tiny::residual::network>("residual", sum);
  check_network<std::uint8_t, 12 * 10 * 3, std::int32_t, 6, tiny::features::network>("features", sum);
  check_fused();
#if defined(TESSERA_QEMU_HOST)
  std::printf("host reference checksum 0x%08lx\n", static_cast<unsigned long>(sum.value));
#else
  std::printf("reference checksum 0x%08lx on %s, 0x%08lx on the host\n", static_cast<unsigned long>(sum.value),
              tessera::qemu::board.name, static_cast<unsigned long>(host_checksum));
  if (sum.value != host_checksum) {
    std::printf("MISMATCH the reference outputs differ from the host's\n");
    ++failures;
  }
#endif
  std::printf("executor: %d failures\n", failures);
  return failures > 127 ? 127 : failures;
}
