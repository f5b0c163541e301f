// Loops and sequences whose Cortex-M4 cycle counts follow from the Technical Reference Manual
// (table 3-1 and the load/store timing rules), each in its own function, run once.
// tests/tools/check_cortex_m_cycles.py traces this firmware with scripts/cortex_m_cycles.py
// and compares the estimate per function with the counts worked out by hand in its table: a
// check of the tracing, the disassembly and the rules' implementation on the TRM's own
// examples, not of the TRM against silicon (QEMU has no cycle model to compare with).
#include <cstdint>

extern "C" {

// "LDR R0,[R1]; LDR R1,[R2]: normally three cycles total"; BX LR: 1 + P.
[[gnu::naked, gnu::noinline]] void cycle_case_ldr_pair(const std::uint32_t*, const std::uint32_t*) {
  asm volatile(
      "mov r2, r1\n"  // r2 = second argument (1 cycle; nothing below addresses through r2 next)
      "mov r1, r0\n"
      "nop\n"  // keeps the address of the first LDR clear of the MOV that wrote it
      "ldr r0, [r1]\n"
      "ldr r1, [r2]\n"
      "bx lr\n");
}

// "LDR R0,[R1,R2]; STR R0,[R3,#20]: normally three cycles total".
[[gnu::naked, gnu::noinline]] void cycle_case_ldr_str(std::uint32_t*) {
  asm volatile(
      "mov r1, r0\n"
      "mov r3, r0\n"
      "movs r2, #0\n"
      "nop\n"
      "ldr r0, [r1, r2]\n"
      "str r0, [r3, #20]\n"
      "bx lr\n");
}

// "LDR R0,[R1,R5]; LDR R1,[R2]; LDR R2,[R3,#4]: normally four cycles total".
[[gnu::naked, gnu::noinline]] void cycle_case_ldr_triple(const std::uint32_t*) {
  asm volatile(
      "push {r5}\n"
      "mov r1, r0\n"
      "mov r2, r0\n"
      "mov r3, r0\n"
      "movs r5, #0\n"
      "nop\n"
      "ldr r0, [r1, r5]\n"
      "ldr r1, [r2]\n"
      "ldr r2, [r3, #4]\n"
      "pop {r5}\n"
      "bx lr\n");
}

// LDRD: 3 cycles, not pipelined; LDM of 3 registers: 1 + 3.
[[gnu::naked, gnu::noinline]] void cycle_case_ldrd_ldm(const std::uint32_t*) {
  asm volatile(
      "ldrd r2, r3, [r0]\n"
      "ldm r0, {r1, r2, r3}\n"
      "bx lr\n");
}

// A counted loop of 8 iterations: LDR (2: after a branch or an unrelated MOVS), SMLAD 1,
// SUBS 1, BNE taken 1 + P = 3 (7 times) or not taken 1.
[[gnu::naked, gnu::noinline]] void cycle_case_loop(const std::uint32_t*) {
  asm volatile(
      "movs r1, #8\n"
      "1:\n"
      "ldr r2, [r0]\n"
      "smlad r3, r2, r2, r3\n"
      "subs r1, #1\n"
      "bne 1b\n"
      "bx lr\n");
}

// A load whose address register the previous data-processing instruction wrote: +1.
[[gnu::naked, gnu::noinline]] void cycle_case_address_dependency(const std::uint32_t*) {
  asm volatile(
      "adds r0, #4\n"
      "ldr r1, [r0]\n"
      "bx lr\n");
}

// PUSH of 5 registers 1 + 5; POP of 5 with PC 1 + 5 + P.
[[gnu::naked, gnu::noinline]] void cycle_case_push_pop() {
  asm volatile(
      "push {r4, r5, r6, r7, lr}\n"
      "pop {r4, r5, r6, r7, pc}\n");
}

// IT folded onto the preceding 16-bit CMP (0 cycles); the conditional MOV 1.
[[gnu::naked, gnu::noinline]] void cycle_case_it_folding(int) {
  asm volatile(
      "cmp r0, #0\n"
      "it ne\n"
      "movne r1, #1\n"
      "bx lr\n");
}

}  // extern "C"

namespace {
alignas(8) std::uint32_t words[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
}

int main() {
  cycle_case_ldr_pair(words, words + 1);
  cycle_case_ldr_str(words);
  cycle_case_ldr_triple(words);
  cycle_case_ldrd_ldm(words);
  cycle_case_loop(words);
  cycle_case_address_dependency(words);
  cycle_case_push_pop();
  cycle_case_it_folding(1);
  return 0;
}
