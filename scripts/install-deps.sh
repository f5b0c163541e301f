#!/bin/sh
# Installs the Debian 12 packages Tessera's build, tools and tests need, when they are missing.
# Safe to run again: it does nothing when everything is present.
set -eu

packages="cmake ninja-build g++ libboost1.81-dev catch2 libfmt-dev libonnx-dev libprotobuf-dev
protobuf-compiler libzip-dev python3-onnx python3-numpy time
gcc-arm-none-eabi libnewlib-arm-none-eabi libstdc++-arm-none-eabi-newlib qemu-system-arm
gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf libstdc++-arm-none-eabi-dev qemu-system-misc
clang-19"

missing=""
for p in $packages; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing="$missing $p"
  fi
done
[ -z "$missing" ] && exit 0

echo "tessera: installing missing Debian packages:$missing"
run=""
if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null 2>&1; then run="sudo"; else
    echo "tessera: run as root (or install sudo) to install:$missing" >&2; exit 1
  fi
fi
$run apt-get update -qq
DEBIAN_FRONTEND=noninteractive $run apt-get install -y -qq --no-install-recommends $missing
