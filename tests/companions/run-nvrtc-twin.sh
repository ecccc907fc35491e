#!/usr/bin/env bash
# The companion libnvrtc.so.13 end to end: nvrtc_twin (an NVRTC program built against NVIDIA's headers, its
# kernels compiled to sm_XY machine code) on d4r's cpu backend
#   1. with the companion beside libcuda.so.1: passes, and d4r's log says the cubin's PTX twin was loaded;
#   2. without it (a folder holding only libcuda.so.1): fails at cuModuleLoadData, and d4r's log names the
#      companion and docs/companions.md;
#   3. with D4R_NVRTC_LIBRARY naming a file that does not exist: NVRTC fails, and the log names the variable.
# Usage: run-nvrtc-twin.sh PROGRAM D4R_LIB_DIR CUDA_LIB_DIR
set -u
program=$1 lib=$2 cuda_lib=$3
fail() { echo "run-nvrtc-twin: FAIL: $*"; exit 1; }
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
export D4R_CUDA_BACKEND=cpu D4R_LOG=info ASAN_OPTIONS=detect_leaks=0
unset D4R_LOG_FILE

LD_LIBRARY_PATH="$lib:$cuda_lib" "$program" >"$tmp/1.out" 2>&1
rc=$?
cat "$tmp/1.out"
[ $rc -eq 0 ] || fail "with the companion: exit $rc"
grep -q '^nvrtc_twin: PASS' "$tmp/1.out" || fail "with the companion: no PASS line"
grep -q 'loading the PTX its compiler made beside it' "$tmp/1.out" || fail "with the companion: no twin in the log"

mkdir "$tmp/only-cuda" && ln -s "$(readlink -f "$lib/libcuda.so.1")" "$tmp/only-cuda/libcuda.so.1"
LD_LIBRARY_PATH="$tmp/only-cuda:$cuda_lib" "$program" >"$tmp/2.out" 2>&1
rc=$?
cat "$tmp/2.out"
[ $rc -eq 1 ] || fail "without the companion: exit $rc, expected 1"
grep -q 'FAIL cuModuleLoadData' "$tmp/2.out" || fail "without the companion: it did not fail at cuModuleLoadData"
grep -q 'docs/companions.md' "$tmp/2.out" || fail "without the companion: the refusal does not point at the docs"

D4R_NVRTC_LIBRARY=/nonexistent/libnvrtc.so.13 LD_LIBRARY_PATH="$lib:$cuda_lib" "$program" >"$tmp/3.out" 2>&1
rc=$?
cat "$tmp/3.out"
[ $rc -eq 1 ] || fail "with a missing D4R_NVRTC_LIBRARY: exit $rc, expected 1"
grep -q 'D4R_NVRTC_LIBRARY: /nonexistent/libnvrtc.so.13' "$tmp/3.out" || fail "the error does not name the variable"
echo "run-nvrtc-twin: PASS"
