#!/bin/bash
# scripts/profile-fast-kernel.sh [--out DIR] SOURCE.cu ARCH TEST_FILTER: where a fast sm_90 refine kernel's instructions
# go, without a GPU. Builds SOURCE (a file of src/kernels/refine/cuda, or a variant of one anywhere: it is compiled from
# that folder so that its includes resolve) to PTX with -lineinfo and its persistent grid made one block (so that one
# block walks every window or group and loads its weights once, as on a GPU's grid of far more work than blocks),
# puts that PTX in place of the build's for the duration of one run of build/bin/d4r_network_tests --gtest_filter=
# TEST_FILTER under D4R_CPU_PTX_PROFILE (ptxsim counts each PTX line's warp instructions), then restores the build's.
# Where nvdisasm is found (NVDISASM, else the CUDA toolkit's), also the cubin's SASS with line information, so that
# scripts/ptx-profile.py --sass can estimate the SASS the GPU would issue per source line. Writes to DIR
# (default /tmp/fast-profile): NAME.ptx, NAME.cubin, NAME.sass (when nvdisasm ran), NAME.profile, NAME.log, and prints
# the commands that summarise them. ARCH: sm_90a for fast_block.cu (wgmma), sm_90 for the others. Exit 1 when the
# build or the test fails (the build's PTX is restored either way).
set -euo pipefail
out=/tmp/fast-profile
if [ "${1:-}" = --help ] || [ "${1:-}" = -h ]; then
    sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
    exit 0
fi
if [ "${1:-}" = --out ]; then
    out=$2
    shift 2
fi
if [ $# -ne 3 ]; then
    echo "usage: $0 [--out DIR] SOURCE.cu ARCH TEST_FILTER (--help)" >&2
    exit 2
fi
source=$(realpath "$1")
arch=$2
filter=$3
root=$(cd "$(dirname "$0")/.." && pwd)
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
cuda_dir="$root/src/kernels/refine/cuda"
ptx_dir="$root/build/src/kernels/refine/sm_90"
tests="$root/build/bin/d4r_network_tests"
[ -f "$source" ] || { echo "$0: no such source: $1" >&2; exit 2; }
[ -x "$nvcc" ] || { echo "$0: nvcc not found at $nvcc (set NVCC)" >&2; exit 2; }
[ -x "$tests" ] || { echo "$0: $tests is not built (make build first)" >&2; exit 2; }
case "$arch" in sm_90 | sm_90a) ;; *) echo "$0: ARCH must be sm_90 or sm_90a, not '$arch'" >&2; exit 2 ;; esac
name=$(basename "$source" .cu)
# The module the source replaces: its own name, or for a variant named OTHER.cu the first build PTX whose entries it has.
target="$ptx_dir/$name.ptx"
mkdir -p "$out"
work=$(mktemp -d)
# A variant from elsewhere is compiled as a copy beside the kernels (for its includes); its line information is then
# made to name the copy kept in DIR.
copy="$source"
if [ "$(dirname "$source")" != "$cuda_dir" ]; then
    copy="$cuda_dir/.profile-$name-$$.cu"
    cp "$source" "$copy"
    cp "$source" "$out/$name.cu"
fi
trap 'rm -rf "$work"; [ "$copy" != "$source" ] && rm -f "$copy"; [ -f "$work.ptx" ] && cp "$work.ptx" "$target"; rm -f "$work.ptx"' EXIT
flags=(-arch="$arch" -O3 -std=c++17 -I"$root/src" -use_fast_math -lineinfo)
echo "building $name ($arch, -lineinfo) ..."
"$nvcc" -ptx "${flags[@]}" -o "$out/$name.ptx" "$copy"
"$nvcc" -cubin "${flags[@]}" -o "$out/$name.cubin" "$copy" 2>/dev/null
sed -i -E 's/\.u32 d4r_grid_x = [0-9]+;/.u32 d4r_grid_x = 1;/' "$out/$name.ptx"
[ "$copy" = "$source" ] || sed -i "s|$copy|$out/$name.cu|g" "$out/$name.ptx"
if [ ! -f "$target" ]; then
    entry=$(grep -m1 -oE '\.entry [a-z0-9_]+' "$out/$name.ptx" | cut -d' ' -f2)
    target=$(grep -l "\.entry $entry\b" "$ptx_dir"/*.ptx | head -1 || true)
    [ -n "$target" ] || { echo "$0: no PTX of the build holds $entry: which module does $name replace?" >&2; exit 2; }
fi
echo "in place of $target for the run of $filter ..."
cp "$target" "$work.ptx"
cp "$out/$name.ptx" "$target"
rm -f "$out/$name.profile"
status=0
D4R_CPU_PTX_PROFILE="$out/$name.profile" "$tests" --gtest_filter="$filter" > "$out/$name.log" 2>&1 || status=1
cp "$work.ptx" "$target"
rm -f "$work.ptx"
[ $status = 0 ] || echo "$0: the test failed: $out/$name.log" >&2
grep -E '^# kernel' "$out/$name.profile" | sed -E 's/ grid .*//' | sort | uniq -c | sed 's/^/  launches: /' || true
# SASS with line information. An nvdisasm older than the cubin's ELF ABI (CUDA 11's, for CUDA 12+ cubins) is given a
# copy with the old header: OSABI 0x33, ABI version 7, the sm_90 flags of that ABI (the code itself is the same).
nvdisasm=${NVDISASM:-$(dirname "$nvcc")/nvdisasm}
if [ -x "$nvdisasm" ]; then
    if ! "$nvdisasm" -c -g "$out/$name.cubin" > "$out/$name.sass" 2> "$work/err"; then
        python3 - "$out/$name.cubin" "$work/old.cubin" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
d[7], d[8] = 0x33, 7
struct.pack_into("<I", d, 0x30, 0x5A055A)
open(sys.argv[2], "wb").write(d)
PY
        "$nvdisasm" -c -g "$work/old.cubin" > "$out/$name.sass" || { echo "$0: nvdisasm failed" >&2; rm -f "$out/$name.sass"; }
    fi
    [ "$copy" = "$source" ] || [ ! -f "$out/$name.sass" ] || sed -i "s|$copy|$out/$name.cu|g" "$out/$name.sass"
else
    echo "(no nvdisasm at $nvdisasm: no SASS; set NVDISASM to estimate the GPU's instructions)"
fi
echo "summaries:"
echo "  scripts/ptx-profile.py $out/$name.profile --by caller --ptx $out/$name.ptx --kernel KERNEL"
[ -f "$out/$name.sass" ] &&
    echo "  scripts/ptx-profile.py $out/$name.profile --by source --ptx $out/$name.ptx --sass $out/$name.sass --kernel KERNEL"
exit $status
