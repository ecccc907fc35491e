#!/bin/bash
# CI's part of the cuda-samples sweep (docs/compatibility.md, "The sweep in CI"): NVIDIA's samples cannot be fetched
# or committed there, so the sweep's own machinery runs on tests/samples/standin/, programs written for d4r in the
# layout of a cuda-samples checkout, on libd4rcuda's cpu backend:
#   tests/samples/sweep-standin-test.sh LIB_DIR WORK_DIR
# 1. scripts/cuda-samples-eligible.sh keeps the five runtime/driver stand-ins and excludes the cuBLAS and OpenGL ones
#    with their reasons;
# 2. scripts/cuda-samples-sweep.sh builds the five with nvcc and judges them on the cpu backend: pass (runtime API and
#    driver API), fail (the sample's own check), waive (exit 2) and timeout (the limit), each with its line;
# 3. scripts/cuda-samples-compare.sh judges driver against direct on outputs made from those runs: a timing line that
#    differs is the same output, any other line is "output differs", lines in another order are said so, and a
#    different verdict is "verdict differs".
# Exit 0 when all holds, 1 with the first mismatch, 77 (a skip) without nvcc.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
lib=$(realpath "${1:?LIB_DIR}")
work=${2:?WORK_DIR}
standin=$root/tests/samples/standin
command -v /usr/local/cuda/bin/nvcc >/dev/null || { echo "skipped: NVIDIA's nvcc is not installed (/usr/local/cuda/bin)"; exit 77; }
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }

# 1. eligibility
eligible=$("$root/scripts/cuda-samples-eligible.sh" --samples "$standin" | tr '\n' ' ')
[ "$eligible" = "standinDriverApi standinFail standinHang standinVectorAdd standinWaive " ] ||
    fail "eligible: '$eligible'"
excluded=$("$root/scripts/cuda-samples-eligible.sh" --samples "$standin" --excluded)
grep -qxF $'standinCublas\thost library cublas (CUDA::cublas*)' <<<"$excluded" || fail "excluded: $excluded"
grep -qxF $'standinGL\tOpenGL/GLUT graphics' <<<"$excluded" || fail "excluded: $excluded"

# 2. the sweep on the cpu backend
"$root/scripts/cuda-samples-sweep.sh" --samples "$standin" --lib "$lib" --out "$work" --variants static \
    --timeout 10 --jobs 2 $eligible >"$work/sweep.txt" 2>&1 || { cat "$work/sweep.txt"; fail "the sweep's exit status"; }
cat "$work/sweep.txt"
expect() { # SAMPLE RUN NOTE-PATTERN
    local row
    row=$(awk -F'\t' -v s="$1" '$1 == s && $2 == "static"' "$work/results.tsv")
    [ "$(cut -f3 <<<"$row")" = ok ] || fail "$1 did not build: $row"
    [ "$(cut -f4 <<<"$row")" = "$2" ] || fail "$1: expected $2: $row"
    grep -qE -- "$3" <<<"$(cut -f6 <<<"$row")" || fail "$1: note '$(cut -f6 <<<"$row")' does not match '$3'"
}
expect standinVectorAdd pass '^$'
expect standinDriverApi pass '^$'
expect standinFail fail '^exit 1: Test FAILED$'
expect standinWaive waive 'needs two; waiving'
expect standinHang timeout '^no exit within 10 s; last output: waiting for ever$'
[ -f "$work/output/cpu/standinVectorAdd.static.txt" ] || fail "no kept output for standinVectorAdd"
grep -qx 'Test PASSED' "$work/output/cpu/standinVectorAdd.static.txt" || fail "standinVectorAdd's kept output"

# 3. driver against direct, from the cpu runs' outputs and results
for b in direct driver; do
    mkdir -p "$work/output/$b"
    cp "$work"/output/cpu/*.txt "$work/output/$b/"
    sed 's/\tcpu\t/\t'"$b"'\t/' "$work/results-cpu.tsv" >"$work/results-$b.tsv"
    cp "$work/results-cpu.md" "$work/results-$b.md"
done
echo "Kernel time: 1.25 ms" >>"$work/output/direct/standinVectorAdd.static.txt"
echo "Kernel time: 9.5 ms" >>"$work/output/driver/standinVectorAdd.static.txt"
echo "device 0 has a name: no" >>"$work/output/driver/standinDriverApi.static.txt"
awk -F'\t' -v OFS='\t' '$1 == "standinFail" { $4 = "pass"; $6 = "" } 1' "$work/results-driver.tsv" >"$work/t.tsv" &&
    mv "$work/t.tsv" "$work/results-driver.tsv"
printf 'b\na\n' >>"$work/output/direct/standinWaive.static.txt"
printf 'a\nb\n' >>"$work/output/driver/standinWaive.static.txt"
"$root/scripts/cuda-samples-compare.sh" "$work" >"$work/compare.txt" 2>&1 || { cat "$work/compare.txt"; fail "compare's exit status"; }
cat "$work/compare.txt"
judged() { grep -E "^\| $1 \| static \|" "$work/comparison.md" | grep -qF "$2" || fail "$1: expected '$2' in comparison.md"; }
judged standinVectorAdd 'same verdict, same output'
judged standinDriverApi 'same verdict, output differs'
judged standinWaive 'same verdict, same lines in another order'
judged standinFail 'verdict differs'
judged standinHang 'same verdict, same output'
echo "sweep on the stand-ins: as expected"
