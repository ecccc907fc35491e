#!/bin/bash
# The texture unit on 3D, layered and cubemap arrays, measured on the H200: builds
# tests/cudart/programs/rt_texture_volume.cu with nvcc (sm_90) and runs it directly on NVIDIA's driver with
# RT_TEXTURE_DUMP set. Writes $OUT/rt_texture_volume.txt (the program's output: the golden of
# tests/cudart/goldens) and, from a second run with --trilinear (3D linear filtering too),
# $OUT/texture-volume-dump.txt (every sample's coordinates and result bits, what
# ptxsim's texture arithmetic is compared with: run the program on the cpu backend with the same variable and
# diff the two files). Needs no d4r build.
set -euo pipefail
OUT=${OUT:-out/device}
mkdir -p "$OUT"
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
bin=$(mktemp -d)/rt_texture_volume
"$NVCC" -O2 -std=c++17 -gencode arch=compute_80,code=compute_80 -gencode arch=compute_90,code=sm_90 \
    -Itests/cudart/programs tests/cudart/programs/rt_texture_volume.cu -o "$bin"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
# The conformance run (the golden), then with the trilinear cases and the dump.
"$bin" | tee "$OUT/rt_texture_volume.txt"
RT_TEXTURE_DUMP="$OUT/texture-volume-dump.txt" "$bin" --trilinear > "$OUT/trilinear-run.txt"
# The texture unit is deterministic: the cases of both runs print the same.
grep -v '^3d .* linear' "$OUT/trilinear-run.txt" | cmp - "$OUT/rt_texture_volume.txt" && echo "second run identical"
wc -l "$OUT/texture-volume-dump.txt"
