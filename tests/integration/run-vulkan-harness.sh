#!/usr/bin/env bash
# Runs the Vulkan harness (vulkan_harness, a native Linux Vulkan program) on Mesa's lavapipe through the Vulkan front
# end of d4r's NGX shim (libd4r_nvngx.so) with the open core and libd4rcuda's cpu backend, and compares its outputs
# with the open core's own run on the same frames (ngx_frames with libd4r_ngx.so), byte for byte.
#   run-vulkan-harness.sh --lib DIR --shim LIBD4R_NVNGX.SO --scene-frames EXE --frames DIR --ngx-frames EXE
#                         --reference-tool SHIM_REFERENCE [--env NAME=VALUE]... [--uuid-layer DIR]
#                         HARNESS [HARNESS ARGS: --scenario frames|refusals|timing --repeat N --color F --output F
#                                  --depth F --motion F]
#       --lib: libd4rcuda.so as libcuda.so.1 and libd4r_ngx.so (build/lib); the harness and the reference run with
#              it as LD_LIBRARY_PATH, D4R_CUDA_BACKEND=cpu, and lavapipe as the only Vulkan driver
#       --frames: the scene frames; when DIR has none, EXE (bridge_scene_frames) writes 8 frames of the city scene
#              there (32x18 -> 64x36) first, one run at a time
#       --ngx-frames: the Linux reference (bridge_ngx_frames), the open core through its NGX CUDA API
#       --reference-tool: shim_reference, as for run-d3d12-harness.sh: colour, depth or motion formats other than
#              the canonical ones make the reference frames carry those planes through the format and back, and
#              an output format other than rgba16f converts the reference outputs into it (the bytes the shim
#              must write)
#       --env NAME=VALUE: added to the harness's environment (repeatable, also among the harness arguments), e.g.
#              D4R_SHIM_VRAM_INTEROP=0 for the front end's CPU-staging path
#       --uuid-layer DIR: the folder of VK_LAYER_D4R_test_other_uuid's manifest (vulkan/uuid_layer.cpp; also among
#              the harness arguments), enabled for the harness (VK_ADD_LAYER_PATH, VK_INSTANCE_LAYERS) so that the
#              program's Vulkan device reports a deviceUUID that no CUDA device has, as a GPU that is not a CUDA
#              device would: the shim must say so (no CUDA device has the UUID), take the host path for every frame
#              (its reason in the log, no Vulkan memory imported into CUDA), and the outputs must still be equal
#       scenarios: frames — every frame_<i>.bin the harness wrote must equal the reference's; refusals — the harness
#       checks the refusals itself, and its one good frame after them (frame 0, with Reset) must equal the
#       reference's frame 0; timing — the harness must print its timing line (the figures themselves are not
#       judged: lavapipe and the cpu backend say nothing of a GPU's speed), and the path check below holds
#       The CUDA trace (D4R_CUDA_TRACE) is checked too: with D4R_SHIM_VRAM_INTEROP not 0 the VRAM path must run
#       with zero copies (the 5 planes mapped from Vulkan memory, no cuMemcpy), converting the formats that are not
#       canonical (colour and output rgba16f, depth r32f or d32f, motion rg16f) on the GPU (d4r_shim_*_canonical
#       launches, none when every format is canonical); with it 0 (or with --uuid-layer) the CPU-staging path must
#       show at least one cuMemcpy (the host uploads). The line printed says which check ran.
#   run-vulkan-harness.sh --skip REASON      (exit 77: ctest reports the test skipped)
# Exit 0 with a line saying what was compared, 77 when the harness says SKIPPED, 1 on any difference or failure.
set -euo pipefail

lib='' shim='' scene_frames='' frames='' ngx_frames='' ref_tool='' uuid_layer=''
harness_env=() # NAME=VALUE for the harness (--env)
add_env() {
    [[ "$1" =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] ||
        { echo "run-vulkan-harness.sh: --env expects NAME=VALUE, got '$1'" >&2; exit 2; }
    harness_env+=("$1")
}
while [ $# -gt 0 ]; do
    case "$1" in
        --skip) echo "SKIPPED: $2"; exit 77 ;;
        --lib) lib=$2; shift 2 ;;
        --shim) shim=$2; shift 2 ;;
        --scene-frames) scene_frames=$2; shift 2 ;;
        --frames) frames=$2; shift 2 ;;
        --ngx-frames) ngx_frames=$2; shift 2 ;;
        --reference-tool) ref_tool=$2; shift 2 ;;
        --env) add_env "$2"; shift 2 ;;
        --uuid-layer) uuid_layer=$2; shift 2 ;;
        -h|--help) sed -n '2,35p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "run-vulkan-harness.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
        *) break ;;
    esac
done
for need in lib shim scene_frames frames ngx_frames ref_tool; do
    [ -n "${!need}" ] || { echo "run-vulkan-harness.sh: --${need//_/-} is required (see --help)" >&2; exit 2; }
done
[ $# -ge 1 ] || { echo "run-vulkan-harness.sh: expected the harness program (see --help)" >&2; exit 2; }
harness=$1
shift
scenario=frames color=rgba16f output=rgba16f depth=r32f motion=rg16f
args=() # for the harness: all but this script's own --env and --uuid-layer
while [ $# -gt 0 ]; do
    if [ "$1" = --env ]; then add_env "${2-}"; shift 2; continue; fi
    if [ "$1" = --uuid-layer ]; then uuid_layer=${2-}; shift 2; continue; fi
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
# The path the front end must take: the VRAM path (zero copies) only with every format canonical and
# D4R_SHIM_VRAM_INTEROP not 0 (the last --env wins over the environment this script runs in).
interop=${D4R_SHIM_VRAM_INTEROP-}
for e in "${harness_env[@]}"; do
    case "$e" in D4R_SHIM_VRAM_INTEROP=*) interop=${e#*=} ;; esac
done
vram=1 converted=1
case "$color/$output/$depth/$motion" in
    rgba16f/rgba16f/r32f/rg16f | rgba16f/rgba16f/d32f/rg16f) converted=0 ;;
esac
[ "$interop" != 0 ] || vram=0
[ -z "$uuid_layer" ] || vram=0 # no CUDA device is the program's GPU: no frame may share memory with CUDA
formats="colour $color, depth $depth, motion $motion, output $output"
[ ${#harness_env[@]} = 0 ] || formats+=", with ${harness_env[*]}"
[ -z "$uuid_layer" ] || formats+=", the Vulkan device's UUID changed by VK_LAYER_D4R_test_other_uuid"

# lavapipe only, whatever other Vulkan drivers the machine has: the results must not depend on a GPU.
lavapipe=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json
[ -f "$lavapipe" ] || { echo "Mesa's lavapipe is not installed: $lavapipe (install-deps.sh --for test)"; exit 1; }
[ -f "$shim" ] || { echo "the Vulkan front end $shim is not built"; exit 1; }
for program in "$harness" "$ngx_frames" "$scene_frames" "$ref_tool"; do
    [ -x "$program" ] || { echo "$program is not built"; exit 1; }
done
uuid_layer_name=VK_LAYER_D4R_test_other_uuid
if [ -n "$uuid_layer" ] && [ ! -f "$uuid_layer/$uuid_layer_name.json" ]; then
    echo "--uuid-layer: $uuid_layer has no $uuid_layer_name.json (the layer is built with the Vulkan tests)"; exit 1
fi

# The frames, written once: under a lock (the tests share them and may run at once), into a folder of their own
# whose files then move into DIR, frames.txt last (a DIR with frames.txt is complete).
frames_complete() {
    [ -f "$frames/frames.txt" ] || return 1
    local n
    read -r _ _ _ _ n <"$frames/frames.txt"
    [ -f "$frames/frame_$((n - 1)).bin" ]
}
mkdir -p "$frames"
exec 9>"$frames/.lock"
flock 9
if ! frames_complete; then
    rm -rf "$frames/.new"
    "$scene_frames" "$frames/.new" city 8 32 18 64 36 >/dev/null
    mv "$frames/.new"/frame_*.bin "$frames/"
    mv "$frames/.new/frames.txt" "$frames/"
    rm -rf "$frames/.new"
fi
flock -u 9
read -r rw rh ow oh count <"$frames/frames.txt"

work=$(mktemp -d)
trap '[ -n "${D4R_KEEP_WORK:-}" ] || rm -rf "$work"' EXIT
mkdir -p "$work/out-vulkan" "$work/out-linux"

status=0
# D4R_CUDA_TRACE: every CUDA call the shim and the core make, in the log file, for the zero-copy check below.
# The shim's log goes to the same file (D4R_LOG_FILE), so that file less the CUDA_TRACE lines is the shim's log.
shim_log() {
    echo "the harness's stderr:"; cat "$work/vulkan.err"
    echo "the shim's log (D4R_LOG_FILE, CUDA_TRACE lines left out):"
    grep -v "CUDA_TRACE" "$work/cuda.log" 2>/dev/null | tail -40 || true
}
# Khronos's validation layer where it is installed (vulkan-validationlayers, scripts/install-deps.sh --for test):
# every command the front end records into the program's command buffer is checked, and any error fails the case.
layers=()
instance_layers=()
if [ -e /usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json ]; then
    instance_layers=(VK_LAYER_KHRONOS_validation)
else
    echo "note: Khronos's validation layer is not installed (vulkan-validationlayers): the commands are not validated"
fi
# --uuid-layer: the layer is in every instance of the harness's process (the cpu backend makes one too, to read
# lavapipe's UUID) and changes the UUID only in the instances of the application it is told, the harness's
# ("vulkan_harness", its VkApplicationInfo), so that the cpu backend still reports lavapipe's own (uuid_layer.cpp).
# VK_ADD_LAYER_PATH, not VK_LAYER_PATH: the validation layer is still found where it is installed.
if [ -n "$uuid_layer" ]; then
    instance_layers+=("$uuid_layer_name")
    layers+=(VK_ADD_LAYER_PATH="$uuid_layer" D4R_TEST_UUID_LAYER_APPLICATION=vulkan_harness)
fi
if [ ${#instance_layers[@]} != 0 ]; then
    layers+=(VK_INSTANCE_LAYERS="$(IFS=:; echo "${instance_layers[*]}")")
fi
env LD_LIBRARY_PATH="$lib" D4R_CUDA_BACKEND=cpu D4R_LOG=info D4R_CUDA_TRACE=1 D4R_LOG_FILE="$work/cuda.log" \
    VK_ICD_FILENAMES="$lavapipe" "${layers[@]}" "${harness_env[@]}" \
    "$harness" --shim "$shim" "$frames" --out "$work/out-vulkan" "${args[@]}" \
    >"$work/vulkan.txt" 2>"$work/vulkan.err" || status=$?
cat "$work/vulkan.txt"
if [ "$status" = 77 ]; then exit 77; fi # the harness said SKIPPED and why
if grep -q "Validation Error" "$work/vulkan.txt" "$work/vulkan.err"; then
    echo "the validation layer reported errors:"; grep -h -A3 "Validation Error" "$work/vulkan.txt" "$work/vulkan.err" | head -40
    exit 1
fi
[ "${instance_layers[0]-}" != VK_LAYER_KHRONOS_validation ] || echo "validation layer: no errors"
if [ -z "$uuid_layer" ]; then
    # The front end evaluates on the CUDA device that is the program's GPU: the cpu backend reports lavapipe's UUID.
    if ! grep -q "shim: CUDA device [0-9]* is the game's GPU (the same UUID)" "$work/cuda.log"; then
        echo "the shim did not find the CUDA device with the Vulkan device's UUID"; shim_log; exit 1
    fi
else
    # The layer changed the harness's device's UUID, so no CUDA device has it: device 0 evaluates, and the shim
    # says that no frame shares memory with it; every frame takes the host path, which says why.
    if ! grep -q "^$uuid_layer_name: instance of 'vulkan_harness': its devices report another deviceUUID" \
        "$work/vulkan.err"; then
        echo "$uuid_layer_name did not change the UUID of the harness's Vulkan device (not loaded?)"; shim_log; exit 1
    fi
    if ! grep -q "shim: no CUDA device has the UUID of the game's GPU: CUDA device 0 evaluates, and no frame shares memory with it" \
        "$work/cuda.log" || grep -q "is the game's GPU (the same UUID)" "$work/cuda.log"; then
        echo "the shim did not say that no CUDA device has the Vulkan device's UUID"; shim_log; exit 1
    fi
    if ! grep -q "shim: Vulkan front end: the host path (.*): no CUDA device has the UUID of the game's GPU (said once)" \
        "$work/cuda.log"; then
        echo "the shim did not say that the frames take the host path because no CUDA device has the UUID"
        shim_log; exit 1
    fi
    echo "UUID check: the harness's Vulkan device has a UUID that no CUDA device has ($uuid_layer_name); the shim" \
        "said so, and that the frames take the host path"
fi
# D4R_SHIM_BLOCKING_SYNC=1: the core waited for on a blocking-sync event (cuEventSynchronize: no Wine bridge here).
case " ${harness_env[*]-} " in
    *" D4R_SHIM_BLOCKING_SYNC=1 "*)
        grep -q "waiting with cuEventSynchronize on a blocking-sync event" "$work/cuda.log" &&
            grep -q "CUDA_TRACE cuEventSynchronize" "$work/cuda.log" ||
            { echo "D4R_SHIM_BLOCKING_SYNC=1: no wait on a blocking-sync event in the log"; shim_log; exit 1; }
        echo "blocking-sync check: the core waited for with cuEventSynchronize on a blocking-sync event" ;;
esac
if [ "$status" != 0 ]; then
    echo "the harness exited with $status ($formats)"
    grep -h "evaluation refused" "$work/cuda.log" 2>/dev/null | head -3 | sed 's/^/the front end: /' || true
    shim_log
    exit 1
fi

# The Linux reference: the open core on the same frames, with colour, depth and motion through their formats and
# back when they are not the canonical ones (D32_SFLOAT holds R32F's float bits: the same frames).
ref_frames=$frames
if [ "$color" != rgba16f ] || [ "$depth" != r32f ] || [ "$motion" != rg16f ]; then
    "$ref_tool" frames "$frames" "$work/ref-frames" "$color" "$depth" "$motion" >/dev/null
    ref_frames=$work/ref-frames
fi
LD_LIBRARY_PATH="$lib" D4R_CUDA_BACKEND=cpu PROGRAM_OUT="$work/out-linux" "$ngx_frames" "$ref_frames" \
    >"$work/linux.txt" 2>"$work/linux.err" ||
    { echo "the Linux reference exited with an error:"; cat "$work/linux.txt" "$work/linux.err"; exit 1; }
expected_dir=$work/out-linux
if [ "$output" != rgba16f ]; then # the bytes the shim must write into an output image of that format
    "$ref_tool" output "$work/out-linux" "$work/out-linux-$output" "$output" >/dev/null
    expected_dir=$work/out-linux-$output
fi

expected=$count
[ "$scenario" != refusals ] || expected=1
if [ "$scenario" = timing ]; then
    expected=0
    grep -Eq "^timing: [0-9]+ evaluations .*: GPU ms median [0-9.]+ mean [0-9.]+, end to end ms median [0-9.]+ mean [0-9.]+$" \
        "$work/vulkan.txt" || { echo "the harness printed no timing line"; exit 1; }
fi
n=$(find "$work/out-vulkan" -name 'frame_*.bin' | wc -l)
if [ "$n" != "$expected" ]; then
    echo "expected $expected output files from the harness, found $n"; ls -l "$work/out-vulkan"; exit 1
fi
for ((i = 0; i < expected; i++)); do
    if ! cmp "$expected_dir/frame_$i.bin" "$work/out-vulkan/frame_$i.bin"; then
        echo "frame $i through the Vulkan front end differs from the open core's on Linux ($formats)"
        shim_log; exit 1
    fi
done
mapped=$(grep -c "CUDA_TRACE cuExternalMemoryGetMappedBuffer(.*= CUDA_SUCCESS" "$work/cuda.log" || true)
copies=$(grep -c "CUDA_TRACE cuMemcpy" "$work/cuda.log" || true)
if [ "$vram" = 1 ]; then
    # Zero copies on the CUDA side: the five planes are Vulkan memory imported and mapped into CUDA (the cpu
    # backend maps the very pages lavapipe exported), and no cuMemcpy* of any kind moves a frame.
    if [ "$mapped" != 5 ] || [ "$copies" != 0 ]; then
        echo "expected the 5 planes mapped from Vulkan memory and no cuMemcpy; the trace has $mapped mapped buffers" \
            "and $copies copies"; grep "CUDA_TRACE cu\(Memcpy\|ExternalMemory\|Import\)" "$work/cuda.log" | head -20
        exit 1
    fi
    # Formats that are not canonical are converted on the GPU (the shim's d4r_shim_*_canonical kernels), not on the CPU.
    # (the trace names the kernels the shim looks up, and the shim says which plane it converts).
    kernels=$(grep -c 'CUDA_TRACE cuModuleGetFunction(.*name="d4r_shim_\(to\|from\)_canonical")' "$work/cuda.log" || true)
    said=$(grep -c "shim: Vulkan VRAM path: the .* is converted on the GPU" "$work/cuda.log" || true)
    if [ "$converted" = 1 ] && { [ "$kernels" != 2 ] || [ "$said" = 0 ]; }; then
        echo "expected the VRAM path to convert ($formats) on the GPU: $kernels conversion kernels looked up, $said" \
            "planes said converted"; exit 1
    fi
    if [ "$converted" = 0 ] && [ "$kernels$said" != 00 ]; then
        echo "expected no GPU conversion with every format canonical: $kernels kernels looked up, $said said"; exit 1
    fi
    echo "VRAM path check: zero copies, 5 planes in Vulkan memory mapped into CUDA, no cuMemcpy, $said plane(s)" \
        "converted on the GPU (D4R_CUDA_TRACE)"
else
    # The CPU-staging path: the planes reach CUDA through host copies.
    if [ "$copies" = 0 ]; then
        echo "expected the CPU-staging path ($formats): at least one cuMemcpy in the trace, found none" \
            "($mapped mapped buffers)"
        grep "CUDA_TRACE cu\(Memcpy\|ExternalMemory\|Import\)" "$work/cuda.log" | head -20
        exit 1
    fi
    # No CUDA device is the program's GPU: no Vulkan memory may be imported into CUDA at all.
    imported=$(grep -c "CUDA_TRACE cuImportExternalMemory" "$work/cuda.log" || true)
    if [ -n "$uuid_layer" ] && [ "$imported$mapped" != 00 ]; then
        echo "expected no Vulkan memory in CUDA with the UUIDs differing: $imported imported, $mapped mapped"
        grep "CUDA_TRACE cu\(ExternalMemory\|Import\)" "$work/cuda.log" | head -20
        exit 1
    fi
    echo "CPU-staging path check: $copies cuMemcpy calls in the trace, host staging uploads ($mapped mapped" \
        "buffers) (D4R_CUDA_TRACE)"
fi
echo "vulkan $scenario: $expected frames ${rw}x${rh} -> ${ow}x${oh} through the Vulkan front end" \
    "equal the Linux core byte for byte ($formats)"
