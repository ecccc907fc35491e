#!/bin/bash
# libd4rcuda on the H200 (driver backend). Runs on the device machine from the repository root with a
# carried `build-device/` made by `tests/device/prepare-runtime.sh` on the development machine
# (libd4rcuda.so + the libraries it needs that the device image lacks, and the test programs built
# against NVIDIA's cuda.h). Writes $OUT/runtime-device.txt:
#   1. every test program directly on NVIDIA's libcuda, through libd4rcuda (driver backend) and on
#      libd4rcuda's cpu backend, and the outputs compared byte for byte with NVIDIA's (PROGRAM_OUT dumps);
#      then the committed goldens (tests/runtime/programs/goldens: stdout and the sha256 of each dump) checked
#      against the direct run, and the driver backend under every option set of d4r's layers that CI runs on
#      the cpu backend (none, trace, profile-dump, overrides-empty), each compared with the same golden by
#      tests/cudart/run-program.sh, as ctest does;
#   2. a native .cubin override: vector_add compiled here with nvcc -cubin for sm_90 in a developer set,
#      served (log line) with correct results;
#   3. launch overhead: 200000 empty launches directly and through libd4rcuda (overrides enabled, none
#      matching), alternating in one process, and the median ratio;
#   4. the ZLUDA path: a .hsaco kernel set run through a stand-in HIP runtime, with NVIDIA's driver
#      standing in for ZLUDA, and outputs identical to NVIDIA's direct run.
set -u
OUT=${OUT:-out/device}
mkdir -p "$OUT"
REPORT="$OUT/runtime-device.txt"
exec > >(tee "$REPORT") 2>&1
ROOT=$(pwd)
LIB="$ROOT/build-device/lib"
BIN="$ROOT/build-device/bin"
status=0
fail() { echo "FAIL: $*"; status=1; }
RUN="$ROOT/tests/cudart/run-program.sh"
GOLDENS="$ROOT/tests/runtime/programs/goldens"

ln -sf libd4rcuda.so "$LIB/libcuda.so.1"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
ldconfig -p 2>/dev/null | grep "libcuda.so.1" | head -3
KERNELS="$ROOT/tests/runtime/programs/kernels"
PTX="$KERNELS/vector_ops.ptx"
# The arguments of each test program (prog_nv_NAME).
program_args() {
    case "$1" in
    prog_nv_resources) echo "$KERNELS/resources.ptx $KERNELS/resources.fatbin" ;;
    *) echo "$PTX" ;;
    esac
}

echo "== 1. programs: NVIDIA's libcuda vs libd4rcuda (driver and cpu backends)"
for prog in "$BIN"/prog_nv_*; do
    name=$(basename "$prog")
    args=$(program_args "$name")
    mkdir -p "/tmp/direct/$name" "/tmp/d4r/$name"
    # shellcheck disable=SC2086 # ARGS: paths without spaces, one word each
    PROGRAM_OUT=/tmp/direct/$name "$prog" $args > /tmp/direct.log 2>&1 || fail "$name directly: $(tail -3 /tmp/direct.log)"
    # shellcheck disable=SC2086
    LD_LIBRARY_PATH="$LIB" D4R_CUDA_BACKEND=driver D4R_LOG=info PROGRAM_OUT=/tmp/d4r/$name "$prog" $args > /tmp/d4r.log 2>&1 \
        || fail "$name through libd4rcuda: $(tail -5 /tmp/d4r.log)"
    grep -h "backend" /tmp/d4r.log | head -2
    if diff -r "/tmp/direct/$name" "/tmp/d4r/$name" > /dev/null; then
        echo "$name: ok, outputs identical ($(ls /tmp/direct/$name | wc -l) files)"
    else
        fail "$name: outputs differ between NVIDIA's libcuda and libd4rcuda"
    fi
    # The cpu backend (ptxsim) must give the same bytes as the H200.
    mkdir -p "/tmp/cpu/$name"
    # shellcheck disable=SC2086
    LD_LIBRARY_PATH="$LIB" D4R_CUDA_BACKEND=cpu PROGRAM_OUT=/tmp/cpu/$name "$prog" $args > /tmp/cpu.log 2>&1 \
        || fail "$name on the cpu backend: $(tail -5 /tmp/cpu.log)"
    if diff -r "/tmp/direct/$name" "/tmp/cpu/$name"; then
        echo "$name: ok, cpu backend outputs identical to NVIDIA's"
    else
        fail "$name: outputs differ between NVIDIA's libcuda and the cpu backend"
    fi
    # The committed golden, and the driver backend under each option set of d4r's layers against it.
    base=${name#prog_nv_}
    # shellcheck disable=SC2086
    "$RUN" --backend direct --outputs "$prog" "$GOLDENS/$base.txt" $args \
        || fail "$name directly on NVIDIA's libcuda: the committed golden differs"
    for set in none trace profile-dump overrides-empty; do
        # The profile-dump run checks what tests/runtime/CMakeLists.txt has it check.
        extra=()
        if [ "$set" = profile-dump ]; then
            case "$base" in api_groups) extra=(--no-launches) ;; *) extra=(--expect-dumps) ;; esac
        fi
        # shellcheck disable=SC2086
        "$RUN" --backend driver --options "$set" "${extra[@]}" --lib "$LIB" --outputs "$prog" "$GOLDENS/$base.txt" $args \
            || fail "$name through the driver backend with options $set"
    done
done

echo "== 2. native .cubin override"
mkdir -p /tmp/native-set
nvcc -cubin -arch=sm_90 -o /tmp/native-set/vector_add.cubin tests/runtime/programs/kernels/vector_ops.cu || fail "nvcc -cubin"
LD_LIBRARY_PATH="$LIB" D4R_CUDA_BACKEND=driver D4R_LOG=info D4R_NATIVE_KERNEL_DIR=/tmp/native-set \
    "$BIN/prog_nv_vector_add" "$PTX" > /tmp/native.log 2>&1 || fail "vector_add with the native set: $(tail -5 /tmp/native.log)"
grep -h "native kernels" /tmp/native.log | head -5
grep -q "serving vector_add" /tmp/native.log && echo "vector_add: served from the .cubin, results ok" \
    || fail "vector_add was not served natively"

echo "== 3. launch overhead: 200000 empty launches per measurement, 15 alternating pairs in one process"
# Overrides enabled, none matching: a developer set whose only code object is for another kernel, so the
# override layer is installed and consulted at every launch.
mkdir -p /tmp/nomatch-set && cp /tmp/native-set/vector_add.cubin /tmp/nomatch-set/unrelated_kernel.cubin
gcc -O2 -I/usr/local/cuda/include -o /tmp/launch_overhead tests/device/launch_overhead.c -ldl || fail "build launch_overhead"
# libd4rcuda's own dependencies without the libcuda.so.1 link, so that dlopen("libcuda.so.1") finds NVIDIA's.
mkdir -p /tmp/deps && cp "$LIB"/libfmt* "$LIB"/liblz4* "$LIB"/libzstd* /tmp/deps/ 2>/dev/null
D4R_CUDA_BACKEND=driver D4R_NATIVE_KERNEL_DIR=/tmp/nomatch-set LD_LIBRARY_PATH=/tmp/deps \
    /tmp/launch_overhead "$LIB/libd4rcuda.so" 200000 15 || fail "launch_overhead"
echo "== 4. the ZLUDA path: .hsaco through a stand-in HIP runtime, NVIDIA's libcuda standing in for ZLUDA"
# A driver library under D4R_ZLUDA_DIR is taken for ZLUDA: libd4rcuda then runs .hsaco code objects
# through HIP, handing it the application's streams and pointers. The stand-in HIP (tests/runtime/fake_hip)
# runs its "code objects" (PTX after a marker line: kernels/hip_standin.cu) on the same NVIDIA driver,
# as ZLUDA's HIP shares the GPU with ZLUDA. No AMD GPU or ROCm is involved.
NV=$(readlink -f "$(ldconfig -p | awk '/libcuda\.so\.1 / {print $NF; exit}')")
mkdir -p /tmp/fake-rocm/lib /tmp/hsaco-set /tmp/zluda-out/prog_nv_vector_add
gcc -O2 -shared -fPIC -Isrc -Itests/runtime -o /tmp/fake-rocm/lib/libamdhip64.so \
    tests/runtime/fake_hip/fake_amdhip64.c -ldl -lpthread || fail "build the stand-in HIP"
{ printf '// d4r fake hsaco\n'; cat "$KERNELS/hip_standin.ptx"; } > /tmp/hsaco-set/saxpy.hsaco
LD_LIBRARY_PATH="$LIB" D4R_CUDA_BACKEND="driver:$NV" D4R_ZLUDA_DIR="$(dirname "$NV")" D4R_GPU_ARCH=gfx1101 \
    D4R_ROCM_DIR=/tmp/fake-rocm D4R_NATIVE_KERNEL_DIR=/tmp/hsaco-set D4R_LOG=info \
    FAKE_HIP_CUDA_LIBRARY="$NV" FAKE_HIP_LOG=/tmp/fakehip.log PROGRAM_OUT=/tmp/zluda-out/prog_nv_vector_add \
    "$BIN/prog_nv_vector_add" "$PTX" > /tmp/zluda.log 2>&1 || fail "vector_add on the ZLUDA path: $(tail -5 /tmp/zluda.log)"
grep -h "native kernels\|backend" /tmp/zluda.log | head -8
cat /tmp/fakehip.log
grep -q "HIP runtime /tmp/fake-rocm/lib/libamdhip64.so (D4R_ROCM_DIR)" /tmp/zluda.log || fail "HIP was not loaded from D4R_ROCM_DIR"
grep -q "serving saxpy" /tmp/zluda.log || fail "saxpy was not served from the .hsaco set"
[ "$(grep -c '^launch saxpy_prep ' /tmp/fakehip.log)" = 1 ] && [ "$(grep -c '^launch saxpy ' /tmp/fakehip.log)" = 1 ] \
    && [ "$(grep -c '^launch saxpy_post1 ' /tmp/fakehip.log)" = 1 ] || fail "HIP did not launch prep, main and post once each"
streams=$(awk '/^launch/ {print $(NF-2)}' /tmp/fakehip.log | sort -u)
[ "$(echo "$streams" | wc -l)" = 1 ] && [ "$streams" != "(nil)" ] && echo "all phases on the application's stream $streams" \
    || fail "phases ran on streams: $streams"
grep -q "^launch saxpy .* extra 1" /tmp/fakehip.log || fail "the \`extra\` launch did not reach HIP as \`extra\`"
if diff -r /tmp/direct/prog_nv_vector_add /tmp/zluda-out/prog_nv_vector_add > /dev/null; then
    echo "vector_add on the ZLUDA path: outputs identical to NVIDIA's direct run"
else
    fail "vector_add on the ZLUDA path: outputs differ from NVIDIA's direct run"
fi
echo "done, status $status"
exit $status
