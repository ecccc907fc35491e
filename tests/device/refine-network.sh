#!/bin/bash
# tests/device/refine-network.sh [CARRY] [SEEDS] [FRAMES] [MINUTES]: the refine network's work on the H200
# machine, in one call (device time is scarce):
#   1. goldens: the refine PTX on NVIDIA's driver (refine_probe, deterministic test model and image, and its FP8
#      variant with --fp8) -> $OUT/refine-h200-*.bin, compared on CI with the C++ reference
#      (tests/network/refine_golden_test.cpp);
#   2. timing of the PTX path at 1280x720 and 3840x2160 (refine_probe, GPU time by events);
#   3. training data: d4r demo --dump-frames over training scenes train-1..SEEDS (tests/device/make-training-data.sh),
#      the core on NVIDIA's driver through d4r's driver backend;
#   4. training (tools/network/train.py) for MINUTES, writing $OUT/refine-v1.d4rnet and summary.json;
#   5. the demo on the evaluation scenes with the trained model, network on and off, at 640x360 -> 1280x720,
#      and the GPU time of core + network at 1920x1080 -> 3840x2160.
# $OUT gets at most 8 files: goldens.tar (the six goldens), the model, summary.json and results.tar (demo reports, the cubin's
# resource usage, the training checkpoint).
# SKIP_GOLDENS=1 skips steps 1-2b; TRAIN_ARGS adds options to train.py.
# CARRY holds bin/{d4r,refine_probe} and lib/{libd4rcuda.so,libcuda.so.1,libd4r_ngx.so} built on the
# development machine (stripped; see docs/network.md, "Training").
set -uo pipefail
carry=${1:-.carry}
seeds=${2:-24}
frames=${3:-24}
minutes=${4:-5}
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/results /tmp/goldens
log() { echo "== $(date +%T) $*"; }
nvlib=$(ldconfig -p | awk '/libcuda.so.1 /{print $NF; exit}')
[ -n "$nvlib" ] || nvlib=/usr/local/nvidia/lib64/libcuda.so.1
log "NVIDIA libcuda: $nvlib"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader

if [ -z "${SKIP_GOLDENS:-}" ]; then
log "1. goldens"
for size in "72 40 7" "44 20 11" "136 72 3"; do
    set -- $size
    "$carry/bin/refine_probe" "$nvlib" "/tmp/goldens/refine-h200-${1}x${2}-s${3}.bin" "$1" "$2" "$3" || log "probe $size failed"
    "$carry/bin/refine_probe" --fp8 "$nvlib" "/tmp/goldens/refine-h200-fp8-${1}x${2}-s${3}.bin" "$1" "$2" "$3" ||
        log "probe --fp8 $size failed"
done
tar -C /tmp/goldens -cf "$out/goldens.tar" .
log "2. PTX path timing (median, min ms over 30 passes)"
for size in "1280 720" "3840 2160"; do
    set -- $size
    echo "refine PTX $1x$2: $("$carry/bin/refine_probe" "$nvlib" /tmp/t.bin "$1" "$2" 3 30)"
done

log "2b. the sm_90 accuracy set (refine.cu compiled to a cubin) through d4r's driver backend"
if [ -f "$carry/native/refine_sm90.cubin" ]; then
    hash=$(python3 -c "
import sys
d = open('src/kernels/refine/ptx/refine.ptx', 'rb').read().rstrip(b'\\0')
h = 0xcbf29ce484222325
for b in d: h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
print('%016x' % h)")
    mkdir -p /tmp/native/sm_90
    for k in patchify linear layernorm attention merge expand unpatchify; do
        cp "$carry/native/refine_sm90.cubin" "/tmp/native/sm_90/d4r_nn_$k.cubin"
        echo "d4r_nn_$k $hash" >> /tmp/native/sm_90/d4r-kernels.txt
    done
    mkdir -p /tmp/results
    cuobjdump -res-usage "$carry/native/refine_sm90.cubin" > /tmp/results/refine-sm90-resources.txt 2>&1
    grep -E "Function|REG" /tmp/results/refine-sm90-resources.txt | head -20
    D4R_CUDA_BACKEND=driver D4R_NATIVE_KERNEL_DIR=/tmp/native D4R_LOG=info "$carry/bin/refine_probe" \
        "$carry/lib/libcuda.so.1" /tmp/native.bin 72 40 7 2> /tmp/native.log
    grep -c "native kernels: serving" /tmp/native.log
    cmp /tmp/native.bin /tmp/goldens/refine-h200-72x40-s7.bin && echo "sm_90 accuracy set: identical to the PTX path"
    for size in "1280 720" "3840 2160"; do
        set -- $size
        echo "refine d4r driver, PTX $1x$2: $(D4R_CUDA_BACKEND=driver "$carry/bin/refine_probe" "$carry/lib/libcuda.so.1" /tmp/t.bin "$1" "$2" 3 30)"
        echo "refine d4r driver, sm_90 set $1x$2: $(D4R_CUDA_BACKEND=driver D4R_NATIVE_KERNEL_DIR=/tmp/native "$carry/bin/refine_probe" "$carry/lib/libcuda.so.1" /tmp/t.bin "$1" "$2" 3 30)"
    done
fi

fi

log "3. training data"
D4R_NETWORK=false D4R_BIN="$carry/bin" bash tests/device/make-training-data.sh /tmp/frames "$seeds" "$frames"
du -sh /tmp/frames; ls /tmp/frames | head -3

log "4. training ($minutes min)"
PYTHONUNBUFFERED=1 python3 tools/network/train.py /tmp/frames --out /tmp/train --minutes "$minutes" ${TRAIN_ARGS:-} 2>&1 | tail -40
cp /tmp/train/refine-v1.d4rnet /tmp/train/summary.json "$out/" 2>/dev/null
python3 tools/network/export.py --check /tmp/train/refine-v1.d4rnet | tail -3

log "5. demo with the trained model (the table's core-alone row is the same frames without the network)"
for scene in city orbit text; do
    echo "-- $scene"
    D4R_NETWORK_MODEL=/tmp/train/refine-v1.d4rnet "$carry/bin/d4r" demo --scene "$scene" --backend driver --native off \
        --network on --frames 16 --translated-frames 0 --no-images --out "/tmp/demo-$scene" 2>&1 |
        sed -n '/PSNR (dB)/,/^time:/p'
    cp "/tmp/demo-$scene/report.json" "/tmp/results/demo-$scene.json" 2>/dev/null
done
for net in off on; do
    echo "-- city 1920x1080 -> 3840x2160, network $net"
    D4R_NETWORK_MODEL=/tmp/train/refine-v1.d4rnet "$carry/bin/d4r" demo --scene city --backend driver --native off \
        --network "$net" --render 1920x1080 --output 3840x2160 --frames 8 --translated-frames 0 --no-images \
        --out "/tmp/demo-4k-$net" 2>&1 | grep -E "^(time|d4r|network)"
    cp "/tmp/demo-4k-$net/report.json" "/tmp/results/demo-4k-network-$net.json" 2>/dev/null
done
cp /tmp/train/checkpoint.pt /tmp/results/ 2>/dev/null
tar -C /tmp/results -cf "$out/results.tar" .
log "done"
