#!/usr/bin/env bash
# Runs every libFuzzer target of build-fuzz/bin for SECONDS (default 20) each, starting from its
# committed seed corpus (copied, so the tree stays clean). Exits non-zero if any target finds a crash.
set -euo pipefail
seconds=${1:-20}
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$root/build-fuzz/bin
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
shopt -s nullglob
targets=("$bin"/fuzz_*)
if [ ${#targets[@]} -eq 0 ]; then
    echo "run-fuzzers: no fuzz targets in $bin (build the 'fuzz' preset first)" >&2
    exit 1
fi
for target in "${targets[@]}"; do
    name=$(basename "$target"); name=${name#fuzz_}
    corpus=$work/$name
    mkdir -p "$corpus"
    if [ -d "$root/tests/fuzz/corpus/$name" ]; then cp -r "$root/tests/fuzz/corpus/$name/." "$corpus/"; fi
    echo "fuzz_$name: ${seconds}s, $(ls "$corpus" | wc -l) seeds"
    if ! "$target" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -max_len=1048576 \
        -artifact_prefix="$work/crash-$name-" -print_final_stats=0 "$corpus" >"$work/$name.log" 2>&1; then
        echo "fuzz_$name: FAILED" >&2
        tail -n 60 "$work/$name.log" >&2
        mkdir -p "$root/build-fuzz/crashes"
        cp "$work"/crash-"$name"-* "$root/build-fuzz/crashes/" 2>/dev/null || true
        status=1
    else
        grep -E '^Done [0-9]+ runs' "$work/$name.log" | tail -n 1 | sed "s/^/fuzz_$name: /" || true
    fi
done
exit $status
