#!/bin/bash
# Kernel profile and replay dumps on the H200 (driver backend), and a dump replayed across backends.
# Runs on the device machine from the repository root with a carried `build-device/` made by
# tests/device/prepare-runtime.sh (which also carries build/bin/d4r). Writes $OUT/observe-device.txt:
#   1. vector_add through libd4rcuda's driver backend with D4R_CUDA_KERNEL_PROFILE=1: one KERNEL_PROFILE
#      line per launch, summarised by `d4r kprof`;
#   2. a dump of saxpy (D4R_CUDA_REPLAY_DUMP_DIR) replayed on the driver backend and on the cpu backend
#      (ptxsim), each compared with the H200's own output (DUMP/after) by `d4r compare`.
set -u
OUT=${OUT:-out/device}
mkdir -p "$OUT"
exec > >(tee "$OUT/observe-device.txt") 2>&1
ROOT=$(pwd)
LIB="$ROOT/build-device/lib"
BIN="$ROOT/build-device/bin"
PTX="$ROOT/tests/runtime/programs/kernels/vector_ops.ptx"
status=0
fail() { echo "FAIL: $*"; status=1; }
ln -sf libd4rcuda.so "$LIB/libcuda.so.1"
export LD_LIBRARY_PATH="$LIB"

echo "== 1. kernel profile on the H200"
rm -f /tmp/profile.log
D4R_CUDA_BACKEND=driver D4R_CUDA_KERNEL_PROFILE=1 D4R_LOG_FILE=/tmp/profile.log "$BIN/prog_nv_vector_add" "$PTX" \
    || fail "vector_add with the profile"
grep KERNEL_PROFILE /tmp/profile.log | sed 's/^.*KERNEL_PROFILE/KERNEL_PROFILE/'
[ "$(grep -c KERNEL_PROFILE /tmp/profile.log)" = 4 ] || fail "expected 4 KERNEL_PROFILE lines"
"$BIN/d4r" kprof /tmp/profile.log || fail "d4r kprof"

echo "== 2. dump on the H200, replay on the driver and cpu backends"
rm -rf /tmp/dumps && mkdir -p /tmp/dumps
D4R_CUDA_BACKEND=driver D4R_CUDA_REPLAY_DUMP_DIR=/tmp/dumps D4R_CUDA_REPLAY_DUMP_FILTER=saxpy \
    "$BIN/prog_nv_vector_add" "$PTX" || fail "vector_add with a dump"
DUMP=$(ls -d /tmp/dumps/replay-*-saxpy | head -1)
cat "$DUMP/manifest.txt"
for backend in driver cpu; do
    "$BIN/d4r" replay "$DUMP" --backend $backend --out /tmp/replay-$backend || fail "replay on $backend"
    "$BIN/d4r" compare "$DUMP/after" /tmp/replay-$backend --type f32 && echo "replay on $backend: identical to the H200 run" \
        || fail "replay on $backend differs from the H200 run"
done
echo "done, status $status"
exit $status
