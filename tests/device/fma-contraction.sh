#!/bin/bash
# Which mul/add pairs NVIDIA's PTX assembler contracts into fused multiply-adds (docs/numerics.md,
# "FMA contraction"). Runs on the device machine from the repository root: builds the conformance program
# tests/cudart/programs/rt_contract.cu as the cudart tests build it (PTX for compute_80, which the H200
# JIT-compiles, and sm_80 SASS it cannot use), runs it, and also builds it for sm_90 and disassembles the
# kernels, so the report shows the FFMA/FMUL/FADD instructions behind each answer. Writes
#   $OUT/rt_contract.txt      the program's output (the golden of tests/cudart/goldens/rt_contract.txt)
#   $OUT/rt_contract.sass     cuobjdump -sass of the sm_90 build
set -u
OUT=${OUT:-out/device}
mkdir -p "$OUT"
NVCC=${NVCC:-nvcc}
src=tests/cudart/programs/rt_contract.cu
flags=(-O2 -std=c++17 -Itests/cudart/programs)
"$NVCC" "${flags[@]}" -gencode arch=compute_80,code=compute_80 -gencode arch=compute_80,code=sm_80 \
    -o /tmp/rt_contract "$src" || exit 1
/tmp/rt_contract > "$OUT/rt_contract.txt" 2>&1
status=$?
cat "$OUT/rt_contract.txt"
"$NVCC" "${flags[@]}" -gencode arch=compute_90,code=sm_90 -cubin -o /tmp/rt_contract.cubin "$src" &&
    cuobjdump -sass /tmp/rt_contract.cubin > "$OUT/rt_contract.sass" 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
exit $status
