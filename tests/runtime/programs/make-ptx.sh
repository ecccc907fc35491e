#!/bin/sh
# Regenerates the committed PTX of the runtime test programs from kernels/*.cu (needs nvcc), and the
# fatbin resources.c loads with cuModuleLoadFatBinary (PTX only, so that every GPU and the cpu backend
# JIT it).
set -eu
cd "$(dirname "$0")"
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
for cu in kernels/*.cu; do
    name=$(basename "$cu" .cu)
    "$NVCC" -arch=sm_80 -ptx -o "kernels/$name.ptx" "$cu"
    echo "kernels/$name.ptx"
done
"$NVCC" -arch=compute_80 -fatbin -o kernels/resources.fatbin kernels/resources.cu
echo "kernels/resources.fatbin"
