#!/bin/sh
# Regenerates the upscaler's PTX (committed beside this script) from upscaler.cu with nvcc, and its record
# upscaler.ptx.sources. The CPU kernel set that vouches for the PTX is not made here: the build generates it
# from the committed PTX (build/share/d4r/native/cpu, src/kernels/upscaler/CMakeLists.txt).
#
#   make-ptx.sh [PTX_DIR]               default: this folder
#   NVCC=/path/to/nvcc make-ptx.sh      default /usr/local/cuda/bin/nvcc
#
# --fmad=false keeps nvcc from contracting a*b+c into fma: the CPU reference and the native kernels
# compute the same expressions without fma, so the three agree bit for bit. Run it after editing
# upscaler.cu or upscaler_math.h: upscaler.ptx.sources records the SHA-256 of the sources the PTX was made
# from, of this script and of the PTX itself, and the nvcc that made it; the tests fail while a source differs
# from its record (no nvcc needed), and, where the same nvcc is installed, while the PTX differs from a fresh one.
#   make-ptx.sh --record-only      rewrites only upscaler.ptx.sources for the committed PTX (no nvcc)
set -eu
here=$(cd "$(dirname "$0")" && pwd)

# upscaler.ptx.sources for the PTX in $1: "SHA256  FILE" per input and for the PTX, then the nvcc that made it.
write_record() {
    (cd "$here" && sha256sum upscaler.cu upscaler_math.h ../../common/f16.h make-ptx.sh) > "$1/upscaler.ptx.sources.tmp"
    (cd "$1" && sha256sum upscaler.ptx) >> "$1/upscaler.ptx.sources.tmp"
    grep -m1 'Cuda compilation tools' "$1/upscaler.ptx" | sed 's|^//|nvcc:|' >> "$1/upscaler.ptx.sources.tmp"
    mv "$1/upscaler.ptx.sources.tmp" "$1/upscaler.ptx.sources"
}
if [ "${1:-}" = "--record-only" ]; then
    write_record "$here"
    echo "make-ptx.sh: $here/upscaler.ptx.sources"
    exit 0
fi

nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
ptx_dir=${1:-$here}

mkdir -p "$ptx_dir"
# Compile from this folder with a relative name so the output does not depend on where the tree lives.
(cd "$here" && "$nvcc" -arch=compute_80 --fmad=false -std=c++17 -ptx -o "$ptx_dir/upscaler.ptx.tmp" upscaler.cu)
mv "$ptx_dir/upscaler.ptx.tmp" "$ptx_dir/upscaler.ptx"
write_record "$ptx_dir"
echo "make-ptx.sh: $ptx_dir/upscaler.ptx"
