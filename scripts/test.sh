#!/bin/sh
# The whole test suite: installs what is missing, configures, builds and runs ctest on the host
# (with g++, then with clang++-19), then cross-builds the firmware for each Cortex-M and RISC-V
# preset and runs it under QEMU.
#   scripts/test.sh [build-dir]      (default: build)
# The host build goes to <build-dir>, the clang host build to <build-dir>-clang (the host-clang
# preset), the cross builds to <build-dir>-<preset> (the folders scripts/bench-qemu.sh uses
# too), with the corpus models the g++ host build converted (<build-dir>/qemu_models). Every
# suite runs even when an earlier one fails; the exit status says whether all passed.
# Environment: TESSERA_JOBS parallel jobs (default: nproc); TESSERA_HOST_CLANG the clang host
# suite: "models" (default: everything but the golden cases other than the Deeploy models,
# corpus/Models/*, about a third of the full clang build), "full", or 0 for none;
# TESSERA_CROSS_PRESETS the presets to run (default: "cortex-m4 cortex-m4-clang
# cortex-m7 cortex-m55 riscv32 riscv32-v"; "" for none).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-"$root/build"}
mkdir -p "$build"
build=$(cd "$build" && pwd)
"$root/scripts/install-deps.sh"
jobs=${TESSERA_JOBS:-$(nproc 2>/dev/null || echo 2)}
failed=""
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build "$build" --parallel "$jobs"
ctest --test-dir "$build" --output-on-failure --parallel "$jobs" || failed="$failed host"

# The same host suite built by clang 19 (CMakePresets.json: host-clang; docs/testing.md, "Clang").
# By default with the corpus models only among the golden cases: the converted quantized,
# conformance, synthetic, exported and kernel cases are two thirds of its build time, and the
# g++ suite runs them all.
cd "$root"
clang_suite=${TESSERA_HOST_CLANG:-models}
if [ "$clang_suite" != 0 ]; then
  clang_cases=""
  [ "$clang_suite" = full ] || clang_cases='^corpus/Models/|^exported/torch_mobilenet_v3_'
  if cmake --preset host-clang -B "$build-clang" -DTESSERA_CORPUS_CASES="$clang_cases" &&
     cmake --build "$build-clang" --parallel "$jobs"; then
    ctest --test-dir "$build-clang" --output-on-failure --parallel "$jobs" ||
      failed="$failed host-clang"
  else
    failed="$failed host-clang(build)"
  fi
fi

# Firmware under QEMU (CMakePresets.json; tests/qemu, tests/qemu_corpus, benchmarks/qemu).
cd "$root"
for preset in ${TESSERA_CROSS_PRESETS-cortex-m4 cortex-m4-clang cortex-m7 cortex-m55 riscv32 riscv32-v}; do
  if cmake --preset "$preset" -B "$build-$preset" -DTESSERA_QEMU_MODELS_DIR="$build/qemu_models" &&
     cmake --build "$build-$preset" --parallel "$jobs"; then
    ctest --test-dir "$build-$preset" --output-on-failure --parallel "$jobs" || failed="$failed $preset"
  else
    failed="$failed $preset(build)"
  fi
done

if [ -n "$failed" ]; then
  echo "tessera: failed:$failed" >&2
  exit 1
fi
echo "tessera: all suites passed"
