#!/bin/sh
# Builds the onnx2hpp libFuzzer target with clang (ASan + UBSan) in build-fuzz/ and runs it
# from the seed corpus for SECONDS seconds (default 600), one job.
#   tests/fuzz/run_fuzzer.sh [SECONDS] [extra libFuzzer flags...]
#   FUZZ_TARGET=npz tests/fuzz/run_fuzzer.sh [SECONDS] ...   # the npz reader (--sample-inputs files)
# FUZZ_TARGET=npz runs npz_fuzzer instead, seeded with tests/tools/samples (crafted files), the
# torch models' inputs.npz and the corpus' .npz files of at most 64 kB, in seeds-npz/ and
# corpus-npz/.
# Environment: BUILD_DIR (default <repo>/build-fuzz), CORPUS_DIR (default /work/shared/corpus,
# the Deeploy corpus; its small network.onnx files are seeds), CXX (default clang++-14).
# Layout of BUILD_DIR: seeds/ (generated once: corpus models <= 64 kB, tests/tools/models,
# make_test_models.py and make_quantized_models.py output), corpus/ (what the fuzzer keeps,
# grows across runs), artifacts/ (crash-*, timeout-*, oom-*), fuzz-<date>.log.
set -eu
repo=$(cd "$(dirname "$0")/../.." && pwd)
seconds=${1:-600}
[ $# -gt 0 ] && shift
build=${BUILD_DIR:-$repo/build-fuzz}
corpus_dir=${CORPUS_DIR:-/work/shared/corpus}
cxx=${CXX:-clang++-14}
command -v "$cxx" >/dev/null 2>&1 || cxx=clang++

target=${FUZZ_TARGET:-onnx2hpp}

cmake -S "$repo/tests/fuzz" -B "$build" -DCMAKE_CXX_COMPILER="$cxx" >/dev/null
cmake --build "$build" --parallel 1 --target "${target}_fuzzer"

if [ "$target" = npz ]; then
  seeds=$build/seeds-npz
  if [ ! -f "$seeds/.done" ]; then
    rm -rf "$seeds"
    mkdir -p "$seeds"
    i=0
    for f in $(find "$repo/tests/tools/samples" "$repo/tests/models/torch" "$corpus_dir/deeploy" -name '*.npz' \
               -size -65537c 2>/dev/null | sort); do
      i=$((i + 1))
      cp "$f" "$seeds/$(printf %04d $i)-$(basename "$f")"
    done
    touch "$seeds/.done"
  fi
  mkdir -p "$build/corpus-npz" "$build/artifacts"
  log=$build/fuzz-npz-$(date +%Y%m%d-%H%M%S).log
  echo "npz_fuzzer: $seconds s, seeds $(ls "$seeds" | wc -l), corpus $(ls "$build/corpus-npz" | wc -l), log $log"
  "$build/npz_fuzzer" "$build/corpus-npz" "$seeds" -max_len=65536 -rss_limit_mb=2048 -timeout=10 \
    -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$build/artifacts/npz-" "$@" 2>&1 | tee "$log"
  exit 0
fi

seeds=$build/seeds
if [ ! -f "$seeds/.done" ]; then
  rm -rf "$seeds" "$build/generated"
  mkdir -p "$seeds" "$build/generated"
  i=0
  add() {  # add FILE: copy a model of at most 64 kB into the seed directory
    if [ "$(stat -c %s "$1")" -le 65536 ]; then
      i=$((i + 1))
      cp "$1" "$seeds/$(printf %04d $i)-$(basename "$(dirname "$1")")-$(basename "$1")"
    fi
  }
  /usr/bin/python3 "$repo/tools/onnx2hpp/testing/make_test_models.py" "$build/generated/test_models" >/dev/null
  /usr/bin/python3 "$repo/tools/onnx2hpp/testing/make_quantized_models.py" "$build/generated/quantized" >/dev/null
  for f in $(find "$corpus_dir/deeploy" "$repo/tests/tools/models" "$build/generated" -name '*.onnx' 2>/dev/null | sort); do
    add "$f"
  done
  touch "$seeds/.done"
fi

mkdir -p "$build/corpus" "$build/artifacts"
log=$build/fuzz-$(date +%Y%m%d-%H%M%S).log
echo "onnx2hpp_fuzzer: $seconds s, seeds $(ls "$seeds" | wc -l), corpus $(ls "$build/corpus" | wc -l), log $log"
# -rss_limit_mb: a 64 kB model has no business needing 2 GB; -timeout: seconds per input.
"$build/onnx2hpp_fuzzer" "$build/corpus" "$seeds" \
  -dict="$repo/tests/fuzz/onnx.dict" -max_len=65536 -rss_limit_mb=2048 -timeout=10 \
  -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$build/artifacts/" "$@" 2>&1 | tee "$log"
