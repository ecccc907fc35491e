#!/bin/bash
# tests/device/refine-v2-headroom.sh [CARRY] [SEEDS] [FRAMES] [DEADLINE_S]: refine-v2's blend-weight networks on the
# H200 machine in one call (models/README.md, "refine-v2 on the H200: what blend weights reach"):
#   1. version 2 frame dumps (d4r demo --dump-frames --dump-inputs, the core on NVIDIA's driver through d4r's driver
#      backend, 640x360 -> 1280x720, about 38 MB a frame) of train-1..SEEDS (FRAMES frames each,
#      tests/device/make-training-data.sh) and of the held-out scenes city, orbit, text (16 frames);
#   2. tools/network/train_blend.py: loads the train frames 4..FRAMES-1 onto the GPU, trains each of $VARIANTS for an
#      equal share of the time left before DEADLINE_S seconds after this script's start, evaluates each on the
#      held-out scenes (display PSNR, SSIM, tPSNR; mean of frames 8-15) against the core alone.
# $OUT gets summary.json, train-blend.log, dumps.log and models.tar (each variant's state_dict); all small.
# CARRY holds bin/d4r and lib/{libd4rcuda.so,libcuda.so.1,libd4r_ngx.so} built on the development machine (stripped).
# The call sends the checkout of the session that calls it: this script, train_blend.py and CARRY must be there.
# $SIZE_ARGS is passed to every demo (e.g. "--render 160x90 --output 320x180" for a quick test on the CPU);
# $VARIANTS (train_blend.py's names), $TRAIN_ARGS, $PYTHON, $JOBS/$THREADS (make-training-data.sh), $FRAMES_DIR.
# Continuing the shipped refine-v2 (models/README.md): VARIANTS=win64res TRAIN_ARGS="--init
# win64res=models/refine-v2.d4rnet"; then train_blend.py DIR --variants win64res --export models.tar's win64res.pt
# refine-v2.d4rnet on the development machine.
# Defaults: 24 seeds x 16 frames, deadline 500 s (for a call of timeout_s 540).
set -uo pipefail
start=$(date +%s)
carry=${1:-.carry}
seeds=${2:-24}
frames=${3:-16}
deadline=${4:-500}
variants=${VARIANTS:-blend32,blend64,blend64geo,blend64res,blend64noU,blend64noH}
out=${OUT:-/tmp/out}
frames_dir=${FRAMES_DIR:-/tmp/v2frames}
mkdir -p "$out" "$frames_dir"
log() { echo "== $(date +%T) (+$(($(date +%s) - start)) s) $*"; }
carry=$(cd "$carry" && pwd)
[ -e "$carry/lib/libcuda.so.1" ] || ln -s libd4rcuda.so "$carry/lib/libcuda.so.1"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
nproc; free -g | sed -n 2p; df -h /tmp | tail -1

# A machine still warm from an earlier call keeps /tmp: its complete dumps are used again (the marker is written
# only when every scene has its dumps).
marker="$frames_dir/.complete-$seeds-$frames${SIZE_ARGS:+-small}"
if [ -e "$marker" ]; then
    log "1. dumps: kept from an earlier call on this machine ($marker)"
else
    log "1. dumps: held-out scenes (in the background) and train-1..$seeds x $frames frames"
    for scene in city orbit text; do
        # shellcheck disable=SC2086 # SIZE_ARGS is a list of words
        LD_LIBRARY_PATH="$carry/lib" "$carry/bin/d4r" demo --scene "$scene" --frames 16 --translated-frames 0 --no-images \
            --dump-frames "$frames_dir/$scene" --dump-inputs --out "/tmp/demo-$scene" --quiet --backend auto \
            --scene-threads 2 --lib-dir "$carry/lib" ${SIZE_ARGS:-} >"/tmp/demo-$scene.log" 2>&1 &
    done
    JOBS=${JOBS:-6} THREADS=${THREADS:-2} DEMO_ARGS="--dump-inputs ${SIZE_ARGS:-}" D4R_BIN="$carry/bin" D4R_LIB="$carry/lib" \
        bash tests/device/make-training-data.sh "$frames_dir" "$seeds" "$frames" 2>&1 | tee "$out/dumps.log" | tail -4
    wait
    for scene in city orbit text; do
        n=$(find "$frames_dir/$scene" -name '*.d4rframe' 2>/dev/null | wc -l)
        echo "$scene: $n dumps"
        [ "$n" -eq 16 ] || { log "held-out dumps of $scene missing"; tail -5 "/tmp/demo-$scene.log"; }
    done
    dumps_ok=$(grep -c ' ok ' "$out/dumps.log")
    [ "$dumps_ok" -eq "$seeds" ] && [ "$(find "$frames_dir"/{city,orbit,text} -name '*.d4rframe' | wc -l)" -eq 48 ] &&
        touch "$marker"
fi
du -sh "$frames_dir"
grep -m1 -o '"device": *"[^"]*"' /tmp/demo-city/report.json

log "2. training and evaluation until +$deadline s"
# shellcheck disable=SC2086 # TRAIN_ARGS is a list of words
PYTHONUNBUFFERED=1 "${PYTHON:-python3}" tools/network/train_blend.py "$frames_dir" --variants "$variants" \
    --train-frames "4-$((frames - 1))" --until $((start + deadline)) --eval-reserve "${EVAL_RESERVE:-45}" \
    --summary "$out/summary.json" --save /tmp/models --log-every 2000 ${TRAIN_ARGS:-} 2>&1 | tee "$out/train-blend.log"
tar -C /tmp/models -cf "$out/models.tar" . 2>/dev/null
log "done"
