#!/usr/bin/python3
"""Estimated Cortex-M cycles from an executed-instruction trace under QEMU.

QEMU counts instructions, not cycles. This tool runs a firmware with one instruction per
translation block (`-singlestep -d exec,nochain`), so the log holds every executed program
counter in order, disassembles the ELF with objdump, and charges each executed instruction the
cycles of a documented per-instruction table (docs/benchmarks.md, "Cycle model"):

  m4   Cortex-M4 Technical Reference Manual, table 3-1 and section 3.3.2 (load/store timings),
       zero wait states:
         data processing, multiply (MUL, MLA, SMULL, SMLAL, UMLAL), DSP (SMLAD, SXTB16, ...),
         saturation, extend, bitfield ........................................ 1
         single LDR*/STR* .................................................... 2
           - 1 when the previous instruction is a single LDR whose destination is not
             used in this instruction's address ("LDR [any] are pipelined")
           - STR with an immediate offset (or none) .......................... 1 (write buffer)
           - +1 when an address register was written by the previous data-processing
             instruction (no forwarding path into the address generator)
         LDRD/STRD ........................................................... 3, never pipelined
         LDM/STM/PUSH/POP with N registers ................................... 1 + N
         taken branch (B, BL, BX, CBZ/CBNZ, conditional B) ..................... 1 + P, P = 2
         branch not taken ...................................................... 1
         load or POP into PC ..................................................... as the load + P
         TBB/TBH ............................................................... 2 + 1 + 3
         SDIV/UDIV ............................................................... 7 (2-12, data
                                                                       dependent; midpoint)
         IT ......................................... 0 after a 16-bit instruction (folded), else 1
       Left out: flash wait states and prefetch-buffer misses (the model is a zero-wait-state
       memory system: RAM or cached/accelerated flash), the literal-pool fetch contention
       ("LDR Rx,[PC,#imm] might add a cycle"), unaligned accesses, exception entry and exit
       (12 cycles each; only SysTick wraps, once per 16.7 M instructions), condition-failed
       instructions (charged as if executed), and P's variation with target alignment.

  m55  An estimate, not a model of the pipeline: scalar instructions as on the M4 above; an
       MVE instruction takes 2 cycles (the M55 executes two 32-bit beats of a 128-bit vector
       per cycle), and 1 when it follows an MVE instruction of the other class (memory vs
       arithmetic), which the M55 overlaps with it (beat overlap; QEMU executes instructions
       one after another and cannot show it). LE/LETP loop ends are free after the first
       iteration (loop branch cache); the first is a taken branch.

    scripts/cortex_m_cycles.py [--core m4|m55] [--board B] ELF
        prints the firmware's output, then per region between consecutive calls of
        tessera::qemu::guest_instructions() its instructions, estimated cycles and CPI.
"""
import argparse
import bisect
import collections
import os
import re
import subprocess
import sys
import tempfile
import threading

BOARDS = {"m4": "mps2-an386", "m7": "mps2-an500", "m55": "mps3-an547"}
OBJDUMP_ARCH = {"m4": [], "m7": [], "m55": ["-m", "armv8.1-m.main"]}
MARKER = "tessera::qemu::guest_instructions()"

CONDITIONS = {"eq", "ne", "cs", "hs", "cc", "lo", "mi", "pl", "vs", "vc", "hi", "ls", "ge", "lt", "gt", "le", "al"}
REGISTER_NAMES = {f"r{i}": i for i in range(13)} | {"sb": 9, "sl": 10, "fp": 11, "ip": 12, "sp": 13, "lr": 14, "pc": 15}
# Instructions that write no general-purpose register (so a following address cannot depend on them).
NO_DESTINATION = {"cmp", "cmn", "tst", "teq", "nop", "it", "dmb", "dsb", "isb", "bkpt", "svc", "wfi", "wfe", "cpsid",
                  "cpsie", "msr", "pld", "vmsr"}


class Insn:
    """One disassembled instruction, reduced to what the cycle tables need."""

    __slots__ = ("addr", "size", "text", "base", "cond", "kind", "dest", "addr_regs", "regs", "writes_pc",
                 "store_imm", "vector_class")

    def __init__(self, addr, size, mnemonic, operands, in_it_block):
        self.addr, self.size, self.text = addr, size, f"{mnemonic} {operands}".strip()
        m = mnemonic.split(".")[0]  # width (.w/.n) and MVE element suffixes (.s8, .u32) dropped
        self.base, self.cond = split_condition(m, in_it_block)
        self.kind = classify(self.base, mnemonic)
        regs = [REGISTER_NAMES[r] for r in re.findall(r"\b(r\d+|sb|sl|fp|ip|sp|lr|pc)\b", operands.split("@")[0])]
        self.regs = regs
        self.dest = regs[0] if regs and self.base not in NO_DESTINATION and self.kind not in ("store", "stored",
                                                                                                "stm", "branch") else None
        bracket = re.search(r"\[([^\]]*)\]", operands)
        self.addr_regs = {REGISTER_NAMES[r] for r in re.findall(r"\b(r\d+|sb|sl|fp|ip|sp|lr|pc)\b", bracket.group(1))} \
            if bracket else set()
        if self.kind in ("ldm", "stm") and not bracket:
            base_reg = re.match(r"\s*(r\d+|sb|sl|fp|ip|sp|lr)", operands)
            self.addr_regs = {REGISTER_NAMES[base_reg.group(1)]} if base_reg else {13}
        self.store_imm = self.kind == "store" and bracket is not None and not re.search(r",\s*(r\d+|ip|sb|sl|fp|lr)",
                                                                                          bracket.group(1))
        self.writes_pc = (self.kind in ("load", "ldm") and 15 in regs[: (1 if self.kind == "load" else len(regs))]) or \
            (self.kind == "alu" and regs[:1] == [15])
        self.vector_class = None
        if self.kind == "vector":
            self.vector_class = "memory" if re.match(r"v(ld|st)r[bhwd]?|vld[24]|vst[24]|vldm|vstm|vpush|vpop",
                                                     self.base) else "arith"


def split_condition(m, in_it_block):
    """('bne' -> 'b', 'ne'); inside an IT block ('movlt' -> 'mov', 'lt'); else m itself: a
    condition suffix is only recognised where Thumb-2 allows one, so 'lsls', 'umlal' or 'sbcs'
    are never split."""
    if m[:1] == "b" and m[1:] in CONDITIONS and not in_it_block:
        return "b", m[1:]
    if in_it_block and m[-2:] in CONDITIONS:
        return m[:-2], m[-2:]
    return m, None


def classify(base, mnemonic):
    if base in ("b", "bl", "blx", "bx", "cbz", "cbnz", "le", "letp", "wls", "wlstp", "dls", "dlstp", "lctp"):
        return "branch"
    if base in ("tbb", "tbh"):
        return "table_branch"
    if base in ("ldrd", "ldrexd"):
        return "loadd"
    if base in ("strd", "strexd"):
        return "stored"
    if re.fullmatch(r"ldr(ex)?(s?[bh])?(t)?|ldrex[bh]", base):
        return "load"
    if re.fullmatch(r"str(ex)?[bh]?(t)?", base):
        return "store"
    if re.fullmatch(r"(ldm|pop)(ia|db|fd|ea)?", base):
        return "ldm"
    if re.fullmatch(r"(stm|push)(ia|db|fd|ea)?", base):
        return "stm"
    if base in ("sdiv", "udiv"):
        return "divide"
    if base.startswith("it"):
        return "it"
    if base[:1] == "v" and base not in ("vmrs", "vmsr"):
        return "vector"
    return "alu"


def disassemble(elf, core):
    out = subprocess.run(["arm-none-eabi-objdump", "-d", *OBJDUMP_ARCH[core], elf], check=True, text=True,
                         capture_output=True).stdout
    code = {}
    it_remaining = 0  # instructions left in the current IT block (they carry a condition suffix)
    for line in out.splitlines():
        m = re.match(r"\s*([0-9a-f]+):\t([0-9a-f ]+?)\s*\t(\S+)\s*(.*)", line)
        if m:
            addr = int(m.group(1), 16)
            raw = m.group(2).split()
            size = sum(len(h) // 2 for h in raw)
            insn = Insn(addr, size, m.group(3), m.group(4), it_remaining > 0)
            code[addr] = insn
            it_remaining = len(insn.base) - 1 if insn.kind == "it" else max(it_remaining - 1, 0)
        elif not line.strip() or line.endswith(">:"):
            it_remaining = 0
    return code


def register_list_length(insn):
    body = re.search(r"\{([^}]*)\}", insn.text)
    if not body:
        return 1
    n = 0
    for part in body.group(1).split(","):
        part = part.strip()
        r = re.fullmatch(r"r(\d+)\s*-\s*r(\d+)", part)
        n += int(r.group(2)) - int(r.group(1)) + 1 if r else 1
    return n


def m4_cycles(insn, prev, taken):
    """Cycles of `insn` after `prev` (None at a region start); taken: control left sequential order."""
    k = insn.kind
    P = 2
    if k == "branch":
        if insn.base in ("le", "letp"):  # M55 low-overhead loop ends (the M4 has none)
            return 0 if taken else 1  # loop branch cache: free when it loops back
        if insn.base in ("wls", "wlstp", "dls", "dlstp", "lctp"):
            return 1 + (P if taken else 0)
        return 1 + P if taken else 1
    if k == "table_branch":
        return 6
    if k == "it":
        return 0 if prev is not None and prev.size == 2 and prev.kind not in ("branch", "table_branch") else 1
    if k == "divide":
        return 7
    address_stall = 1 if (prev is not None and prev.kind == "alu" and prev.dest is not None
                          and prev.dest in insn.addr_regs) else 0
    if k in ("load", "store"):
        if k == "store" and insn.store_imm:
            cycles = 1
        elif prev is not None and prev.kind == "load" and prev.dest not in insn.addr_regs:
            cycles = 1  # pipelined behind the previous single load
        else:
            cycles = 2
        return cycles + address_stall + (P if insn.writes_pc else 0)
    if k in ("loadd", "stored"):
        return 3 + address_stall
    if k in ("ldm", "stm"):
        return 1 + register_list_length(insn) + address_stall + (P if insn.writes_pc else 0)
    if k == "vector":
        return 1  # FPU/vector on the M4: not in the kernels' loops (only in set-up code)
    return 1 + (P if insn.writes_pc else 0)


def m55_cycles(insn, prev, taken):
    if insn.kind == "vector":
        overlapped = prev is not None and prev.kind == "vector" and prev.vector_class != insn.vector_class
        return 1 if overlapped else 2
    return m4_cycles(insn, prev, taken)


MODELS = {"m4": m4_cycles, "m55": m55_cycles}


def function_symbols(elf):
    """Sorted (start address, demangled name) of the code symbols."""
    symbols = []
    for line in subprocess.run(["arm-none-eabi-nm", "-C", "-n", elf], check=True, text=True,
                               capture_output=True).stdout.splitlines():
        parts = line.split(" ", 2)
        if len(parts) == 3 and parts[1] in "tTwW":
            symbols.append((int(parts[0], 16) & ~1, parts[2]))
    return symbols


def run_trace(elf, core, board=None, timeout=1800, profile=False):
    """Runs `elf` under QEMU with the per-instruction exec log; returns (stdout, regions), where
    regions lists (instructions, cycles) between consecutive calls of the instruction counter,
    or with `profile` (instructions, cycles, {function: [instructions, cycles]})."""
    code = disassemble(elf, core)
    symbols = function_symbols(elf)
    marker = next((a for a, name in symbols if name == MARKER), None)
    cost = MODELS[core]
    with tempfile.TemporaryDirectory() as tmp:
        fifo = os.path.join(tmp, "exec.log")
        os.mkfifo(fifo)
        cmd = ["qemu-system-arm", "-M", board or BOARDS[core], "-nographic", "-semihosting-config",
               "enable=on,target=native", "-icount", "shift=0", "-singlestep", "-d", "exec,nochain", "-D", fifo,
               "-kernel", elf]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        output = {}
        reader = threading.Thread(target=lambda: output.update(zip(("out", "err"), proc.communicate(timeout=timeout))))
        reader.start()
        # Counting (previous pc, pc, next pc) triples keeps the per-line work to one dict update;
        # each distinct triple is costed once at the end of its region.
        regions, triples = [], collections.Counter()
        prev = cur = None
        with open(fifo) as log:
            for line in log:
                p = line.find("/")
                if p < 0:
                    continue
                pc = line[p + 1: p + 9]
                if cur is not None:
                    triples[(prev, cur, pc)] += 1
                prev, cur = cur, pc
                if marker is not None and int(pc, 16) == marker:
                    regions.append(triples)
                    triples = collections.Counter()
                    prev = None  # a region starts without a predecessor
        if cur is not None:
            triples[(prev, cur, None)] += 1
        regions.append(triples)
        reader.join()
        if proc.returncode != 0:
            raise SystemExit(f"{elf} failed under QEMU ({proc.returncode}):\n{output.get('out', '')}{output.get('err', '')}")
    starts = [a for a, _ in symbols]
    result = []
    for triples in regions:
        instructions = cycles = 0
        functions = collections.defaultdict(lambda: [0, 0])
        for (p, c, n), count in triples.items():
            insn = code.get(int(c, 16))
            if insn is None:
                raise SystemExit(f"{elf}: executed address {c} is not in the disassembly")
            before = code.get(int(p, 16)) if p is not None else None
            taken = n is not None and int(n, 16) != insn.addr + insn.size
            charged = count * cost(insn, before, taken)
            instructions += count
            cycles += charged
            if profile:
                i = bisect.bisect_right(starts, insn.addr) - 1
                f = functions[symbols[i][1] if i >= 0 else "?"]
                f[0] += count
                f[1] += charged
        result.append((instructions, cycles, dict(functions)) if profile else (instructions, cycles))
    return output.get("out", ""), result


def match_regions(reported, regions):
    """For each instruction count the firmware printed (in order), the traced region between two
    counter calls whose length matches it (the counter's own reading costs a few dozen
    instructions and the SysTick resolution is one tick: within 0.2% + 64)."""
    matched, start = [], 0
    for count in reported:
        for i in range(start, len(regions)):
            if abs(regions[i][0] - count) <= 64 + count // 500:
                matched.append(regions[i])
                start = i + 1
                break
        else:
            matched.append(None)
    return matched


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("elf")
    ap.add_argument("--core", choices=sorted(MODELS), default="m4")
    ap.add_argument("--board")
    ap.add_argument("--profile", type=int, default=0, metavar="N",
                    help="also list the N functions with the most cycles in each region")
    args = ap.parse_args()
    out, regions = run_trace(args.elf, args.core, args.board, profile=args.profile > 0)
    sys.stdout.write(out)
    print(f"{'region':>6} {'instructions':>13} {'cycles':>13} {'CPI':>6}")
    for i, region in enumerate(regions):
        n, c = region[0], region[1]
        print(f"{i:>6} {n:>13} {c:>13} {c / max(n, 1):>6.3f}")
        if args.profile:
            top = sorted(region[2].items(), key=lambda kv: -kv[1][1])[: args.profile]
            for name, (fn, fc) in top:
                print(f"{'':>6} {fn:>13} {fc:>13} {fc / max(fn, 1):>6.3f}  {name[:110]}")


if __name__ == "__main__":
    main()
