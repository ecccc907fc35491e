#!/usr/bin/env bash
# Runs the D3D12 harness (d3d12_harness.exe) under Wine with Xvfb and Mesa's lavapipe through d4r's NGX shim,
# the open core as a Windows DLL and the bridge on libd4rcuda's cpu backend, and compares its outputs with the
# open core on Linux (ngx_frames with libd4r_ngx.so) on the same frames, byte for byte.
#   run-d3d12-harness.sh --setup --wine WINE64 --prefix DIR --scene-frames EXE --frames DIR [--frames-b DIR]
#                        [--frames-c DIR]
#       makes the Wine prefix and writes 8 frames of the city scene (32x18 -> 64x36) [and 4 at 40x24 -> 60x36]
#       [and 4 at 64x36 -> 128x72: rows D3D12 places as the core reads them, for the mapped path]
#   run-d3d12-harness.sh --wine WINE64 --prefix DIR --bridge NVCUDA.DLL.SO --lib DIR --shim D4R_NVNGX.DLL
#                        --core D4R_NGX.DLL --test-core D4R_TEST_CORE.DLL --linux-core NGX_FRAMES
#                        --reference-tool SHIM_REFERENCE --frames DIR HARNESS.EXE
#                        [HARNESS ARGS: --scenario S --color F --output F --depth F --motion F --subrect]
#                        [--watermark] [--dilation N]   (this script's: D4R_SHIM_WATERMARK=1, D4R_MOTION_DILATION=N
#                        for the shim, and the reference with the watermark drawn or the motion vectors dilated)
#                        [--env NAME=VALUE]... (for the harness) [--expect-path mapped|host] (with D4R_CUDA_TRACE:
#                        mapped: the feature made on the mapped path, the planes registered with CUDA and not one
#                        cuMemcpy; host: the host path taken, its reason logged, and cuMemcpy uploads)
#                        [--expect-converted some|none] (with --expect-path mapped: at least one plane, or none, said
#                        converted on the GPU: formats or rows that are not the core's)
#       scenarios frames, recreate, core-invalid and blocking: every output file must equal the Linux
#       reference (colour, depth and motion formats other than the canonical ones: the reference frames carry
#       those planes through the format and back, computed by shim_reference independently of the shim;
#       output formats: the reference outputs converted likewise; recreate and core-invalid: the frames
#       before and after the recreation each start from a reset); refusals, invalid, stall, requirements and
#       no-core: the harness checks the NGX results (and for stall the times) itself, this script the shim's
#       log lines
#   run-d3d12-harness.sh --skip REASON      (exit 77: ctest reports the test skipped)
set -euo pipefail

wine= prefix= bridge= lib= shim= core= test_core= linux_core= ref_tool= frames= frames_b= frames_c= scene_frames= setup=0
while [ $# -gt 0 ]; do
    case "$1" in
        --skip) echo "SKIPPED: $2"; exit 77 ;;
        --setup) setup=1; shift ;;
        --wine) wine=$2; shift 2 ;;
        --prefix) prefix=$2; shift 2 ;;
        --bridge) bridge=$2; shift 2 ;;
        --lib) lib=$2; shift 2 ;;
        --shim) shim=$2; shift 2 ;;
        --core) core=$2; shift 2 ;;
        --test-core) test_core=$2; shift 2 ;;
        --frames-b) frames_b=$2; shift 2 ;;
        --frames-c) frames_c=$2; shift 2 ;;
        --linux-core) linux_core=$2; shift 2 ;;
        --reference-tool) ref_tool=$2; shift 2 ;;
        --frames) frames=$2; shift 2 ;;
        --scene-frames) scene_frames=$2; shift 2 ;;
        -h|--help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) break ;;
    esac
done
[ -n "$wine" ] && [ -n "$prefix" ] || { echo "run-d3d12-harness.sh: --wine and --prefix are required" >&2; exit 2; }
wineserver="$(dirname "$wine")/wineserver"
export WINEPREFIX=$prefix WINEDEBUG=-all
# lavapipe only, whatever other Vulkan drivers the machine has: the results must not depend on a GPU.
export VK_ICD_FILENAMES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json

if [ "$setup" = 1 ]; then
    "$scene_frames" "$frames" city 8 32 18 64 36
    [ -z "$frames_b" ] || "$scene_frames" "$frames_b" city 4 40 24 60 36
    [ -z "$frames_c" ] || "$scene_frames" "$frames_c" city 4 64 36 128 72
    if [ -f "$prefix/system.reg" ] && [ -d "$prefix/drive_c/windows" ]; then
        echo "Wine prefix ready (kept): $prefix"; exit 0
    fi
    "$wineserver" -k >/dev/null 2>&1 || true
    rm -rf "$prefix"
    "$wine" cmd /c exit >/dev/null 2>&1 || true
    "$wineserver" -w >/dev/null 2>&1 || true
    [ -f "$prefix/system.reg" ] || { echo "could not create the Wine prefix $prefix" >&2; exit 1; }
    echo "Wine prefix ready: $prefix"; exit 0
fi

[ $# -ge 1 ] || { echo "run-d3d12-harness.sh: expected HARNESS.EXE (see --help)" >&2; exit 2; }
harness=$1
shift
scenario=frames color=rgba16f output=rgba16f depth=r32f motion=rg16f watermark=0 dilation=0 expect_path= expect_converted=
args=() # for the harness: all but this script's own --watermark, --dilation, --env and --expect-path
harness_env=()
while [ $# -gt 0 ]; do
    case "$1" in
        --watermark) watermark=1; shift; continue ;;
        --dilation) dilation=$2; shift 2; continue ;;
        --env) harness_env+=("$2"); shift 2; continue ;;
        --expect-path) expect_path=$2; shift 2; continue ;;
        --expect-converted) expect_converted=$2; shift 2; continue ;;
    esac
    args+=("$1")
    case "$1" in
        --scenario) scenario=$2; args+=("$2"); shift 2 ;;
        --color) color=$2; args+=("$2"); shift 2 ;;
        --output) output=$2; args+=("$2"); shift 2 ;;
        --depth) depth=$2; args+=("$2"); shift 2 ;;
        --motion) motion=$2; args+=("$2"); shift 2 ;;
        *) shift ;;
    esac
done
read -r _ _ _ _ count <"$frames/frames.txt"
half=$((count / 2))

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/win" "$work/out-windows" "$work/out-linux"
cp "$harness" "$shim" "$core" "$work/win/"
[ -z "$test_core" ] || cp "$test_core" "$work/win/"
ln -s "$bridge" "$work/win/nvcuda.dll"

# The Windows run: one X server for it, and Wine's processes gone before that server is.
extra_env=()
case "$scenario" in
    no-core) extra_env=(D4R_SHIM_NGX_CORE=no_such_core.dll) ;;
    # Invalid parameter at the middle frame (the shim recreates and evaluates again), then twice in a row on
    # the extra frame after the last (calls count the retry).
    core-invalid) extra_env=(D4R_SHIM_NGX_CORE=d4r_test_core.dll "D4R_TEST_CORE_FAIL=$half,$((count + 1)),$((count + 2))") ;;
    stall) extra_env=(D4R_SHIM_NGX_CORE=d4r_test_core.dll D4R_TEST_CORE_STALL=1 D4R_SHIM_MAX_IN_FLIGHT=1) ;;
    blocking) extra_env=(D4R_SHIM_BLOCKING_SYNC=1) ;;
esac
[ "$watermark" = 0 ] || extra_env+=(D4R_SHIM_WATERMARK=1)
[ "$dilation" = 0 ] || extra_env+=("D4R_MOTION_DILATION=$dilation")
extra_env+=("${harness_env[@]}")
[ -z "$expect_path" ] || extra_env+=(D4R_CUDA_TRACE=1)
run_harness() {
    status=0
    xvfb-run -a -e "$work/xvfb.err" bash -c '"$@"; s=$?; "'"$wineserver"'" -w; exit $s' run \
        env -u LD_LIBRARY_PATH D4R_RUNTIME_DIR="$lib" D4R_CUDA_BACKEND=cpu D4R_LOG=info PROGRAM_OUT="$work/out-windows" \
        "${extra_env[@]}" "$wine" "$work/win/$(basename "$harness")" "$frames" "${args[@]}" \
        >"$work/windows.raw" 2>"$work/windows.err" || status=$?
}
run_harness
# A run that failed before the harness printed or logged anything did not start (seen once in CI: exit 1
# after 0.13 s with no output at all, e.g. two `xvfb-run -a` picking the same display): say so, with
# Xvfb's log, and run it once more. A harness that ran and failed is never retried.
if [ "$status" != 0 ] && [ "$status" != 77 ] && [ ! -s "$work/windows.raw" ] && [ ! -s "$work/windows.err" ]; then
    echo "the run under Xvfb and Wine exited with $status before the harness wrote anything; Xvfb's log:"
    cat "$work/xvfb.err" 2>/dev/null
    echo "starting it once more"
    sleep 1
    run_harness
fi
tr -d '\r' <"$work/windows.raw" >"$work/windows.txt"
cat "$work/windows.txt"
if [ "$status" = 77 ]; then exit 77; fi # the harness said SKIPPED and why
if [ "$status" != 0 ]; then
    echo "the harness under Wine exited with $status; its stderr (the shim's log):"; cat "$work/windows.err"; exit 1
fi
grep -q "shim: .*NGX core" "$work/windows.err" || { echo "the shim did not log which NGX core it loads:"; cat "$work/windows.err"; exit 1; }
# In a game the kernel watchdog is on unless the user set D4R_CPU_WATCHDOG_MS; the cpu backend says so.
if [ "$scenario" != no-core ]; then
    grep -q "shim: kernel watchdog on: D4R_CPU_WATCHDOG_MS=10000" "$work/windows.err" &&
        grep -q "cpu backend: watchdog on: a launch running longer than 10000 ms" "$work/windows.err" ||
        { echo "the kernel watchdog was not turned on by the shim:"; cat "$work/windows.err"; exit 1; }
fi

expect_lines() { # PATTERN...: each must be in the shim's log
    local line
    for line in "$@"; do
        grep -q -- "$line" "$work/windows.err" || { echo "no log line matching '$line':"; cat "$work/windows.err"; exit 1; }
    done
}
case "$scenario" in
    invalid)
        expect_lines "evaluation refused: Color .*only single-sample 2D textures are accepted (refusal 1)" \
            "evaluation refused: Depth 32x18 R8G8B8A8_UNORM (28): unsupported format (refusal 2)" \
            "evaluation refused: Output is missing (refusal 3)"
        if grep -q "refusal 4)" "$work/windows.err"; then
            echo "the fourth refusal was logged (only the first 3, then every 120th, should be):"; cat "$work/windows.err"; exit 1
        fi
        echo "invalid: NGX errors and log lines as expected (the 4th refusal not logged), no crash"; exit 0 ;;
    stall)
        expect_lines "shim: the evaluation has not finished after 200 ms" \
            "shim: the evaluation did not finish within 5000 ms: given up" \
            "evaluations are outstanding on the CUDA worker (D4R_SHIM_MAX_IN_FLIGHT=1)" \
            "frame dropped: 1 tasks still outstanding" \
            "ReleaseFeature: the CUDA worker is stuck in a stalled task" \
            "Shutdown: the CUDA worker is stuck in a stalled task"
        echo "stall: the stalled evaluation was reported and given up, the next frame dropped, release and shutdown did not wait"
        exit 0 ;;
    core-invalid)
        expect_lines "the core answered invalid parameter (0xbad00005); the core's feature was recreated with the same creation parameters and the frame evaluated again: ok" \
            "the frame failed again: 0xbad00005 returned to the game" ;;
    blocking)
        expect_lines "output wait: blocking event"
        if grep -q "D4R_SHIM_BLOCKING_SYNC: " "$work/windows.err"; then
            echo "the blocking output wait fell back:"; cat "$work/windows.err"; exit 1
        fi ;;
esac
# The shim's own passes say once that they are on, and only then.
if [ "$watermark" = 1 ]; then expect_lines "shim: watermark on (D4R_SHIM_WATERMARK)"
elif grep -q "shim: watermark on" "$work/windows.err"; then echo "the watermark is on unasked:"; cat "$work/windows.err"; exit 1; fi
if [ "$dilation" != 0 ]; then
    expect_lines "shim: motion-vector dilation on: D4R_MOTION_DILATION=$dilation"
    [ "$(grep -c "motion-vector dilation on" "$work/windows.err")" = 1 ] ||
        { echo "the dilation was logged more than once:"; cat "$work/windows.err"; exit 1; }
elif grep -q "motion-vector dilation on" "$work/windows.err"; then echo "dilation is on unasked:"; cat "$work/windows.err"; exit 1; fi
# The data path (D4R_CUDA_TRACE: every CUDA call the shim and the core made, in its log).
copies=$(grep -c "CUDA_TRACE cuMemcpy" "$work/windows.err" || true)
registered=$(grep -c "CUDA_TRACE cuMemHostRegister.*= CUDA_SUCCESS" "$work/windows.err" || true)
case "$expect_path" in
    mapped)
        expect_lines "shim: CreateFeature .* data path mapped"
        if [ "$copies" != 0 ] || [ "$registered" != 5 ]; then
            echo "expected the 5 planes' D3D12 buffers registered with CUDA and no cuMemcpy; the trace has $registered" \
                "registrations and $copies copies"; grep "CUDA_TRACE cuMem\(cpy\|Host\)" "$work/windows.err" | head -20; exit 1
        fi
        converted=$(grep -c "shim: D3D12 mapped path: the .* is converted on the GPU" "$work/windows.err" || true)
        case "$expect_converted" in
            some) [ "$converted" != 0 ] || { echo "expected planes converted on the GPU; none said so"; exit 1; } ;;
            none) [ "$converted" = 0 ] || { echo "expected no plane converted on the GPU; $converted said so"; exit 1; } ;;
            '') ;;
            *) echo "run-d3d12-harness.sh: --expect-converted some or none, not '$expect_converted'" >&2; exit 2 ;;
        esac
        echo "mapped path check: zero copies, the 5 planes' D3D12 buffers registered with CUDA, no cuMemcpy," \
            "$converted plane(s) converted on the GPU (D4R_CUDA_TRACE)" ;;
    host)
        expect_lines "shim: D3D12: the host path (the frame's texels copied and converted by the CPU): "
        [ "$copies" != 0 ] || { echo "expected the host path's cuMemcpy uploads in the trace, found none"; exit 1; }
        echo "host path check: $copies cuMemcpy calls in the trace ($(grep -m1 -o "the host path (.*" "$work/windows.err"))" ;;
    '') ;;
    *) echo "run-d3d12-harness.sh: --expect-path mapped or host, not '$expect_path'" >&2; exit 2 ;;
esac
case "$scenario" in
    refusals)
        for line in "evaluation refused: Color 32x18 DXGI format 61: unsupported format" \
                    "evaluation refused: Color is missing" "evaluation refused: Color 16x18 .*lies outside it"; do
            grep -q "$line" "$work/windows.err" || { echo "no log line matching '$line':"; cat "$work/windows.err"; exit 1; }
        done
        echo "refusals: NGX errors and log lines as expected, no crash"; exit 0 ;;
    requirements)
        expect_lines "shim: NVSDK_NGX_D3D12_GetFeatureRequirements: SuperSampling supported (SDK version 0x15)"
        echo "requirements: SuperSampling supported, another feature not implemented, null pointers refused, no crash"
        exit 0 ;;
    no-core)
        grep -q "loading the NGX core: cannot load no_such_core.dll" "$work/windows.err" ||
            { echo "no log line saying the core could not be loaded:"; cat "$work/windows.err"; exit 1; }
        echo "no-core: Init failed cleanly with a log line"; exit 0 ;;
esac

# The Linux reference: the open core on the same frames (colour through the format and back when it is not
# RGBA16F); for recreate, two runs (the frames before and after the recreation each start from a reset).
ref_frames=$frames
if [ "$color" != rgba16f ] || [ "$depth" != r32f ] || [ "$motion" != rg16f ]; then
    "$ref_tool" frames "$frames" "$work/ref-frames" "$color" "$depth" "$motion" >/dev/null
    ref_frames=$work/ref-frames
fi
run_linux() { # FRAMES_DIR OUT_DIR
    LD_LIBRARY_PATH="$lib" D4R_CUDA_BACKEND=cpu PROGRAM_OUT="$2" "$linux_core" "$1" >"$work/linux.txt" 2>"$work/linux.err" ||
        { echo "the Linux reference exited with an error:"; cat "$work/linux.txt" "$work/linux.err"; exit 1; }
}
if [ "$dilation" != 0 ]; then # what the core must see: the motion vectors dilated (and the dilation must matter)
    "$ref_tool" dilate "$ref_frames" "$work/ref-dilated" "$dilation" | tee "$work/dilate.txt"
    if grep -q ": 0 vectors changed" "$work/dilate.txt"; then echo "the dilation changes nothing on these frames"; exit 1; fi
    ref_frames=$work/ref-dilated
fi
read -r rw rh ow oh count <"$ref_frames/frames.txt"
if [ "$scenario" = recreate ] || [ "$scenario" = core-invalid ]; then
    mkdir -p "$work/part0" "$work/part1" "$work/out0" "$work/out1"
    echo "$rw $rh $ow $oh $half" >"$work/part0/frames.txt"
    echo "$rw $rh $ow $oh $((count - half))" >"$work/part1/frames.txt"
    for ((i = 0; i < count; i++)); do
        if [ $i -lt $half ]; then cp "$ref_frames/frame_$i.bin" "$work/part0/frame_$i.bin"
        else cp "$ref_frames/frame_$i.bin" "$work/part1/frame_$((i - half)).bin"; fi
    done
    run_linux "$work/part0" "$work/out0"
    run_linux "$work/part1" "$work/out1"
    for ((i = 0; i < count; i++)); do
        if [ $i -lt $half ]; then cp "$work/out0/frame_$i.bin" "$work/out-linux/"
        else cp "$work/out1/frame_$((i - half)).bin" "$work/out-linux/frame_$i.bin"; fi
    done
else
    run_linux "$ref_frames" "$work/out-linux"
fi
expected=$work/out-linux
# With the watermark the shim draws it into the core's RGBA16F output before converting it to the output format.
[ "$watermark" = 0 ] || "$ref_tool" watermark "$work/out-linux" "$ow" "$oh"
if [ "$output" != rgba16f ]; then
    "$ref_tool" output "$work/out-linux" "$work/out-linux-$output" "$output" >/dev/null
    expected=$work/out-linux-$output
fi
n=$(ls "$work/out-windows" | wc -l)
if [ "$n" != "$count" ]; then echo "expected $count output files from the harness, found $n"; exit 1; fi
if ! diff -r "$expected" "$work/out-windows"; then
    echo "the shim's outputs differ from the open core's on Linux (colour $color, output $output)"; exit 1
fi
echo "$scenario: $count frames ${rw}x${rh} -> ${ow}x${oh} through the shim under Wine (colour $color, depth $depth, motion $motion, output $output) equal the Linux core byte for byte"
