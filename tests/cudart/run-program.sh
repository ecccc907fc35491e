#!/usr/bin/env bash
# Runs one program (a cudart conformance program of tests/cudart, a driver-API program of tests/runtime/programs)
# on libd4rcuda under one option set and compares its output with the golden, byte for byte. Every option set of
# a program compares with the same golden: d4r's layers must not change what an application computes or prints.
#   run-program.sh [OPTIONS] PROGRAM GOLDEN [ARG...]   (ARGs are the program's own arguments)
#     --lib DIR           libd4rcuda's folder, holding libcuda.so.1 (needed unless --backend direct)
#     --cudart-lib DIR    also on LD_LIBRARY_PATH (the shared cudart)
#     --backend B         cpu (default), driver (libd4rcuda over NVIDIA's libcuda), or direct (NVIDIA's libcuda as
#                         installed, no libd4rcuda: the golden itself is checked; --options none only)
#     --options SET       d4r's layers on top of the backend, each checked to be active through d4r's log file:
#                           none             nothing added (the default)
#                           trace            D4R_CUDA_TRACE=1; the log must hold CUDA_TRACE lines
#                           profile-dump     D4R_CUDA_KERNEL_PROFILE=1 and D4R_CUDA_REPLAY_DUMP_DIR=a temp folder;
#                                            the log must hold a KERNEL_PROFILE line (none with --no-launches)
#                           overrides-empty  D4R_NATIVE_KERNEL_DIR=an empty temp folder: the module registry and
#                                            the override layer are installed with a developer set that serves
#                                            no kernel; the log must say the set was taken
#                           interp           D4R_CPU_EXEC=interp: the cpu backend interprets every kernel (the
#                                            other sets run its default, the PTX JIT); the log must say so
#     --expect-dumps      profile-dump: the dump folder must hold a replay dump
#     --no-launches       the program launches no kernel: profile-dump expects no KERNEL_PROFILE line, no dump
#     --outputs           the program writes its checked results to $PROGRAM_OUT (tests/runtime/programs): the
#                         compared text is its stdout followed by one line per file: output NAME BYTES SHA256
#     --preload LIB       LD_PRELOAD it (the sanitizer build's ASan runtime; leak checks off)
#     --env NAME=VALUE    also set NAME (repeatable)
#     --expect-log REGEX  d4r's log (D4R_LOG_FILE) must have a line matching REGEX (grep -E; repeatable)
#     --print             print the compared text instead of comparing (to write a golden; GOLDEN is not read)
#   run-program.sh --skip REASON      (exit 77: ctest reports the test as skipped, with REASON)
set -euo pipefail

usage() { sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; }
lib='' cudart_lib='' preload='' backend=cpu options=none outputs=0 expect_dumps=0 no_launches=0 print=0
extra_env=()
expect_log=()
while [ $# -gt 0 ]; do
    case "$1" in
        --skip) echo "SKIPPED: $2"; exit 77 ;;
        --lib) lib=$2; shift 2 ;;
        --cudart-lib) cudart_lib=$2; shift 2 ;;
        --backend) backend=$2; shift 2 ;;
        --options) options=$2; shift 2 ;;
        --expect-dumps) expect_dumps=1; shift ;;
        --no-launches) no_launches=1; shift ;;
        --outputs) outputs=1; shift ;;
        --preload) preload=$2; shift 2 ;;
        --env) extra_env+=("$2"); shift 2 ;;
        --expect-log) expect_log+=("$2"); shift 2 ;;
        --print) print=1; shift ;;
        -h|--help) usage; exit 0 ;;
        -*) echo "run-program.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
        *) break ;;
    esac
done
if [ $# -lt 2 ]; then
    echo "run-program.sh: expected [OPTIONS] PROGRAM GOLDEN [ARG...] (see --help)" >&2
    exit 2
fi
program=$1 golden=$2
shift 2
case "$backend" in
    cpu|driver) [ -n "$lib" ] || { echo "run-program.sh: --backend $backend needs --lib DIR (libd4rcuda's folder)" >&2; exit 2; } ;;
    direct) [ "$options" = none ] || { echo "run-program.sh: --backend direct runs without libd4rcuda: --options '$options' is not accepted, only none" >&2; exit 2; } ;;
    *) echo "run-program.sh: --backend '$backend' is not accepted: cpu, driver or direct" >&2; exit 2 ;;
esac
case "$options" in
    none|trace|profile-dump|overrides-empty|interp) ;;
    *) echo "run-program.sh: --options '$options' is not accepted: none, trace, profile-dump, overrides-empty or interp" >&2; exit 2 ;;
esac
if [ "$print" = 0 ] && [ ! -f "$golden" ]; then
    echo "run-program.sh: no golden $golden (record it on the H200 with tests/device/cudart.sh or runtime.sh)" >&2
    exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
log="$tmp/d4r.log" dumps="$tmp/dumps"
env=()
if [ "$backend" = direct ]; then
    # NVIDIA's libcuda.so.1 from the system folders: an inherited LD_LIBRARY_PATH might name libd4rcuda's.
    env=(-u LD_LIBRARY_PATH)
    [ -n "$cudart_lib" ] && env+=(LD_LIBRARY_PATH="$cudart_lib")
else
    env+=(LD_LIBRARY_PATH="$lib${cudart_lib:+:$cudart_lib}" D4R_CUDA_BACKEND="$backend")
fi
case "$options" in
    trace) env+=(D4R_CUDA_TRACE=1) ;;
    profile-dump) mkdir "$dumps"; env+=(D4R_CUDA_KERNEL_PROFILE=1 D4R_CUDA_REPLAY_DUMP_DIR="$dumps") ;;
    overrides-empty) mkdir "$tmp/empty-set"; env+=(D4R_NATIVE_KERNEL_DIR="$tmp/empty-set" D4R_LOG=info) ;;
    interp) env+=(D4R_CPU_EXEC=interp D4R_LOG=info) ;;
esac
# d4r's log goes to a file whenever it is checked, so that the trace never reaches the program's output.
[ "$options" != none ] || [ ${#expect_log[@]} -gt 0 ] && env+=(D4R_LOG_FILE="$log")
[ "$outputs" = 1 ] && mkdir "$tmp/outputs" && env+=(PROGRAM_OUT="$tmp/outputs")
env+=("${extra_env[@]}")
[ -n "$preload" ] && env+=(LD_PRELOAD="$preload" ASAN_OPTIONS="detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}")
status=0
env "${env[@]}" "$program" "$@" >"$tmp/stdout" 2>"$tmp/stderr" || status=$?
show_log() { [ -f "$log" ] && { echo "d4r's log (last 40 lines):"; tail -40 "$log"; }; return 0; }
if [ "$status" -ne 0 ]; then
    echo "$program exited with $status ($backend, options $options); output:"
    cat "$tmp/stdout"
    echo "stderr:"
    cat "$tmp/stderr"
    show_log
    exit 1
fi
cp "$tmp/stdout" "$tmp/compared"
if [ "$outputs" = 1 ]; then
    (cd "$tmp/outputs" && LC_ALL=C ls) | while read -r file; do
        echo "output $file $(wc -c <"$tmp/outputs/$file") $(sha256sum "$tmp/outputs/$file" | cut -d' ' -f1)"
    done >>"$tmp/compared"
fi
if [ "$print" = 1 ]; then
    cat "$tmp/compared"
    exit 0
fi
if ! diff -u "$golden" "$tmp/compared"; then
    echo "$program ($backend, options $options): the output differs from the golden ($golden)"
    exit 1
fi

# The option set was in force: d4r's log says so.
fail() {
    echo "$program ($backend, options $options): $*"
    show_log
    exit 1
}
has() { grep -Eq -- "$1" "$log" 2>/dev/null; }
case "$options" in
    trace) has "CUDA_TRACE cu" || fail "d4r's log has no CUDA_TRACE line" ;;
    profile-dump)
        if [ "$no_launches" = 1 ]; then
            has "KERNEL_PROFILE launch=" && fail "a program that launches no kernel has a KERNEL_PROFILE line"
            [ -z "$(ls -A "$dumps")" ] || fail "a program that launches no kernel left a replay dump: $(ls "$dumps")"
        else
            has "KERNEL_PROFILE launch=[0-9]+ " || fail "d4r's log has no KERNEL_PROFILE line"
        fi
        if [ "$expect_dumps" = 1 ] && [ -z "$(ls -A "$dumps")" ]; then
            fail "D4R_CUDA_REPLAY_DUMP_DIR is empty: no replay dump was written"
        fi
        ;;
    overrides-empty) has "native kernels: developer set $tmp/empty-set " || fail "the empty kernel set was not taken" ;;
    interp) has "cpu backend: D4R_CPU_EXEC=interp: kernels run interpreted" || fail "the interpreter was not chosen" ;;
esac
for pattern in "${expect_log[@]}"; do
    has "$pattern" || fail "d4r's log has no line matching '$pattern'"
done
echo "$(basename "$program") ($backend, options $options): identical to the golden ($(wc -l <"$golden") lines)"
