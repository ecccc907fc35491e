#!/bin/bash
# tests/device/registered-memory.sh [CARRY]: registered_memory_probe.cu (what CUDA says of page-locked host memory
# registered for the device: cuMemGetAddressRange, the memory type and range attributes) built with nvcc and run
# directly on NVIDIA's driver, through libd4rcuda's driver backend and on its cpu backend (CARRY/lib: libd4rcuda.so
# and libcuda.so.1 linking to it). Prints each run and the differences; exits 1 when a d4r run differs from NVIDIA's.
# The answer the open core relies on for the NGX shim's D3D12 mapped path (src/upscaler/pipeline.cpp, check_buffers).
set -uo pipefail
carry=$(realpath "${1:-.carry}")
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
nvcc=${NVCC:-nvcc}
command -v "$nvcc" >/dev/null || nvcc=/usr/local/cuda/bin/nvcc
"$nvcc" -O1 -o "$work/probe" "$here/registered_memory_probe.cu" -lcuda || { echo "registered-memory: nvcc failed"; exit 2; }
[ -e "$carry/lib/libcuda.so.1" ] || ln -s libd4rcuda.so "$carry/lib/libcuda.so.1"
nvidia=$(ldconfig -p | grep -m1 'libcuda\.so\.1 ' | sed 's/.*=> //')
"$work/probe" > "$work/direct.txt" 2>&1
LD_LIBRARY_PATH="$carry/lib" D4R_CUDA_BACKEND="driver:$nvidia" "$work/probe" > "$work/driver.txt" 2>&1
LD_LIBRARY_PATH="$carry/lib" D4R_CUDA_BACKEND=cpu "$work/probe" > "$work/cpu.txt" 2>&1
status=0
for run in direct driver cpu; do echo "== $run"; cat "$work/$run.txt"; done
for run in driver cpu; do
    if diff "$work/direct.txt" "$work/$run.txt" > "$work/$run.diff"; then echo "registered-memory: $run = NVIDIA's"
    else echo "registered-memory: $run differs from NVIDIA's:"; cat "$work/$run.diff"; status=1; fi
done
exit $status
