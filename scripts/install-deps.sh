#!/bin/sh
# Installs the Debian 12 packages Tessera's build, tools and tests need, when they are missing.
# Safe to run again: it does nothing when everything is present.
set -eu

packages="cmake ninja-build g++ libboost1.81-dev catch2 libfmt-dev libonnx-dev libprotobuf-dev
protobuf-compiler libzip-dev python3-onnx python3-numpy time
gcc-arm-none-eabi libnewlib-arm-none-eabi libstdc++-arm-none-eabi-newlib qemu-system-arm
gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf libstdc++-arm-none-eabi-dev qemu-system-misc
clang-19"

# ONNX Runtime for the ort/ tests (tools/onnx2hpp/testing/ort_oracle.py): Node.js and npm from
# Debian when no node is installed, then onnxruntime-node from the npm registry into
# tools/onnx2hpp/testing/ort/node_modules (its CPU build ships in the package; the variable stops
# its post-install step from downloading GPU binaries). Without them those tests report
# themselves skipped.
command -v node >/dev/null 2>&1 || packages="$packages nodejs"
command -v npm >/dev/null 2>&1 || packages="$packages npm"

install_onnxruntime() {
  ort_dir="$(cd "$(dirname "$0")/.." && pwd)/tools/onnx2hpp/testing/ort"
  [ -d "$ort_dir/node_modules/onnxruntime-node" ] && return 0
  command -v npm >/dev/null 2>&1 || return 0
  echo "tessera: installing onnxruntime-node (npm) into $ort_dir"
  (cd "$ort_dir" && ONNXRUNTIME_NODE_INSTALL=skip npm install --no-audit --no-fund --silent) ||
    echo "tessera: npm could not install onnxruntime-node: the ort/ tests will report themselves skipped" >&2
}

missing=""
for p in $packages; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing="$missing $p"
  fi
done
if [ -z "$missing" ]; then install_onnxruntime; exit 0; fi

echo "tessera: installing missing Debian packages:$missing"
run=""
if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null 2>&1; then run="sudo"; else
    echo "tessera: run as root (or install sudo) to install:$missing" >&2; exit 1
  fi
fi
$run apt-get update -qq
DEBIAN_FRONTEND=noninteractive $run apt-get install -y -qq --no-install-recommends $missing
install_onnxruntime
