// The keyword-spotting firmware: one DS-CNN inference (kws_network.hpp) with the build's native
// kernels, checked against the same network run with the reference kernels, and its guest
// instruction count. Its `.text` is what issue 4's code-size bound is measured on: the size
// build defines TESSERA_KWS_NO_CHECK, which leaves the reference run (a test aid) out, and the
// stub build (TESSERA_KWS_STUB) also leaves the inference out: the library's code is the size
// build's .text minus the stub's (it includes executor code the compiler inlined into main).
// TESSERA_KWS_RAM_BUDGET is the executor's RAM budget (planning/ram_budget.hpp): by default the
// least arena; the `tessera_kws_any_ram` build takes every layer's fastest kernel instead.
#include <cstdint>
#include <cstdio>
#include <cstring>

#include <tessera_qemu/instruction_counter.hpp>

#include "kws_network.hpp"

#ifndef TESSERA_KWS_RAM_BUDGET
#define TESSERA_KWS_RAM_BUDGET tessera::least_ram
#endif

using net = kws::network;
using fast = tessera::executor<net, tessera::kernels::native_family, TESSERA_KWS_RAM_BUDGET>;

namespace {
alignas(16) std::byte arena[fast::arena_bytes];
alignas(16) std::int8_t input[49 * 10];
alignas(16) std::int32_t logits[12];
}  // namespace

int main() {
  std::memcpy(input, kws::sample_input.values.data(), sizeof input);
  tessera::qemu::start_instruction_counter();
  const std::uint64_t start = tessera::qemu::guest_instructions();
#if !defined(TESSERA_KWS_STUB)
  fast::run(arena, {input}, {logits});
#endif
  const std::uint64_t instructions = tessera::qemu::guest_instructions() - start;
  int failures = 0;
#if !defined(TESSERA_KWS_NO_CHECK)
  using reference = tessera::executor<net, tessera::kernels::kernel_family::reference>;
  alignas(16) static std::byte reference_arena[reference::arena_bytes];
  std::int32_t expected[12];
  reference::run(reference_arena, {input}, {expected});
  failures = std::memcmp(expected, logits, sizeof logits) != 0;
#endif
  std::printf("kws|%ld|%llu|%u|%s\n", static_cast<long>(net::macs()), static_cast<unsigned long long>(instructions),
              static_cast<unsigned>(fast::arena_bytes), failures == 0 ? "exact" : "MISMATCH");
  return failures;
}
