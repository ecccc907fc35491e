#!/bin/bash
# Issue 14's hostile-input cases (tests/device/hostile_cases.c) on NVIDIA's driver, through libd4rcuda's
# driver backend and on its cpu backend, side by side: what NVIDIA answers is the reference (where it
# crashes or hangs, d4r must answer an error instead). Runs on the device machine from the repository root
# with a carried build-device/ (tests/device/prepare-runtime.sh). Writes $OUT/hostile.txt: one block per
# case with the three answers, "differs" where the cpu backend's differs from NVIDIA's.
set -u
OUT=${OUT:-out/device}
mkdir -p "$OUT"
exec > >(tee "$OUT/hostile.txt") 2>&1
ROOT=$(pwd)
LIB="$ROOT/build-device/lib"
ln -sf libd4rcuda.so "$LIB/libcuda.so.1"
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
gcc -O1 -I"$CUDA_HOME/include" tests/device/hostile_cases.c -o /tmp/hostile_cases -L"$CUDA_HOME/lib64/stubs" -lcuda \
    || { echo "cannot build hostile_cases"; exit 1; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
/tmp/hostile_cases > /tmp/hostile.direct 2>/dev/null
LD_LIBRARY_PATH="$LIB" D4R_CUDA_BACKEND=driver /tmp/hostile_cases > /tmp/hostile.driver 2>/dev/null
LD_LIBRARY_PATH="$LIB" D4R_CUDA_BACKEND=cpu /tmp/hostile_cases > /tmp/hostile.cpu 2>/dev/null
differ=0
while IFS= read -r line; do
    name=${line%%:*}
    nv=${line#*: }
    drv=$(grep "^$name: " /tmp/hostile.driver | head -1); drv=${drv#*: }
    cpu=$(grep "^$name: " /tmp/hostile.cpu | head -1); cpu=${cpu#*: }
    mark=""
    [ "$nv" = "$cpu" ] || { mark=" <- differs"; differ=$((differ + 1)); }
    printf '%s%s\n  nvidia: %s\n  driver: %s\n  cpu:    %s\n' "$name" "$mark" "$nv" "$drv" "$cpu"
done < /tmp/hostile.direct
echo "done: $(wc -l < /tmp/hostile.direct) cases, $differ where the cpu backend answers differently from NVIDIA's"
