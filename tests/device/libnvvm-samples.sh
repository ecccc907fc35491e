#!/bin/bash
# NVIDIA's libNVVM samples (cuda-samples Samples/7_libNVVM) on the H200: libNVVM is on the device
# machine's toolkit, not on the development or CI machines (they have nvvm.h without libnvvm.so), so the
# samples are built here with their own CMake project and run directly on NVIDIA's libcuda, through
# libd4rcuda's driver backend and on its cpu backend. Runs from the repository root with a carried
# build-device/ made by tests/device/prepare-runtime.sh and the samples copied to
# build-device/samples/7_libNVVM (prepare-runtime.sh --samples CUDA_SAMPLES_DIR does it).
# Writes $OUT/libnvvm-samples.txt: one line per sample and backend, and the tail of each failure.
set -u
OUT=${OUT:-out/device}
mkdir -p "$OUT"
exec > >(tee "$OUT/libnvvm-samples.txt") 2>&1
ROOT=$(pwd)
LIB="$ROOT/build-device/lib"
SRC="$ROOT/build-device/samples/7_libNVVM"
[ -d "$SRC" ] || { echo "no $SRC: run tests/device/prepare-runtime.sh --samples CUDA_SAMPLES_DIR"; exit 2; }
ln -sf libd4rcuda.so "$LIB/libcuda.so.1"
BUILD=/tmp/libnvvm-build
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda} cmake -S "$SRC" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release > /tmp/libnvvm-cmake.log 2>&1 \
    || { tail -20 /tmp/libnvvm-cmake.log; echo "cmake failed"; exit 1; }
cmake --build "$BUILD" -j 8 > /tmp/libnvvm-build.log 2>&1 || { tail -30 /tmp/libnvvm-build.log; echo "build failed"; exit 1; }
status=0
# ctest runs every sample in its own folder (ptxgen's tests turn .ll files into PTX and need no GPU).
for mode in direct driver cpu; do
    case $mode in
        direct) env=() ;;
        driver) env=(LD_LIBRARY_PATH="$LIB" D4R_CUDA_BACKEND=driver D4R_LOG=info D4R_LOG_FILE=/tmp/libnvvm-driver.d4r.log) ;;
        cpu) env=(LD_LIBRARY_PATH="$LIB" D4R_CUDA_BACKEND=cpu D4R_LOG=info D4R_LOG_FILE=/tmp/libnvvm-cpu.d4r.log) ;;
    esac
    (cd "$BUILD" && env "${env[@]}" ctest --output-on-failure --timeout 120 > "/tmp/libnvvm-$mode.log" 2>&1)
    rc=$?
    echo "== $mode (ctest rc $rc)"
    grep -E "Test +#|tests passed" "/tmp/libnvvm-$mode.log"
    # Proof that libd4rcuda served the calls, and what it said beyond the usual.
    [ $mode = direct ] || { echo "d4r log lines: $(cat /tmp/libnvvm-$mode.d4r.log 2>/dev/null | wc -l)"; grep -iE "warn|error|not supported|refus" /tmp/libnvvm-$mode.d4r.log 2>/dev/null | sort | uniq -c | head -20; }
    if [ $rc != 0 ]; then
        status=1
        grep -B2 -A25 -E "\*\*\*Failed|\*\*\*Exception|Timeout" "/tmp/libnvvm-$mode.log" | head -80
    fi
done
echo "done, status $status"
exit $status
