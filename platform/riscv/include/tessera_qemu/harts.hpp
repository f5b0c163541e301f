// The harts of QEMU's riscv32 `virt` machine as a cluster: fork/join without an OS, a heap or
// atomic read-modify-write instructions.
//
// Hart 0 runs main(); harts 1..max_harts-1 sleep (wfi) in src/harts.cpp until fork_join gives
// them work. Every shared variable has a single writer, so plain loads and stores ordered by
// `fence rw, rw` are enough (rv32imc has no 'a' extension; the rv32imac multilib exists, but
// the protocol does not need it):
//
//   hart 0 (fork)                          worker h (loop)
//   job = {fn, ctx, cores}                 clear own msip; fence
//   fence; generation += 1; fence          while generation == seen: wfi; clear msip; fence
//   msip[h] = 1 for h in 1..cores-1        seen = generation; fence; fn(ctx, h) if h < cores
//   fn(ctx, 0)                             fence; done[h] = seen; fence; msip[0] = 1
//   join: while done[h] != generation for some h < cores: wfi (cleared, re-checked)
//
// Waiting harts sleep in wfi, woken by a CLINT software interrupt (msip; mie.MSIE set,
// mstatus.MIE clear: wfi wakes on a pending enabled interrupt without taking a trap). They must
// sleep, not spin: under `-icount` QEMU runs the harts round-robin on one host thread and
// switches hart only when one sleeps (or at a timer deadline), so a spinning hart would hold the
// machine for up to 2^31 instructions.
//
// Instruction counts: minstret counts the machine's instructions (every hart's), so the profile
// (fork_join with a `hart_profile`) wakes one hart at a time (hart 0 writes `turn` = h, then
// wakes h, then sleeps until done[h]) while the others sleep; each hart's share is then exact. The results are the same either way: the harts write disjoint
// outputs.
#pragma once

#include <cstdint>

namespace tessera::qemu {

/// Harts the platform gives stacks to (ld/virt.ld, __hart_count): QEMU's `-smp` may be lower.
inline constexpr int max_harts = 8;

/// mhartid of the calling hart.
inline int hart_id() {
  unsigned long id;
  asm volatile("csrr %0, mhartid" : "=r"(id));
  return static_cast<int>(id);
}

/// Harts that answered at boot (hart 0 included): QEMU's `-smp`, at most max_harts. The first
/// call waits for the workers to check in.
int harts_online();

/// Per-hart instruction counts of the profiled fork_joins: `counts[slot * max_harts + hart]`
/// accumulates the guest instructions hart `hart` spent in fn for `slot` (a layer index).
struct hart_profile {
  std::uint64_t* counts = nullptr;
  int slots = 0;
};

/// Runs `fn(ctx, core)` for core = 0..cores-1 on harts 0..cores-1 (hart 0 is the caller, which
/// must be hart 0) and returns when every call has returned. With `profile`, the harts run one
/// after the other (the others asleep) and each one's instructions are added to
/// profile->counts[slot * max_harts + core]. Fails (exit 125, with a message) when fewer than
/// `cores` harts are online.
void fork_join(int cores, void (*fn)(void* ctx, int core), void* ctx, hart_profile* profile = nullptr, int slot = 0);

}  // namespace tessera::qemu
