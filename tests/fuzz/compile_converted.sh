#!/bin/sh
# Convert-then-compile (issue 16, item 10): replays the corpora the model fuzzers saved
# (build-fuzz/corpus, corpus-struct, seeds) through onnx2hpp_fuzzer with
# TESSERA_FUZZ_SAVE_HEADERS, so every input that converts leaves its header (fused and
# --no-fuse, deduplicated by content), then compiles a sample of those headers with the library
# as a user would, for SECONDS seconds (default 600):
#
#   #include "HEADER"
#   using run = tessera::executor<fuzz::network>;
#   alignas(16) static std::byte arena[run::arena_bytes];
#   void infer(const run::inputs_t& in, const run::outputs_t& out) { run::run(arena, in, out); }
#
# with `$CXX -std=c++20 -fsyntax-only` (GCC instantiates templates under -fsyntax-only, so the
# plan, the checks and every kernel the network uses are compiled).
# A header must compile, or fail only with one of Tessera's designed diagnostics: the first
# error is a `static assertion failed` whose message starts with "tessera" (does_not_fit,
# layer_check_failed, graph_check_failed, ... in include/tessera/diagnostics/errors.hpp).
# Anything else is a finding: another first error (a generated header that is not valid C++,
# a type the library does not take, the compiler's constexpr limit instead of the
# diagnostic), a compiler crash, or more than COMPILE_TIMEOUT seconds (default 300) or 4 GB.
# Findings are kept in BUILD_DIR/compile-findings/ (header, TU and compiler output).
#
#   tests/fuzz/compile_converted.sh [SECONDS] [MAX_HEADERS]
# Environment: BUILD_DIR (default <repo>/build-fuzz), CXX (default g++), COMPILE_TIMEOUT,
# SKIP_REPLAY=1 (compile the headers already in BUILD_DIR/converted).
# The sample: headers in the order of their names (hashes of their text, so a fixed pseudo-random
# order): a rerun over the same corpus compiles the same ones first. Exit status 1 when there was a finding.
set -eu
repo=$(cd "$(dirname "$0")/../.." && pwd)
seconds=${1:-600}
max_headers=${2:-1000000}
build=${BUILD_DIR:-$repo/build-fuzz}
cxx=${CXX:-g++}
compile_timeout=${COMPILE_TIMEOUT:-300}
converted=$build/converted
findings=$build/compile-findings
work=$build/compile-work

if [ "${SKIP_REPLAY:-0}" != 1 ]; then
  [ -x "$build/onnx2hpp_fuzzer" ] || { echo "build $build/onnx2hpp_fuzzer first (tests/fuzz/run_fuzzer.sh 0)" >&2; exit 2; }
  rm -rf "$converted" "$work/empty"
  mkdir -p "$converted" "$work/empty"
  dirs=""
  for d in corpus corpus-struct seeds; do
    [ -d "$build/$d" ] && dirs="$dirs $build/$d"
  done
  # -runs=0: every input once, no mutation; the first directory (empty) receives nothing.
  start=$(date +%s)
  # shellcheck disable=SC2086
  TESSERA_FUZZ_SAVE_HEADERS=$converted "$build/onnx2hpp_fuzzer" -runs=0 -max_len=65536 -rss_limit_mb=2048 \
    -timeout=30 "$work/empty" $dirs > "$work/replay.log" 2>&1 || {
    echo "replay failed (a finding of the model fuzzer itself): $work/replay.log" >&2
    exit 1
  }
  echo "replayed $(grep -o 'INITED.*' "$work/replay.log" | head -1) from$dirs in $(($(date +%s) - start)) s:" \
       "$(ls "$converted" | wc -l) distinct headers"
fi

mkdir -p "$findings" "$work"
start=$(date +%s)
n=0 ok=0 designed=0 found=0
for h in $(ls "$converted" | sort); do
  [ $(($(date +%s) - start)) -lt "$seconds" ] || break
  [ "$n" -lt "$max_headers" ] || break
  n=$((n + 1))
  tu=$work/tu.cpp
  cat > "$tu" <<EOF
#include "$converted/$h"
using run = tessera::executor<fuzz::network>;
alignas(16) static std::byte arena[run::arena_bytes];
void infer(const run::inputs_t& in, const run::outputs_t& out) { run::run(arena, in, out); }
EOF
  status=0
  ( ulimit -v 4194304; timeout "$compile_timeout" "$cxx" -std=c++20 -fsyntax-only -I"$repo/include" -I"$repo/kernels" \
      "$tu" ) > "$work/out.txt" 2>&1 || status=$?
  if [ "$status" -eq 0 ]; then
    ok=$((ok + 1))
    continue
  fi
  first=$(grep -m1 ': error: ' "$work/out.txt" || true)
  if [ "$status" -eq 1 ] && echo "$first" | grep -q ': error: static assertion failed.*tessera'; then
    designed=$((designed + 1))
    echo "designed: $h: $(echo "$first" | sed 's/.*error: //' | cut -c1-160)"
    continue
  fi
  found=$((found + 1))
  mkdir -p "$findings/$h"
  cp "$converted/$h" "$tu" "$work/out.txt" "$findings/$h/"
  echo "FINDING: $h (status $status): ${first:-no error line} -> $findings/$h"
done
echo "compiled $n of $(ls "$converted" | wc -l) headers in $(($(date +%s) - start)) s with $cxx:" \
     "$ok compile, $designed designed diagnostics, $found findings"
[ "$found" -eq 0 ]
