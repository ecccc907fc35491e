#!/bin/bash
# tests/device/sm90-compare.sh [CARRY]: this build's sm_90 fast set against the previous version of some of its kernels,
# in one call: CARRY as for fused-block.sh (bin/d4r, lib/, share/d4r/native), plus CARRY/prev/*.cubin, the previous
# kernels (each replaces the file of the same name in a copy of the fast set: "prev"). 1. kernels check --fused of this
# build's fast set (refine-v2, 60 dB); 2. refine-v2's 4K frame (1920x1080 -> 3840x2160, city, median GPU ms of 6
# frames) with "now" and "prev" in turn, ROUNDS rounds (default 3); 3. both frames' kernel profiles; 4. (unless SKIP_NCU=1) ncu's
# detail sections of each kernel in CARRY/prev, this build's version. Writes $OUT/sm90-compare.txt; exit 1 on failure.
set -uo pipefail
carry=$(realpath "${1:-.carry}")
out=${OUT:-out/device}
mkdir -p "$out"
report="$out/sm90-compare.txt"
: > "$report"
status=0
now="$carry/share/d4r/native"
prev=/tmp/sm90-compare-prev
rm -rf "$prev" && cp -r "$now" "$prev" && cp "$carry"/prev/*.cubin "$prev/sm_90/"
[ -e "$carry/lib/libcuda.so.1" ] || ln -s libd4rcuda.so "$carry/lib/libcuda.so.1"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$report"
echo "previous kernels: $(cd "$carry/prev" && ls)" | tee -a "$report"
echo "== 1. kernels check --fused refine-v2, fast set" | tee -a "$report"
"$carry/bin/d4r" kernels check --fused --backend driver --model models/refine-v2.d4rnet --size 256x144 \
    --native-root "$now" --lib-dir "$carry/lib" --min-psnr 60 >> "$report" 2>&1 ||
    { status=1; echo "sm90-compare: kernels check failed" | tee -a "$report"; }
tail -3 "$report"
demo() { # ROOT OUT FRAMES
    "$carry/bin/d4r" demo --scene city --backend driver --native on --native-root "$1" --render 1920x1080 \
        --output 3840x2160 --frames "$3" --translated-frames 0 --no-images --lib-dir "$carry/lib" --out "$2" \
        --network on --network-model models/refine-v2.d4rnet
}
for round in $(seq "${ROUNDS:-3}"); do
    for which in now prev; do
        root=$now
        [ $which = prev ] && root=$prev
        echo "== 2. round $round, $which" | tee -a "$report"
        demo "$root" "/tmp/s9-$which" 6 > "/tmp/s9-$which.log" 2>&1 || status=1
        grep -E '^(network|time)' "/tmp/s9-$which.log" | tee -a "$report"
    done
done
for which in now prev; do
    root=$now
    [ $which = prev ] && root=$prev
    echo "== 3. kernel profile, $which" | tee -a "$report"
    D4R_CUDA_KERNEL_PROFILE=1 D4R_LOG=info demo "$root" /tmp/s9-profile 2 > "/tmp/s9-profile-$which.log" 2>&1 || status=1
    grep -E 'd4r_nn_|d4r_up_' "/tmp/s9-profile-$which.log" | tail -14 | tee -a "$report"
done
if [ -z "${SKIP_NCU:-}" ]; then
    for file in "$carry"/prev/*.cubin; do
        kernel=$(basename "$file" .cubin)
        echo "== 4. ncu, $kernel" | tee -a "$report"
        ncu --kernel-name "$kernel" --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis \
            --section WarpStateStats --section Occupancy "$carry/bin/d4r" demo --scene city --backend driver --native on \
            --native-root "$now" --render 1920x1080 --output 3840x2160 --frames 1 --translated-frames 0 --no-images \
            --lib-dir "$carry/lib" --out /tmp/s9-ncu --network on --network-model models/refine-v2.d4rnet \
            > "$out/sm90-compare-ncu-$kernel.txt" 2>&1
        grep -E "Duration|Throughput|Hit Rate|Achieved Occupancy|Registers Per|Warp Cycles Per Issued" \
            "$out/sm90-compare-ncu-$kernel.txt" | head -16 | tee -a "$report"
    done
fi
exit $status
