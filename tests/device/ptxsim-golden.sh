#!/usr/bin/env bash
# Produces the ptxsim golden outputs on an NVIDIA GPU (the H200 of the device machine):
#  1. builds tests/device/ptxsim_golden_runner.cpp with g++ alone (the CUDA driver is dlopen()ed);
#  2. runs every case of the corpus (tests/ptxsim/corpus) from the committed PTX and writes
#     <case>.out, summary.txt and runner.log;
#  3. packs them, with the sha256 of every PTX file used, into ONE archive: $OUT/goldens.tar.gz;
#  4. unless --no-numerics, runs tests/device/mma-numerics.sh (report in $OUT/mma-numerics.md).
# Exit status: non-zero if the runner cannot be built, any case fails to load or launch, or the
# numerics experiments fail; the archive is written in any case so partial results come back.
# Afterwards, on the development machine: tests/ptxsim/corpus/import-goldens.sh goldens.tar.gz
#
# Usage: tests/device/ptxsim-golden.sh [--no-numerics] [--case NAME]...
set -uo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-$repo/out/device}
mkdir -p "$out"
numerics=1
cases=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --no-numerics) numerics=0 ;;
        --case) cases+=(--case "$2"); shift ;;
        -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
        *) echo "ptxsim-golden: unknown argument $1" >&2; exit 2 ;;
    esac
    shift
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
start=$(date +%s)

echo "== ptxsim-golden: building the runner (g++ -O2 -std=c++17 ... -ldl)"
if ! ${CXX:-g++} -O2 -std=c++17 -Wall -o "$work/runner" \
        "$repo/tests/device/ptxsim_golden_runner.cpp" "$repo"/tests/ptxsim/corpus/{corpus,corpus_gen,corpus_cases}.cpp -ldl; then
    echo "ptxsim-golden: FAILED to build the runner" >&2
    exit 1
fi

command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader || true
mkdir -p "$work/goldens"
echo "== ptxsim-golden: running $("$work/runner" --list "${cases[@]}" | wc -l) cases"
"$work/runner" --corpus "$repo/tests/ptxsim/corpus" --out "$work/goldens" "${cases[@]}" 2>&1 | tee "$work/goldens/runner.log"
runner_status=${PIPESTATUS[0]}
if [[ $runner_status -ne 0 ]]; then
    failed=$(grep -c '^FAIL' "$work/goldens/runner.log")
    if [[ $failed -gt 0 ]]; then
        echo "ptxsim-golden: FAILED: $failed case(s) failed (see runner.log)" >&2
    else
        echo "ptxsim-golden: FAILED: the runner exited with status $runner_status" >&2
    fi
    status=1
fi
(cd "$repo/tests/ptxsim/corpus/ptx" && sha256sum *.ptx) > "$work/goldens/ptx.sha256"
tar czf "$out/goldens.tar.gz" -C "$work" goldens
echo "== ptxsim-golden: wrote $out/goldens.tar.gz ($(du -h "$out/goldens.tar.gz" | cut -f1)) in $(( $(date +%s) - start )) s"

if [[ $numerics -eq 1 ]]; then
    if ! OUT="$out" "$repo/tests/device/mma-numerics.sh"; then
        echo "ptxsim-golden: FAILED: the mma numerics experiments" >&2
        status=1
    fi
fi
echo "== ptxsim-golden: done in $(( $(date +%s) - start )) s, status $status"
exit $status
