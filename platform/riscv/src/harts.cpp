// Fork/join over the harts of QEMU's riscv32 `virt` (../include/tessera_qemu/harts.hpp).
#include <tessera_qemu/harts.hpp>
#include <tessera_qemu/instruction_counter.hpp>

#include <cstdio>
#include <cstdlib>

namespace {

using tessera::qemu::max_harts;

/// CLINT machine software interrupt pending bits, one 32-bit word per hart (QEMU virt).
volatile std::uint32_t* const msip = reinterpret_cast<volatile std::uint32_t*>(0x0200'0000u);
/// CLINT timer: mtime (64-bit, 10 MHz) and hart 0's mtimecmp.
volatile std::uint32_t* const mtime_word = reinterpret_cast<volatile std::uint32_t*>(0x0200'BFF8u);
volatile std::uint32_t* const mtimecmp0 = reinterpret_cast<volatile std::uint32_t*>(0x0200'4000u);
constexpr unsigned long mie_msie = 1ul << 3;  ///< machine software interrupt enable
constexpr unsigned long mie_mtie = 1ul << 7;  ///< machine timer interrupt enable

std::uint64_t mtime() {
  std::uint32_t high, low;
  do {
    high = mtime_word[1];
    low = mtime_word[0];
  } while (high != mtime_word[1]);
  return (std::uint64_t{high} << 32) | low;
}

inline void fence() { asm volatile("fence rw, rw" ::: "memory"); }
inline void wait_for_interrupt() { asm volatile("wfi" ::: "memory"); }

// Outside .bss: the workers read `released` before hart 0 has zeroed .bss.
[[gnu::section(".data")]] volatile std::uint32_t released = 0;

struct job {
  void (*fn)(void*, int) = nullptr;
  void* ctx = nullptr;
  int cores = 0;
  tessera::qemu::hart_profile* profile = nullptr;
  int slot = 0;
};

// Written by hart 0 only.
job current;
volatile std::uint32_t generation = 0;
volatile std::uint32_t turn = 0;  ///< profile: the one hart that may run its call now
// Written by worker h only (index h).
volatile std::uint32_t online[max_harts];
volatile std::uint32_t done[max_harts];

void wake(int hart) {
  fence();
  msip[hart] = 1;
}

/// Sleeps until `ready()` holds; the own msip bit is cleared before each check, so a wake-up
/// sent after the check leaves it set and wfi returns at once.
template <class Ready>
void sleep_until(int hart, Ready ready) {
  for (;;) {
    msip[hart] = 0;
    fence();
    if (ready()) return;
    wait_for_interrupt();
  }
}

// Not inlined: hart 0 and the workers must run the same instructions between the two counter
// readings (clang inlined it with different code at the two call sites: 2 instructions apart).
[[gnu::noinline]] void run_measured(const job& j, int core) {
  const std::uint64_t start = tessera::qemu::instret();
  j.fn(j.ctx, core);
  const std::uint64_t spent = tessera::qemu::instret() - start;
  if (j.slot >= 0 && j.slot < j.profile->slots) j.profile->counts[j.slot * max_harts + core] += spent;
}

}  // namespace

namespace tessera::qemu::detail {
void release_workers() {
  fence();
  released = 1;
  for (int h = 1; h < max_harts; ++h) wake(h);
}
}  // namespace tessera::qemu::detail

extern "C" [[noreturn]] void tessera_qemu_worker_start() {
  const int self = tessera::qemu::hart_id();
  asm volatile("csrs mie, %0" ::"r"(mie_msie));
  sleep_until(self, [] { return released != 0; });
  std::uint32_t seen = generation;
  online[self] = 1;
  wake(0);
  for (;;) {
    sleep_until(self, [&] { return generation != seen; });
    seen = generation;
    fence();
    const job j = current;
    if (self < j.cores) {
      if (j.profile != nullptr) {
        // Woken only at its turn under QEMU; the check keeps the count exact even if a hart
        // saw the new generation early.
        sleep_until(self, [&] { return turn == static_cast<std::uint32_t>(self); });
        run_measured(j, self);
      } else {
        j.fn(j.ctx, self);
      }
    }
    fence();
    done[self] = seen;
    wake(0);
  }
}

namespace tessera::qemu {

int harts_online() {
  static int count = 0;
  if (count != 0) return count;
  // Every existing hart checks in (and wakes hart 0) as soon as hart 0 sleeps. Hart 0 sleeps
  // until all max_harts have, or until its CLINT timer fires 2^16 mtime ticks (QEMU virt's
  // timebase is 10 MHz: 6.5 ms of virtual time, plenty for a worker's few dozen instructions)
  // from now: the harts that have not checked in by then do not exist (-smp below max_harts).
  const std::uint64_t deadline = mtime() + (1u << 16);
  mtimecmp0[1] = 0xFFFF'FFFFu;  // no spurious match while the two halves are written
  mtimecmp0[0] = static_cast<std::uint32_t>(deadline);
  mtimecmp0[1] = static_cast<std::uint32_t>(deadline >> 32);
  asm volatile("csrs mie, %0" ::"r"(mie_msie | mie_mtie));
  sleep_until(0, [&] {
    int n = 1;
    while (n < max_harts && online[n] != 0) ++n;
    count = n;
    return n == max_harts || mtime() >= deadline;
  });
  asm volatile("csrc mie, %0" ::"r"(mie_mtie));
  mtimecmp0[1] = 0xFFFF'FFFFu;
  mtimecmp0[0] = 0xFFFF'FFFFu;
  return count;
}

void fork_join(int cores, void (*fn)(void*, int), void* ctx, hart_profile* profile, int slot) {
  if (cores <= 1) {
    job j{fn, ctx, 1, profile, slot};
    if (profile != nullptr) run_measured(j, 0);
    else fn(ctx, 0);
    return;
  }
  if (cores > harts_online()) {
    std::printf("tessera_qemu: fork_join on %d harts, but %d are online: run QEMU with -smp %d\n", cores,
                harts_online(), cores);
    std::exit(125);
  }
  current = job{fn, ctx, cores, profile, slot};
  turn = 0;
  fence();
  generation = generation + 1;
  const std::uint32_t g = generation;
  if (profile != nullptr) {
    // One hart at a time: hart 0 first, then each worker, woken in turn while hart 0 sleeps.
    run_measured(current, 0);
    for (int h = 1; h < cores; ++h) {
      turn = static_cast<std::uint32_t>(h);
      wake(h);
      sleep_until(0, [&] { return done[h] == g; });
    }
    return;
  }
  for (int h = 1; h < cores; ++h) wake(h);
  fn(ctx, 0);
  for (int h = 1; h < cores; ++h) sleep_until(0, [&] { return done[h] == g; });
}

}  // namespace tessera::qemu
