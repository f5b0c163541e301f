#!/usr/bin/python3
"""How planning cost grows with the graph and with the feature map, at GCC's default limits.

    cmake --build build --target onnx2hpp
    /usr/bin/python3 benchmarks/planning/bench_scaling.py --build build [--quick]

Two families of models, written with python3-onnx and converted by onnx2hpp as a user would:
- graph size: chains of N Identity nodes (the data-movement plumbing exporters leave behind)
  and of N/2 blocks of 1x1 convolution + RequantShift (N nodes before fusion, N/2 tiled layers)
  on an 8x8x8 map, for N = 100, 300, 1000, 3000;
- spatial size: one 3x3 convolution (3 -> 8 channels) + RequantShift on an S x S RGB image,
  S = 64 ... 1024.
Each model is compiled as a firmware translation unit would be (g++ -std=c++20 -O2 -c, no
-fconstexpr-ops-limit): a tiled executor on a target, and a call to its run(). The table
prints compile seconds, the compiler's peak RSS, and what the build said: "fits", or the
does_not_fit diagnostic (layer, level, bytes needed, available), or "constexpr limit" (the
failure this benchmark exists to catch). Wall times on a shared machine: compare ratios.
"""
import argparse
import os
import re
import subprocess
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def requant(name, src, dst):
    inits = [numpy_helper.from_array(np.array(3, np.float32), name + "_mul"),
             numpy_helper.from_array(np.array(0, np.float32), name + "_add")]
    node = helper.make_node("RequantShift", [src, name + "_mul", name + "_add"], [dst], name=name, div=256.0,
                            n_levels_out=256.0, signed=1.0)
    return node, inits


def save(path, nodes, inits, shape_in, shape_out):
    graph = helper.make_graph(nodes, "scaling", [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape_in)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape_out)], inits)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)


def identity_chain(path, n):
    names = ["x"] + [f"t{i}" for i in range(n - 1)] + ["y"]
    nodes = [helper.make_node("Identity", [names[i]], [names[i + 1]], name=f"id{i}") for i in range(n)]
    save(path, nodes, [], [1, 8, 8, 8], [1, 8, 8, 8])


def conv_chain(path, n):
    rng = np.random.default_rng(n)
    nodes, inits, src = [], [], "x"
    for i in range(n // 2):
        dst = "y" if i == n // 2 - 1 else f"r{i}"
        inits.append(numpy_helper.from_array(rng.integers(-4, 5, (8, 8, 1, 1)).astype(np.float32), f"w{i}"))
        nodes.append(helper.make_node("Conv", [src, f"w{i}"], [f"c{i}"], name=f"conv{i}", kernel_shape=[1, 1]))
        rq, rq_inits = requant(f"rq{i}", f"c{i}", dst)
        nodes.append(rq)
        inits += rq_inits
        src = dst
    save(path, nodes, inits, [1, 8, 8, 8], [1, 8, 8, 8])


def image_conv(path, side):
    w = numpy_helper.from_array(np.random.default_rng(side).integers(-4, 5, (8, 3, 3, 3)).astype(np.float32), "w")
    rq, rq_inits = requant("rq0", "c", "y")
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], name="conv0", kernel_shape=[3, 3], pads=[1, 1, 1, 1]), rq]
    save(path, nodes, [w] + rq_inits, [1, 3, side, side], [1, 8, side, side])


FIRMWARE = """#include <tessera/tessera.hpp>
#include "{header}"
using run = tessera::tiled_executor<{ns}::network, tessera::target<tessera::targets::{target}>>;
alignas(16) std::byte l2[run::l2_bytes];
alignas(16) std::byte l1[run::l1_bytes];
void go(const void* in, void* out) {{
  tessera::dma::memcpy_policy dma;
  run::run(l2, l1, {{in}}, {{out}}, dma);
}}
"""


def compile_firmware(work, header, ns, target):
    path = os.path.join(work, f"{ns}_{target}.cpp")
    with open(path, "w") as f:
        f.write(FIRMWARE.format(header=header, ns=ns, target=target))
    stats = os.path.join(work, "time.txt")
    cmd = ["/usr/bin/time", "-f", "%e %M", "-o", stats, "g++", "-std=c++20", "-O2", "-c", path, "-o", os.devnull,
           f"-I{ROOT}/include", f"-I{ROOT}/kernels", f"-I{work}"]
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seconds, kib = open(stats).read().split()[-2:]
    if done.returncode == 0:
        verdict = "fits"
    elif "exceeds limit" in done.stderr:
        verdict = "constexpr limit"
    else:
        m = re.search(r'does_not_fit<tessera::fixed_name\{"(\w+)"\}, tessera::fixed_name\{"([\w-]+)"\}, '
                      r'(\d+), (\d+)>', done.stderr)
        verdict = f"does_not_fit {m.group(1)} {m.group(2)} {m.group(3)} > {m.group(4)}" if m else "error"
    return float(seconds), int(kib) / 1024.0, verdict


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--targets", default="stm32h7,gap8")
    ap.add_argument("--quick", action="store_true", help="graph sizes up to 1000, images up to 512")
    ap.add_argument("--only", help="only the models whose label contains this (e.g. 'conv+rq')")
    args = ap.parse_args()
    converter = os.path.join(args.build, "tools", "onnx2hpp", "onnx2hpp")
    targets = args.targets.split(",")
    work = tempfile.mkdtemp(prefix="tessera_bench_scaling_")
    sizes = [100, 300, 1000] + ([] if args.quick else [3000])
    sides = [64, 128, 256, 512] + ([] if args.quick else [1024])
    models = [(f"identity x{n}", f"identity_{n}", identity_chain, n) for n in sizes]
    models += [(f"conv+rq x{n // 2}", f"conv_chain_{n}", conv_chain, n) for n in sizes]
    models += [(f"conv3x3 {s}x{s}x3", f"image_{s}", image_conv, s) for s in sides]
    models = [m for m in models if args.only is None or args.only in m[0]]
    print(f"{'model':<20} " + "  ".join(f"{t + ' s':>9} {'MiB':>6} {'result':<42}" for t in targets))
    for label, ns, make, size in models:
        model = os.path.join(work, ns + ".onnx")
        make(model, size)
        subprocess.run([converter, model, "-o", os.path.join(work, ns + ".hpp"), "--namespace", ns,
                        "--input-type", "x=u8"], check=True, stdout=subprocess.DEVNULL)
        cells = []
        for t in targets:
            seconds, mib, verdict = compile_firmware(work, ns + ".hpp", ns, t)
            cells.append(f"{seconds:>9.2f} {mib:>6.0f} {verdict:<42}")
        print(f"{label:<20} " + "  ".join(cells), flush=True)
    print("\nper target: seconds and peak MiB of g++ -O2 compiling a firmware TU (tiled executor + run()), "
          "at GCC's default constexpr limits")


if __name__ == "__main__":
    main()
