#!/bin/bash
# tests/device/refine-v2-timing.sh [CARRY] [MODEL]: what refine-v2 costs on the H200 (models/README.md, refine-v2's
# card): d4r demo on NVIDIA's driver through d4r's driver backend with the native sets
# (sm_90: the core's and both networks' layers, refine-v2's pixel kernels too; its wide linears run from PTX), city at
# 640x360 -> 1280x720 (16 frames: the quality figures too) and 1920x1080 -> 3840x2160 (6 frames), the network off,
# refine-v1 and MODEL (default models/refine-v2.d4rnet), and MODEL again with a copy of the native root that has no
# d4r_nn_block ("v2-unfused": the pipeline then keeps seven launches a transformer block, docs/network.md "Fused
# blocks"; the baseline of the fused plan in the same run). Prints each run's table lines.
# CARRY as for profile-4k.sh (bin/d4r, lib/{libd4rcuda.so,libcuda.so.1,libd4r_ngx.so}, share/d4r/native);
# $BACKEND overrides the backend (e.g. cpu with SIZES="160x90:320x180" for a smoke test on the development machine).
# A network that makes the image 0.5 dB or more worse than the core alone (the demo's "network: -X dB PSNR" line)
# fails the script: the first run showed -9 dB from native kernels given shapes they did not take
# (docs/performance.md).
set -uo pipefail
carry=$(realpath "${1:-.carry}")
model=$(realpath "${2:-models/refine-v2.d4rnet}")
backend=${BACKEND:-driver}
sizes=${SIZES:-640x360:1280x720 1920x1080:3840x2160}
[ -e "$carry/lib/libcuda.so.1" ] || ln -s libd4rcuda.so "$carry/lib/libcuda.so.1"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
export D4R_NATIVE_KERNEL_DIR="$carry/share/d4r/native"
unfused_root=/tmp/r2t-native-unfused
rm -rf "$unfused_root" && cp -r "$carry/share/d4r/native" "$unfused_root"
find "$unfused_root" -name 'd4r_nn_block.*' -delete
find "$unfused_root" -name d4r-kernels.txt -exec sed -i '/^d4r_nn_block /d' {} +
status=0
for size in $sizes; do
    render=${size%%:*} output=${size##*:}
    frames=16
    [ "$output" = 3840x2160 ] && frames=6
    for net in off v1 v2 v2-unfused; do
        args=(--network off)
        root=$carry/share/d4r/native
        [ $net = v1 ] && args=(--network on --network-model "$(realpath models/refine-v1.d4rnet)")
        [ $net = v2 ] && args=(--network on --network-model "$model")
        [ $net = v2-unfused ] && args=(--network on --network-model "$model") && root=$unfused_root
        echo "== $render -> $output, network $net"
        if ! D4R_LOG=info "$carry/bin/d4r" demo --scene city --backend "$backend" --native on --native-root "$root" \
            --render "$render" --output "$output" \
            --frames "$frames" --translated-frames 0 --no-images --lib-dir "$carry/lib" --out "/tmp/r2t-$net" \
            "${args[@]}" > "/tmp/r2t-$net.log" 2>&1; then
            status=1
            tail -5 "/tmp/r2t-$net.log"
        fi
        grep -E '^(d4r demo|d4r \+|d4r \(|network|time)|refine network: (fused|unfused)' "/tmp/r2t-$net.log"
        if grep -qE '^network: -([1-9][0-9]*|0\.[5-9])[0-9.]* dB PSNR' "/tmp/r2t-$net.log"; then
            echo "refine-v2-timing: network $net at $output makes the image worse than the core alone: a wrong answer"
            status=1
        fi
    done
done
exit $status
