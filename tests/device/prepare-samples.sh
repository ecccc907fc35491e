#!/bin/bash
# Development machine: packs build-samples/, the carry folder of tests/device/samples-sweep.sh: the
# cuda-samples folders of tests/samples/sweep-list.txt, Common/ and test_args.json from a checkout
# (the commit docs/compatibility.md names), packed as cuda-samples.tar.xz (the samples' data files put them
# over the carry limit of 64 MiB unpacked), and libd4rcuda.so and the companions libnvrtc.so.13 and
# libnvJitLink.so.13 (docs/companions.md) from build/lib with the shared libraries the device image lacks. Checks that
# it stays under 50 MiB. samples-sweep.sh and samples-subset.sh unpack it on the device.
# Usage: tests/device/prepare-samples.sh --samples DIR [--list FILE] [--llvm]
#   --list FILE  the samples to pack (default tests/samples/sweep-list.txt)
#   --llvm       also pack libLLVM 19 and the libraries it needs (lib/llvm.tar.xz, about 40 MiB) for the cpu
#                backend's PTX JIT: the development machine's LLVM (without it, the device image's LLVM 17)
set -euo pipefail
samples= list=tests/samples/sweep-list.txt llvm=0
while [ $# -gt 0 ]; do
    case "$1" in
        --samples) samples=$(realpath "${2:?--samples needs a cuda-samples checkout}"); shift 2 ;;
        --list) list=$(realpath "${2:?--list needs a file}"); shift 2 ;;
        --llvm) llvm=1; shift ;;
        -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
        *) echo "prepare-samples.sh: unknown argument '$1' (accepted: --samples DIR, --list FILE, --llvm, --help)" >&2; exit 2 ;;
    esac
done
[ -n "$samples" ] || { echo "prepare-samples.sh: --samples DIR is required (a cuda-samples checkout)" >&2; exit 2; }
if [ ! -d "$samples/Samples" ] || [ ! -d "$samples/Common" ]; then
    echo "prepare-samples.sh: $samples holds no Samples/ and Common/" >&2; exit 2
fi
cd "$(dirname "$0")/../.."
for f in libd4rcuda.so libnvrtc.so.13 libnvJitLink.so.13; do
    [ -f "build/lib/$f" ] || { echo "prepare-samples.sh: build/lib/$f missing (build the targets d4rcuda, d4r_nvrtc_companion, d4r_nvjitlink_companion)" >&2; exit 1; }
done
rm -rf build-samples
mkdir -p build-samples/cuda-samples/Samples build-samples/lib
cp -r "$samples/Common" build-samples/cuda-samples/
cp "$samples/test_args.json" build-samples/cuda-samples/ 2>/dev/null || true
missing=0
while read -r name; do
    name=${name%%#*}; name=$(echo "$name" | tr -d '[:space:]')
    [ -n "$name" ] || continue
    dir=$(cd "$samples/Samples" && find . -type d -name "$name" | sort | head -n 1)
    if [ -z "$dir" ]; then echo "prepare-samples.sh: no folder for $name" >&2; missing=1; continue; fi
    mkdir -p "build-samples/cuda-samples/Samples/$(dirname "$dir")"
    cp -r "$samples/Samples/$dir" "build-samples/cuda-samples/Samples/$dir"
    # The category's CMakeLists.txt: the sweep reads definitions from it (7_libNVVM's libdevice version).
    parent=$(dirname "$dir")
    [ ! -f "$samples/Samples/$parent/CMakeLists.txt" ] ||
        cp "$samples/Samples/$parent/CMakeLists.txt" "build-samples/cuda-samples/Samples/$parent/"
done <"$list"
cp build/lib/libd4rcuda.so build/lib/libnvrtc.so.13 build/lib/libnvJitLink.so.13 build-samples/lib/
strip --strip-debug build-samples/lib/*.so*
for dep in $(ldd build/lib/libd4rcuda.so | awk '/libfmt|liblz4|libzstd|libpng/ {print $3}' | sort -u); do
    cp "$(readlink -f "$dep")" "build-samples/lib/$(basename "$dep")"
done
# Data files git-lfs left as pointers are reported: the samples that read them will fail on every backend.
grep -rlI '^version https://git-lfs' build-samples/cuda-samples 2>/dev/null | sed 's/^/LFS pointer, not data: /' || true
echo "prepare-samples.sh: packing build-samples/cuda-samples.tar.xz"
tar -C build-samples -cf - cuda-samples | xz -9 -T0 >build-samples/cuda-samples.tar.xz
rm -rf build-samples/cuda-samples
if [ "$llvm" = 1 ]; then
    # libLLVM and what it links that a bare image may lack; LD_LIBRARY_PATH finds them for the JIT's dlopen.
    llvm_lib=$(ldconfig -p | awk '/libLLVM.so.19.1 .*x86-64/ {print $NF; exit}')
    [ -n "$llvm_lib" ] || { echo "prepare-samples.sh: no libLLVM.so.19.1 (apt-get install libllvm19)" >&2; exit 1; }
    mkdir -p build-samples/llvm
    cp -L "$llvm_lib" build-samples/llvm/
    for dep in $(ldd "$llvm_lib" | awk '/libffi|libedit|libz3|libxml2|libicu|libtinfo|libbsd|libmd\./ {print $3}'); do
        cp -L "$dep" build-samples/llvm/
    done
    echo "prepare-samples.sh: packing build-samples/lib/llvm.tar.xz"
    tar -C build-samples/llvm -cf - . | xz -6 -T0 >build-samples/lib/llvm.tar.xz
    rm -rf build-samples/llvm
fi
limit=$((llvm ? 62 : 50))
kib=$(du -sk build-samples | cut -f1)
echo "build-samples: $((kib / 1024)) MiB ($kib KiB); largest:"
du -ak build-samples | sort -rn | sed -n '2,5p'
[ "$kib" -le $((limit * 1024)) ] || { echo "prepare-samples.sh: build-samples is over $limit MiB" >&2; exit 1; }
exit $missing
