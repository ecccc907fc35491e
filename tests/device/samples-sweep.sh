#!/bin/bash
# Device machine: the wider cuda-samples sweep (tests/samples/sweep-list.txt, static cudart) built from
# the carried folder CARRY (tests/device/prepare-samples.sh packs build-samples/) and run directly on
# NVIDIA's libcuda, through libd4rcuda's driver backend and on its cpu backend, in parts that each fit
# one 10-minute command:
#   tests/device/samples-sweep.sh CARRY --part build|direct|driver|cpu|compare [--slice K/N] [--jobs J] [--timeout S]
#     --part build    nvcc builds of the slice (default 16 jobs); must precede the run parts while the
#                     machine stays warm (the builds live in build-samples-out/, not carried)
#     --part direct|driver|cpu   runs the slice's builds on that backend (default jobs: 8 direct and driver,
#                     4 cpu; default timeout 60 s direct and driver, 120 s cpu), then compares
#     --part compare  only the comparison of what the slice has run so far
#     --slice K/N     the K-th of N equal parts of the list (default 1/1); use the same N for every part
# Writes $OUT/samples-PART-K-N.md (the sweep's table and scripts/cuda-samples-compare.sh's table) and
# $OUT/samples-PART-K-N.tar.gz (results-*.tsv/md, comparison.md, the run logs and outputs of that part).
set -euo pipefail
usage() { sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; }
[ $# -ge 1 ] || { usage >&2; exit 2; }
case "$1" in -h|--help) usage; exit 0 ;; esac
carry=$(realpath "$1"); shift
part='' slice=1/1 jobs='' timeout_s=''
while [ $# -gt 0 ]; do
    case "$1" in
        --part) part=${2:?}; shift 2 ;;
        --slice) slice=${2:?}; shift 2 ;;
        --jobs) jobs=${2:?}; shift 2 ;;
        --timeout) timeout_s=${2:?}; shift 2 ;;
        *) echo "samples-sweep.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
if ! [[ "$slice" =~ ^([1-9][0-9]*)/([1-9][0-9]*)$ ]] || [ "${BASH_REMATCH[1]}" -gt "${BASH_REMATCH[2]}" ]; then
    echo "samples-sweep.sh: --slice K/N with 1 <= K <= N" >&2; exit 2
fi
k=${BASH_REMATCH[1]} n=${BASH_REMATCH[2]}
if [ ! -d "$carry/cuda-samples/Samples" ] && [ -f "$carry/cuda-samples.tar.xz" ]; then
    tar -C "$carry" -xJf "$carry/cuda-samples.tar.xz"
fi
[ -d "$carry/cuda-samples/Samples" ] || { echo "samples-sweep.sh: $carry holds no cuda-samples/ (prepare-samples.sh)" >&2; exit 2; }
ROOT=$(pwd)
OUT=${OUT:-out/device}
mkdir -p "$OUT"
OUT=$(realpath "$OUT")
work=$ROOT/build-samples-out/slice-$k-of-$n
mkdir -p "$work"
ln -sf libd4rcuda.so "$carry/lib/libcuda.so.1"
# libLLVM for the cpu backend's PTX JIT, when prepare-samples.sh --llvm packed it.
[ ! -f "$carry/lib/llvm.tar.xz" ] || [ -f "$carry/lib/libLLVM.so.19.1" ] || tar -C "$carry/lib" -xJf "$carry/lib/llvm.tar.xz"
export PATH=/usr/local/cuda/bin:$PATH

# The slice: lines i with (i mod n) == k-1, so that heavy neighbours spread over the slices.
list=$work/list.txt
grep -vE '^[[:space:]]*(#|$)' tests/samples/sweep-list.txt | awk -v k="$k" -v n="$n" '(NR - 1) % n == k - 1' >"$list"

sweep=(scripts/cuda-samples-sweep.sh --samples "$carry/cuda-samples" --lib "$carry/lib" --out "$work"
    --list "$list" --variants static)
tag=samples-$part-$k-$n
md=$OUT/$tag.md
start=$(date +%s)
{
    echo "# $tag on $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1), $(nproc) cores"
    echo
    echo '```'
    case "$part" in
        build) "${sweep[@]}" --phase build --jobs "${jobs:-16}" --timeout 1 --backend direct 2>&1 | tail -n 200 ;;
        direct|driver) "${sweep[@]}" --phase run --backend "$part" --jobs "${jobs:-8}" --timeout "${timeout_s:-60}" 2>&1 | tail -n 200 ;;
        cpu) "${sweep[@]}" --phase run --backend cpu --jobs "${jobs:-4}" --timeout "${timeout_s:-120}" 2>&1 | tail -n 200 ;;
        compare) ;;
        *) echo "samples-sweep.sh: --part build|direct|driver|cpu|compare" >&2; exit 2 ;;
    esac
    echo '```'
    echo
    if [ "$part" != build ]; then
        scripts/cuda-samples-compare.sh "$work" 2>&1 || true
    fi
    echo
    echo "done in $(( $(date +%s) - start )) s"
} >"$md" 2>&1
files=(list.txt)
for f in results-direct.tsv results-driver.tsv results-cpu.tsv results-direct.md results-driver.md results-cpu.md comparison.md; do
    [ -f "$work/$f" ] && files+=("$f")
done
[ "$part" = compare ] || files+=(logs)
[ "$part" = build ] || [ "$part" = compare ] || [ ! -d "$work/output/$part" ] || files+=("output/$part")
tar -C "$work" -czf "$OUT/$tag.tar.gz" "${files[@]}"
cat "$md"
ls -l "$OUT"
