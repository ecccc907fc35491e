#!/usr/bin/env bash
# Runs the Vulkan harness (vulkan_harness, a native Linux Vulkan program) on Mesa's lavapipe through the Vulkan front
# end of d4r's NGX shim (libd4r_nvngx.so) with the open core and libd4rcuda's cpu backend, and compares its outputs
# with the open core's own run on the same frames (ngx_frames with libd4r_ngx.so), byte for byte.
#   run-vulkan-harness.sh --lib DIR --shim LIBD4R_NVNGX.SO --scene-frames EXE --frames DIR --ngx-frames EXE
#                         HARNESS [HARNESS ARGS: --scenario frames|refusals --depth r32f|d32f]
#       --lib: libd4rcuda.so as libcuda.so.1 and libd4r_ngx.so (build/lib); the harness and the reference run with
#              it as LD_LIBRARY_PATH, D4R_CUDA_BACKEND=cpu, and lavapipe as the only Vulkan driver
#       --frames: the scene frames; when DIR has none, EXE (bridge_scene_frames) writes 8 frames of the city scene
#              there (32x18 -> 64x36) first, one run at a time
#       --ngx-frames: the Linux reference (bridge_ngx_frames), the open core through its NGX CUDA API
#       scenarios: frames — every frame_<i>.bin the harness wrote must equal the reference's; refusals — the harness
#       checks the refusals itself, and its one good frame after them (frame 0, with Reset) must equal the
#       reference's frame 0
#   run-vulkan-harness.sh --skip REASON      (exit 77: ctest reports the test skipped)
# Exit 0 with a line saying what was compared, 77 when the harness says SKIPPED, 1 on any difference or failure.
set -euo pipefail

lib='' shim='' scene_frames='' frames='' ngx_frames=''
while [ $# -gt 0 ]; do
    case "$1" in
        --skip) echo "SKIPPED: $2"; exit 77 ;;
        --lib) lib=$2; shift 2 ;;
        --shim) shim=$2; shift 2 ;;
        --scene-frames) scene_frames=$2; shift 2 ;;
        --frames) frames=$2; shift 2 ;;
        --ngx-frames) ngx_frames=$2; shift 2 ;;
        -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "run-vulkan-harness.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
        *) break ;;
    esac
done
for need in lib shim scene_frames frames ngx_frames; do
    [ -n "${!need}" ] || { echo "run-vulkan-harness.sh: --${need//_/-} is required (see --help)" >&2; exit 2; }
done
[ $# -ge 1 ] || { echo "run-vulkan-harness.sh: expected the harness program (see --help)" >&2; exit 2; }
harness=$1
shift
args=("$@")
scenario=frames depth=r32f
while [ $# -gt 0 ]; do
    case "$1" in
        --scenario) scenario=$2; shift 2 ;;
        --depth) depth=$2; shift 2 ;;
        *) shift ;;
    esac
done

# lavapipe only, whatever other Vulkan drivers the machine has: the results must not depend on a GPU.
lavapipe=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json
[ -f "$lavapipe" ] || { echo "Mesa's lavapipe is not installed: $lavapipe (install-deps.sh --for test)"; exit 1; }
[ -f "$shim" ] || { echo "the Vulkan front end $shim is not built"; exit 1; }
for program in "$harness" "$ngx_frames" "$scene_frames"; do
    [ -x "$program" ] || { echo "$program is not built"; exit 1; }
done

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
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/out-vulkan" "$work/out-linux"

status=0
# D4R_CUDA_TRACE: every CUDA call the shim and the core make, in the log file, for the zero-copy check below.
LD_LIBRARY_PATH="$lib" D4R_CUDA_BACKEND=cpu D4R_LOG=info D4R_CUDA_TRACE=1 D4R_LOG_FILE="$work/cuda.log" \
    VK_ICD_FILENAMES="$lavapipe" "$harness" --shim "$shim" "$frames" --out "$work/out-vulkan" "${args[@]}" \
    >"$work/vulkan.txt" 2>"$work/vulkan.err" || status=$?
cat "$work/vulkan.txt"
if [ "$status" = 77 ]; then exit 77; fi # the harness said SKIPPED and why
if [ "$status" != 0 ]; then
    echo "the harness exited with $status; its stderr (the shim's log):"; cat "$work/vulkan.err"; exit 1
fi

# The Linux reference: the open core on the same frames (depth R32F; D32_SFLOAT holds the same float bits).
LD_LIBRARY_PATH="$lib" D4R_CUDA_BACKEND=cpu PROGRAM_OUT="$work/out-linux" "$ngx_frames" "$frames" \
    >"$work/linux.txt" 2>"$work/linux.err" ||
    { echo "the Linux reference exited with an error:"; cat "$work/linux.txt" "$work/linux.err"; exit 1; }

expected=$count
[ "$scenario" != refusals ] || expected=1
n=$(find "$work/out-vulkan" -name 'frame_*.bin' | wc -l)
if [ "$n" != "$expected" ]; then
    echo "expected $expected output files from the harness, found $n"; ls -l "$work/out-vulkan"; exit 1
fi
for ((i = 0; i < expected; i++)); do
    if ! cmp "$work/out-linux/frame_$i.bin" "$work/out-vulkan/frame_$i.bin"; then
        echo "frame $i through the Vulkan front end differs from the open core's on Linux (depth $depth)"
        echo "the harness's stderr (the shim's log):"; cat "$work/vulkan.err"; exit 1
    fi
done
# Zero copies on the CUDA side: the five planes are Vulkan memory imported and mapped into CUDA (the cpu backend maps
# the very pages lavapipe exported), and no cuMemcpy* of any kind moves a frame.
mapped=$(grep -c "CUDA_TRACE cuExternalMemoryGetMappedBuffer(.*= CUDA_SUCCESS" "$work/cuda.log" || true)
copies=$(grep -c "CUDA_TRACE cuMemcpy" "$work/cuda.log" || true)
if [ "$mapped" != 5 ] || [ "$copies" != 0 ]; then
    echo "expected the 5 planes mapped from Vulkan memory and no cuMemcpy; the trace has $mapped mapped buffers" \
        "and $copies copies"; grep "CUDA_TRACE cu\(Memcpy\|ExternalMemory\|Import\)" "$work/cuda.log" | head -20
    exit 1
fi
echo "zero copies: 5 planes in Vulkan memory mapped into CUDA, no cuMemcpy (D4R_CUDA_TRACE)"
echo "vulkan $scenario: $expected frames ${rw}x${rh} -> ${ow}x${oh} through the Vulkan front end" \
    "equal the Linux core byte for byte (depth $depth)"
