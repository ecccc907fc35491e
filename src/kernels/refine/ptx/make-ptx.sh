#!/bin/sh
# Regenerates the refine network's PTX modules (committed beside this script) from their sources with nvcc:
#   refine.ptx      from refine.cu      for sm_80 (-arch=compute_80): every kernel but the FP8 linear;
#   refine_fp8.ptx  from refine_fp8.cu  for sm_89 (-arch=compute_89): d4r_nn_linear_fp8 alone;
#   refine_v2.ptx   from refine_v2.cu   for sm_80: refine-v2's pixel kernels (features and blend) and
#                                       d4r_nn_linear_wide;
#   refine_block.ptx from refine_block.cu for sm_80: d4r_nn_block (a fused transformer block), d4r_nn_coarse_block
#                                       (the fused coarse level) and refine-v2's fused pixel kernels
#                                       (d4r_nn_pixel_embed, d4r_nn_pixel_head);
# and refine.ptx.sources: the SHA-256 of every source the modules were made from, of this script and of both
# modules, and the nvcc that made them (the tests fail while a source differs from its record).
#
#   make-ptx.sh [PTX_DIR]              default: this folder
#   make-ptx.sh --record-only          rewrites only refine.ptx.sources for the committed PTX (no nvcc)
#   NVCC=/path/to/nvcc make-ptx.sh     default /usr/local/cuda/bin/nvcc
#
# --fmad=false keeps nvcc from contracting a*b+c into fma: the C++ reference and the CPU kernels compute the
# same expressions without fma (docs/network.md, "Numerics"). Two modules because a driver compiles a module
# whole: the FP8 linear's mma.sync with e4m3 operands needs sm_89 (ptxas refuses it for an older .target), and
# in refine.ptx it would keep the f16 network off sm_80/sm_86 GPUs (A100, RTX 30) and off any backend that cannot
# compile that instruction. refine_fp8.ptx is loaded only for a refine-v1-fp8 model (docs/network.md).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
sources="refine.cu refine_fp8.cu refine_v2.cu refine_block.cu linear_mma.cuh attention_mma.cuh refine_math.h pixel_inputs.h ../../common/f16.h
         ../../upscaler/ptx/upscaler_math.h make-ptx.sh"
outputs="refine.ptx refine_fp8.ptx refine_v2.ptx refine_block.ptx"

write_record() {
    (cd "$here" && sha256sum $sources) > "$1/refine.ptx.sources.tmp"
    (cd "$1" && sha256sum $outputs) >> "$1/refine.ptx.sources.tmp"
    grep -m1 'Cuda compilation tools' "$1/refine.ptx" | sed 's|^//|nvcc:|' >> "$1/refine.ptx.sources.tmp"
    mv "$1/refine.ptx.sources.tmp" "$1/refine.ptx.sources"
}
if [ "${1:-}" = "--record-only" ]; then
    write_record "$here"
    echo "make-ptx.sh: $here/refine.ptx.sources"
    exit 0
fi

nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
ptx_dir=${1:-$here}
mkdir -p "$ptx_dir"
# SOURCE ARCH: compiled from this folder with relative names so the output does not depend on where the tree lives.
make_ptx() {
    stem=$(basename "$1" .cu)
    (cd "$here" && "$nvcc" -arch="$2" --fmad=false -std=c++17 -I../../.. -ptx -o "$ptx_dir/$stem.ptx.tmp" "$1")
    mv "$ptx_dir/$stem.ptx.tmp" "$ptx_dir/$stem.ptx"
    echo "make-ptx.sh: $ptx_dir/$stem.ptx"
}
make_ptx refine.cu compute_80
make_ptx refine_fp8.cu compute_89
make_ptx refine_v2.cu compute_80
make_ptx refine_block.cu compute_80
write_record "$ptx_dir"
