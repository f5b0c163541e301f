// The first instructions every hart runs (QEMU virt, -bios none: all harts start at 0x80000000,
// which ld/virt.ld gives to .tessera.entry). Each hart takes its own stack (hart h: the h-th
// __hart_stack_size bytes below __stacks_end), the global and thread pointers and the trap
// vector; hart 0 goes on to tessera_qemu_hart0_start (src/startup.cpp: .bss, static
// constructors, exit(main())), harts 1..__hart_count-1 to tessera_qemu_worker_start
// (src/harts.cpp: they sleep until the cluster gives them work), any other hart parks in wfi.
// File-scope assembly in a C++ file, so that the project needs no ASM language.

#if defined(__riscv_flen) || defined(__riscv_vector)
// mstatus.FS = initial (bit 13) and mstatus.VS = initial (bit 9): floating-point and vector
// instructions are illegal until these are set.
#define TESSERA_QEMU_ENABLE_UNITS "    li t0, (1 << 13) | (1 << 9)\n    csrs mstatus, t0\n"
#else
#define TESSERA_QEMU_ENABLE_UNITS ""
#endif

asm(R"(
    .section .tessera.entry, "ax"
    .globl _tessera_entry
    .type _tessera_entry, @function
_tessera_entry:
    .option push
    .option norelax
    la gp, __global_pointer$
    .option pop
    la tp, __tls_base
    la t0, tessera_qemu_trap_entry
    csrw mtvec, t0
    csrw mie, zero
    csrr a0, mhartid
    la t0, __hart_count
    bgeu a0, t0, 2f
    la t1, __hart_stack_size
    mul t1, t1, a0
    la sp, __stacks_end
    sub sp, sp, t1
)" TESSERA_QEMU_ENABLE_UNITS R"(
    bnez a0, 1f
    call tessera_qemu_hart0_start
1:
    call tessera_qemu_worker_start
2:
    wfi
    j 2b
    .size _tessera_entry, . - _tessera_entry

    .text
    .balign 4
    .globl tessera_qemu_trap_entry
    .type tessera_qemu_trap_entry, @function
tessera_qemu_trap_entry:
    csrr a0, mcause
    csrr a1, mepc
    csrr a2, mtval
    csrr a3, mhartid
    j tessera_qemu_report_trap
    .size tessera_qemu_trap_entry, . - tessera_qemu_trap_entry
)");
