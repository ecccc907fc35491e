#!/usr/bin/env bash
# Compile the bench_ptxsim kernels (*.cu here) to PTX (<name>.ptx beside them) with the local nvcc, and
# check that ptxas accepts the result for sm_90. The PTX is committed; bench_ptxsim reads it.
#
# Usage: tests/bench/kernels/make-ptx.sh [--check]
#   --check   compile into a temporary folder and fail if a committed .ptx differs (stale PTX)
# Environment: NVCC, PTXAS (default /usr/local/cuda/bin/{nvcc,ptxas}).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
ptxas=${PTXAS:-/usr/local/cuda/bin/ptxas}
check=0
case "${1:-}" in
    --check) check=1 ;;
    -h|--help) sed -n '2,7p' "$0"; exit 0 ;;
esac
for tool in "$nvcc" "$ptxas"; do
    [[ -x "$tool" ]] || { echo "make-ptx: $tool not found (set NVCC/PTXAS)" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
for cu in "$here"/*.cu; do
    name=$(basename "$cu" .cu)
    out="$tmp/$name.ptx"
    if ! "$nvcc" -ptx -O3 -arch=sm_90 -o "$out" "$cu" || ! "$ptxas" -arch=sm_90 "$out" -o /dev/null; then
        echo "make-ptx: FAIL $name" >&2; failed=1; continue
    fi
    if [[ $check -eq 1 ]]; then
        cmp -s "$out" "$here/$name.ptx" || { echo "make-ptx: STALE $name.ptx (rerun make-ptx.sh)" >&2; failed=1; }
    else
        cp "$out" "$here/$name.ptx"
        echo "make-ptx: $name -> $name.ptx"
    fi
done
exit $failed
