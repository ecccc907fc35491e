#!/bin/bash
# tests/device/fused-block.sh [CARRY]: refine-v2's fused transformer block (d4r_nn_block, docs/network.md "Fused
# blocks") on the GPU in one call: correctness of the sm_90 sets through d4r's driver backend (`d4r kernels check
# --fused`: the fast set within 60 dB at every block of refine-v2 and refine-v2-fp8, the accuracy set identical at
# every launch), then the 4K frame with the fused and the unfused plan in the same run (refine-v2-timing.sh), then
# the 4K frame through the PTX path and through the native sets, network off and on (the network's share of each, and
# their ratio: issue 26 asks the native fast layers for 3x), then the fused frame's kernel profile. CARRY as for
# refine-v2-timing.sh (bin/d4r, lib/{libd4rcuda.so,libcuda.so.1,libd4r_ngx.so}, share/d4r/native). Writes $OUT/fused-block.txt (or out/device/); exit 1 on any failure.
set -uo pipefail
carry=$(realpath "${1:-.carry}")
out=${OUT:-out/device}
mkdir -p "$out"
report="$out/fused-block.txt"
: > "$report"
status=0
native="$carry/share/d4r/native"
[ -e "$carry/lib/libcuda.so.1" ] || ln -s libd4rcuda.so "$carry/lib/libcuda.so.1"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$report"
for model in refine-v2 refine-v2-fp8; do
    min=60
    [ "$model" = refine-v2-fp8 ] && min=45 # its FP8 layers' fast numerics (docs/network.md)
    for set in fast accuracy; do
        args=(--min-psnr "$min")
        [ "$set" = accuracy ] && args=(--accuracy --require-identical)
        echo "== kernels check --fused $model, $set set" | tee -a "$report"
        if ! "$carry/bin/d4r" kernels check --fused --backend driver --model "models/$model.d4rnet" --size 256x144 \
            --native-root "$native" --lib-dir "$carry/lib" "${args[@]}" >> "$report" 2>&1; then
            status=1
            echo "fused-block: kernels check failed ($model, $set set)" | tee -a "$report"
        fi
        tail -3 "$report"
    done
done
echo "== 4K timing: fused (v2) and unfused (v2-unfused) plans" | tee -a "$report"
SIZES="1920x1080:3840x2160" bash tests/device/refine-v2-timing.sh "$carry" >> "$report" 2>&1 || status=1
grep -E '^(==|time|network:)|refine network' "$report" | tail -20
echo "== 4K frame: the PTX path against the native sets, network off and on (one run each, 6 frames)" | tee -a "$report"
for native_mode in off on; do
    for net in off on; do
        model_args=() # d4r refuses --network-model without --network on
        [ "$net" = on ] && model_args=(--network-model models/refine-v2.d4rnet)
        line=$("$carry/bin/d4r" demo --scene city --backend driver --native "$native_mode" --native-root "$native" \
            --render 1920x1080 --output 3840x2160 --frames 6 --translated-frames 0 --no-images --lib-dir "$carry/lib" \
            --out "/tmp/fused-block-$native_mode-$net" --network "$net" "${model_args[@]}" 2>&1 |
            grep -E '^time') || status=1
        echo "native $native_mode, network $net: $line" | tee -a "$report"
    done
done
# The network's share of each frame (network on minus off) and the PTX path's over the native sets'.
awk '/^native (off|on), network (off|on): time/ { ms[$2 $4] = $9 }
     END { if (!("off,off:" in ms) || !("off,on:" in ms) || !("on,off:" in ms) || !("on,on:" in ms)) {
               print "network alone: not computed (a run above gave no time)"; exit }
           ptx = ms["off,on:"] - ms["off,off:"]; nat = ms["on,on:"] - ms["on,off:"];
           if (nat > 0) printf "network alone: PTX path %.2f ms, native sets %.2f ms: %.1fx\n", ptx, nat, ptx / nat }' \
    "$report" | tee -a "$report"
echo "== kernel profile of the fused 4K frame" | tee -a "$report"
D4R_CUDA_KERNEL_PROFILE=1 D4R_LOG=info "$carry/bin/d4r" demo --scene city --backend driver --native on \
    --native-root "$native" --render 1920x1080 --output 3840x2160 --frames 2 --translated-frames 0 --no-images \
    --lib-dir "$carry/lib" --out /tmp/fused-block-profile --network on --network-model models/refine-v2.d4rnet \
    > /tmp/fused-block-profile.log 2>&1 || status=1
grep -E 'd4r_nn_|refine network|^time' /tmp/fused-block-profile.log | tee -a "$report" | tail -30
exit $status
