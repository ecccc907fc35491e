#!/bin/sh
# Regenerates the refine network's PTX (refine.ptx, committed beside this script) from refine.cu with nvcc,
# and refine.ptx.sources: the SHA-256 of every source the PTX was made from, of this script and of the PTX,
# and the nvcc that made it (the tests fail while a source differs from its record).
#
#   make-ptx.sh [PTX_DIR]              default: this folder
#   make-ptx.sh --record-only          rewrites only refine.ptx.sources for the committed PTX (no nvcc)
#   NVCC=/path/to/nvcc make-ptx.sh     default /usr/local/cuda/bin/nvcc
#
# --fmad=false keeps nvcc from contracting a*b+c into fma: the C++ reference and the CPU kernels compute the
# same expressions without fma (docs/network.md, "Numerics"). The target is sm_89 (Ada, Hopper and later): the
# FP8 linear's mma.sync with e4m3 operands needs it, and a driver compiles a module whole, so the module
# cannot run on an older GPU (sm_80/86: the network stays off there). The other entries' PTX is as for sm_80.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
sources="refine.cu refine_math.h ../../common/f16.h make-ptx.sh"

write_record() {
    (cd "$here" && sha256sum $sources) > "$1/refine.ptx.sources.tmp"
    (cd "$1" && sha256sum refine.ptx) >> "$1/refine.ptx.sources.tmp"
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
# Compile from this folder with relative names so the output does not depend on where the tree lives.
(cd "$here" && "$nvcc" -arch=compute_89 --fmad=false -std=c++17 -I../../.. -ptx -o "$ptx_dir/refine.ptx.tmp" refine.cu)
mv "$ptx_dir/refine.ptx.tmp" "$ptx_dir/refine.ptx"
write_record "$ptx_dir"
echo "make-ptx.sh: $ptx_dir/refine.ptx"
