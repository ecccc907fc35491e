#!/bin/bash
# Development machine: builds libd4rcuda and the runtime test programs (against NVIDIA's cuda.h, linked
# to the toolkit's stub) and gathers them in build-device/ for tests/device/runtime.sh, with the shared
# libraries they need that the device image does not have (libfmt), and build/bin/d4r (replay, kprof,
# compare, demo) with libd4r_ngx.so when it is built, and the cudart programs of tests/cudart with
# libcudart.so.13, and the Vulkan interop programs of tests/interop (for tests/device/vulkan-interop.sh). Carry
# `build-device` to the device.
# --samples DIR: also copy DIR/Samples/7_libNVVM (a cuda-samples checkout) for tests/device/libnvvm-samples.sh.
set -euo pipefail
samples=
case "${1:-}" in
    --samples) samples=$(realpath "${2:?--samples needs a cuda-samples checkout}") ;;
    -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
    "") ;;
    *) echo "prepare-runtime.sh: unknown argument '$1' (accepted: --samples DIR)" >&2; exit 2 ;;
esac
cd "$(dirname "$0")/../.."
cmake --build build --target d4rcuda d4r_nvrtc_companion d4r_nvjitlink_companion d4r vulkan_cuda_buffer vulkan_cuda_image $(cd build && ninja -t targets all | sed -n 's/^\(prog_nv_[a-z_0-9]*\):.*/\1/p')
rm -rf build-device
mkdir -p build-device/lib build-device/bin
cp build/lib/libd4rcuda.so build/lib/libnvrtc.so.13 build/lib/libnvJitLink.so.13 build-device/lib/
cp build/bin/prog_nv_* build/bin/d4r build/bin/vulkan_cuda_buffer build/bin/vulkan_cuda_image build-device/bin/
[ -f build/lib/libd4r_ngx.so ] && cp build/lib/libd4r_ngx.so build-device/lib/
strip --strip-debug build-device/lib/*.so* build-device/bin/*  # carried to the device: 64 MiB limit
for dep in $(ldd build/lib/libd4rcuda.so build/bin/d4r build/bin/vulkan_cuda_buffer |
           awk '/libfmt|liblz4|libzstd|libpng|libvulkan/ {print $3}' | sort -u); do
    cp "$(readlink -f "$dep")" "build-device/lib/$(basename "$dep")"
done
# The runtime-API conformance programs (tests/cudart) and the shared cudart they may load.
if [ -d build/tests/cudart ]; then
    cmake --build build --target cudart_programs
    mkdir -p build-device/cudart
    cp build/tests/cudart/rt_* build-device/cudart/
    cp -L /usr/local/cuda/lib64/libcudart.so.13 build-device/cudart/
fi
if [ -n "$samples" ]; then
    [ -d "$samples/Samples/7_libNVVM" ] || { echo "prepare-runtime.sh: $samples/Samples/7_libNVVM not found" >&2; exit 2; }
    mkdir -p build-device/samples
    cp -r "$samples/Samples/7_libNVVM" build-device/samples/
fi
ls -l build-device/lib build-device/bin build-device/cudart 2>/dev/null
