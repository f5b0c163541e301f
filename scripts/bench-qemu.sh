#!/bin/sh
# Cross-compiled benchmarks under QEMU (Cortex-M4, M7, M55): builds the host tree (for the model
# headers) and the three cross presets, runs the benchmark firmware and writes the tables of
# docs/benchmarks.md.   scripts/bench-qemu.sh [host-build-dir]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-"$root/build"}
"$root/scripts/install-deps.sh"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
exec /usr/bin/python3 "$root/scripts/bench_qemu.py" "$build"
