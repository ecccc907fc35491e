#!/usr/bin/env bash
# Consistency checks of the golden corpus that need no GPU:
#  - the committed PTX is what kernels/*.cu compile to (when nvcc is available; skipped otherwise);
#  - every case's parameter list matches its PTX entry, every input generates, every output and
#    image is sized (the golden runner's --dry-run, built with g++ alone);
#  - every case has a golden whose size matches the case table (once goldens are imported).
# Usage: tests/ptxsim/corpus/check-corpus.sh
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0

if [[ -x "${NVCC:-/usr/local/cuda/bin/nvcc}" ]]; then
    "$here/make-ptx.sh" --check || status=1
else
    echo "check-corpus: nvcc not found, not checking that the PTX is up to date"
fi

${CXX:-g++} -O1 -std=c++17 -Wall -Wextra -Werror -o "$work/runner" "$repo/tests/device/ptxsim_golden_runner.cpp" \
    "$here"/{corpus,corpus_gen,corpus_cases}.cpp -ldl
mkdir -p "$work/out"
"$work/runner" --corpus "$here" --out "$work/out" --dry-run | tail -n 1 || status=1

if [[ -d "$here/golden" ]]; then
    missing=0
    while read -r name _ bytes _; do
        g="$here/golden/$name.out.zst"
        if [[ ! -f "$g" ]]; then
            echo "check-corpus: no golden for $name"; missing=1; continue
        fi
        if command -v zstd >/dev/null; then
            actual=$(zstd -dc "$g" | wc -c)
            [[ "$actual" == "$bytes" ]] || { echo "check-corpus: golden/$name.out.zst has $actual bytes, the case has $bytes"; missing=1; }
        fi
    done < <("$work/runner" --list)
    [[ $missing -eq 0 ]] || status=1
fi
[[ $status -eq 0 ]] && echo "check-corpus: ok"
exit $status
