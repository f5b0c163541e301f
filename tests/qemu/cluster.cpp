// The RISC-V cluster (platform/riscv, tessera_qemu/harts.hpp and cluster.hpp) under
// `qemu-system-riscv32 -M virt -smp 8`:
// 1. every hart is online and fork_join runs each core's call exactly once per fork, for 8
//    cores and for a subset, many times over (a lost or doubled wake-up shows as a wrong count);
// 2. the profile (one hart at a time) counts each hart's instructions exactly: calls that spin a
//    known number of instructions differ by exactly that number;
// 3. the tiny networks of tests/support/tiny_networks.hpp run tiled (the smallest L1 the planner
//    allows, so every layer is cut into tiles) with each tile's rows split over the 8 harts,
//    bit-exact with the flat executor on the reference kernels.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include <tessera/dma/memcpy_policy.hpp>
#include <tessera/tessera.hpp>
#include <tessera_qemu/board.hpp>
#include <tessera_qemu/cluster.hpp>

#include "../support/tiny_networks.hpp"

namespace {

using tessera::qemu::max_harts;
int failures = 0;

void expect(bool ok, const char* what) {
  if (!ok) {
    std::printf("FAILED: %s\n", what);
    ++failures;
  }
}

[[gnu::noinline]] void spin(std::uint32_t n) {
  asm volatile(
      "1:\n\t"
      "addi %0, %0, -1\n\t"
      "bnez %0, 1b"
      : "+r"(n));
}

void check_fork_join() {
  const int online = tessera::qemu::harts_online();
  std::printf("harts online: %d of %d\n", online, max_harts);
  expect(online == max_harts, "every hart is online (QEMU -smp 8)");
  static volatile std::uint32_t calls[max_harts];
  constexpr int forks = 2000;
  for (int i = 0; i < forks; ++i) {
    const int cores = i % 3 == 2 ? 3 : max_harts;
    auto body = [](void*, int core) { calls[core] = calls[core] + 1; };
    tessera::qemu::fork_join(cores, body, nullptr);
  }
  // Cores 0-2 run in every fork, 3-7 in two of three.
  bool exact = true;
  for (int h = 0; h < max_harts; ++h) {
    const std::uint32_t want = h < 3 ? forks : forks - forks / 3;
    if (calls[h] != want) {
      std::printf("hart %d: %lu calls, want %lu\n", h, static_cast<unsigned long>(calls[h]),
                  static_cast<unsigned long>(want));
      exact = false;
    }
  }
  std::printf("fork_join: %d forks over 8 and 3 harts\n", forks);
  expect(exact, "each core's call runs exactly once per fork");
}

void check_profile() {
  std::uint64_t counts[2 * max_harts] = {};
  tessera::qemu::hart_profile profile{counts, 2};
  auto body = [](void*, int core) { spin(1000u * static_cast<std::uint32_t>(core + 1)); };
  tessera::qemu::fork_join(max_harts, body, nullptr, &profile, 1);
  bool exact = true;
  for (int h = 0; h < max_harts; ++h) {
    std::printf("hart %d: %llu instructions (spin %d)\n", h, static_cast<unsigned long long>(counts[max_harts + h]),
                2000 * (h + 1));
    // The call's own overhead is the same on every hart: the spins differ by exactly 2000.
    if (counts[max_harts + h] - counts[max_harts] != 2000ull * static_cast<unsigned>(h)) exact = false;
    if (counts[h] != 0) exact = false;
  }
  expect(exact, "the profile counts each hart's instructions exactly, in its slot");
}

template <std::size_t L1>
inline constexpr tessera::target_desc cluster_l1{
    .name = "cluster-l1",
    .levels = {{{"L1", L1, 8, 10, 30}, {"L2", 256 * 1024, 8, 10, 30}}},
    .level_count = 2,
    .cores = 8};

template <class Input, std::size_t InputCount, class Output, std::size_t OutputCount, class Net>
void check_network(const char* name) {
  using reference = tessera::executor<Net, tessera::kernels::kernel_family::reference>;
  constexpr std::size_t l1_min = tessera::smallest_l1_bytes(Net::summary, cluster_l1<0>);
  using tiled = tessera::tiled_executor<Net, tessera::target<cluster_l1<l1_min * 4>>>;
  alignas(16) static std::byte reference_arena[reference::arena_bytes];
  alignas(16) static std::byte l2[tiled::l2_bytes];
  alignas(16) static std::byte l1[tiled::l1_bytes];
  tessera::qemu::hart_team team{max_harts};
  std::uint32_t seed = 777;
  for (int trial = 0; trial < 8; ++trial) {
    std::array<Input, InputCount> input{};
    for (auto& v : input) {
      seed = seed * 1664525u + 1013904223u;
      v = static_cast<Input>(seed >> 24);
    }
    std::array<Output, OutputCount> expected{}, actual{};
    reference::run(reference_arena, {input.data()}, {expected.data()});
    actual.fill(Output{-1});
    tessera::dma::memcpy_policy dma;
    tiled::run(team, l2, l1, {input.data()}, {actual.data()}, dma);
    if (std::memcmp(expected.data(), actual.data(), sizeof(actual)) != 0) {
      std::printf("MISMATCH %s trial %d\n", name, trial);
      ++failures;
    }
  }
  std::printf("%-8s 8 trials tiled (L1 %u bytes) on 8 harts vs reference\n", name, static_cast<unsigned>(l1_min * 4));
}

}  // namespace

int main() {
  check_fork_join();
  check_profile();
  check_network<std::uint8_t, 16, std::int32_t, 3, tiny::residual::network>("residual");
  check_network<std::uint8_t, 12 * 10 * 3, std::int32_t, 6, tiny::features::network>("features");
  std::printf("cluster on %s (%s): %d failures\n", tessera::qemu::board.name, tessera::qemu::board.core, failures);
  return failures > 127 ? 127 : failures;
}
