#!/bin/bash
# Development machine: builds libd4rcuda and the runtime test programs (against NVIDIA's cuda.h, linked
# to the toolkit's stub) and gathers them in build-device/ for tests/device/runtime.sh, with the shared
# libraries they need that the device image does not have (libfmt). Carry `build-device` to the device.
set -euo pipefail
cd "$(dirname "$0")/../.."
cmake --build build --target d4rcuda $(cd build && ninja -t targets all | sed -n 's/^\(prog_nv_[a-z_0-9]*\):.*/\1/p')
rm -rf build-device
mkdir -p build-device/lib build-device/bin
cp build/lib/libd4rcuda.so build-device/lib/
cp build/bin/prog_nv_* build-device/bin/
strip --strip-debug build-device/lib/libd4rcuda.so build-device/bin/*  # carried to the device: 64 MiB limit
for dep in $(ldd build/lib/libd4rcuda.so | awk '/libfmt|liblz4|libzstd/ {print $3}'); do
    cp "$(readlink -f "$dep")" "build-device/lib/$(basename "$dep")"
done
ls -l build-device/lib build-device/bin
