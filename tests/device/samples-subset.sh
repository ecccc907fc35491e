#!/bin/bash
# Device machine: some cuda-samples built and run directly on NVIDIA's libcuda, through libd4rcuda's driver
# backend and on its cpu backend, then compared (scripts/cuda-samples-compare.sh), in one command: for
# checking fixes without the whole sweep (tests/device/samples-sweep.sh).
#   tests/device/samples-subset.sh TARBALL LIBDIR [--timeout S] [--cpu-timeout S] [--cpu-jobs N] [--no-cpu] NAME...
# TARBALL: cuda-samples.tar.xz from tests/device/prepare-samples.sh; LIBDIR: a folder with libd4rcuda.so
# (and the shared libraries it needs). --no-cpu: direct and driver only. --cpu-jobs N: samples run at once on the
# cpu backend (default: one per core; 1 gives each sample every core, for its time). Writes $OUT/subset-cpu.txt
# (the cpu sweep's table), $OUT/subset-comparison.md (verdicts on the backends, driver against direct) and
# $OUT/subset-outputs.tar.gz (every run's output, for a closer look at an output that differs).
set -euo pipefail
usage() { sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; }
[ $# -ge 3 ] || { usage >&2; exit 2; }
tarball=$(realpath "$1") lib=$(realpath "$2"); shift 2
timeout_s=120 cpu_timeout_s=300 cpu=1 cpu_jobs=$(nproc)
while [ $# -gt 0 ]; do
    case "$1" in
        --timeout) timeout_s=${2:?}; shift 2 ;;
        --cpu-timeout) cpu_timeout_s=${2:?}; shift 2 ;;
        --cpu-jobs) cpu_jobs=${2:?}; shift 2 ;;
        --no-cpu) cpu=0; shift ;;
        -h|--help) usage; exit 0 ;;
        *) break ;;
    esac
done
[ $# -ge 1 ] || { echo "samples-subset.sh: name at least one sample" >&2; exit 2; }
OUT=${OUT:-out/device}
mkdir -p "$OUT"
work=$(mktemp -d)
tar -C "$work" -xJf "$tarball"
ln -sf libd4rcuda.so "$lib/libcuda.so.1"
# libLLVM for the cpu backend's PTX JIT, when prepare-samples.sh --llvm packed it.
[ ! -f "$lib/llvm.tar.xz" ] || [ -f "$lib/libLLVM.so.19.1" ] || tar -C "$lib" -xJf "$lib/llvm.tar.xz"
export PATH=/usr/local/cuda/bin:$PATH
sweep=(scripts/cuda-samples-sweep.sh --samples "$work/cuda-samples" --lib "$lib" --out "$work/out" --variants static
    --jobs "$(nproc)")
"${sweep[@]}" --phase build "$@" >"$OUT/subset-build.txt" 2>&1
"${sweep[@]}" --phase run --backend direct --timeout "$timeout_s" "$@" >/dev/null 2>&1
"${sweep[@]}" --phase run --backend driver --timeout "$timeout_s" "$@" >/dev/null 2>&1
[ "$cpu" = 0 ] || "${sweep[@]}" --jobs "$cpu_jobs" --phase run --backend cpu --timeout "$cpu_timeout_s" "$@" >"$OUT/subset-cpu.txt" 2>&1
scripts/cuda-samples-compare.sh "$work/out" >/dev/null 2>&1 || true
cp "$work/out/comparison.md" "$OUT/subset-comparison.md"
tar -C "$work/out" -czf "$OUT/subset-outputs.tar.gz" output
[ "$cpu" = 0 ] || tail -n "$(( $# + 4 ))" "$OUT/subset-cpu.txt"
cat "$OUT/subset-comparison.md"
