#!/bin/bash
# tests/device/compare-probe.sh PROBE.cu [CARRY]: a probe of the CUDA driver API (one line per answer) built with nvcc
# (-lcuda) and run directly on NVIDIA's driver, through libd4rcuda's driver backend and on its cpu backend
# (CARRY/lib: libd4rcuda.so and libcuda.so.1 linking to it; default .carry). Prints each run and the differences;
# exits 1 when a d4r run answers otherwise than NVIDIA's driver. Probes:
#   registered_memory_probe.cu        page-locked host memory registered for the device: cuMemGetAddressRange and the
#                                     pointer attributes the open core checks (the NGX shim's D3D12 mapped path)
#   external_memory_errors_probe.cu   cuImportExternalMemory, cuExternalMemoryGetMappedBuffer and
#                                     cuImportExternalSemaphore given bad arguments: the codes d4r must return
set -uo pipefail
probe=${1:?usage: compare-probe.sh PROBE.cu [CARRY]}
carry=$(realpath "${2:-.carry}")
here=$(cd "$(dirname "$0")" && pwd)
[ -f "$probe" ] || probe=$here/$probe
name=$(basename "$probe" .cu)
work=$(mktemp -d)
nvcc=${NVCC:-nvcc}
command -v "$nvcc" >/dev/null || nvcc=/usr/local/cuda/bin/nvcc
"$nvcc" -O1 -o "$work/probe" "$probe" -lcuda || { echo "$name: nvcc failed"; exit 2; }
[ -e "$carry/lib/libcuda.so.1" ] || ln -s libd4rcuda.so "$carry/lib/libcuda.so.1"
nvidia=$(ldconfig -p | grep -m1 'libcuda\.so\.1 ' | sed 's/.*=> //')
"$work/probe" > "$work/direct.txt" 2>&1
LD_LIBRARY_PATH="$carry/lib" D4R_CUDA_BACKEND="driver:$nvidia" "$work/probe" > "$work/driver.txt" 2>&1
LD_LIBRARY_PATH="$carry/lib" D4R_CUDA_BACKEND=cpu "$work/probe" > "$work/cpu.txt" 2>&1
status=0
for run in direct driver cpu; do echo "== $name: $run"; cat "$work/$run.txt"; done
for run in driver cpu; do
    if diff "$work/direct.txt" "$work/$run.txt" > "$work/$run.diff"; then echo "$name: $run = NVIDIA's"
    else echo "$name: $run differs from NVIDIA's:"; cat "$work/$run.diff"; status=1; fi
done
exit $status
