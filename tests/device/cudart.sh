#!/bin/bash
# cudart programs on the H200. Runs on the device machine from the repository root with a carried
# `build-device/` made by `tests/device/prepare-runtime.sh` (libd4rcuda, and the runtime-API conformance
# programs of tests/cudart built with nvcc in both cudart flavours, with libcudart.so beside them).
# Writes $OUT/cudart-device.txt and $OUT/cudart-goldens.tar.gz:
#   1. every program directly on NVIDIA's libcuda (its output is the golden), through libd4rcuda's driver
#      backend and on its cpu backend, outputs compared byte for byte; then the committed golden
#      (tests/cudart/goldens) checked against the direct run, and the driver backend under every option set
#      of d4r's layers that CI runs on the cpu backend (none, trace, profile-dump, overrides-empty), each
#      compared with the same golden by tests/cudart/run-program.sh, as ctest does;
#   2. export-table facts measured on NVIDIA's driver (which ids it answers, slot 0 of each, the answer to
#      an unknown id) and d4r's integrity hash against the driver's (export_tables_probe.cpp).
set -u
OUT=${OUT:-out/device}
mkdir -p "$OUT"
REPORT="$OUT/cudart-device.txt"
exec > >(tee "$REPORT") 2>&1
ROOT=$(pwd)
LIB="$ROOT/build-device/lib"
CUDART="$ROOT/build-device/cudart"
status=0
fail() { echo "FAIL: $*"; status=1; }
RUN="$ROOT/tests/cudart/run-program.sh"
GOLDENS="$ROOT/tests/cudart/goldens"

ln -sf libd4rcuda.so "$LIB/libcuda.so.1"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true

echo "== 1. runtime-API programs: NVIDIA's libcuda vs libd4rcuda (driver and cpu backends)"
mkdir -p /tmp/goldens
# *_rdc: device-linked builds (nvcc -rdc=true; their image holds nvlink's sm_80 cubin only, which the H200
# cannot run unless the driver links the objects' PTX itself: the answer is part of the report).
for prog in "$CUDART"/rt_*_static "$CUDART"/rt_*_shared "$CUDART"/rt_*_rdc; do
    [ -e "$prog" ] || continue
    name=$(basename "$prog")
    base=${name%_static}; base=${base%_shared}; base=${base%_rdc}
    direct_ok=1
    LD_LIBRARY_PATH="$CUDART" "$prog" > "/tmp/$name.direct" 2>&1 || { fail "$name directly: $(tail -3 "/tmp/$name.direct")"; direct_ok=0; }
    case "$name" in *_static) cp "/tmp/$name.direct" "/tmp/goldens/$base.txt" ;; esac
    LD_LIBRARY_PATH="$LIB:$CUDART" D4R_CUDA_BACKEND=driver D4R_LOG=debug D4R_LOG_FILE="/tmp/$name.driver.log" \
        "$prog" > "/tmp/$name.driver" 2>&1 || fail "$name through libd4rcuda: $(tail -5 "/tmp/$name.driver")"
    grep -h "cuGetExportTable" "/tmp/$name.driver.log" | sort -u | head -12
    if cmp -s "/tmp/$name.direct" "/tmp/$name.driver"; then echo "$name: driver backend identical to NVIDIA's"
    else fail "$name: driver backend differs"; diff "/tmp/$name.direct" "/tmp/$name.driver" | head -20; fi
    LD_LIBRARY_PATH="$LIB:$CUDART" D4R_CUDA_BACKEND=cpu "$prog" > "/tmp/$name.cpu" 2>&1 || fail "$name on the cpu backend: $(tail -5 "/tmp/$name.cpu")"
    if cmp -s "/tmp/$name.direct" "/tmp/$name.cpu"; then echo "$name: cpu backend identical to NVIDIA's"
    else fail "$name: cpu backend differs"; diff "/tmp/$name.direct" "/tmp/$name.cpu" | head -20; fi
    # The committed golden, and the driver backend under each option set of d4r's layers against it.
    [ "$direct_ok" = 1 ] || continue
    [ -f "$GOLDENS/$base.txt" ] || { echo "$name: no committed golden yet ($GOLDENS/$base.txt)"; continue; }
    "$RUN" --backend direct --cudart-lib "$CUDART" "$prog" "$GOLDENS/$base.txt" \
        || fail "$name directly on NVIDIA's libcuda: the committed golden differs (record it again?)"
    for set in none trace profile-dump overrides-empty; do
        # The profile-dump run checks what tests/cudart/CMakeLists.txt has it check: no replay dump is
        # required of cudart's library-loaded kernels; rt_sync's cooperative kernel must be profiled.
        extra=()
        if [ "$set" = profile-dump ] && [ "$base" = rt_sync ]; then
            extra=(--expect-log "KERNEL_PROFILE launch=[0-9]+ eligible=0 gpu_ms=[0-9.]+ name=_Z10grid_totalPKiPiS1_i")
        fi
        "$RUN" --backend driver --options "$set" "${extra[@]}" --lib "$LIB" --cudart-lib "$CUDART" "$prog" \
            "$GOLDENS/$base.txt" || fail "$name through the driver backend with options $set"
    done
done
# With the registry on (the profile), cudart's launches through the driver backend are named.
prog="$CUDART/rt_memory_static"
LD_LIBRARY_PATH="$LIB:$CUDART" D4R_CUDA_BACKEND=driver D4R_CUDA_KERNEL_PROFILE=1 D4R_LOG=info "$prog" > /tmp/profiled.out 2> /tmp/profiled.log || fail "profiled run: $(tail -5 /tmp/profiled.log)"
grep -m3 "KERNEL_PROFILE" /tmp/profiled.log
grep -q "KERNEL_PROFILE .*name=_Z9scale_addPKfPfi" /tmp/profiled.log && echo "profile names cudart's kernels on the driver backend" \
    || fail "the profile does not name cudart's kernels"
grep -i "cannot index" /tmp/profiled.log | head -3
tar -czf "$OUT/cudart-goldens.tar.gz" -C /tmp goldens

echo "== 2. export tables on NVIDIA's driver"
g++ -O2 -std=c++20 -Isrc -o /tmp/export_tables_probe tests/device/export_tables_probe.cpp \
    src/runtime/export_tables/integrity_hash.cpp src/runtime/export_tables/export_table_ids.cpp -ldl -lpthread \
    || fail "build the probe"
/tmp/export_tables_probe || fail "export_tables_probe"
echo "done, status $status"
exit $status
