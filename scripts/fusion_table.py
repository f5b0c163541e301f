#!/usr/bin/python3
"""The fusion table of docs/benchmarks.md from the tiling rows of tessera_bench_models.

    build/benchmarks/tessera_bench_models --no-compile-time | scripts/fusion_table.py

The benchmark must be built with -DTESSERA_BENCH_FUSION=ON. Per model with fusion rows, preset
and criterion: the blocks (depthwise first + pointwise first), L1 bytes, activation bytes between
L2 and L1 and simulated cycles, each against the `off` row of the same preset and L1 size.
"""
import sys

# A model's rows with DORY's tiles, in the order benchmarks/model_bench.cpp.in pushes them: the
# presets as they are (criterion: latency), then the fusion rows.
ORDER = [("gap8", "latency"), ("siracusa", "latency"), ("stm32h7", "latency"),
         ("gap8", "off"), ("gap8", "traffic"), ("siracusa", "off"), ("siracusa", "traffic"),
         ("stm32h7", "off"), ("stm32h7", "traffic"),
         ("stm32h7 32kB", "off"), ("stm32h7 32kB", "traffic"), ("stm32h7 32kB", "latency"),
         ("stm32h7 32kB", "no-slower"),
         ("gap8", "always"), ("siracusa", "always"), ("stm32h7", "always"), ("stm32h7 32kB", "always")]

by_model = {}
for line in sys.stdin:
    f = line.split()
    if len(f) != 21 or f[2] != "dory" or ":" not in f[3]:
        continue
    by_model.setdefault(f[0], []).append(dict(fusion=f[3], l1=int(f[6]), act=int(f[13]), cycles=int(f[14]),
                                              hazards=f[19], exact=f[20]))

print(f"{'model':<27} {'target':<14} {'criterion':<10} {'blocks':>6} {'L1 B':>7} {'act L1<>L2 B':>12} "
      f"{'vs off':>7} {'cycles':>9} {'vs off':>7} {'haz':>3} {'exact':>5}")
for model, rows in by_model.items():
    if len(rows) != len(ORDER):
        continue  # no depthwise/pointwise pairs: no fusion rows
    table = {key: r for key, r in zip(ORDER, rows)}
    for (target, criterion), r in table.items():
        assert r["fusion"].split(":")[0] == criterion, (model, target, criterion, r["fusion"])
    for target in ("gap8", "siracusa", "stm32h7", "stm32h7 32kB"):
        off = table[(target, "off")]
        for criterion in ("off", "traffic", "latency", "no-slower", "always"):
            if (target, criterion) not in table:
                continue  # no-slower: at 32 kB only
            r = table[(target, criterion)]
            act = 100.0 * (r["act"] - off["act"]) / off["act"]
            cyc = 100.0 * (r["cycles"] - off["cycles"]) / off["cycles"]
            blocks = r["fusion"].split(":")[1]
            print(f"{model:<27} {target:<14} {criterion:<10} {blocks:>6} {r['l1']:>7} {r['act']:>12} "
                  f"{act:>+6.1f}% {r['cycles']:>9} {cyc:>+6.1f}% {r['hazards']:>3} {r['exact']:>5}")
