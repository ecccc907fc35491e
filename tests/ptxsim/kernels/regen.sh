#!/bin/sh
# Regenerates workloads.ptx from workloads.cu with the local nvcc (CUDA 12 or 13). The PTX is ours
# (compiled from our own source), so it is committed. Run from anywhere:
#   sh tests/ptxsim/kernels/regen.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
"$nvcc" -ptx -arch=sm_89 -lineinfo -o "$here/workloads.ptx" "$here/workloads.cu"
echo "wrote $here/workloads.ptx"
