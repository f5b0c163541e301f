#!/usr/bin/python3
"""The arena planner on every network the corpus tests build, and its compile cost.

    /usr/bin/python3 benchmarks/planning/bench_arena.py --build build            # the table
    /usr/bin/python3 benchmarks/planning/bench_arena.py --compile-time [--include DIR]

Table: for every header the corpus tests generate (build/tests/corpus/generated: the Deeploy
corpus, torch, synthetic, quantized ONNX and conformance cases, fused and unfused), the arena of
`plan_arena` for each kernel family against greedy by size, DORY's stack, the bound and the
bound with buffers rounded to 16 B; every plan is checked buffer against buffer (`valid`).
Needs the host build's corpus tests configured (the headers are written at build time:
cmake --build build --target tessera_corpus_tests, or any corpus case target).

--compile-time: g++ -std=c++20 -O2 user seconds (best of --repeat) and peak RSS of a TU that
plans the generated 256-operator graph (benchmarks/planning/generated_graph.hpp), beyond one
that only builds it: `plan_arena` alone and `plan_for` on gap8; then the worst case of the branch
and bound (a set whose bound is unreachable, searched for the whole budget). --include points
at another checkout's include/ to measure it the same way (e.g. before a change).
"""
import argparse
import glob
import os
import re
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

CHECK = r'''
#include <cstdio>
#include <tessera/tessera.hpp>
#include <tessera/planning/bidirectional_stack.hpp>
#include "support/arena_cases.hpp"
template <class Net>
void row(const char* name) {
  for (int f = 0; f < int(tessera::kernels::family_count); ++f) {
    const auto family = tessera::kernels::kernel_family(f);
    const auto& g = Net::summary;
    const auto plan = tessera::plan_arena(g, {}, true, family);
    std::printf("%s %s %zu %zu %zu %zu %zu %s %d %d %zu\n", name, tessera::kernels::family_name(family), plan.arena_bytes,
                plan.greedy_bytes, tessera::bidirectional_stack_peak(g, family), plan.lower_bound_bytes,
                plan.aligned_bound_bytes, tessera::name_of(plan.method), int(plan.optimal),
                int(arena_cases::valid_plan(g, plan, {}, true, family)), plan.search_work);
  }
}
'''


def run_table(args):
    build = os.path.abspath(args.build)
    headers = sorted(glob.glob(os.path.join(build, "tests", "corpus", "generated", "*_fused.hpp")) +
                     glob.glob(os.path.join(build, "tests", "corpus", "generated", "*_unfused.hpp")))
    if not headers:
        raise SystemExit("no generated corpus headers under " + args.build)
    work = tempfile.mkdtemp(prefix="tessera_bench_arena_")
    with open(os.path.join(work, "check.hpp"), "w") as f:
        f.write(CHECK)
    groups = [headers[i:i + 24] for i in range(0, len(headers), 24)]
    objects = []
    for k, group in enumerate(groups):
        src = os.path.join(work, f"g{k}.cpp")
        with open(src, "w") as f:
            f.write('#include "check.hpp"\n')
            names = []
            for h in group:
                f.write(f'#include "{h}"\n')
                names.append(re.search(r"^namespace (\w+)", open(h).read(), re.M).group(1))
            f.write(f"void group{k}() {{\n" + "".join(f'  row<{n}::network>("{n}");\n' for n in names) + "}\n")
        obj = src[:-4] + ".o"
        subprocess.run(["g++", "-std=c++20", "-O1", "-msse4.1", "-c", src, "-o", obj, "-I" + os.path.join(ROOT, "include"),
                        "-I" + os.path.join(ROOT, "kernels"), "-I" + os.path.join(ROOT, "tests"), "-I" + work], check=True)
        objects.append(obj)
    with open(os.path.join(work, "main.cpp"), "w") as f:
        f.write("".join(f"void group{k}();\n" for k in range(len(groups))))
        f.write("int main() {\n" + "".join(f"  group{k}();\n" for k in range(len(groups))) + "}\n")
    exe = os.path.join(work, "arena_table")
    subprocess.run(["g++", "-std=c++20", os.path.join(work, "main.cpp")] + objects + ["-o", exe], check=True)
    rows = [line.split() for line in subprocess.run([exe], check=True, capture_output=True, text=True).stdout.splitlines()]

    native = args.family
    print(f"{'network':<58} {'arena B':>8} {'greedy B':>8} {'DORY B':>8} {'bound B':>8} {'bound16':>8} {'plan':<9} "
          f"{'goal':>8}  status")
    for name, family, arena, greedy, dory, bound, bound16, method, optimal, valid, _ in rows:
        if family != native:
            continue
        arena, greedy, dory, bound, bound16 = map(int, (arena, greedy, dory, bound, bound16))
        goal = min((bound + 15) // 16 * 16, dory)
        status = "ok" if arena <= goal else ("= bound16 (aligned)" if arena == bound16 else "ABOVE")
        if valid != "1":
            status += " INVALID"
        print(f"{name:<58} {arena:>8} {greedy:>8} {dory:>8} {bound:>8} {bound16:>8} {method:<9} {goal:>8}  {status}")
    print("\ngoal: min(bound rounded up to 16, DORY's stack); '= bound16': above the goal only because the rounded raw bound is\n"
          "unreachable with 16-byte aligned buffers (the arena equals the aligned bound, the least any aligned plan needs).\n")
    print(f"{'family':<10} {'plans':>6} {'valid':>6} {'<=goal':>7} {'=bound16':>9} {'optimal':>8} {'<=DORY':>7} {'<greedy':>8} "
          f"{'searched':>9}")
    for family in dict.fromkeys(r[1] for r in rows):
        sel = [r for r in rows if r[1] == family]
        count = lambda pred: sum(1 for r in sel if pred(r))
        print(f"{family:<10} {len(sel):>6} {count(lambda r: r[9] == '1'):>6} "
              f"{count(lambda r: int(r[2]) <= min((int(r[5]) + 15) // 16 * 16, int(r[4]))):>7} "
              f"{count(lambda r: r[2] == r[6]):>9} {count(lambda r: r[8] == '1'):>8} "
              f"{count(lambda r: int(r[2]) <= int(r[4])):>7} {count(lambda r: int(r[2]) < int(r[3])):>8} "
              f"{count(lambda r: int(r[10]) > 0):>9}")


def compile_cost(source, includes, work, repeat):
    path = os.path.join(work, "tu.cpp")
    with open(path, "w") as f:
        f.write(source)
    best = None
    for _ in range(repeat):
        stats = os.path.join(work, "time.txt")
        cmd = ["/usr/bin/time", "-f", "%U %M", "-o", stats, "g++", "-std=c++20", "-O2", "-c", path, "-o", os.devnull]
        ok = subprocess.run(cmd + [f"-I{d}" for d in includes], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if ok.returncode != 0:
            raise SystemExit(ok.stderr[-2000:])
        seconds, kib = open(stats).read().split()[-2:]
        cost = (float(seconds), int(kib) / 1024.0)
        best = cost if best is None or cost[0] < best[0] else best
    return best


def run_compile_time(args):
    include = args.include or os.path.join(ROOT, "include")
    work = tempfile.mkdtemp(prefix="tessera_bench_arena_cc_")
    includes = [include, os.path.join(ROOT, "kernels"), work]
    graph = os.path.join(ROOT, "benchmarks", "planning", "generated_graph.hpp")
    head = (f'#include <tessera/planning/target_plan.hpp>\n#include "{graph}"\n'
            "constexpr auto graph = tessera::bench::generated_graph<256>();\n")
    base = compile_cost(head + "static_assert(graph.nodes.size() == 256);\n", includes, work, args.repeat)
    arena = compile_cost(head + "constexpr auto plan = tessera::plan_arena(graph);\nstatic_assert(plan.arena_bytes > 0);\n",
                         includes, work, args.repeat)
    plan = compile_cost(head + "constexpr auto plan = tessera::plan_for(graph, tessera::targets::gap8);\n"
                        "static_assert(plan.l1_bytes > 0);\n", includes, work, args.repeat)
    print(f"include: {include}")
    print(f"{'TU (generated 256-operator graph)':<44} {'user s':>7} {'MiB':>6}")
    print(f"{'base (builds the graph)':<44} {base[0]:>7.2f} {base[1]:>6.0f}")
    print(f"{'plan_arena':<44} {arena[0] - base[0]:>+7.2f} {arena[1]:>6.0f}")
    print(f"{'plan_for on gap8':<44} {plan[0] - base[0]:>+7.2f} {plan[1]:>6.0f}")
    if os.path.exists(os.path.join(include, "tessera", "planning", "arena_packing.hpp")):
        # 14 items whose bound (432 B) is unreachable (448 B): the search runs out of budget.
        worst = ("#include <tessera/planning/arena_plan.hpp>\nusing tessera::packing::item;\n"
                 "constexpr std::array<item, 14> items{{{160,5,6},{96,2,4},{48,3,4},{240,4,7},{32,7,9},{16,0,0},{224,2,3},"
                 "{16,6,7},{64,9,9},{112,1,2},{256,1,1},{16,9,9},{32,3,4},{208,9,9}}};\n"
                 "constexpr auto result = [] { tessera::packing::search_result<14> r{}; r.peak = 464;\n"
                 "  tessera::packing::search<10>(items, 14, 432, BUDGET, r); return r; }();\n"
                 "static_assert(result.peak >= 448);\n")
        empty = compile_cost(worst.replace("BUDGET", "1"), includes, work, args.repeat)
        full = compile_cost(worst.replace("BUDGET", "tessera::arena_search_budget"), includes, work, args.repeat)
        print(f"{'search, whole budget (14 items, unreachable)':<44} {full[0] - empty[0]:>+7.2f} {full[1]:>6.0f}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--family", default="x86", help="the family whose rows the table lists (all are summarized)")
    ap.add_argument("--compile-time", action="store_true")
    ap.add_argument("--include", help="include/ of the checkout to measure (default: this one)")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    if args.compile_time:
        run_compile_time(args)
    else:
        run_table(args)


if __name__ == "__main__":
    main()
