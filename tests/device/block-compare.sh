#!/bin/bash
# tests/device/block-compare.sh [CARRY]: a new sm_90 d4r_nn_block against the previous one in one call (docs/performance.md,
# "Fused transformer blocks"): CARRY as for fused-block.sh, plus CARRY/prev/d4r_nn_block.cubin (the previous kernel).
# 1. correctness of the new fast set (kernels check --fused, refine-v2, 60 dB); 2. the 4K frame (1920x1080 ->
# 3840x2160, refine-v2, fused plan) alternating new and previous kernel, two rounds; 3. the new frame's kernel profile;
# 4. ncu detail sections of the new d4r_nn_block (SKIP_NCU=1 skips). Writes $OUT/block-compare.txt; exit 1 on failure.
set -uo pipefail
carry=$(realpath "${1:-.carry}")
out=${OUT:-out/device}
mkdir -p "$out"
report="$out/block-compare.txt"
: > "$report"
status=0
new="$carry/share/d4r/native"
prev=/tmp/block-compare-prev
rm -rf "$prev" && cp -r "$new" "$prev" && cp "$carry/prev/d4r_nn_block.cubin" "$prev/sm_90/d4r_nn_block.cubin"
[ -e "$carry/lib/libcuda.so.1" ] || ln -s libd4rcuda.so "$carry/lib/libcuda.so.1"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$report"
echo "== 1. kernels check --fused refine-v2, fast set (new kernel)" | tee -a "$report"
"$carry/bin/d4r" kernels check --fused --backend driver --model models/refine-v2.d4rnet --size 256x144 \
    --native-root "$new" --lib-dir "$carry/lib" --min-psnr 60 >> "$report" 2>&1 || { status=1; echo "check failed" | tee -a "$report"; }
tail -4 "$report"
demo() { # ROOT OUTDIR [extra env]
    "$carry/bin/d4r" demo --scene city --backend driver --native on --native-root "$1" --render 1920x1080 \
        --output 3840x2160 --frames 6 --translated-frames 0 --no-images --lib-dir "$carry/lib" --out "$2" \
        --network on --network-model models/refine-v2.d4rnet
}
for round in 1 2; do
    for which in new prev; do
        root=$new
        [ $which = prev ] && root=$prev
        echo "== 2. round $round, $which kernel" | tee -a "$report"
        D4R_LOG=info demo "$root" "/tmp/bc-$which" > "/tmp/bc-$which.log" 2>&1 || status=1
        grep -E '^(network|time)|refine network: (fused|unfused)' "/tmp/bc-$which.log" | tee -a "$report"
    done
done
echo "== 3. kernel profile, new kernel" | tee -a "$report"
D4R_CUDA_KERNEL_PROFILE=1 D4R_LOG=info demo "$new" /tmp/bc-profile > /tmp/bc-profile.log 2>&1 || status=1
grep -E 'd4r_nn_|d4r_up_' /tmp/bc-profile.log | tail -40 | tee -a "$report"
if [ -z "${SKIP_NCU:-}" ]; then
    echo "== 4. ncu, new d4r_nn_block" | tee -a "$report"
    ncu --kernel-name d4r_nn_block --launch-count 3 --section SpeedOfLight --section MemoryWorkloadAnalysis \
        --section WarpStateStats --section Occupancy --section LaunchStats \
        "$carry/bin/d4r" demo --scene city --backend driver --native on --native-root "$new" --render 1920x1080 \
        --output 3840x2160 --frames 1 --translated-frames 0 --no-images --lib-dir "$carry/lib" --out /tmp/bc-ncu \
        --network on --network-model models/refine-v2.d4rnet > "$out/block-compare-ncu.txt" 2>&1
    grep -E "Duration|Throughput|Hit Rate|Achieved Occupancy|Registers Per|Stall|Warp Cycles Per Issued|Block Limit" \
        "$out/block-compare-ncu.txt" | head -60 | tee -a "$report"
fi
exit $status
