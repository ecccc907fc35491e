#!/usr/bin/env bash
# A companion library end to end: PROGRAM (nvrtc_twin or nvjitlink_twin: built against NVIDIA's headers, its
# kernels made as sm_XY machine code) on d4r's cpu backend
#   1. with the companions beside libcuda.so.1: passes, and d4r's log says the cubin's PTX twin was loaded;
#   2. without them (a folder holding only libcuda.so.1): fails at cuModuleLoadData, and d4r's log points at
#      docs/companions.md;
#   3. with VARIABLE (D4R_NVRTC_LIBRARY or D4R_NVJITLINK_LIBRARY) naming a file that does not exist: the
#      compiler's call fails, and the log names the variable.
# Usage: run-twin-program.sh PROGRAM D4R_LIB_DIR CUDA_LIB_DIR VARIABLE
set -u
program=$1 lib=$2 cuda_lib=$3 variable=$4
name=$(basename "$program")
fail() { echo "run-twin-program: $name: FAIL: $*"; exit 1; }
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
export D4R_CUDA_BACKEND=cpu D4R_LOG=info ASAN_OPTIONS=detect_leaks=0
unset D4R_LOG_FILE
# run_case TAG LIBRARY_PATH [VARIABLE=VALUE...]: runs the program with that library path (and environment), shows
# its output, leaves it in $tmp/TAG.out and its exit status in $rc.
run_case() {
    local tag=$1 path=$2
    shift 2
    env "$@" LD_LIBRARY_PATH="$path" "$program" >"$tmp/$tag.out" 2>&1
    rc=$?
    cat "$tmp/$tag.out"
}

run_case 1 "$lib:$cuda_lib"
[ $rc -eq 0 ] || fail "with the companion: exit $rc"
grep -q "^$name: PASS" "$tmp/1.out" || fail "with the companion: no PASS line"
grep -q 'loading the PTX its compiler made beside it' "$tmp/1.out" || fail "with the companion: no twin in the log"

mkdir "$tmp/only-cuda" && ln -s "$(readlink -f "$lib/libcuda.so.1")" "$tmp/only-cuda/libcuda.so.1"
run_case 2 "$tmp/only-cuda:$cuda_lib"
[ $rc -eq 1 ] || fail "without the companion: exit $rc, expected 1"
grep -q 'FAIL cuModuleLoadData' "$tmp/2.out" || fail "without the companion: it did not fail at cuModuleLoadData"
grep -q 'docs/companions.md' "$tmp/2.out" || fail "without the companion: the refusal does not point at the docs"

run_case 3 "$lib:$cuda_lib" "$variable=/nonexistent/libcompiler.so.13"
[ $rc -eq 1 ] || fail "with a missing $variable: exit $rc, expected 1"
grep -q "$variable: /nonexistent/libcompiler.so.13" "$tmp/3.out" || fail "the error does not name $variable"
echo "run-twin-program: $name: PASS"
