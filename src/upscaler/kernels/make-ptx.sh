#!/bin/sh
# Regenerates the upscaler's PTX (committed beside this script) from upscaler.cu with nvcc, and the CPU
# native kernel set that vouches for it (src/upscaler/native/cpu: d4r-kernels.txt with the PTX module's
# FNV-1a 64 hash per kernel, and NAME.cpu per kernel).
#
#   make-ptx.sh [PTX_DIR [SET_DIR]]     defaults: this folder, ../native/cpu
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
    (cd "$here" && sha256sum upscaler.cu upscaler_math.h make-ptx.sh) > "$1/upscaler.ptx.sources.tmp"
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
set_dir=${2:-$here/../native/cpu}
kernels="d4r_up_exposure d4r_up_prepare d4r_up_accumulate d4r_up_sharpen"

mkdir -p "$ptx_dir" "$set_dir"
# Compile from this folder with a relative name so the output does not depend on where the tree lives.
(cd "$here" && "$nvcc" -arch=compute_80 --fmad=false -std=c++17 -ptx -o "$ptx_dir/upscaler.ptx.tmp" upscaler.cu)
mv "$ptx_dir/upscaler.ptx.tmp" "$ptx_dir/upscaler.ptx"
write_record "$ptx_dir"

# FNV-1a 64 of the module text without trailing NULs (docs/runtime.md, "Native-kernel overrides", src/ptx/module_hash.h).
hash=$(python3 - "$ptx_dir/upscaler.ptx" <<'PY'
import sys
data = open(sys.argv[1], 'rb').read().rstrip(b'\0')
h = 0xcbf29ce484222325
for b in data:
    h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
print('%016x' % h)
PY
)
{
    echo "# d4r-kernels.txt: written by src/upscaler/kernels/make-ptx.sh (the upscaler's PTX module hash)"
    for k in $(echo $kernels | tr ' ' '\n' | sort); do echo "$k $hash"; done
} > "$set_dir/d4r-kernels.txt"
for k in $kernels; do printf '1\n' > "$set_dir/$k.cpu"; done
echo "make-ptx.sh: $ptx_dir/upscaler.ptx (module hash $hash), set $set_dir"
