#!/bin/bash
# tests/device/vulkan-front-end.sh [CARRY]: the NGX Vulkan front end (docs/vulkan.md) on the device's GPU: the Vulkan
# harness (bin/vulkan_harness --gpu) through lib/libd4r_nvngx.so on NVIDIA's Vulkan driver, CUDA through d4r's driver
# backend on NVIDIA's libcuda, on the frames in CARRY/vkf (bridge_scene_frames city 8 32 18 64 36): once on the VRAM
# path and once on the host path (D4R_SHIM_VRAM_INTEROP=0); both outputs must equal the open core's on the same GPU
# (bin/bridge_ngx_frames). CARRY: bin/{vulkan_harness,bridge_ngx_frames}, lib/{libd4rcuda.so,libcuda.so.1 ->
# libd4rcuda.so,libd4r_ngx.so,libd4r_nvngx.so,libvulkan.so.1 (Debian's loader: the device image has none)}, vkf/.
# BACKEND=cpu GPU= VK_ICD_FILENAMES=<lavapipe> runs it on the development machine (a smoke test of the script).
# Prints the shim's log lines about the device, the path and the UUID; exits 1 on any difference or failure.
set -uo pipefail
carry=$(realpath "${1:-.carry}")
out=${OUT:-/tmp/out}
mkdir -p "$out"
[ -e "$carry/lib/libcuda.so.1" ] || ln -s libd4rcuda.so "$carry/lib/libcuda.so.1"
ls /usr/share/vulkan/icd.d/ /etc/vulkan/icd.d/ 2>/dev/null
status=0
run() { # NAME ENV...
    local name=$1; shift
    mkdir -p "$out/$name"
    env LD_LIBRARY_PATH="$carry/lib" D4R_CUDA_BACKEND=${BACKEND:-driver} D4R_LOG=info D4R_LOG_FILE="$out/$name.log" \
        VK_LOADER_DEBUG=error "$@" "$carry/bin/vulkan_harness" ${GPU-"--gpu"} --shim "$carry/lib/libd4r_nvngx.so" \
        "$carry/vkf" --out "$out/$name" > "$out/$name.txt" 2>&1 || { echo "== $name failed"; status=1; }
    tail -3 "$out/$name.txt"
    grep -E "shim: (Vulkan device|CUDA device|Vulkan front end|CreateFeature|feature 1: first)" "$out/$name.log" | head -8
}
run vram
run host D4R_SHIM_VRAM_INTEROP=0
mkdir -p "$out/core"
LD_LIBRARY_PATH="$carry/lib" D4R_CUDA_BACKEND=${BACKEND:-driver} PROGRAM_OUT="$out/core" "$carry/bin/bridge_ngx_frames" \
    "$carry/vkf" > "$out/core.txt" 2>&1 || { echo "== the core alone failed"; tail -5 "$out/core.txt"; status=1; }
for path in vram host; do
    for f in "$out/core"/frame_*.bin; do
        cmp -s "$f" "$out/$path/$(basename "$f")" || { echo "$path: $(basename "$f") differs from the core's"; status=1; }
    done
done
[ "$status" = 0 ] && echo "vulkan-front-end: VRAM and host paths equal the core's frames on this GPU"
exit "$status"
