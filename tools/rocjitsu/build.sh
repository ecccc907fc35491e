#!/usr/bin/env bash
# Builds d4r-rj-run, d4r's harness for rocjitsu (AMD's GPU emulator), from a pinned rocjitsu commit
# (tools/rocjitsu/README.md). Only the harness and the rocjitsu libraries it links are built.
#
#   tools/rocjitsu/build.sh --rocjitsu SRC --flatbuffers FB --build DIR [--jobs N] [--compiler clang|gcc]
#
# SRC: a git repository (bare or not) holding ROCm/rocm-systems history with commit $RJ_COMMIT (its
#      emulation/rocjitsu folder is exported), or an already exported emulation/rocjitsu folder.
# FB:  flatbuffers v24.3.25: a source folder, or a git repository with the tag v24.3.25.
# DIR: the build folder; DIR/src is the exported source with d4r's harness added as d4r_harness/,
#      DIR/build the CMake build; the harness ends up at DIR/build/d4r_harness/d4r-rj-run.
#
# With libstdc++ < 13 (Debian 12) the C++ library has no <format>: a shim forwards std::format to {fmt}
# (libfmt-dev) and the build uses clang-19 with -std=c++20 (CMAKE_CXX_EXTENSIONS=OFF: clang in gnu++20 mode
# rejects libstdc++ 12's <experimental/simd>). With GCC >= 13 (Ubuntu 24.04) no shim is needed: --compiler gcc.
# googletest comes from /usr/src/googletest when present (only configured, never built). libdrm-dev is needed
# for one header.
set -euo pipefail

RJ_COMMIT=1cb5474cfad0a36b2776bd4483ffddb8fe1a40af # ROCm/rocm-systems, 2026-07-10, "rocjitsu: Rocjitsu DBT Guest Mode (#7383)"
FB_TAG=v24.3.25
HERE=$(cd "$(dirname "$0")" && pwd)

src="" fb="" dir="" jobs=$(nproc) compiler=""
usage() { sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
    case "$1" in
    --rocjitsu) src=${2:?}; shift 2 ;;
    --flatbuffers) fb=${2:?}; shift 2 ;;
    --build) dir=${2:?}; shift 2 ;;
    --jobs) jobs=${2:?}; shift 2 ;;
    --compiler) compiler=${2:?}; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "build.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
    esac
done
[ -n "$src" ] && [ -n "$fb" ] && [ -n "$dir" ] || { usage >&2; exit 2; }
die() { echo "build.sh: error: $*" >&2; exit 1; }
step() { echo "build.sh: [$(date +%H:%M:%S)] $*"; }
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

# 1. rocjitsu's source at the pinned commit, with d4r's fixes of emulator bugs (patches/*.patch, in name order; each
#    says what it fixes and the self-test has a probe for it). The marker names the commit and the patches: a change
#    of either exports afresh.
patches_id=$(cd "$HERE/patches" && cat -- *.patch | sha256sum | cut -c1-16)
want="$RJ_COMMIT patches $patches_id"
if [ ! -f "$dir/src/.d4r-exported" ] || [ "$(cat "$dir/src/.d4r-exported")" != "$want" ]; then
    rm -rf "$dir/src"
    mkdir -p "$dir/src"
    if git -C "$src" rev-parse --git-dir > /dev/null 2>&1; then
        git -C "$src" cat-file -e "$RJ_COMMIT^{commit}" 2> /dev/null ||
            die "$src does not hold commit $RJ_COMMIT (fetch ROCm/rocm-systems or a fork that keeps it)"
        step "exporting emulation/rocjitsu at ${RJ_COMMIT:0:12} from $src"
        git -C "$src" archive "$RJ_COMMIT" emulation/rocjitsu | tar -x -C "$dir/src" --strip-components=2
    elif [ -f "$src/CMakeLists.txt" ] && [ -d "$src/lib/rocjitsu" ]; then
        step "copying the rocjitsu folder $src (not checked against $RJ_COMMIT)"
        cp -a "$src/." "$dir/src/"
    else
        die "$src is neither a git repository nor a rocjitsu source folder"
    fi
    [ -f "$dir/src/CMakeLists.txt" ] || die "the export of $src has no CMakeLists.txt"
    for p in "$HERE"/patches/*.patch; do
        step "applying $(basename "$p")"
        patch -d "$dir/src" -p1 --forward --quiet < "$p" || die "$(basename "$p") does not apply to $src"
    done
    echo "$want" > "$dir/src/.d4r-exported"
fi

# 2. d4r's harness as one more subfolder (always refreshed from this checkout).
rm -rf "$dir/src/d4r_harness"
cp -a "$HERE/harness" "$dir/src/d4r_harness"
grep -q '^add_subdirectory(d4r_harness)' "$dir/src/CMakeLists.txt" ||
    printf '\n# d4r: its harness (tools/rocjitsu in d4r)\nadd_subdirectory(d4r_harness)\n' >> "$dir/src/CMakeLists.txt"

# 3. flatbuffers v24.3.25.
if git -C "$fb" rev-parse --git-dir > /dev/null 2>&1 && git -C "$fb" rev-parse -q --verify "refs/tags/$FB_TAG" > /dev/null; then
    if [ ! -f "$dir/flatbuffers/CMakeLists.txt" ]; then
        step "exporting flatbuffers $FB_TAG from $fb"
        mkdir -p "$dir/flatbuffers"
        git -C "$fb" archive "$FB_TAG" | tar -x -C "$dir/flatbuffers"
    fi
    fb="$dir/flatbuffers"
fi
[ -f "$fb/CMakeLists.txt" ] && [ -d "$fb/include/flatbuffers" ] || die "$fb is not a flatbuffers source folder"
fb=$(cd "$fb" && pwd)

# 4. Toolchain.
if [ -z "$compiler" ]; then
    if command -v g++ > /dev/null && [ "$(g++ -dumpversion | cut -d. -f1)" -ge 13 ]; then compiler=gcc; else compiler=clang; fi
fi
cmake_args=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF -DCMAKE_CXX_EXTENSIONS=OFF
    -DFETCHCONTENT_FULLY_DISCONNECTED=ON "-DFETCHCONTENT_SOURCE_DIR_FLATBUFFERS=$fb")
[ -d /usr/src/googletest ] && cmake_args+=("-DFETCHCONTENT_SOURCE_DIR_GOOGLETEST=/usr/src/googletest")
command -v ccache > /dev/null && cmake_args+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
cxxflags="-Wno-deprecated-declarations"
if [ "$compiler" = clang ]; then
    command -v clang++-19 > /dev/null || die "clang++-19 is missing (apt-get install clang-19 lld-19)"
    echo '#include <format>' | clang++-19 -std=c++20 -x c++ -fsyntax-only - 2> /dev/null || {
        [ -f /usr/include/fmt/format.h ] || die "libstdc++ has no <format> and {fmt} is missing (apt-get install libfmt-dev)"
        cxxflags="$cxxflags -isystem $HERE/fmtshim"
        step "libstdc++ has no <format>: using $HERE/fmtshim (std::format over {fmt})"
    }
    cmake_args+=(-DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 "-DCMAKE_CXX_FLAGS=-Wno-unused-command-line-argument $cxxflags")
    command -v ld.lld-19 > /dev/null && cmake_args+=(-DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld-19 -DCMAKE_SHARED_LINKER_FLAGS=-fuse-ld=lld-19)
    # -O1: the generated ISA files are large; -O2 costs much more build time for little emulation speed.
    cmake_args+=("-DCMAKE_CXX_FLAGS_RELEASE=-O1 -DNDEBUG" "-DCMAKE_C_FLAGS_RELEASE=-O1 -DNDEBUG")
else
    cmake_args+=(-DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++ "-DCMAKE_CXX_FLAGS=$cxxflags")
fi
command -v ninja > /dev/null || die "ninja is missing (apt-get install ninja-build)"
# rocjitsu's VM includes the KFD ioctl header, which includes <libdrm/drm.h>, even when no driver is simulated.
[ -f /usr/include/libdrm/drm.h ] || die "<libdrm/drm.h> is missing (apt-get install libdrm-dev)"

step "configuring ($compiler) in $dir/build"
cmake -S "$dir/src" -B "$dir/build" "${cmake_args[@]}" > "$dir/configure.log" 2>&1 ||
    { tail -30 "$dir/configure.log" >&2; die "configure failed (log: $dir/configure.log)"; }

# 5. Build only the harness (and what it links); ninja prints [n/total] as it goes.
step "building d4r-rj-run with $jobs jobs (cold, RDNA3/RDNA4 only: about 20-25 minutes on 2 busy cores)"
start=$(date +%s)
# Every tenth step and every error reach the terminal; the whole log is DIR/build.log.
ninja -C "$dir/build" -j "$jobs" d4r-rj-run 2>&1 | tee "$dir/build.log" |
    awk '/error|FAILED/ {print; fflush(); next} /^\[[0-9]+\/[0-9]+\]/ {n++; if (n % 10 == 0) {print; fflush()}}' ||
    die "build failed (log: $dir/build.log)"
[ -x "$dir/build/d4r_harness/d4r-rj-run" ] || die "the build ended without $dir/build/d4r_harness/d4r-rj-run"
step "done in $(( $(date +%s) - start )) s: $dir/build/d4r_harness/d4r-rj-run"
