#!/bin/sh
# A stand-in for onnx2hpp that fails the wrong way, to test cmake/expect_conversion_error.cmake
# itself: run as `sh fake_converter.sh -o OUT ARGS`, with the mode after -o OUT:
#   crash   prints the expected error line, then dies of SIGSEGV
#   abort   prints the expected error line, then dies of SIGABRT (an uncaught exception's end)
#   status2 prints the expected error line, then exits with 2 (not the documented 1)
#   partial prints the expected error line, leaves OUT behind and exits with 1
out=$2
mode=$3
echo "onnx2hpp: error: node 'n' (Conv): fake failure" >&2
case $mode in
  crash) kill -s SEGV $$ ;;
  abort) kill -s ABRT $$ ;;
  status2) exit 2 ;;
  partial) echo "// partial" >"$out"; exit 1 ;;
esac
exit 1
