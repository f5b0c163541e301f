#!/usr/bin/python3
"""Checks scripts/cortex_m_cycles.py on tests/qemu/cycle_model.cpp: per function, the traced
instructions and the estimated Cortex-M4 cycles against counts worked out by hand from the
Technical Reference Manual (table 3-1, load/store timings). Usage: check_cortex_m_cycles.py ELF"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import cortex_m_cycles  # noqa: E402

# function: (instructions, cycles), each sum written out per instruction; BX LR = 1 + P = 3.
EXPECTED = {
    # mov 1, mov 1, nop 1, ldr 2, ldr pipelined 1, bx 3
    "cycle_case_ldr_pair": (6, 1 + 1 + 1 + 2 + 1 + 3),
    # mov, mov, movs, nop 4; ldr 2, str [r3,#20] 1 (STR with an immediate offset); bx 3
    "cycle_case_ldr_str": (7, 4 + 2 + 1 + 3),
    # push {r5} 2; mov x3, movs, nop 5; ldr 2 + 1 + 1; pop {r5} 2; bx 3
    "cycle_case_ldr_triple": (11, 2 + 5 + 4 + 2 + 3),
    # ldrd 3; ldm {r1-r3} 1 + 3; bx 3
    "cycle_case_ldrd_ldm": (3, 3 + 4 + 3),
    # movs 1; 8 x (ldr 2, smlad 1, subs 1) + 7 taken bne 3 + 1 not taken; bx 3
    "cycle_case_loop": (1 + 8 * 4 + 1, 1 + 8 * 4 + 7 * 3 + 1 + 3),
    # adds 1; ldr 2 + 1 (address written by the ADDS); bx 3
    "cycle_case_address_dependency": (3, 1 + 3 + 3),
    # push 5 registers 1 + 5; pop 5 registers with pc 1 + 5 + 2
    "cycle_case_push_pop": (2, 6 + 8),
    # cmp 1; it 0 (folded); movne 1; bx 3
    "cycle_case_it_folding": (4, 1 + 0 + 1 + 3),
}


def main():
    _, regions = cortex_m_cycles.run_trace(sys.argv[1], "m4", profile=True)
    measured = {}
    for region in regions:
        for name, (instructions, cycles) in region[2].items():
            m = measured.setdefault(name, [0, 0])
            m[0] += instructions
            m[1] += cycles
    failures = 0
    for name, (instructions, cycles) in EXPECTED.items():
        got = tuple(measured.get(name, (0, 0)))
        ok = got == (instructions, cycles)
        failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {name:<32} instructions {got[0]:>3} (expected {instructions:>3}),"
              f" cycles {got[1]:>3} (expected {cycles:>3})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
