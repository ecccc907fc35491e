#!/bin/bash
# tests/device/refine-sm90.sh [CARRY]: the refine network's sm_90 native kernel sets on the H200, in one call:
#   1. resource usage of the fast and accuracy cubins (cuobjdump -res-usage);
#   2. GPU time of the network at 3840x2160 and 1280x720: the PTX on NVIDIA's driver, then through d4r's driver
#      backend from PTX, with the fast set and with the accuracy set (refine_probe, events), and per launch
#      (refine_probe --layers);
#   3. d4r kernels check on the H200: the accuracy set identical to the PTX path, the fast set's PSNR (test model
#      at 72x40 and 1280x720, and the shipped model at 1280x720);
#   4. d4r demo at 1920x1080 -> 3840x2160 with the native kernels, network off and on (GPU time per frame).
# CARRY holds bin/{d4r,refine_probe}, lib/{libd4rcuda.so,libcuda.so.1,libd4r_ngx.so} and share/d4r/native (a kernel root with sm_90/ and
# accuracy/sm_90/, as the build makes it: build/share/d4r/native). Everything is printed; nothing is written to $OUT.
set -uo pipefail
carry=${1:-.carry}
root="$carry/share/d4r/native"
log() { echo "== $(date +%T) $*"; }
nvlib=$(ldconfig -p | awk '/libcuda.so.1 /{print $NF; exit}')
[ -n "$nvlib" ] || nvlib=/usr/local/nvidia/lib64/libcuda.so.1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader

log "1. resources"
for set in sm_90 accuracy/sm_90; do
    echo "-- $set"
    cuobjdump -res-usage "$root/$set/d4r_nn_linear.cubin" 2>&1 | grep -E "Function|REG" | paste - - |
        sed -E 's/ +/ /g'
done

log "2. GPU time (median, min ms over 30 passes)"
probe="$carry/bin/refine_probe"
for size in "3840 2160" "1280 720"; do
    set -- $size
    echo "PTX, NVIDIA's driver $1x$2: $("$probe" "$nvlib" /tmp/t.bin "$1" "$2" 3 30)"
    echo "PTX, d4r driver backend $1x$2: $(D4R_CUDA_BACKEND=driver "$probe" "$carry/lib/libcuda.so.1" /tmp/t.bin "$1" "$2" 3 30)"
    echo "fast set $1x$2: $(D4R_CUDA_BACKEND=driver D4R_NATIVE_KERNEL_DIR="$root" "$probe" "$carry/lib/libcuda.so.1" /tmp/t.bin "$1" "$2" 3 30)"
    echo "accuracy set $1x$2: $(D4R_CUDA_BACKEND=driver D4R_PREFER_ACCURACY=1 D4R_NATIVE_KERNEL_DIR="$root" "$probe" "$carry/lib/libcuda.so.1" /tmp/t.bin "$1" "$2" 3 30)"
done
echo "-- per launch at 3840x2160: PTX (NVIDIA's driver) | fast set"
"$probe" "$nvlib" /tmp/t.bin 3840 2160 3 20 --layers > /tmp/ptx-layers.txt
D4R_CUDA_BACKEND=driver D4R_NATIVE_KERNEL_DIR="$root" D4R_LOG=info "$probe" "$carry/lib/libcuda.so.1" /tmp/t.bin \
    3840 2160 3 20 --layers > /tmp/fast-layers.txt 2> /tmp/fast.log
paste /tmp/ptx-layers.txt /tmp/fast-layers.txt | awk '{printf "%-14s %-18s %9s | %9s\n", $2, $3, $4, $NF}'
grep -m3 "native kernels" /tmp/fast.log

log "3. d4r kernels check on the H200"
check() { "$carry/bin/d4r" kernels check --backend driver --native-root "$root" "$@" 2>&1 | tail -6; echo "exit $?"; }
echo "-- accuracy set, test model 72x40"; check --accuracy --require-identical --size 72x40
echo "-- accuracy set, test model 1280x720"; check --accuracy --require-identical --size 1280x720
echo "-- fast set, test model 72x40"; check --min-psnr 60 --size 72x40
echo "-- fast set, test model 1280x720"; check --min-psnr 60 --size 1280x720
echo "-- fast set, shipped model 1280x720"; check --min-psnr 60 --size 1280x720 --model models/refine-v1.d4rnet
echo "-- fast set per layer, test model 1280x720"
"$carry/bin/d4r" kernels check --backend driver --native-root "$root" --size 1280x720 2>&1 | head -40

log "4. core + network at 1920x1080 -> 3840x2160 (d4r demo, GPU time per frame), native kernels on"
for net in off on; do
    echo "-- network $net"
    D4R_NETWORK_MODEL=models/refine-v1.d4rnet "$carry/bin/d4r" demo --scene city --backend driver --native on \
        --network "$net" --render 1920x1080 --output 3840x2160 --frames 8 --translated-frames 0 --no-images \
        --out "/tmp/demo-4k-$net" 2>&1 | grep -E "^(time|d4r demo|native|network)|ms"
done
log "done"
