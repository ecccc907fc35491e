#!/usr/bin/env bash
# Installs the Debian 12 packages d4r needs, and only those that are missing.
#   scripts/install-deps.sh [--for demo|test] [--print]
#     --for demo   what building and running the demo needs (libllvm19: the cpu backend's PTX JIT loads it)
#     --for test   everything `make test` needs (default): + clang-19, libFuzzer, llvm-19 (the sanitizers'
#                  symbolizer), clang-format-19 and clang-tidy-19, Wine's tools,
#                  Wine and mingw-w64 for the Wine bridge (nvcuda.dll) and its Windows test programs, and
#                  Xvfb and Mesa's Vulkan drivers (lavapipe) for the NGX shim's D3D12 harness under Wine,
#                  Khronos's validation layer for the Vulkan front end's harness,
#                  and python3 (tests read zips back with its zipfile)
#     --print      print the package list and exit
# As root: runs apt-get (update first, once) for missing packages. Otherwise: prints the exact
# apt-get line to run and exits 2. Exits 0 when nothing is missing.
set -euo pipefail

purpose=test
print_only=0
while [ $# -gt 0 ]; do
    case "$1" in
        --for) purpose=${2:-}; shift 2 ;;
        --for=*) purpose=${1#--for=}; shift ;;
        --print) print_only=1; shift ;;
        -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "install-deps: unknown argument '$1' (accepted: --for demo|test, --print, --help)" >&2; exit 2 ;;
    esac
done

demo_packages=(
    build-essential cmake ninja-build pkg-config ccache
    libfmt-dev libcli11-dev nlohmann-json3-dev liblz4-dev libzstd-dev libpng-dev zlib1g-dev
    libgtest-dev libgmock-dev libbenchmark-dev
    libvulkan-dev
    libllvm19
)
test_packages=(
    clang-19 libclang-rt-19-dev lld-19 llvm-19 clang-format-19 clang-tidy-19
    wine64 wine64-tools mingw-w64
    xvfb xauth mesa-vulkan-drivers libvulkan1 vulkan-validationlayers
    python3
)
case "$purpose" in
    demo) packages=("${demo_packages[@]}") ;;
    test) packages=("${demo_packages[@]}" "${test_packages[@]}") ;;
    *) echo "install-deps: --for must be demo or test, not '$purpose'" >&2; exit 2 ;;
esac

if [ "$print_only" = 1 ]; then
    printf '%s\n' "${packages[@]}"
    exit 0
fi

missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
        missing+=("$p")
    fi
done
if [ ${#missing[@]} -eq 0 ]; then
    echo "install-deps: all ${#packages[@]} packages for '$purpose' are installed"
    exit 0
fi

line="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" != 0 ]; then
    echo "install-deps: missing packages for '$purpose': ${missing[*]}" >&2
    echo "install-deps: run as root:  apt-get update && $line" >&2
    exit 2
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
$line
