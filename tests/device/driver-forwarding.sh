#!/bin/bash
# Issue 28's acceptance on the H200: d4r over NVIDIA's driver is never less than NVIDIA's driver. Reads every
# cu* name NVIDIA's libcuda exports from its dynamic symbol table and asks NVIDIA's cuGetProcAddress and
# libd4rcuda's (driver backend over that library) for each, at CUDA 12000 and 13000, with and without the
# per-thread default stream flag (driver_forwarding_probe.cpp); every answer must agree and every name must be
# exported by libd4rcuda too. Carry build-device/ (tests/device/prepare-runtime.sh). Writes
# $OUT/driver-forwarding.txt; exit 1 on any difference.
set -uo pipefail
OUT=${OUT:-out/device}
mkdir -p "$OUT"
exec > >(tee "$OUT/driver-forwarding.txt") 2>&1
lib=$(ldconfig -p | awk '/libcuda\.so\.1 / {print $NF; exit}')
[ -n "$lib" ] || { echo "driver-forwarding: NVIDIA's libcuda.so.1 not found"; exit 2; }
lib=$(readlink -f "$lib")
echo "NVIDIA's library: $lib"
nm -D --defined-only "$lib" | awk '$2 == "T" && $3 ~ /^cu/ {print $3}' | sort -u > /tmp/nvidia-names.txt
echo "$(wc -l < /tmp/nvidia-names.txt) exported cu* names"
g++ -O1 -std=c++17 -o /tmp/driver_forwarding_probe tests/device/driver_forwarding_probe.cpp -ldl || exit 2
D4R_CUDA_BACKEND="driver:$lib" /tmp/driver_forwarding_probe "$lib" "$(pwd)/build-device/lib/libd4rcuda.so" \
    /tmp/nvidia-names.txt
