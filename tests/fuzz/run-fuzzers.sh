#!/usr/bin/env bash
# Runs every libFuzzer target of BUILD/bin for SECONDS (default 20) each, starting from its committed
# seed corpus (copied, so the tree stays clean), JOBS targets at a time (default: the number of CPUs;
# every target still gets its full SECONDS). BUILD is relative to the repository root (default
# build-fuzz). Exits non-zero if any target finds a crash; its input is kept in BUILD/crashes/.
# `make test` runs the asan preset's fuzzers (clang -O0, built with the unit tests); the fuzz preset
# builds them at -O1 for long runs.
#
# Usage: tests/fuzz/run-fuzzers.sh [--build BUILD] [SECONDS [JOBS]]
set -euo pipefail
build=build-fuzz
case "${1:-}" in
    -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    --build) [ $# -ge 2 ] || { echo "run-fuzzers: --build needs a folder" >&2; exit 2; }; build=$2; shift 2 ;;
esac
seconds=${1:-20}
jobs=${2:-$(nproc)}
for v in "$seconds" "$jobs"; do
    [[ "$v" =~ ^[1-9][0-9]*$ ]] || { echo "run-fuzzers: '$v' is not a positive whole number (usage: $0 [--build BUILD] [SECONDS [JOBS]])" >&2; exit 2; }
done
root=$(cd "$(dirname "$0")/../.." && pwd)
case "$build" in /*) ;; *) build=$root/$build ;; esac
bin=$build/bin
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
shopt -s nullglob
targets=("$bin"/fuzz_*)
if [ ${#targets[@]} -eq 0 ]; then
    echo "run-fuzzers: no fuzz targets in $bin (build the asan or fuzz preset first)" >&2
    exit 1
fi

# One target: its corpus copied, its log and verdict under $work. Prints its start line.
run_one() {
    local target=$1 name corpus
    name=$(basename "$target"); name=${name#fuzz_}
    corpus=$work/$name
    mkdir -p "$corpus"
    if [ -d "$root/tests/fuzz/corpus/$name" ]; then cp -r "$root/tests/fuzz/corpus/$name/." "$corpus/"; fi
    echo "fuzz_$name: ${seconds}s, $(ls "$corpus" | wc -l) seeds"
    if "$target" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -max_len=1048576 \
        -artifact_prefix="$work/crash-$name-" -print_final_stats=0 "$corpus" >"$work/$name.log" 2>&1; then
        echo ok > "$work/$name.verdict"
    else
        echo failed > "$work/$name.verdict"
    fi
}

running=0
for target in "${targets[@]}"; do
    if [ "$running" -ge "$jobs" ]; then wait -n || true; running=$((running - 1)); fi
    run_one "$target" &
    running=$((running + 1))
done
wait

status=0
for target in "${targets[@]}"; do
    name=$(basename "$target"); name=${name#fuzz_}
    if [ "$(cat "$work/$name.verdict" 2>/dev/null)" = ok ]; then
        grep -E '^Done [0-9]+ runs' "$work/$name.log" | tail -n 1 | sed "s/^/fuzz_$name: /" || true
    else
        echo "fuzz_$name: FAILED" >&2
        tail -n 60 "$work/$name.log" >&2 || true
        mkdir -p "$build/crashes"
        cp "$work"/crash-"$name"-* "$build/crashes/" 2>/dev/null || true
        status=1
    fi
done
exit $status
