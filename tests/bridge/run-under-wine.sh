#!/usr/bin/env bash
# Runs a driver-API program twice on libd4rcuda's cpu backend: its Linux build directly, its Windows build
# (mingw) under Wine through the bridge (nvcuda.dll), and compares stdout and the files the program
# writes to $PROGRAM_OUT, byte for byte.
#   run-under-wine.sh --wine WINE64 --prefix DIR --bridge NVCUDA.DLL.SO --lib DIR [--no-runtime]
#                     LINUX_EXE WINDOWS_EXE [ARG...]
#     --no-runtime   the bridge cannot find libd4rcuda: the Windows run must fail at cuInit with
#                    CUDA_ERROR_SHARED_OBJECT_INIT_FAILED (303) and the bridge's one line (LINUX_EXE unused)
#   run-under-wine.sh --wine WINE64 --prefix DIR --bridge NVCUDA.DLL.SO --lib DIR --windows-only [--no-runtime]
#                     [--beside FILE]... WINDOWS_EXE [ARG...]
#     runs only the Windows program (one that checks itself: the bridge's own exports have no Linux
#     counterpart) and requires exit status 0; --no-runtime: the bridge cannot find libd4rcuda;
#     --beside: copies FILE next to the .exe first (a DLL it loads), in either mode
#   --env NAME=VALUE   (repeatable, either mode) sets NAME for both runs (e.g. D4R_NATIVE_KERNEL_DIR, D4R_NETWORK)
#   --expect-log TEXT  (repeatable, either mode) each run's stderr must hold TEXT (a log line of libd4rcuda or of
#                      the program's libraries: which path they took, which they cannot show on stdout)
#   run-under-wine.sh --wine WINE64 --prefix DIR --init     creates the Wine prefix (once, before the rest)
#   run-under-wine.sh --skip REASON                         (exit 77: ctest reports the test skipped)
set -euo pipefail

wine= prefix= bridge= lib= no_runtime=0 init=0 windows_only=0
beside=() extra_env=() expect_log=()
while [ $# -gt 0 ]; do
    case "$1" in
        --skip) echo "SKIPPED: $2"; exit 77 ;;
        --wine) wine=$2; shift 2 ;;
        --prefix) prefix=$2; shift 2 ;;
        --bridge) bridge=$2; shift 2 ;;
        --lib) lib=$2; shift 2 ;;
        --no-runtime) no_runtime=1; shift ;;
        --windows-only) windows_only=1; shift ;;
        --beside) beside+=("$2"); shift 2 ;;
        --env) extra_env+=("$2"); shift 2 ;;
        --expect-log) expect_log+=("$2"); shift 2 ;;
        --init) init=1; shift ;;
        -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) break ;;
    esac
done
if [ -z "$wine" ] || [ -z "$prefix" ]; then
    echo "run-under-wine.sh: --wine and --prefix are required (see --help)" >&2
    exit 2
fi
export WINEPREFIX=$prefix WINEDEBUG=-all
if [ "$init" = 1 ]; then
    # A prefix made by an earlier run is kept (recreating it under a wineserver that still serves it
    # would race); a half-made one is made again.
    if [ -f "$prefix/system.reg" ] && [ -d "$prefix/drive_c/windows" ]; then
        echo "Wine prefix ready (kept): $prefix"
        exit 0
    fi
    "$(dirname "$wine")/wineserver" -k >/dev/null 2>&1 || true
    rm -rf "$prefix"
    "$wine" cmd /c exit >/dev/null 2>&1 || true
    "$(dirname "$wine")/wineserver" -w >/dev/null 2>&1 || true # the registry is written when it exits
    [ -f "$prefix/system.reg" ] || { echo "run-under-wine.sh: could not create the Wine prefix $prefix" >&2; exit 1; }
    echo "Wine prefix ready: $prefix"
    exit 0
fi
if [ "$windows_only" = 1 ]; then
    set -- "" "$@" # no Linux program
fi
if [ $# -lt 2 ] || [ -z "$bridge" ] || [ -z "$lib" ]; then
    echo "run-under-wine.sh: expected --bridge, --lib, LINUX_EXE and WINDOWS_EXE (see --help)" >&2
    exit 2
fi
linux_exe=$1 windows_exe=$2
shift 2

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/win" "$work/out-linux" "$work/out-windows"
cp "$windows_exe" "$work/win/"
for f in "${beside[@]}"; do cp "$f" "$work/win/"; done
exe="$work/win/$(basename "$windows_exe")"

# Every --expect-log TEXT in the stderr file $1 of the run named $2 (exits naming the first one missing).
check_logs() {
    local text
    for text in ${expect_log[@]+"${expect_log[@]}"}; do
        if ! grep -qF -- "$text" "$1"; then
            echo "expected the $2 run's stderr to hold: $text"; echo "its stderr:"; cat "$1"; exit 1
        fi
    done
}

if [ "$windows_only" = 1 ]; then
    runtime_dir=$lib
    if [ "$no_runtime" = 1 ]; then
        cp "$bridge" "$work/win/nvcuda.dll" # a copy: no libd4rcuda beside it
        runtime_dir="$work/nowhere"
    else
        ln -s "$bridge" "$work/win/nvcuda.dll"
    fi
    status=0
    env -u LD_LIBRARY_PATH ${extra_env[@]+"${extra_env[@]}"} D4R_RUNTIME_DIR="$runtime_dir" D4R_CUDA_BACKEND=cpu \
        "$wine" "$exe" "$@" >"$work/windows.raw" 2>"$work/windows.err" || status=$?
    tr -d '\r' <"$work/windows.raw"
    if [ "$status" != 0 ]; then
        echo "the Windows program under Wine exited with $status:"; cat "$work/windows.err"; exit 1
    fi
    check_logs "$work/windows.err" Windows
    exit 0
fi

if [ "$no_runtime" = 1 ]; then
    # A copy (not a link): the bridge looks for libd4rcuda beside its own file, and finds none.
    cp "$bridge" "$work/win/nvcuda.dll"
    status=0
    env -u LD_LIBRARY_PATH D4R_RUNTIME_DIR="$work/nowhere" "$wine" "$exe" "$@" >"$work/stdout" 2>"$work/stderr" || status=$?
    if [ "$status" = 0 ]; then
        echo "expected the program to fail without libd4rcuda; it succeeded"; cat "$work/stdout"; exit 1
    fi
    if ! grep -q "bridge (nvcuda.dll): cannot load libd4rcuda.so" "$work/stderr" ||
       ! grep -q "(303)" "$work/stderr"; then
        echo "expected the bridge's load error and CUDA_ERROR_SHARED_OBJECT_INIT_FAILED (303); stderr:"
        cat "$work/stderr"; exit 1
    fi
    if [ "$(grep -c "cannot load libd4rcuda.so" "$work/stderr")" != 1 ]; then
        echo "the load error must be said once; stderr:"; cat "$work/stderr"; exit 1
    fi
    echo "$(basename "$windows_exe"): without libd4rcuda, cuInit failed with 303 and one line"
    exit 0
fi

ln -s "$bridge" "$work/win/nvcuda.dll"
status=0
env ${extra_env[@]+"${extra_env[@]}"} LD_LIBRARY_PATH="$lib" D4R_CUDA_BACKEND=cpu PROGRAM_OUT="$work/out-linux" \
    "$linux_exe" "$@" >"$work/linux.txt" 2>"$work/linux.err" || status=$?
if [ "$status" != 0 ]; then
    echo "the Linux build exited with $status:"; cat "$work/linux.txt" "$work/linux.err"; exit 1
fi
status=0
env ${extra_env[@]+"${extra_env[@]}"} D4R_RUNTIME_DIR="$lib" D4R_CUDA_BACKEND=cpu PROGRAM_OUT="$work/out-windows" \
    "$wine" "$exe" "$@" >"$work/windows.raw" 2>"$work/windows.err" || status=$?
tr -d '\r' <"$work/windows.raw" >"$work/windows.txt"
if [ "$status" != 0 ]; then
    echo "the Windows build under Wine exited with $status:"; cat "$work/windows.txt" "$work/windows.err"; exit 1
fi
if ! diff -u "$work/linux.txt" "$work/windows.txt"; then
    echo "stdout differs between the Linux build and the Windows build under Wine"; exit 1
fi
if ! diff -r "$work/out-linux" "$work/out-windows"; then
    echo "the output files differ between the Linux build and the Windows build under Wine"; exit 1
fi
check_logs "$work/linux.err" Linux
check_logs "$work/windows.err" Windows
echo "$(basename "$windows_exe"): identical under Wine ($(wc -l <"$work/linux.txt") lines, $(ls "$work/out-linux" | wc -l) output files)"
