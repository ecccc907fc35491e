#!/usr/bin/env bash
# Runs one runtime-API conformance program on libd4rcuda's cpu backend and compares its output with the
# golden recorded on the H200, byte for byte.
#   run-program.sh --lib DIR [--cudart-lib DIR] [--preload LIB] PROGRAM GOLDEN
#     --preload LIB   LD_PRELOAD it (the sanitizer build's ASan runtime; leak checks off)
#     --env NAME=VALUE  also set NAME (d4r's layers: the profile, the trace; repeatable)
#     --expect-log REGEX  d4r's log (D4R_LOG_FILE) must have a line matching REGEX (grep -E; repeatable)
#   run-program.sh --skip REASON      (exit 77: ctest reports the test as skipped, with REASON)
set -euo pipefail

lib= cudart_lib= preload=
extra_env=()
expect_log=()
while [ $# -gt 0 ]; do
    case "$1" in
        --skip) echo "SKIPPED: $2"; exit 77 ;;
        --lib) lib=$2; shift 2 ;;
        --cudart-lib) cudart_lib=$2; shift 2 ;;
        --preload) preload=$2; shift 2 ;;
        --env) extra_env+=("$2"); shift 2 ;;
        --expect-log) expect_log+=("$2"); shift 2 ;;
        -h|--help) sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) break ;;
    esac
done
if [ $# -ne 2 ] || [ -z "$lib" ]; then
    echo "run-program.sh: expected --lib DIR [--cudart-lib DIR] [--preload LIB] PROGRAM GOLDEN (see --help)" >&2
    exit 2
fi
program=$1 golden=$2
if [ ! -f "$golden" ]; then
    echo "run-program.sh: no golden $golden (record it on the H200 with tests/device/cudart.sh)" >&2
    exit 1
fi

out=$(mktemp)
trap 'rm -f "$out" "$out.log"' EXIT
status=0
env=(LD_LIBRARY_PATH="$lib${cudart_lib:+:$cudart_lib}" D4R_CUDA_BACKEND=cpu)
env+=("${extra_env[@]}")
[ ${#expect_log[@]} -gt 0 ] && env+=(D4R_LOG_FILE="$out.log")
[ -n "$preload" ] && env+=(LD_PRELOAD="$preload" ASAN_OPTIONS="detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}")
env "${env[@]}" "$program" >"$out" 2>"$out.err" || status=$?
if [ "$status" -ne 0 ]; then
    echo "$program exited with $status; output:"
    cat "$out"
    echo "stderr:"
    cat "$out.err"
    rm -f "$out.err"
    exit 1
fi
rm -f "$out.err"
if ! diff -u "$golden" "$out"; then
    echo "$program: the output differs from the H200's ($golden)"
    exit 1
fi
for pattern in "${expect_log[@]}"; do
    if ! grep -Eq -- "$pattern" "$out.log" 2>/dev/null; then
        echo "$program: d4r's log has no line matching '$pattern'; the log:"
        cat "$out.log" 2>/dev/null
        exit 1
    fi
done
echo "$(basename "$program"): identical to the H200 ($(wc -l <"$golden") lines)"
