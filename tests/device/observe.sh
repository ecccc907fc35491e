#!/bin/bash
# Kernel profile and replay dumps on the H200 (driver backend), and a dump replayed across backends.
# Runs on the device machine from the repository root with a carried `build-device/` made by
# tests/device/prepare-runtime.sh (which also carries build/bin/d4r). Writes $OUT/observe-device.txt:
#   1. vector_add through libd4rcuda's driver backend with D4R_CUDA_KERNEL_PROFILE=1: one KERNEL_PROFILE
#      line per launch, summarised by `d4r kprof`;
#   2. a dump of saxpy (D4R_CUDA_REPLAY_DUMP_DIR) replayed on the driver backend and on the cpu backend
#      (ptxsim), each compared with the H200's own output (DUMP/after) by `d4r compare`;
#   3. the same for every texture and surface launch of the resources program: texture objects over
#      arrays, pitch2D and linear memory, a surface over an array (array-<j>.bin files and handles).
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
echo "== 3. texture and surface dumps on the H200, replayed on the driver and cpu backends"
KERNELS="$ROOT/tests/runtime/programs/kernels"
rm -rf /tmp/tdumps && mkdir -p /tmp/tdumps
for filter in tex surf; do
    D4R_CUDA_BACKEND=driver D4R_CUDA_REPLAY_DUMP_DIR=/tmp/tdumps D4R_CUDA_REPLAY_DUMP_FILTER=$filter \
        D4R_CUDA_REPLAY_DUMP_LIMIT=20 "$BIN/prog_nv_resources" "$KERNELS/resources.ptx" "$KERNELS/resources.fatbin" \
        > /tmp/resources.log 2>&1 || fail "resources with dumps of $filter: $(tail -3 /tmp/resources.log)"
done
count=0
for dump in /tmp/tdumps/replay-*; do
    [ -d "$dump" ] || continue
    count=$((count + 1))
    grep -E "^(texture|surface|array) " "$dump/manifest.txt" | sed "s|^|$(basename "$dump"): |"
    for backend in driver cpu; do
        out=/tmp/treplay-$backend-$(basename "$dump")
        "$BIN/d4r" replay "$dump" --backend $backend --out "$out" > /tmp/replay.log 2>&1 \
            || { fail "replay of $(basename "$dump") on $backend: $(tail -3 /tmp/replay.log)"; continue; }
        "$BIN/d4r" compare "$dump/after" "$out" > /tmp/compare.log 2>&1 \
            && echo "$(basename "$dump") on $backend: identical to the H200 run" \
            || fail "$(basename "$dump") on $backend differs: $(cat /tmp/compare.log)"
    done
done
[ "$count" -ge 7 ] || fail "expected at least 7 texture/surface dumps, got $count"
grep -lq "^texture " /tmp/tdumps/*/manifest.txt || fail "no texture line in any dump"
grep -lq "^surface " /tmp/tdumps/*/manifest.txt || fail "no surface line in any dump"
echo "done, status $status"
exit $status
