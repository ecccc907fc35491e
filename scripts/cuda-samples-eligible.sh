#!/usr/bin/env bash
# Decides which NVIDIA cuda-samples programs need only the CUDA runtime and driver (issue 28 item 5).
#   scripts/cuda-samples-eligible.sh --samples DIR [--excluded]
#     --samples DIR   a checkout of github.com/NVIDIA/cuda-samples (holds Samples/)
#     --excluded      print the excluded samples instead: "name<TAB>reason" lines
#     --help          this text
# Prints the eligible sample names, one a line, sorted (the sweep list, tests/samples/sweep-list.txt).
# A sample is a folder Samples/CATEGORY/NAME (or deeper, under 8_Platform_Specific) with a CMakeLists.txt.
# Excluded, first rule that matches: platform-specific (8_Platform_Specific: Tegra, cuDLA, NvSci);
# graphics interop (OpenGL/GLUT/GLES, EGL, Vulkan/GLFW, D3D, X11) from its CMakeLists or #includes;
# a CUDA host library other than the runtime, driver and compilers (NPP, cuBLAS, cuFFT, cuSOLVER, cuRAND,
# cuSPARSE, nvJPEG, NvSci), FreeImage or LLVM (cuda-c-linking builds its IR with LLVM's C++ API), from
# CUDA::<lib> targets, find_package or #includes; MPI; IPC
# between processes (cudaIpc*, cuIpc*, shareable handles); a second GPU (peer-to-peer samples).
# nvrtc, nvJitLink and libNVVM are part of the toolkit and stay eligible; OpenMP is a compiler feature.
set -euo pipefail
prog=cuda-samples-eligible
usage() { sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; }
samples_dir='' mode=eligible
while [ $# -gt 0 ]; do
    case "$1" in
        --samples) [ $# -ge 2 ] || { echo "$prog: --samples needs a value" >&2; exit 2; }; samples_dir=$2; shift 2 ;;
        --samples=*) samples_dir=${1#*=}; shift ;;
        --excluded) mode=excluded; shift ;;
        -h|--help) usage; exit 0 ;;
        *) echo "$prog: unknown argument '$1' (accepted: --samples DIR, --excluded, --help)" >&2; exit 2 ;;
    esac
done
if [ -z "$samples_dir" ] || [ ! -d "$samples_dir/Samples" ]; then
    echo "$prog: --samples DIR is required (a cuda-samples checkout holding Samples/)" >&2; exit 2
fi
cd "$samples_dir/Samples"

# Samples whose whole point is a second GPU (peer access, peer copies): with one GPU they only waive.
second_gpu='^(simpleP2P|p2pBandwidthLatencyTest|streamOrderedAllocationP2P|conjugateGradientMultiDeviceCG|simpleCUFFT_MGPU|simpleCUFFT_2d_MGPU|MonteCarloMultiGPU)$'

# Prints the reason sample folder $1 is excluded, or nothing.
reason() {
    local dir=$1 name cmake srcs
    name=$(basename "$dir")
    cmake=$dir/CMakeLists.txt
    case "$dir" in 8_Platform_Specific/*) echo "platform-specific (${dir#8_Platform_Specific/})"; return ;; esac
    srcs=$(find "$dir" -type f \( -name '*.cu' -o -name '*.cuh' -o -name '*.cpp' -o -name '*.c' -o -name '*.h' -o -name '*.hpp' \) 2>/dev/null)
    # The #include lines of every source, read once.
    local includes=''
    [ -z "$srcs" ] || includes=$(echo "$srcs" | xargs grep -hE '^[[:space:]]*#[[:space:]]*include' 2>/dev/null || true)
    inc() { echo "$includes" | grep -E "^[[:space:]]*#[[:space:]]*include[[:space:]]*[<\"]($1)" | head -n 1; }
    has() { grep -qiE "$1" "$cmake"; }
    if has 'd3d1[0-2]|d3dcompiler' || [ -n "$(inc 'd3d1[0-2]|dxgi')" ]; then echo "Direct3D (Windows)"; return; fi
    if has 'find_package\(Vulkan|glfw' || [ -n "$(inc 'vulkan/')" ]; then echo "Vulkan/GLFW graphics interop"; return; fi
    if has 'find_package\(EGL' || [ -n "$(inc 'EGL/')" ]; then echo "EGL interop"; return; fi
    if has 'find_package\((OpenGL|GLUT)' || [ -n "$(inc 'GL/|GLES|helper_gl\.h')" ]; then echo "OpenGL/GLUT graphics"; return; fi
    if has 'X11' || [ -n "$(inc 'X11/')" ]; then echo "X11"; return; fi
    if has 'find_package\(MPI' || [ -n "$(inc 'mpi\.h')" ]; then echo "MPI"; return; fi
    local lib
    for lib in npp nvjpeg cublas cufft cusolver curand cusparse; do
        if grep -qiE "CUDA::${lib}" "$cmake" || [ -n "$(inc "${lib}[A-Za-z_]*\.h")" ]; then
            echo "host library ${lib} (CUDA::${lib}*)"; return
        fi
    done
    if has 'NVSCI' || [ -n "$(inc 'nvsci')" ]; then echo "host library NvSci"; return; fi
    if has 'FreeImage' || [ -n "$(inc 'FreeImage')" ]; then echo "host library FreeImage"; return; fi
    if has 'find_package\(LLVM' || [ -n "$(inc 'llvm/')" ]; then echo "host library LLVM (development headers and libraries)"; return; fi
    if [[ "$name" =~ $second_gpu ]]; then echo "needs a second GPU (peer-to-peer)"; return; fi
    # Calls, not declarations: matrixMulDynlinkJIT's dynamic loader names cuIpc* without calling them.
    if [ -n "$srcs" ] && echo "$srcs" | grep -E '\.(cu|cpp|c)$' | xargs grep -lE '(cudaIpc[A-Za-z]+|cuIpc[A-Za-z]+|ExportToShareableHandle)[[:space:]]*\(' 2>/dev/null | grep -q .; then
        echo "IPC between processes"; return
    fi
    return 0
}

find . -mindepth 3 -name CMakeLists.txt | sed 's|^\./||; s|/CMakeLists.txt$||' | sort | while read -r dir; do
    # Category folders under 8_Platform_Specific (Tegra/) hold only a CMakeLists listing subfolders.
    [ -n "$(find "$dir" -maxdepth 1 -type f \( -name '*.cu' -o -name '*.cpp' -o -name '*.c' \) | head -n 1)" ] || continue
    r=$(reason "$dir")
    name=$(basename "$dir")
    # if/elif rather than `[ ] && echo`: a false test as the loop's last command would fail the pipeline.
    if [ "$mode" = eligible ]; then
        if [ -z "$r" ]; then echo "$name"; fi
    elif [ -n "$r" ]; then
        printf '%s\t%s\n' "$name" "$r"
    fi
done | sort -f
exit 0
