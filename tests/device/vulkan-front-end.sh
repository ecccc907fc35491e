#!/bin/bash
# tests/device/vulkan-front-end.sh [CARRY]: the NGX Vulkan front end (docs/vulkan.md) on the device's GPU: the Vulkan
# harness (bin/vulkan_harness --gpu) through lib/libd4r_nvngx.so on NVIDIA's Vulkan driver, CUDA through d4r's driver
# backend on NVIDIA's libcuda, on the frames in CARRY/vkf (bridge_scene_frames city 8 32 18 64 36): once on the VRAM
# path and once on the host path (D4R_SHIM_VRAM_INTEROP=0); both outputs must equal the open core's on the same GPU
# (bin/bridge_ngx_frames). CARRY: bin/{vulkan_harness,bridge_ngx_frames}, lib/{libd4rcuda.so,libcuda.so.1 ->
# libd4rcuda.so,libd4r_ngx.so,libd4r_nvngx.so,libvulkan.so.1 (Debian's loader: the device image has none)}, vkf/;
# with SIZE also bin/{bridge_scene_frames,d4r} and share/d4r/native.
# BACKEND=cpu GPU= VK_ICD_FILENAMES=<lavapipe> runs it on the development machine (a smoke test of the script).
# Prints the shim's log lines about the device, the path and the UUID; exits 1 on any difference or failure. The runs'
# logs and outputs (not the frames) come back as one archive, $OUT/vulkan-front-end.tar.gz (a device call returns few files).
# SIZE=RWxRH:OWxOH (e.g. 1920x1080:3840x2160) then times frames of that size (docs/performance.md, "The Vulkan front
# end"): CARRY/bin/bridge_scene_frames writes 8 city frames, vulkan_harness --scenario timing evaluates them
# $REPEAT times (default 40) on the VRAM path and on the host path (CPU staging), and d4r demo runs the same core
# at the same size (the pure-CUDA demo, native sets from CARRY/share/d4r/native, network off); one line each.
set -uo pipefail
carry=$(realpath "${1:-.carry}")
out=${OUT:-/tmp/out}
mkdir -p "$out"
work=$(mktemp -d) # the runs' frames, logs and outputs; their text comes back as one archive
[ -e "$carry/lib/libcuda.so.1" ] || ln -s libd4rcuda.so "$carry/lib/libcuda.so.1"
# The ICDs and whether the library each names loads (NVIDIA's names libGLX_nvidia.so.0: a container given the driver's
# compute part only has the JSON without it, and the loader then answers VK_ERROR_INCOMPATIBLE_DRIVER).
drivers=0
for icd in ${VK_ICD_FILENAMES:-/usr/share/vulkan/icd.d/*.json /etc/vulkan/icd.d/*.json}; do
    [ -f "$icd" ] || continue
    lib=$(sed -n 's/.*"library_path" *: *"\([^"]*\)".*/\1/p' "$icd")
    if [ "${lib#/}" != "$lib" ]; then
        found=$([ -e "$lib" ] && echo "$lib")
    else
        found=$(ldconfig -p | grep -m1 " ${lib##*/} " | sed 's/.*=> //')
        # dlopen also searches the system directories, where a library missing from ld.so.cache still loads.
        for dir in /lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu /lib64 /usr/lib64 /lib /usr/lib; do
            [ -n "$found" ] || [ ! -e "$dir/$lib" ] || found=$dir/$lib
        done
    fi
    echo "ICD $icd: $lib -> ${found:-not found}"
    [ -z "$found" ] || drivers=$((drivers + 1))
done
status=0
if [ "$drivers" = 0 ]; then
    # The front end cannot run: say so once instead of failing every case below; the demo's rows still run.
    echo "vulkan-front-end: no Vulkan driver library on this machine (an ICD file without its library): the front end"
    echo "  cannot run here, so its cases and timings are not measured (status 1); the pure-CUDA demo rows follow"
    status=1
    skip_vulkan=1
fi
run() { # NAME ENV...
    local name=$1; shift
    mkdir -p "$work/$name"
    env LD_LIBRARY_PATH="$carry/lib" D4R_CUDA_BACKEND=${BACKEND:-driver} D4R_LOG=info D4R_LOG_FILE="$work/$name.log" \
        VK_LOADER_DEBUG=error "$@" "$carry/bin/vulkan_harness" ${GPU-"--gpu"} --shim "$carry/lib/libd4r_nvngx.so" \
        "$carry/vkf" --out "$work/$name" > "$work/$name.txt" 2>&1 || { echo "== $name failed"; status=1; }
    tail -3 "$work/$name.txt"
    grep -E "shim: (Vulkan device|CUDA device|Vulkan front end|CreateFeature|feature 1: first)" "$work/$name.log" | head -8
}
[ -n "${skip_vulkan:-}" ] || run vram
[ -n "${skip_vulkan:-}" ] || run host D4R_SHIM_VRAM_INTEROP=0
mkdir -p "$work/core"
LD_LIBRARY_PATH="$carry/lib" D4R_CUDA_BACKEND=${BACKEND:-driver} PROGRAM_OUT="$work/core" "$carry/bin/bridge_ngx_frames" \
    "$carry/vkf" > "$work/core.txt" 2>&1 || { echo "== the core alone failed"; tail -5 "$work/core.txt"; status=1; }
for path in vram host; do
    [ -z "${skip_vulkan:-}" ] || continue
    for f in "$work/core"/frame_*.bin; do
        cmp -s "$f" "$work/$path/$(basename "$f")" || { echo "$path: $(basename "$f") differs from the core's"; status=1; }
    done
done
[ "$status" = 0 ] && echo "vulkan-front-end: VRAM and host paths equal the core's frames on this GPU"
if [ -n "${SIZE:-}" ]; then
    render=${SIZE%%:*} output=${SIZE##*:}
    big=/tmp/vk-timing-frames
    rm -rf "$big"
    "$carry/bin/bridge_scene_frames" "$big" city 8 "${render%x*}" "${render#*x}" "${output%x*}" "${output#*x}" \
        > "$work/timing-frames.txt" 2>&1 || { echo "== bridge_scene_frames failed"; tail -3 "$work/timing-frames.txt"; }
    export D4R_NATIVE_KERNEL_DIR="$carry/share/d4r/native"
    for path in vram host; do
        [ -z "${skip_vulkan:-}" ] || continue
        interop=1
        [ $path = host ] && interop=0
        env LD_LIBRARY_PATH="$carry/lib" D4R_CUDA_BACKEND=${BACKEND:-driver} D4R_LOG=info \
            D4R_LOG_FILE="$work/timing-$path.log" D4R_SHIM_VRAM_INTEROP=$interop "$carry/bin/vulkan_harness" \
            ${GPU-"--gpu"} --shim "$carry/lib/libd4r_nvngx.so" "$big" --scenario timing --repeat "${REPEAT:-40}" \
            > "$work/timing-$path.txt" 2>&1 || { echo "== timing on the $path path failed"; status=1; }
        grep -E "^timing:|vulkan_harness:" "$work/timing-$path.txt"
    done
    "$carry/bin/d4r" demo --scene city --backend "${BACKEND:-driver}" --native on --render "$render" \
        --output "$output" --frames 12 --translated-frames 0 --no-images --network off --lib-dir "$carry/lib" \
        --out /tmp/vk-timing-demo > "$work/timing-demo.txt" 2>&1 || { echo "== the demo failed"; status=1; }
    grep -E '^(d4r|time)' "$work/timing-demo.txt"
fi
tar -czf "$out/vulkan-front-end.tar.gz" --exclude='*.bin' -C "$work" . || status=1
exit "$status"
