#!/bin/sh
# Regenerates the shim's conversion kernels' PTX (convert.ptx, committed beside this script) from convert.cu with
# nvcc, and its record convert.ptx.sources: the SHA-256 of every source it was made from, of this script and of the
# PTX, and the nvcc that made it (tests/integration/shim_convert_ptx_test.cpp fails while a source differs from its
# record, and, where the same nvcc is installed, while the PTX differs from a fresh one).
#
#   make-ptx.sh [PTX_DIR]              default: this folder
#   make-ptx.sh --record-only          rewrites only convert.ptx.sources for the committed PTX (no nvcc)
#   NVCC=/path/to/nvcc make-ptx.sh     default /usr/local/cuda/bin/nvcc
#
# --fmad=false: texels.h's float expressions stay the separate IEEE operations the host computes.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
sources="convert.cu ../texels.h ../formats.h ../../kernels/common/f16.h make-ptx.sh"

write_record() {
    (cd "$here" && sha256sum $sources) > "$1/convert.ptx.sources.tmp"
    (cd "$1" && sha256sum convert.ptx) >> "$1/convert.ptx.sources.tmp"
    grep -m1 'Cuda compilation tools' "$1/convert.ptx" | sed 's|^//|nvcc:|' >> "$1/convert.ptx.sources.tmp"
    mv "$1/convert.ptx.sources.tmp" "$1/convert.ptx.sources"
}
if [ "${1:-}" = "--record-only" ]; then
    write_record "$here"
    echo "make-ptx.sh: $here/convert.ptx.sources"
    exit 0
fi

nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
ptx_dir=${1:-$here}
mkdir -p "$ptx_dir"
# From the source tree's src/ with relative names, so the output does not depend on where the tree lives.
(cd "$here/../.." && "$nvcc" -arch=compute_80 --fmad=false -std=c++17 -I. -ptx -o "$ptx_dir/convert.ptx.tmp" \
    shim/ptx/convert.cu)
mv "$ptx_dir/convert.ptx.tmp" "$ptx_dir/convert.ptx"
write_record "$ptx_dir"
echo "make-ptx.sh: $ptx_dir/convert.ptx"
