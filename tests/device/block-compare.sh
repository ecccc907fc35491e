#!/bin/bash
# tests/device/block-compare.sh [CARRY]: refine-v2's 4K frame with this build's fused kernels against the same build
# without d4r_nn_pixel_embed and against the previous d4r_nn_block, in one call (docs/performance.md, "Fused
# transformer blocks"). CARRY as for fused-block.sh, plus CARRY/prev/d4r_nn_block.cubin (the previous kernel).
# 1. correctness of the fast and accuracy sets (kernels check --fused, refine-v2: 60 dB / identical); 2. the 4K frame
# (1920x1080 -> 3840x2160, refine-v2) with the three native roots in turn, two rounds; 3. the kernel profiles of this
# build's frame and the previous one's; 4. ncu detail sections of d4r_nn_block and d4r_nn_pixel_embed (SKIP_NCU=1 skips).
# Writes $OUT/block-compare.txt; exit 1 on any failure.
set -uo pipefail
carry=$(realpath "${1:-.carry}")
out=${OUT:-out/device}
mkdir -p "$out"
report="$out/block-compare.txt"
: > "$report"
status=0
now="$carry/share/d4r/native"
nopix=/tmp/block-compare-nopix
prev=/tmp/block-compare-prev
rm -rf "$nopix" "$prev" && cp -r "$now" "$nopix"
find "$nopix" -name 'd4r_nn_pixel_embed.*' -delete
find "$nopix" -name d4r-kernels.txt -exec sed -i '/^d4r_nn_pixel_embed /d' {} +
cp -r "$nopix" "$prev" && cp "$carry/prev/d4r_nn_block.cubin" "$prev/sm_90/d4r_nn_block.cubin"
[ -e "$carry/lib/libcuda.so.1" ] || ln -s libd4rcuda.so "$carry/lib/libcuda.so.1"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$report"
for set in fast accuracy; do
    args=(--min-psnr 60)
    [ $set = accuracy ] && args=(--accuracy --require-identical)
    echo "== 1. kernels check --fused refine-v2, $set set" | tee -a "$report"
    "$carry/bin/d4r" kernels check --fused --backend driver --model models/refine-v2.d4rnet --size 256x144 \
        --native-root "$now" --lib-dir "$carry/lib" "${args[@]}" >> "$report" 2>&1 ||
        { status=1; echo "block-compare: kernels check failed ($set set)" | tee -a "$report"; }
    tail -4 "$report"
done
demo() { # ROOT OUT [frames]
    "$carry/bin/d4r" demo --scene city --backend driver --native on --native-root "$1" --render 1920x1080 \
        --output 3840x2160 --frames "${3:-6}" --translated-frames 0 --no-images --lib-dir "$carry/lib" --out "$2" \
        --network on --network-model models/refine-v2.d4rnet
}
for round in 1 2; do
    for which in now nopix prev; do
        root=$now
        [ $which = nopix ] && root=$nopix
        [ $which = prev ] && root=$prev
        echo "== 2. round $round, $which" | tee -a "$report"
        D4R_LOG=info demo "$root" "/tmp/bc-$which" > "/tmp/bc-$which.log" 2>&1 || status=1
        grep -E '^(network|time)|refine network: ' "/tmp/bc-$which.log" | tee -a "$report"
    done
done
for which in now prev; do
    root=$now
    [ $which = prev ] && root=$prev
    echo "== 3. kernel profile, $which" | tee -a "$report"
    D4R_CUDA_KERNEL_PROFILE=1 D4R_LOG=info demo "$root" /tmp/bc-profile 2 > "/tmp/bc-profile-$which.log" 2>&1 || status=1
    grep -E 'd4r_nn_|d4r_up_' "/tmp/bc-profile-$which.log" | tail -24 | tee -a "$report"
done
if [ -z "${SKIP_NCU:-}" ]; then
    for kernel in d4r_nn_block d4r_nn_pixel_embed; do
        echo "== 4. ncu, $kernel" | tee -a "$report"
        ncu --kernel-name "$kernel" --launch-count 3 --section SpeedOfLight --section MemoryWorkloadAnalysis \
            --section WarpStateStats --section Occupancy --section LaunchStats \
            "$carry/bin/d4r" demo --scene city --backend driver --native on --native-root "$now" --render 1920x1080 \
            --output 3840x2160 --frames 1 --translated-frames 0 --no-images --lib-dir "$carry/lib" --out /tmp/bc-ncu \
            --network on --network-model models/refine-v2.d4rnet > "$out/block-compare-ncu-$kernel.txt" 2>&1
        grep -E "Duration|Throughput|Hit Rate|Achieved Occupancy|Registers Per|Stall|Warp Cycles Per Issued|Block Limit" \
            "$out/block-compare-ncu-$kernel.txt" | head -40 | tee -a "$report"
    done
fi
exit $status
