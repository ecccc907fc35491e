#!/bin/bash
# `d4r demo` on the H200 (driver backend: the upscaler's PTX compiled by NVIDIA's driver). Runs on the
# device machine from the repository root with a carried `build-device/` made by
# tests/device/prepare-runtime.sh (d4r, libd4rcuda.so, libd4r_ngx.so and their libraries). Writes
# $OUT/demo-device.txt and $OUT/demo-<scene>-<size>/report.json:
#   1. every scene at 1920x1080 -> 3840x2160, 16 frames: median GPU ms per frame (goal: at most 1 ms) and
#      the quality against ground truth next to bicubic;
#   2. the default demo (640x360 -> 1280x720) for the same quality comparison at the demo's size.
set -u
OUT=${OUT:-out/device}
mkdir -p "$OUT"
exec > >(tee "$OUT/demo-device.txt") 2>&1
ROOT=$(pwd)
LIB="$ROOT/build-device/lib"
BIN="$ROOT/build-device/bin"
status=0
fail() { echo "FAIL: $*"; status=1; }
ln -sf libd4rcuda.so "$LIB/libcuda.so.1"
export LD_LIBRARY_PATH="$LIB"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
for scene in $("$BIN/d4r" demo --list-scenes | awk '{print $1}'); do
    echo "== $scene 1920x1080 -> 3840x2160"
    "$BIN/d4r" demo --scene "$scene" --backend driver --render 1920x1080 --output 3840x2160 --frames 16 \
        --translated-frames 0 --out "$OUT/demo-$scene-4k" | grep -v '^frame' || fail "$scene at 4K"
    echo "== $scene 640x360 -> 1280x720"
    "$BIN/d4r" demo --scene "$scene" --backend driver --frames 16 --no-images --translated-frames 0 \
        --out "$OUT/demo-$scene-720p" | grep -v '^frame' || fail "$scene at 720p"
done
echo "done, status $status"
exit $status
