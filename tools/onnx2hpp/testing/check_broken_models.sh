#!/bin/bash
# check_broken_models.sh ONNX2HPP DIR
# For every line "case|regex|extra args" of DIR/expected.txt (see make_test_models.py):
# onnx2hpp must exit with 1, print a message matching the regex and leave no header behind.
# A message of several lines is matched with its line breaks read as spaces.
set -u
converter=$1
dir=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
while IFS='|' read -r name pattern extra; do
  [ -z "$name" ] && continue
  out="$work/$name.hpp"
  # shellcheck disable=SC2086  # extra holds separate arguments
  message=$("$converter" "$dir/$name.onnx" -o "$out" $extra 2>&1 >/dev/null)
  status=$?
  if [ $status -ne 1 ]; then
    echo "FAIL $name: exit code $status (expected 1)"; failures=$((failures + 1))
  elif ! grep -Eq -- "^onnx2hpp: error: .*$pattern" <<<"$(tr '\n' ' ' <<<"$message")"; then
    echo "FAIL $name: '$message' does not match '$pattern'"; failures=$((failures + 1))
  elif ls "$out" "$work/.$name.hpp."* >/dev/null 2>&1; then
    echo "FAIL $name: a header (or its temporary file) was left behind"; failures=$((failures + 1))
  else
    echo "ok   $name: $message"
  fi
done <"$dir/expected.txt"
exit $((failures > 0))
