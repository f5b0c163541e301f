#!/usr/bin/python3
"""Cross-compiled benchmarks under QEMU: guest instructions per MAC of the CMSIS-NN comparison
layers on Cortex-M4, M7 and M55, the keyword-spotting firmware (instructions, code size) and
the corpus models; writes the tables into docs/benchmarks.md between the qemu markers.

    scripts/bench-qemu.sh [host-build-dir]      (default: build)
    scripts/bench_qemu.py --riscv32 [host-build-dir]
        RISC-V only (preset riscv32, the rv32 family): the same layers per hart, and the corpus
        models tiled on gap8/siracusa on 1 and 8 harts (critical path); writes the table between
        the qemu-riscv32 markers. TESSERA_QEMU_MODELS_DIR=<dir> takes the converted corpus
        models from there instead of building them in the host build; TESSERA_JOBS the parallelism.

QEMU with -icount shift=0 counts guest instructions (not cycles); the counts are exact and
repeatable, unlike wall time on the shared CI machine.
"""
import concurrent.futures
import os
import re
import subprocess
import sys

import cortex_m_cycles

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RISCV = "--riscv32" in sys.argv[1:]
ARGS = [a for a in sys.argv[1:] if a != "--riscv32"]
HOST = os.path.abspath(ARGS[0] if ARGS else os.path.join(ROOT, "build"))
BOARDS = {"cortex-m4": "mps2-an386", "cortex-m7": "mps2-an500", "cortex-m55": "mps3-an547"}
# CMSIS-NN re-measured on the same layers, data and QEMU (issue 15): GitHub HEAD 99f736a6
# (v7.0.0-43; the v7.0.0 tag gives the same counts), GCC 12 -O2, through its public API
# (arm_convolve_wrapper_s8, arm_depthwise_conv_wrapper_s8, arm_fully_connected_per_channel_s8),
# Tessera's startup and instruction counter; cycles by scripts/cortex_m_cycles.py on its trace.
# Per layer: (M4 instructions/MAC, M55 instructions/MAC), (M4 cycles/MAC, M55 estimated cycles/MAC).
ANCHORS = {
    "L1": (2.328, 0.399), "L2": (2.137, 0.335), "L3": (1.761, 0.207), "L4": (2.689, 0.615),
    "L5": (8.044, 2.328), "L6": (8.238, 2.745), "L7": (3.494, 0.957), "L8a": (2.156, 0.714), "L8b": (1.967, 0.496),
}
CYCLE_ANCHORS = {
    "L1": (2.871, 0.515), "L2": (2.593, 0.421), "L3": (2.111, 0.225), "L4": (3.120, 0.874),
    "L5": (9.218, 3.369), "L6": (9.454, 3.929), "L7": (4.418, 1.346), "L8a": (2.731, 0.929), "L8b": (2.478, 0.638),
}
# The keyword-spotting network with the same weights through CMSIS-NN: instructions/MAC, cycles/MAC
# (M4 and M55 estimate), RAM (two ping-pong buffers + the largest scratch).
KWS_ANCHOR = {"cortex-m4": (2.895, 3.415, 16256), "cortex-m55": (0.680, 0.944, 20464)}
# Cores whose cycles are estimated from an executed-instruction trace (cortex_m_cycles.py --core).
CYCLE_CORES = {"cortex-m4": "m4", "cortex-m55": "m55"}


def sh(cmd, **kw):
    print("+", " ".join(cmd), flush=True)
    return subprocess.run(cmd, check=True, text=True, capture_output=True, **kw).stdout


def qemu(board, elf):
    cmd = ["qemu-system-arm", "-M", board, "-nographic", "-semihosting-config", "enable=on,target=native",
           "-icount", "shift=0", "-kernel", elf]
    r = subprocess.run(cmd, text=True, capture_output=True, timeout=600)
    if r.returncode != 0:
        raise SystemExit(f"{elf} failed on {board}:\n{r.stdout}{r.stderr}")
    return r.stdout


def build(preset, targets=(), models=None):
    out = os.path.join(HOST + "-" + preset)
    sh(["cmake", "--preset", preset, "-B", out, f"-DTESSERA_QEMU_MODELS_DIR={models or HOST + '/qemu_models'}"], cwd=ROOT)
    sh(["cmake", "--build", out, "--parallel", str(os.environ.get("TESSERA_JOBS", os.cpu_count() or 2))]
       + (["--target", *targets] if targets else []), cwd=ROOT)
    return out


def qemu_riscv(elf, harts=1):
    cmd = ["qemu-system-riscv32", "-M", "virt", "-cpu", "rv32", "-bios", "none", "-smp", str(harts), "-nographic",
           "-semihosting-config", "enable=on,target=native", "-icount", "shift=0", "-kernel", elf]
    r = subprocess.run(cmd, text=True, capture_output=True, timeout=600)
    if r.returncode != 0:
        raise SystemExit(f"{elf} failed on {harts} harts:\n{r.stdout}{r.stderr}")
    return r.stdout + r.stderr  # picolibc's semihosting writes stdout to QEMU's stderr


RISCV_MODELS = ["minimobilenet", "minimobilenetv2", "cnn_linear1", "cnn_linear2", "mlperf_imageclassification",
                "mlperf_anomalydetection"]


def riscv_main():
    """The riscv32 tables: layers L1-L8 per hart (rv32 family), corpus models 1 vs 8 harts."""
    # TESSERA_QEMU_MODELS_DIR: corpus models converted elsewhere (skips the host build's conversion).
    models = os.environ.get("TESSERA_QEMU_MODELS_DIR")
    if not models:
        sh(["cmake", "--build", HOST, "--target", "tessera_qemu_models"])
    targets = ["tessera_layer_benchmarks"] + [f"qemu_models_{m}_cluster" for m in RISCV_MODELS]
    out = build("riscv32", targets, models)
    layers, family = [], "?"
    for line in qemu_riscv(find_elf(out, "tessera_layer_benchmarks")).splitlines():
        k = re.search(r"# kernels: (\S+)", line)
        if k:
            family = k.group(1)
        p = line.split("|")
        if len(p) >= 6:
            layers.append((p[0], p[1], int(p[2]), int(p[3]), p[4], p[5]))
    # Optional: a riscv32 build of the same benchmark with the reference kernels (e.g. the commit
    # before the rv32 family, or -DTESSERA_FORCE_REFERENCE_KERNELS), for a "before" column.
    ref = {}
    ref_build = os.environ.get("TESSERA_RV32_REFERENCE_BUILD")
    if ref_build:
        for line in qemu_riscv(find_elf(ref_build, "tessera_layer_benchmarks")).splitlines():
            p = line.split("|")
            if len(p) >= 6:
                ref[p[0]] = int(p[3]) / int(p[2])
    # The Cortex-M4 and M55 figures of the Arm table already in the document, beside ours.
    arm = {}
    doc_text = open(os.path.join(ROOT, "docs", "benchmarks.md")).read()
    if "<!-- qemu-begin -->" in doc_text:
        block = doc_text[doc_text.index("<!-- qemu-begin -->"):doc_text.index("<!-- qemu-end -->")]
        for line in block.splitlines():
            # The first table (layer, shape, MACs, M4, M7, M55 i/MAC); the cycle table below it
            # has other columns.
            a = re.match(r"(L\w+)\s+.*?\s(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s", line)
            if a and a.group(1) not in arm:
                arm[a.group(1)] = (float(a.group(3)), float(a.group(5)))
    clusters = []
    for m in RISCV_MODELS:
        text = qemu_riscv(find_elf(out, f"qemu_models_{m}_cluster"), 8)
        current = None
        for line in text.splitlines():
            h = re.match(r"(\S+) on (\S+) \(", line)
            if h:
                current = {"model": h.group(1), "target": h.group(2), "exact": "bit-exact" in line}
                clusters.append(current)
            c = re.match(r"\s+(all layers|convolutions)\s+1 hart\s+(\d+), 8-hart critical path\s+(\d+)", line)
            if c and current is not None:
                current[c.group(1)] = (int(c.group(2)), int(c.group(3)))
    lines = ["## RISC-V rv32 under QEMU (guest instructions per hart)", "",
             "Produced by `scripts/bench_qemu.py --riscv32` (preset `riscv32`: rv32imc, GCC 12 `-O2`,",
             "QEMU `virt -icount shift=0`, minstret). Kernels: the `" + family + "` family (docs/kernels.md).",
             "Instructions per MAC of one hart; `reference` = the same firmware with the reference kernels",
             "(what gap8/siracusa ran before the family); M4 and M55 from the table above.", "", "```"]
    lines.append(f"{'layer':<5} {'shape':<44} {'MACs':>9} {'rv32 i/MAC':>11} {'reference':>10} {'x ref':>6}"
                 f" {'M4 i/MAC':>9} {'M55 i/MAC':>10}  kernel")
    ti = tm = tr = 0
    for name, shape, macs, instr, kernel, exact in layers:
        r = ref.get(name, 0.0)
        m4, m55 = arm.get(name, (0.0, 0.0))
        lines.append(f"{name:<5} {shape:<44} {macs:>9} {instr / macs:>11.3f} {r:>10.3f} {r * macs / instr:>6.2f}"
                     f" {m4:>9.3f} {m55:>10.3f}  {kernel}" + ("" if exact == "exact" else "  MISMATCH"))
        ti += instr
        tm += macs
        tr += r * macs
    lines.append(f"{'all':<5} {'(instructions / MACs over the layers above)':<44} {tm:>9} {ti / max(tm, 1):>11.3f}"
                 f" {tr / max(tm, 1):>10.3f} {tr / max(ti, 1):>6.2f}")
    lines += ["```", "", "Corpus models tiled on the cluster presets (per-hart profile of the tiled layers' compute;",
              "critical path = per layer the largest hart's count, summed):", "", "```"]
    lines.append(f"{'model':<36} {'target':<9} {'1 hart':>10} {'8 harts':>10} {'speedup':>8} {'conv 1h':>10} "
                 f"{'conv 8h':>10} {'conv x':>7}  exact")
    for c in clusters:
        a1, a8 = c.get("all layers", (0, 1))
        c1, c8 = c.get("convolutions", (0, 1))
        lines.append(f"{c['model']:<36} {c['target']:<9} {a1:>10} {a8:>10} {a1 / max(a8, 1):>7.2f}x {c1:>10} {c8:>10} "
                     f"{c1 / max(c8, 1):>6.2f}x  {'yes' if c['exact'] else 'NO'}")
    lines += ["```", ""]
    text = "\n".join(lines) + "\n"
    print(text)
    doc = os.path.join(ROOT, "docs", "benchmarks.md")
    content = open(doc).read()
    begin, end = "<!-- qemu-riscv32-begin -->", "<!-- qemu-riscv32-end -->"
    if begin in content and end in content:
        content = content[: content.index(begin)] + begin + "\n" + text + end + content[content.index(end) + len(end):]
    else:
        content += "\n" + begin + "\n" + text + end + "\n"
    open(doc, "w").write(content)


def find_elf(build_dir, name):
    for dirpath, _, files in os.walk(build_dir):
        for f in files:
            if f in (name, name + ".elf"):
                return os.path.join(dirpath, f)
    raise SystemExit(f"{name} not found under {build_dir}")


def library_text_bytes(elf):
    """Bytes of code symbols of the library (tessera::, namespace of kernels and executor)."""
    total = 0
    for line in sh(["arm-none-eabi-nm", "-C", "-S", "--size-sort", elf]).splitlines():
        parts = line.split(maxsplit=3)
        if len(parts) == 4 and parts[2] in "tTwW" and "tessera::" in parts[3] and "tessera::qemu" not in parts[3]:
            total += int(parts[1], 16)
    return total


def sections(elf):
    sizes = {}
    for line in sh(["arm-none-eabi-size", "-A", elf]).splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0].startswith("."):
            sizes[parts[0]] = int(parts[1])
    return sizes


def cycle_trace(job):
    """One executed-instruction trace (a worker process): (key, [(instructions, cycles) per region], output)."""
    key, elf, core = job
    out, regions = cortex_m_cycles.run_trace(elf, core)
    return key, regions, out


def main():
    sh(["cmake", "--build", HOST, "--target", "tessera_qemu_models"])
    layers, kws, models = {}, {}, {}
    kws_tiled = []  # lines of tessera_kws_tiled, prefixed with the preset
    traces = []  # (key, elf, core) for the cycle estimates
    for preset, board in BOARDS.items():
        out = build(preset)
        models_dir = os.path.join(out, "tests", "qemu_corpus")
        model_elfs = []
        if os.path.isdir(models_dir):
            model_elfs = sorted(os.path.join(models_dir, f) for f in os.listdir(models_dir)
                                if re.fullmatch(r"qemu_models_\w+\.elf", f) and not f.endswith("_stub.elf"))
            stubs = [os.path.basename(e)[:-4] + "_stub" for e in model_elfs]
            if stubs:
                sh(["cmake", "--build", out, "--target", *stubs])
        for line in qemu(board, find_elf(out, "tessera_layer_benchmarks")).splitlines():
            p = line.split("|")
            if len(p) >= 6:
                row = layers.setdefault(p[0], {"shape": p[1], "macs": int(p[2])})
                row[preset] = (int(p[3]), p[4], p[5])
                if len(p) >= 7:
                    row.setdefault("saturated", {})[preset] = int(p[6]) / 10
        for line in qemu(board, find_elf(out, "tessera_kws")).splitlines():
            p = line.split("|")
            if p[0] == "kws":
                size_elf = find_elf(out, "tessera_kws_size")
                kws[preset] = dict(macs=int(p[1]), instr=int(p[2]), arena=int(p[3]), exact=p[4],
                                   lib=library_text_bytes(size_elf),
                                   lib_stub=sections(size_elf).get(".text", 0)
                                   - sections(find_elf(out, "tessera_kws_stub")).get(".text", 0),
                                   **{k.strip("."): v for k, v in sections(size_elf).items()})
        if preset in kws:  # every layer's fastest kernel, whatever RAM it takes (executor<.., any_ram>)
            for line in qemu(board, find_elf(out, "tessera_kws_any_ram")).splitlines():
                p = line.split("|")
                if p[0] == "kws":
                    kws[preset].update(any_instr=int(p[2]), any_arena=int(p[3]), any_exact=p[4])
        kws_tiled += [f"{preset}|{line}" for line in qemu(board, find_elf(out, "tessera_kws_tiled")).splitlines()
                      if line.startswith("kws_tiled|")]
        for elf in model_elfs:
            for line in qemu(board, elf).splitlines():
                m = re.match(r"(\S+) \[(\S+) kernels\]: (\S+), (\d+) MACs, (\d+) guest instructions", line)
                if m:
                    row = models.setdefault(m.group(1), {"macs": int(m.group(4))})
                    row[preset] = (int(m.group(5)), m.group(3))
                    stub = elf[:-4] + "_stub.elf"
                    row.setdefault("sizes", {})[preset] = dict(
                        lib=library_text_bytes(elf),
                        lib_stub=sections(elf).get(".text", 0) - sections(stub).get(".text", 0),
                        **{k.strip("."): v for k, v in sections(elf).items()})
                    row.setdefault("elf", {})[preset] = elf
        if preset in CYCLE_CORES:
            core = CYCLE_CORES[preset]
            traces.append(((preset, "layers"), find_elf(out, "tessera_layer_benchmarks_trace"), core))
            traces.append(((preset, "kws"), find_elf(out, "tessera_kws_size"), core))
            traces += [((preset, elf), elf, core) for elf in model_elfs]
    cycles = estimate_cycles(traces, layers, kws, models)
    text = render(layers, kws, models, cycles)
    print(text)
    print(kws_tiled_table(kws_tiled))  # docs/benchmarks.md, "Fused depthwise -> pointwise blocks"
    doc = os.path.join(ROOT, "docs", "benchmarks.md")
    content = open(doc).read()
    begin, end = "<!-- qemu-begin -->", "<!-- qemu-end -->"
    if begin in content and end in content:
        content = content[: content.index(begin)] + begin + "\n" + text + end + content[content.index(end) + len(end):]
    else:
        content += "\n" + begin + "\n" + text + end + "\n"
    open(doc, "w").write(content)


def kws_tiled_table(lines):
    """The DS-CNN tiled through L1 (tessera_kws_tiled): instructions per preset, L1 size, tile
    objective and fusion criterion, against the unfused run with DORY's objective of the same
    preset and L1."""
    out = ["```", f"{'preset':<11} {'L1 B':>6} {'tiles':<7} {'criterion':<9} {'blocks':>6} {'L1 used':>8} {'L2 B':>6} "
                  f"{'instructions':>13} {'vs off':>7} exact"]
    unfused = {}
    for line in lines:
        preset, _, l1, tiling, criterion, blocks, l1_used, l2, instructions, exact = line.split("|")
        if criterion == "off" and tiling == "dory":
            unfused[(preset, l1)] = int(instructions)
        base = unfused.get((preset, l1), int(instructions))
        out.append(f"{preset:<11} {l1:>6} {tiling:<7} {criterion:<9} {blocks:>6} {l1_used:>8} {l2:>6} "
                   f"{int(instructions):>13,} {100.0 * (int(instructions) - base) / base:>+6.1f}% {exact}")
    return "\n".join(out + ["```"])


def estimate_cycles(traces, layers, kws, models):
    """Estimated cycles per measured region: {(preset, name): (instructions, cycles)}, where name is
    a layer, "kws" or a model; each region found by its instruction count (match_regions)."""
    result = {}
    jobs = int(os.environ.get("TESSERA_JOBS", os.cpu_count() or 2))
    with concurrent.futures.ProcessPoolExecutor(max_workers=jobs) as pool:
        for (preset, what), regions, out in pool.map(cycle_trace, traces):
            if what == "layers":
                names, counts = [], []
                for line in out.splitlines():
                    p = line.split("|")
                    if len(p) >= 6:
                        names.append(p[0])
                        counts.append(int(p[3]))
                for name, region in zip(names, cortex_m_cycles.match_regions(counts, regions)):
                    if region:
                        result[(preset, name)] = region
            elif what == "kws":
                region = cortex_m_cycles.match_regions([kws[preset]["instr"]], regions)[0]
                if region:
                    result[(preset, "kws")] = region
            else:
                for name, row in models.items():
                    if row.get("elf", {}).get(preset) == what:
                        region = cortex_m_cycles.match_regions([row[preset][0]], regions)[0]
                        if region:
                            result[(preset, name)] = region
    return result


def render(layers, kws, models, cycles):
    cores = list(BOARDS)
    lines = ["## Cortex-M under QEMU (guest instructions)", "",
             "Produced by `scripts/bench-qemu.sh` (QEMU `-icount shift=0`, SysTick as instruction counter,",
             "GCC 12 `-O2`; int8 NHWC, per-channel requantization). CMSIS-NN columns: CMSIS-NN (GitHub",
             "99f736a6, v7.0.0-43) through its public API on the same layers, data and QEMU, GCC 12 -O2",
             "(docs/benchmarks.md, \"CMSIS-NN measurement\"). `x` = CMSIS-NN's instructions per MAC divided by",
             "ours (above 1: Tessera executes fewer). `sat %`: share of the layer's outputs at -128 or",
             "127 (the data is scaled so that the bit-exactness check tests the whole int8 range).", "", "```"]
    head = f"{'layer':<5} {'shape':<44} {'MACs':>9}"
    for c in cores:
        head += f" {c + ' i/MAC':>16}"
    head += f" {'CMSIS M4':>9} {'x M4':>6} {'CMSIS M55':>10} {'x M55':>6} {'sat %':>6}  kernel (m4/m55)"
    lines.append(head)
    totals = {c: [0, 0] for c in cores}
    anchor_instr = {"cortex-m4": 0.0, "cortex-m55": 0.0}
    for name, row in layers.items():
        s = f"{name:<5} {row['shape']:<44} {row['macs']:>9}"
        for c in cores:
            if c in row:
                s += f" {row[c][0] / row['macs']:>16.3f}"
                totals[c][0] += row[c][0]
                totals[c][1] += row["macs"]
            else:
                s += f" {'-':>16}"
        a4, a55 = ANCHORS.get(name, (0, 0))
        anchor_instr["cortex-m4"] += a4 * row["macs"]
        anchor_instr["cortex-m55"] += a55 * row["macs"]
        x4 = a4 / (row["cortex-m4"][0] / row["macs"]) if "cortex-m4" in row else 0
        x55 = a55 / (row["cortex-m55"][0] / row["macs"]) if "cortex-m55" in row else 0
        kern = "/".join(row[c][1] for c in ("cortex-m4", "cortex-m55") if c in row)
        bad = [c for c in cores if c in row and row[c][2] != "exact"]
        sat = max(row.get("saturated", {}).values(), default=float("nan"))
        s += (f" {a4:>9.3f} {x4:>6.2f} {a55:>10.3f} {x55:>6.2f} {sat:>6.1f}  {kern}"
              f"{'  MISMATCH on ' + ','.join(bad) if bad else ''}")
        lines.append(s)
    s = f"{'all':<5} {'(instructions / MACs over the layers above)':<44} {totals[cores[0]][1]:>9}"
    for c in cores:
        s += f" {totals[c][0] / max(totals[c][1], 1):>16.3f}"
    m4 = totals["cortex-m4"][0] / max(totals["cortex-m4"][1], 1)
    m55 = totals["cortex-m55"][0] / max(totals["cortex-m55"][1], 1)
    a4 = anchor_instr["cortex-m4"] / max(totals["cortex-m4"][1], 1)
    a55 = anchor_instr["cortex-m55"] / max(totals["cortex-m55"][1], 1)
    s += f" {a4:>9.3f} {a4 / m4 if m4 else 0:>6.2f} {a55:>10.3f} {a55 / m55 if m55 else 0:>6.2f}"
    lines += [s, "```", ""]
    lines += cycle_table(layers, kws, models, cycles)
    lines += ["Keyword spotting (DS-CNN-shaped, benchmarks/qemu/kws_network.hpp; firmware without the",
              "reference check for the sizes; library = .text of the firmware minus .text of the same",
              "firmware without the inference (tessera_kws_stub), so executor code inlined into main counts;",
              "tessera:: symbols = the code symbols in namespace tessera, the earlier measure):", "", "```"]
    lines.append(f"{'core':<11} {'MACs':>9} {'instructions':>13} {'i/MAC':>7} {'arena B':>8} {'.text':>7} {'library':>8}"
                 f" {'tessera::':>9} {'.rodata':>8} {'.data':>6} {'.bss':>7} exact")
    for c in cores:
        if c in kws:
            k = kws[c]
            lines.append(f"{c:<11} {k['macs']:>9} {k['instr']:>13} {k['instr'] / k['macs']:>7.3f} {k['arena']:>8} {k.get('text', 0):>7} "
                         f"{k['lib_stub']:>8} {k['lib']:>9} {k.get('rodata', 0):>8} {k.get('data', 0):>6} {k.get('bss', 0):>7} {k['exact']}")
    lines += ["```", ""]
    if models:
        lines += ["Corpus models (flat executor, native kernels, bit-exact against the golden outputs):", "", "```"]
        lines.append(f"{'model':<36} {'MACs':>9}" + "".join(f" {c + ' i/MAC':>16}" for c in cores) + "  exact")
        for name, row in models.items():
            s = f"{name:<36} {row['macs']:>9}"
            for c in cores:
                s += f" {row[c][0] / row['macs']:>16.3f}" if c in row else f" {'-':>16}"
            s += "  " + ("yes" if all(row[c][1] == "bit-exact" for c in cores if c in row) else "NO")
            lines.append(s)
        lines += ["```", "",
                  "Their firmware sizes in bytes (each firmware also holds the model's golden input and",
                  "output in .rodata and its check code in .text; library = .text minus the same firmware",
                  "without the inference):", "", "```"]
        size_cores = [c for c in ("cortex-m4", "cortex-m55") if c in cores]
        lines.append(f"{'model':<36}" + "".join(f" {c + ' ' + k:>19}" for c in size_cores
                                                   for k in (".text", "library", ".rodata", ".bss")))
        for name, row in models.items():
            s = f"{name:<36}"
            for c in size_cores:
                z = row.get("sizes", {}).get(c, {})
                s += "".join(f" {z.get(k, 0):>19}" for k in ("text", "lib_stub", "rodata", "bss"))
            lines.append(s)
        lines += ["```", ""]
    return "\n".join(lines) + "\n"


def cycle_table(layers, kws, models, cycles):
    """Estimated cycles per MAC beside instructions per MAC (scripts/cortex_m_cycles.py), against
    CMSIS-NN's under the same model."""
    if not cycles:
        return []
    lines = ["Estimated cycles (scripts/cortex_m_cycles.py: every executed instruction traced under QEMU,",
             "Cortex-M4 timings of the TRM applied; M55: the beat-overlap estimate; \"Cycle model\" below",
             "says what they leave out). CMSIS = CMSIS-NN measured the same way; `x` = CMSIS-NN's cycles",
             "divided by ours (M4), CMSIS-NN's instructions divided by ours (M55).", "", "```"]
    lines.append(f"{'':<5} {'MACs':>9} {'M4 i/MAC':>9} {'M4 cyc/MAC':>11} {'CMSIS':>7} {'x cyc':>6}"
                 f" {'M55 i/MAC':>10} {'CMSIS':>7} {'x instr':>8} {'M55 est cyc/MAC':>16} {'CMSIS':>7}")
    sums = {"ours4": [0, 0], "ours55": [0, 0], "cmsis_cyc4": 0.0, "cmsis_i55": 0.0, "cmsis_cyc55": 0.0}

    def row(name, macs, key, i_anchor, c_anchor):
        m4 = cycles.get(("cortex-m4", key))
        m55 = cycles.get(("cortex-m55", key))
        s = f"{name:<5} {macs:>9}"
        s += f" {m4[0] / macs:>9.3f} {m4[1] / macs:>11.3f}" if m4 else f" {'-':>9} {'-':>11}"
        s += f" {c_anchor[0]:>7.3f} {c_anchor[0] * macs / m4[1]:>6.2f}" if m4 and c_anchor else f" {'-':>7} {'-':>6}"
        s += f" {m55[0] / macs:>10.3f}" if m55 else f" {'-':>10}"
        s += f" {i_anchor[1]:>7.3f} {i_anchor[1] * macs / m55[0]:>8.2f}" if m55 and i_anchor else f" {'-':>7} {'-':>8}"
        s += f" {m55[1] / macs:>16.3f}" if m55 else f" {'-':>16}"
        s += f" {c_anchor[1]:>7.3f}" if c_anchor else f" {'-':>7}"
        return s

    macs_total = 0
    for name, r in layers.items():
        lines.append(row(name, r["macs"], name, ANCHORS.get(name), CYCLE_ANCHORS.get(name)))
        macs_total += r["macs"]
        for c, key in (("cortex-m4", "ours4"), ("cortex-m55", "ours55")):
            got = cycles.get((c, name))
            if got:
                sums[key][0] += got[0]
                sums[key][1] += got[1]
        if name in CYCLE_ANCHORS:
            sums["cmsis_cyc4"] += CYCLE_ANCHORS[name][0] * r["macs"]
            sums["cmsis_cyc55"] += CYCLE_ANCHORS[name][1] * r["macs"]
            sums["cmsis_i55"] += ANCHORS[name][1] * r["macs"]
    cycles[("cortex-m4", "all layers")] = tuple(sums["ours4"])
    cycles[("cortex-m55", "all layers")] = tuple(sums["ours55"])
    m = max(macs_total, 1)
    lines.append(row("all", macs_total, "all layers", (0, sums["cmsis_i55"] / m),
                     (sums["cmsis_cyc4"] / m, sums["cmsis_cyc55"] / m)))
    if kws:
        k = next(iter(kws.values()))
        a4, a55 = KWS_ANCHOR["cortex-m4"], KWS_ANCHOR["cortex-m55"]
        lines.append(row("KWS", k["macs"], "kws", (a4[0], a55[0]), (a4[1], a55[1])))
    lines += ["```", ""]
    if kws:
        lines += ["Keyword-spotting RAM (arena: activations and scratch; the arm_dsp kernels' tables and expanded",
                  "weights are in flash, see \"The weight-cache budget\" below) against CMSIS-NN's two ping-pong",
                  "buffers and its largest scratch buffer. `least` is the flat executor's default budget",
                  "(planning/ram_budget.hpp: outputs written over inputs where the kernel allows, each layer's",
                  "variant with the fewest bytes at its step), `any` the budget that takes every layer's fastest",
                  "kernel (tessera_kws_any_ram):", "", "```"]
        lines.append(f"{'core':<11} {'least B':>8} {'instructions':>13} {'any B':>7} {'instructions':>13} {'CMSIS-NN B':>11}")
        for c in ("cortex-m4", "cortex-m7", "cortex-m55"):
            if c in kws:
                k = kws[c]
                anchor = KWS_ANCHOR[c][2] if c in KWS_ANCHOR else KWS_ANCHOR["cortex-m4"][2]
                lines.append(f"{c:<11} {k['arena']:>8} {k['instr']:>13} {k.get('any_arena', 0):>7} "
                             f"{k.get('any_instr', 0):>13} {anchor:>11}")
        lines += ["```", ""]
    if models:
        lines += ["```", f"{'model':<36} {'MACs':>9} {'M4 i/MAC':>9} {'M4 cyc/MAC':>11} {'M4 CPI':>7}"
                  f" {'M55 i/MAC':>10} {'M55 est cyc/MAC':>16}"]
        for name, r in models.items():
            m4, m55 = cycles.get(("cortex-m4", name)), cycles.get(("cortex-m55", name))
            macs = r["macs"]
            s = f"{name:<36} {macs:>9}"
            s += f" {m4[0] / macs:>9.3f} {m4[1] / macs:>11.3f} {m4[1] / m4[0]:>7.3f}" if m4 else f" {'-':>9} {'-':>11} {'-':>7}"
            s += f" {m55[0] / macs:>10.3f} {m55[1] / macs:>16.3f}" if m55 else f" {'-':>10} {'-':>16}"
            lines.append(s)
        lines += ["```", ""]
    return lines


if __name__ == "__main__":
    riscv_main() if RISCV else main()
