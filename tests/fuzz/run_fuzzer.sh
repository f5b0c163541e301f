#!/bin/sh
# Builds the onnx2hpp libFuzzer target with clang (ASan + UBSan) in build-fuzz/ and runs it
# from the seed corpus for SECONDS seconds (default 600), one job.
#   tests/fuzz/run_fuzzer.sh [SECONDS] [extra libFuzzer flags...]
#   FUZZ_TARGET=npz tests/fuzz/run_fuzzer.sh [SECONDS] ...   # the npz reader (--sample-inputs files)
#   FUZZ_TARGET=onnx2hpp_struct tests/fuzz/run_fuzzer.sh ...  # model bytes, structure-aware mutator
#   FUZZ_TARGET=sample_inputs tests/fuzz/run_fuzzer.sh ...    # --sample-inputs end to end
# FUZZ_TARGET=npz runs npz_fuzzer instead, seeded with tests/tools/samples (crafted files), the
# torch models' inputs.npz and the corpus' .npz files of at most 64 kB, in seeds-npz/ and
# corpus-npz/. FUZZ_TARGET=onnx2hpp_struct runs onnx2hpp_struct_fuzzer (onnx_mutator.cpp) on the
# same seeds/ with its own corpus-struct/. FUZZ_TARGET=sample_inputs runs sample_inputs_fuzzer
# over sample-models/ (the corpus models of at most 64 kB that have an inputs.npz), seeded in
# seeds-samples/ with each model's index byte followed by its inputs.npz or a crafted sample
# file; corpus in corpus-samples/. tests/fuzz/compile_converted.sh compiles what converted.
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

if [ "$target" = sample_inputs ]; then
  models=$build/sample-models
  seeds=$build/seeds-samples
  if [ ! -f "$seeds/.done" ]; then
    rm -rf "$seeds" "$models"
    mkdir -p "$seeds" "$models"
    # Model k (index byte k, in name order) with seed k: byte k + that model's inputs.npz.
    i=0
    for f in $(find "$corpus_dir/deeploy" -name network.onnx -size -65537c 2>/dev/null | sort); do
      d=$(dirname "$f")
      [ -f "$d/inputs.npz" ] || continue
      [ "$i" -lt 256 ] || { echo "more than 256 sample models" >&2; exit 1; }
      cp "$f" "$models/$(printf %03d $i)-$(echo "${d#$corpus_dir/deeploy/}" | tr / _).onnx"
      { printf "\\$(printf %03o $i)"; cat "$d/inputs.npz"; } > "$seeds/$(printf %03d $i)-inputs"
      i=$((i + 1))
    done
    [ "$i" -gt 0 ] || { echo "no corpus model with inputs.npz under $corpus_dir/deeploy" >&2; exit 1; }
    # The crafted sample files (tests/tools/samples) behind model 0.
    for f in "$repo"/tests/tools/samples/*.npz; do
      { printf '\000'; cat "$f"; } > "$seeds/crafted-$(basename "$f")"
    done
    touch "$seeds/.done"
  fi
  mkdir -p "$build/corpus-samples" "$build/artifacts"
  log=$build/fuzz-samples-$(date +%Y%m%d-%H%M%S).log
  echo "sample_inputs_fuzzer: $seconds s, models $(ls "$models" | wc -l), seeds $(ls "$seeds" | wc -l), corpus $(ls "$build/corpus-samples" | wc -l), log $log"
  TESSERA_FUZZ_SAMPLE_MODELS=$models "$build/sample_inputs_fuzzer" "$build/corpus-samples" "$seeds" \
    -max_len=262144 -rss_limit_mb=2048 -timeout=10 -max_total_time="$seconds" -print_final_stats=1 \
    -artifact_prefix="$build/artifacts/samples-" "$@" 2>&1 | tee "$log"
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
  # Tiny decoders with KV caches as graph I/O (one step, a prefill): the --state conversions.
  mkdir -p "$build/generated/llama"
  tiny="--d-model 8 --heads 2 --layers 1 --d-ff 8"
  /usr/bin/python3 "$repo/tools/onnx2hpp/testing/make_llama_models.py" model "$build/generated/llama/step.onnx" \
    $tiny --cache 2 >/dev/null
  /usr/bin/python3 "$repo/tools/onnx2hpp/testing/make_llama_models.py" model "$build/generated/llama/prefill.onnx" \
    $tiny --prompt 3 >/dev/null
  for f in $(find "$corpus_dir/deeploy" "$repo/tests/tools/models" "$build/generated" -name '*.onnx' 2>/dev/null | sort); do
    add "$f"
  done
  touch "$seeds/.done"
fi

# The byte-level and the structure-aware target share the seeds, not the corpus.
if [ "$target" = onnx2hpp_struct ]; then corpus=$build/corpus-struct prefix=struct-; else corpus=$build/corpus prefix=; fi
mkdir -p "$corpus" "$build/artifacts"
log=$build/fuzz-$prefix$(date +%Y%m%d-%H%M%S).log
echo "${target}_fuzzer: $seconds s, seeds $(ls "$seeds" | wc -l), corpus $(ls "$corpus" | wc -l), log $log"
# -rss_limit_mb: a 64 kB model has no business needing 2 GB; -timeout: seconds per input.
"$build/${target}_fuzzer" "$corpus" "$seeds" \
  -dict="$repo/tests/fuzz/onnx.dict" -max_len=65536 -rss_limit_mb=2048 -timeout=10 \
  -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$build/artifacts/$prefix" "$@" 2>&1 | tee "$log"
