#!/bin/bash
# tests/device/window-gemm-probe.sh [WINDOWS]: builds tests/device/window_gemm_probe.cu with the machine's nvcc for sm_90a
# and runs it: one refine window's qkv product (64 x 64 x 192) by mma.sync as d4r_nn_block does it against Hopper's
# wgmma, over WINDOWS windows (default 8 100: a 4K frame's enc1), median of 5 launches each, and whether both give the
# same bits (which also checks ptxsim's reading of wgmma's descriptors: ptxsim runs the same probe, interpreted, with
# libd4rcuda's cpu backend). Writes $OUT/window-gemm-probe.txt (or out/device/).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-out/device}
mkdir -p "$out"
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$nvcc" -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -o "$work/probe" "$here/window_gemm_probe.cu" \
    2> "$work/build.log" || { cat "$work/build.log"; echo "window-gemm-probe: nvcc failed"; exit 2; }
"$work/probe" "${1:-8100}" | tee "$out/window-gemm-probe.txt"
