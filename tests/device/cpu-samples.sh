#!/bin/bash
# NVIDIA cuda-samples binaries on libd4rcuda's cpu backend, on the device machine's 16 cores: the samples
# too heavy for ptxsim on a 2-core development machine (cudaTensorCoreGemm, bf16TensorCoreGemm,
# globalToShmemAsyncCopy at their default sizes). Runs from the repository root with a carried
# build-device/ (tests/device/prepare-runtime.sh) and the sample binaries, built by
# scripts/cuda-samples-sweep.sh on the development machine, copied to build-device/samples/bin.
# Each runs first on NVIDIA's driver (the reference) and then on the cpu backend with a time limit.
# Usage: cpu-samples.sh [SECONDS_PER_SAMPLE (default 150)]. Writes $OUT/cpu-samples.txt.
set -u
OUT=${OUT:-out/device}
mkdir -p "$OUT"
exec > >(tee "$OUT/cpu-samples.txt") 2>&1
ROOT=$(pwd)
LIB="$ROOT/build-device/lib"
limit=${1:-150}
ln -sf libd4rcuda.so "$LIB/libcuda.so.1"
echo "cores: $(nproc)"
status=0
for prog in "$ROOT"/build-device/samples/bin/*; do
    name=$(basename "$prog")
    dir=$(mktemp -d)
    (cd "$dir" && timeout 60 "$prog" > "$dir/direct.log" 2>&1)
    echo "$name on NVIDIA's driver: rc $? ($(grep -m1 -iE "pass|fail|TFLOPS|GFlop" "$dir/direct.log"))"
    start=$(date +%s)
    (cd "$dir" && LD_LIBRARY_PATH="$LIB" D4R_CUDA_BACKEND=cpu timeout "$limit" "$prog" > "$dir/cpu.log" 2>&1)
    rc=$?
    secs=$(( $(date +%s) - start ))
    echo "$name on the cpu backend: rc $rc after ${secs} s"
    tail -4 "$dir/cpu.log" | sed 's/^/    /'
    [ $rc = 0 ] || status=1
done
echo "done, status $status"
exit $status
