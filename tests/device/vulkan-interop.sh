#!/bin/bash
# Issue 27's interop programs on the H200 (tests/interop: a Vulkan program sharing a buffer, and one sharing a
# mipmapped image, with CUDA by the CUDA programming guide's recipe): each run directly on NVIDIA's Vulkan and
# libcuda, which shows that they are written the standard way and that their checks hold on NVIDIA's driver, and
# then through libd4rcuda's driver backend over the same libcuda, which must pass the same way. Carry build-device/
# (tests/device/prepare-runtime.sh builds the programs here: the device has no -dev packages). Writes
# $OUT/vulkan-interop.txt (vulkaninfo's summary when it is there, each run's output); exit 1 when a run fails.
set -uo pipefail
OUT=${OUT:-out/device}
mkdir -p "$OUT"
exec > >(tee "$OUT/vulkan-interop.txt") 2>&1
lib=$(ldconfig -p | awk '/libcuda\.so\.1 / {print $NF; exit}')
[ -n "$lib" ] || { echo "vulkan-interop: NVIDIA's libcuda.so.1 not found"; exit 2; }
lib=$(readlink -f "$lib")
echo "NVIDIA's library: $lib"
command -v vulkaninfo >/dev/null && vulkaninfo --summary 2>&1 | sed -n '/Devices:/,$p' | head -20
mkdir -p /tmp/nvidia-only && ln -sf "$lib" /tmp/nvidia-only/libcuda.so.1
# The device image has NVIDIA's ICD (/usr/share/vulkan/icd.d/nvidia_icd.json) but no Vulkan loader:
# prepare-runtime.sh carries the development machine's libvulkan.so.1 in build-device/lib.
if ! ldconfig -p | grep -q 'libvulkan\.so\.1 '; then
    [ -f build-device/lib/libvulkan.so.1 ] || { echo "vulkan-interop: no Vulkan loader here or in build-device/lib"; exit 2; }
    cp build-device/lib/libvulkan.so.1 /tmp/nvidia-only/
fi
icd=$(ls /usr/share/vulkan/icd.d/nvidia_icd*.json /etc/vulkan/icd.d/nvidia_icd*.json 2>/dev/null | head -1)
[ -n "$icd" ] && export VK_ICD_FILENAMES=$icd && echo "ICD: $icd ($(tr -d '\n ' < "$icd"))"
ln -sf libd4rcuda.so build-device/lib/libcuda.so.1
status=0
for program in vulkan_cuda_buffer vulkan_cuda_image; do
    echo "== $program directly on NVIDIA's driver"
    if ! LD_LIBRARY_PATH=/tmp/nvidia-only "build-device/bin/$program"; then
        status=1
        echo "-- the loader's account of it (VK_LOADER_DEBUG=error,warn,driver):"
        VK_LOADER_DEBUG=error,warn,driver LD_LIBRARY_PATH=/tmp/nvidia-only "build-device/bin/$program" 2>&1 | head -30
    fi
    echo "== $program through libd4rcuda's driver backend"
    D4R_CUDA_BACKEND="driver:$lib" D4R_LOG=info LD_LIBRARY_PATH="$(pwd)/build-device/lib" \
        "build-device/bin/$program" || status=1
done
echo "vulkan-interop: status $status"
exit $status
