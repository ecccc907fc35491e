#!/bin/bash
# tests/device/block-profile.sh [CARRY]: Nsight Compute's detail sections for the largest launches of refine-v2's fused
# 4K frame (d4r_nn_block, d4r_nn_pixel_features, d4r_nn_linear_wide: docs/performance.md), to see what bounds each
# (memory, L1/L2, latency, issue). CARRY as for fused-block.sh. Writes $OUT/block-profile-*.txt (or out/device/).
set -uo pipefail
carry=$(realpath "${1:-.carry}")
out=${OUT:-out/device}
mkdir -p "$out"
native="$carry/share/d4r/native"
[ -e "$carry/lib/libcuda.so.1" ] || ln -s libd4rcuda.so "$carry/lib/libcuda.so.1"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
demo=("$carry/bin/d4r" demo --scene city --backend driver --native on --native-root "$native" --render 1920x1080
    --output 3840x2160 --frames 1 --translated-frames 0 --no-images --lib-dir "$carry/lib" --out /tmp/block-profile
    --network on --network-model models/refine-v2.d4rnet)
for kernel in d4r_nn_block d4r_nn_pixel_features d4r_nn_linear_wide d4r_nn_pixel_blend; do
    count=1
    [ "$kernel" = d4r_nn_block ] && count=2
    ncu --kernel-name "$kernel" --launch-count "$count" --section SpeedOfLight --section MemoryWorkloadAnalysis \
        --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats \
        --section ComputeWorkloadAnalysis "${demo[@]}" > "$out/block-profile-$kernel.txt" 2>&1
    grep -E "Duration|Throughput|Hit Rate|Achieved Occupancy|Registers|Shared Memory Config|Stall|Issued Ipc|No Eligible|Warp Cycles" \
        "$out/block-profile-$kernel.txt" | head -40
done
