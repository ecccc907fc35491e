#!/bin/bash
# tests/device/refine-network.sh [CARRY] [SEEDS] [FRAMES] [MINUTES]: the refine network's work on the H200
# machine, in one call (device time is scarce):
#   1. goldens: the refine PTX on NVIDIA's driver (refine_probe, deterministic test model and image) ->
#      $OUT/refine-h200-*.bin, compared on CI with the C++ reference (tests/network/refine_golden_test.cpp);
#   2. timing of the PTX path at 1280x720 and 3840x2160 (refine_probe, GPU time by events);
#   3. training data: d4r demo --dump-frames over training scenes train-1..SEEDS (tests/device/make-training-data.sh),
#      the core on NVIDIA's driver through d4r's driver backend;
#   4. training (tools/network/train.py) for MINUTES, writing $OUT/refine-v1.d4rnet and summary.json;
#   5. the demo on the evaluation scenes with the trained model, network on and off, at 640x360 -> 1280x720,
#      and the GPU time of core + network at 1920x1080 -> 3840x2160.
# CARRY holds bin/{d4r,refine_probe} and lib/{libd4rcuda.so,libcuda.so.1,libd4r_ngx.so} built on the
# development machine (stripped; see docs/network.md, "Training").
set -uo pipefail
carry=${1:-.carry}
seeds=${2:-24}
frames=${3:-24}
minutes=${4:-5}
out=${OUT:-/tmp/out}
mkdir -p "$out"
log() { echo "== $(date +%T) $*"; }
nvlib=$(ldconfig -p | awk '/libcuda.so.1 /{print $NF; exit}')
[ -n "$nvlib" ] || nvlib=/usr/local/nvidia/lib64/libcuda.so.1
log "NVIDIA libcuda: $nvlib"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader

log "1. goldens"
for size in "72 40 7" "44 20 11" "136 72 3"; do
    set -- $size
    "$carry/bin/refine_probe" "$nvlib" "$out/refine-h200-${1}x${2}-s${3}.bin" "$1" "$2" "$3" || log "probe $size failed"
done
log "2. PTX path timing (median, min ms over 30 passes)"
for size in "1280 720" "3840 2160"; do
    set -- $size
    echo "refine PTX $1x$2: $("$carry/bin/refine_probe" "$nvlib" /tmp/t.bin "$1" "$2" 3 30)"
done

log "3. training data"
D4R_BIN="$carry/bin" bash tests/device/make-training-data.sh /tmp/frames "$seeds" "$frames"
du -sh /tmp/frames; ls /tmp/frames | head -3

log "4. training ($minutes min)"
PYTHONUNBUFFERED=1 python3 tools/network/train.py /tmp/frames --out /tmp/train --minutes "$minutes" 2>&1 | tail -40
cp /tmp/train/refine-v1.d4rnet /tmp/train/summary.json "$out/" 2>/dev/null
python3 tools/network/export.py --check /tmp/train/refine-v1.d4rnet | tail -3

log "5. demo with the trained model"
for scene in city orbit text; do
    for net in false true; do
        echo "-- $scene network=$net"
        D4R_NETWORK=$net D4R_NETWORK_MODEL=/tmp/train/refine-v1.d4rnet "$carry/bin/d4r" demo --scene "$scene" \
            --backend driver --native off --frames 16 --translated-frames 0 --no-images --out "/tmp/demo-$scene-$net" \
            2>&1 | sed -n '/PSNR (dB)/,/^time:/p'
        cp "/tmp/demo-$scene-$net/report.json" "$out/demo-$scene-network-$net.json" 2>/dev/null
    done
done
for net in false true; do
    D4R_NETWORK=$net D4R_NETWORK_MODEL=/tmp/train/refine-v1.d4rnet "$carry/bin/d4r" demo --scene city --backend driver \
        --native off --render 1920x1080 --output 3840x2160 --frames 8 --translated-frames 0 --no-images \
        --out "/tmp/demo-4k-$net" 2>&1 | grep -E "^(time|d4r)" 
    cp "/tmp/demo-4k-$net/report.json" "$out/demo-4k-network-$net.json" 2>/dev/null
done
log "done"
