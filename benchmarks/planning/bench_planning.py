#!/usr/bin/python3
"""Compile time and peak compiler memory of planning (`tessera::plan_for`) and of the schedule
(the step program and its compile-time hazard proof), per model and target.

    /usr/bin/python3 benchmarks/planning/bench_planning.py --build build --corpus /work/shared/corpus

For each model (the benchmark's corpus models, the torch models, and the generated 256-operator
graph of generated_graph.hpp) it compiles, with g++ -std=c++20 -O2 -c, a TU that includes the
model and one that also evaluates `plan_for` on a target as a constant (static_assert on .fits
is not required: a plan that does not fit still costs its planning). The table prints the
difference (the planning's share) and the compiler's peak RSS. Wall times on a shared machine:
compare ratios. Needs onnx2hpp built (cmake --build build --target onnx2hpp).
"""
import argparse
import os
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS_MODELS = [("minimobilenet", "Models/miniMobileNet"), ("minimobilenetv2", "Models/miniMobileNetv2"),
                 ("cnn_linear1", "Models/CNN_Linear1"), ("cnn_linear2", "Models/CNN_Linear2"),
                 ("resnet8", "Models/MLPerf/ImageClassification"), ("toyadmos", "Models/MLPerf/AnomalyDetection")]
TORCH_MODELS = ["ds_cnn_kws", "mobilenet_v1_025_vww", "resnet8_cifar", "toyadmos_autoencoder"]
TARGETS = ["gap8", "siracusa", "stm32h7"]


def compile_cost(source, includes, work):
    path = os.path.join(work, "tu.cpp")
    with open(path, "w") as f:
        f.write(source)
    stats = os.path.join(work, "time.txt")
    cmd = ["/usr/bin/time", "-f", "%e %M", "-o", stats, "g++", "-std=c++20", "-O2", "-c", path, "-o", os.devnull]
    cmd += [f"-I{d}" for d in includes]
    ok = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seconds, kib = open(stats).read().split()[-2:]
    error = ""
    if ok.returncode != 0:
        error = "constexpr limit" if "exceeds limit" in ok.stderr else "error"
    return float(seconds), int(kib) / 1024.0, error


def count_steps(source, includes, work):
    """The program's step count, read from the compiler's diagnostic of an incomplete type."""
    path = os.path.join(work, "steps.cpp")
    with open(path, "w") as f:
        f.write(source + "template <unsigned long N> struct steps_are;\nsteps_are<program.size()> steps;\n")
    out = subprocess.run(["g++", "-std=c++20", "-fsyntax-only", path] + [f"-I{d}" for d in includes],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True).stderr
    import re
    m = re.search(r"steps_are<(\d+)", out)
    return int(m.group(1)) if m else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--corpus", default="/work/shared/corpus")
    ap.add_argument("--only", help="only the models whose name contains this (e.g. 'generated')")
    args = ap.parse_args()
    converter = os.path.join(args.build, "tools", "onnx2hpp", "onnx2hpp")
    work = tempfile.mkdtemp(prefix="tessera_bench_planning_")
    includes = [os.path.join(ROOT, "include"), os.path.join(ROOT, "kernels"), work]
    models = []  # (name, header line, summary expression)
    keep = lambda name: args.only is None or args.only in name
    for name, case in CORPUS_MODELS:
        d = os.path.join(args.corpus, "deeploy", case)
        if not os.path.exists(d) or not keep(name):
            continue
        subprocess.run([converter, os.path.join(d, "network.onnx"), "-o", os.path.join(work, name + ".hpp"),
                        "--namespace", name, "--sample-inputs", os.path.join(d, "inputs.npz")], check=True,
                       stdout=subprocess.DEVNULL)
        models.append((name, f'#include <tessera/tessera.hpp>\n#include "{name}.hpp"\n', f"{name}::network::summary"))
    for name in filter(lambda n: keep("torch/" + n), TORCH_MODELS):
        d = os.path.join(ROOT, "tests", "models", "torch", name)
        subprocess.run([converter, os.path.join(d, "network.onnx"), "-o", os.path.join(work, name + ".hpp"),
                        "--namespace", name], check=True, stdout=subprocess.DEVNULL)
        models.append(("torch/" + name, f'#include <tessera/tessera.hpp>\n#include "{name}.hpp"\n',
                       f"{name}::network::summary"))
    graph = os.path.join(ROOT, "benchmarks", "planning", "generated_graph.hpp")
    if keep("generated 256 ops"):
        models.append(("generated 256 ops", f'#include <tessera/planning/target_plan.hpp>\n'
                       f'#include <tessera/schedule/hazard_check.hpp>\n#include "{graph}"\n'
                       "constexpr auto graph = tessera::bench::generated_graph<256>();\n", "graph"))

    print(f"{'model':<28} {'base s':>7} {'base MiB':>8}  " +
          "  ".join(f"{t + ' s':>11} {'MiB':>6} {'+sched s':>9} {'MiB':>6} {'steps':>6}" for t in TARGETS))
    for name, header, summary in models:
        base_s, base_mib, err = compile_cost(header + f"static_assert({summary}.nodes.size() > 0);\n", includes, work)
        cells = []
        for t in TARGETS:
            src = header + f"constexpr auto plan = tessera::plan_for({summary}, tessera::targets::{t});\n" \
                           f"static_assert(plan.l1_bytes >= 0);\n"
            s, mib, err = compile_cost(src, includes, work)
            cell = f"{s - base_s:>+11.2f} {mib:>6.0f}" + (f" ({err})" if err else "")
            sched = header + f"constexpr auto plan = tessera::plan_for({summary}, tessera::targets::{t});\n" \
                             f"constexpr auto program = tessera::schedule::emit_program<" \
                             f"tessera::schedule::count_steps({summary}, plan)>({summary}, plan);\n" \
                             f"static_assert(tessera::schedule::proven_safe<{summary}, plan, program>());\n" \
                             f"static_assert(program.size() != 0xFFFFFFFF);\n"
            s2, mib2, err2 = compile_cost(sched, includes, work)
            steps = count_steps(sched, includes, work) if not err2 else 0
            cell += f" {s2 - s:>+9.2f} {mib2:>6.0f} {steps:>6}" + (f" ({err2})" if err2 else "")
            cells.append(cell)
        print(f"{name:<28} {base_s:>7.2f} {base_mib:>8.0f}  " + "  ".join(cells))
    print("\ncolumns per target: compile seconds of plan_for beyond the base TU (which includes the model),"
          " the compiler's peak RSS; then the seconds the step program and its hazard proof add, the peak RSS"
          " and the program's steps")


if __name__ == "__main__":
    main()
