#!/usr/bin/python3
"""The rvv kernel family under QEMU: guest instructions per MAC of the CMSIS-NN comparison layers
L1-L8 on one rv32gcv hart at VLEN 128 and 256 (the same vector-length-agnostic firmware run with
-cpu rv32,v=true,vlen=N), beside the Cortex-M4 and M55 figures of the table bench_qemu.py writes;
writes its table into docs/benchmarks.md between the rvv markers (its own section, so the two
scripts never edit the same lines).

    scripts/bench_rvv.py [host-build-dir]      (default: build; only its qemu_models folder is named)

minstret under -icount shift=0 counts instructions exactly (not cycles).
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HOST = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build"))
VLENS = (128, 256)
DOC = os.path.join(ROOT, "docs", "benchmarks.md")
BEGIN, END = "<!-- rvv-begin -->", "<!-- rvv-end -->"


def sh(cmd):
    print("+", " ".join(cmd), flush=True)
    return subprocess.run(cmd, check=True, text=True, capture_output=True, cwd=ROOT).stdout


def qemu_rvv(vlen, elf):
    cmd = ["qemu-system-riscv32", "-M", "virt", "-cpu", f"rv32,v=true,vlen={vlen}", "-bios", "none", "-smp", "1",
           "-nographic", "-semihosting-config", "enable=on,target=native", "-icount", "shift=0", "-kernel", elf]
    r = subprocess.run(cmd, text=True, capture_output=True, timeout=600)
    if r.returncode != 0:
        raise SystemExit(f"{elf} failed at vlen {vlen}:\n{r.stdout}{r.stderr}")
    return r.stdout + r.stderr  # picolibc's semihosting console output reaches QEMU's stderr


def arm_figures(doc):
    """Cortex-M4 and M55 instructions per MAC per layer from the qemu section of the doc."""
    figures = {}
    if "<!-- qemu-begin -->" in doc:
        doc = doc[doc.index("<!-- qemu-begin -->"):doc.index("<!-- qemu-end -->")]
    for line in doc.splitlines():
        m = re.match(r"(L\w+|all)\s.*?\s(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s", line)
        if m and line.startswith(("L", "all ")):
            figures[m.group(1)] = (m.group(3), m.group(5))
    return figures


def main():
    out = HOST + "-riscv32-v"
    configure = ["cmake", "--preset", "riscv32-v", "-B", out]
    if os.path.isdir(os.path.join(HOST, "qemu_models")):
        configure.append(f"-DTESSERA_QEMU_MODELS_DIR={HOST}/qemu_models")
    sh(configure)
    sh(["ninja", "-C", out, "-j2", "tessera_layer_benchmarks"])
    elf = os.path.join(out, "benchmarks", "qemu", "tessera_layer_benchmarks.elf")
    layers = {}
    for vlen in VLENS:
        for line in qemu_rvv(vlen, elf).splitlines():
            p = line.split("|")
            if len(p) >= 6:
                row = layers.setdefault(p[0], {"shape": p[1], "macs": int(p[2])})
                row[vlen] = (int(p[3]), p[4], p[5])
    with open(DOC) as f:
        doc = f.read()
    arm = arm_figures(doc)
    lines = [BEGIN, "## RISC-V vector (rvv family) under QEMU (guest instructions per hart)", "",
             "Produced by `scripts/bench_rvv.py` (QEMU 7.2 `virt -cpu rv32,v=true,vlen=N -icount shift=0`,",
             "minstret as instruction counter, one hart; clang 19 `-O2 --target=riscv32-unknown-elf",
             "-march=rv32gcv`; int8 NHWC, per-channel requantization; the same firmware at both VLENs).",
             "Cortex-M columns: the table above. Channels go in lanes, so layers with at most 16 output",
             "channels (L1) gain nothing from VLEN 256; the rest of a layer's count beside the",
             "micro-kernel is im2col (strided byte stores, per kernel row) and the per-pixel epilogue.",
             "", "```",
             f"{'layer':<5} {'shape':<45} {'MACs':>8} {'VLEN128 i/MAC':>14} {'VLEN256 i/MAC':>14}"
             f" {'M4 i/MAC':>9} {'M55 i/MAC':>10}  kernel  exact"]
    totals = {v: 0 for v in VLENS}
    macs = 0
    for name, row in layers.items():
        macs += row["macs"]
        s = f"{name:<5} {row['shape']:<45} {row['macs']:>8}"
        for v in VLENS:
            totals[v] += row[v][0]
            s += f" {row[v][0] / row['macs']:>14.3f}"
        m4, m55 = arm.get(name, ("-", "-"))
        exact = "yes" if all(row[v][2] == "exact" for v in VLENS) else "NO"
        lines.append(s + f" {m4:>9} {m55:>10}  {row[VLENS[0]][1]:<7} {exact}")
    m4, m55 = arm.get("all", ("-", "-"))
    lines.append(f"{'all':<5} {'(instructions / MACs over the layers above)':<45} {macs:>8}" +
                 "".join(f" {totals[v] / max(macs, 1):>14.3f}" for v in VLENS) + f" {m4:>9} {m55:>10}")
    lines += ["```", END]
    table = "\n".join(lines)
    if BEGIN in doc:
        doc = doc[:doc.index(BEGIN)] + table + doc[doc.index(END) + len(END):]
    else:
        doc = doc.rstrip("\n") + "\n\n" + table + "\n"
    with open(DOC, "w") as f:
        f.write(doc)
    print(table)


if __name__ == "__main__":
    main()
