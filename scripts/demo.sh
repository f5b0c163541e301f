#!/bin/sh
# The main job: convert the bundled ResNet-8 with onnx2hpp, build it for the host, run it on
# the bundled sample and print the result and the per-layer plan. Installs what is missing.
#   scripts/demo.sh [build-dir]      (default: build)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-"$root/build"}
"$root/scripts/install-deps.sh"
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build "$build" --parallel "$jobs" --target classify_resnet8
"$build/examples/classify_resnet8" "$root/examples/models/resnet8/inputs.npz" "$root/examples/models/resnet8/outputs.npz"
