#!/bin/bash
# tests/device/source-profile.sh [CARRY]: where inside a kernel refine-v2's fused 4K frame spends its time: Nsight
# Compute's per-instruction counters (SourceCounters: warp stall samples and executed instructions of every SASS
# instruction) for one launch of each kernel in KERNELS (default: the embed, the 64-channel block, the coarse level and
# the head). CARRY as for kernel-variants.sh (bin/d4r, lib/, share/d4r/native), plus optionally CARRY/lineinfo/*.cubin:
# the same sources built with the same nvcc flags and -lineinfo (which changes no code), copied over a copy of the fast
# set (ncu's source view did not correlate them with the sources on its first run; the SASS view is what it gave).
# Writes $OUT/source-profile.txt (each kernel's sections, its stall reasons and 40 hottest SASS instructions by
# source_hot.py) and $OUT/source-profile.tar.gz (per kernel the ncu --page source CSV of the SASS view and the details
# page: the device returns only a few files a call); exit 1 when a profile fails. `tests/device/source_hot.py` reads
# the CSVs back on the development machine.
set -uo pipefail
carry=$(realpath "${1:-.carry}")
out=${OUT:-out/device}
mkdir -p "$out"
status=0
root=/tmp/sp-native
rm -rf /tmp/sp-files && mkdir -p /tmp/sp-files
rm -rf "$root" && cp -r "$carry/share/d4r/native" "$root" || exit 1
if compgen -G "$carry/lineinfo/*.cubin" > /dev/null; then cp "$carry"/lineinfo/*.cubin "$root/sm_90/" || exit 1; fi
[ -e "$carry/lib/libcuda.so.1" ] || ln -s libd4rcuda.so "$carry/lib/libcuda.so.1"
command -v nvidia-smi > /dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
ncu --version | tail -1
demo=("$carry/bin/d4r" demo --scene city --backend driver --native on --native-root "$root" --render 1920x1080
    --output 3840x2160 --frames 2 --translated-frames 0 --no-images --lib-dir "$carry/lib" --out /tmp/sp-demo
    --network on --network-model models/refine-v2.d4rnet)
for kernel in ${KERNELS:-d4r_nn_pixel_embed d4r_nn_block d4r_nn_coarse_block d4r_nn_pixel_head}; do
    report="/tmp/sp-files/source-$kernel.txt"
    # The second frame's launch (the first has no history to reproject).
    skip=1
    [ "$kernel" = d4r_nn_block ] && skip=2
    if ! ncu --kernel-name "$kernel" --launch-skip "$skip" --launch-count 1 --import-source yes \
        --section SourceCounters --section WarpStateStats --section SpeedOfLight --section Occupancy \
        -f -o "/tmp/sp-$kernel" "${demo[@]}" > "/tmp/sp-$kernel.log" 2>&1; then
        status=1
        tail -5 "/tmp/sp-$kernel.log"
        continue
    fi
    ncu -i "/tmp/sp-$kernel.ncu-rep" --page details > "$report" 2>&1 || status=1
    csv="/tmp/sp-files/source-$kernel-sass.csv"
    ncu -i "/tmp/sp-$kernel.ncu-rep" --page source --csv --print-source sass > "$csv" 2>&1 ||
        { status=1; head -3 "$csv"; }
    echo "== $kernel" | tee -a "$out/source-profile.txt"
    grep -E "Duration|Registers Per|Achieved Occupancy|Warp Cycles Per Issued|Issued Warp|No Eligible" "$report" |
        head -8 | tee -a "$out/source-profile.txt"
    python3 tests/device/source_hot.py "$csv" --top 40 >> "$out/source-profile.txt" 2>&1 || status=1
done
tar -czf "$out/source-profile.tar.gz" -C /tmp/sp-files . || status=1
exit $status
