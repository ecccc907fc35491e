#!/usr/bin/env bash
# Compile every corpus kernel (kernels/*.cu) to PTX in ptx/<name>.ptx with the local nvcc, and check
# that ptxas accepts each result for sm_90 (the H200 the goldens come from) and for the kernel's own
# architecture (only the latter for an arch-specific one such as sm_90a, whose instructions sm_90 lacks). The architecture is taken from a `// corpus-arch: sm_XX` line in the .cu (default
# sm_89). The PTX is committed: it is our own code compiled by nvcc, and ptxsim's CI tests read it.
#
# Usage: tests/ptxsim/corpus/make-ptx.sh [--check] [NAME...]
#   --check   compile into a temporary folder and fail if any committed PTX differs (stale PTX)
#   NAME...   only these kernels (file names without .cu)
# Environment: NVCC, PTXAS (default /usr/local/cuda/bin/{nvcc,ptxas}).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
ptxas=${PTXAS:-/usr/local/cuda/bin/ptxas}
check=0
names=()
for arg in "$@"; do
    case "$arg" in
        --check) check=1 ;;
        -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
        *) names+=("$arg") ;;
    esac
done
for tool in "$nvcc" "$ptxas"; do
    [[ -x "$tool" ]] || { echo "make-ptx: $tool not found (set NVCC/PTXAS)" >&2; exit 2; }
done

if [[ ${#names[@]} -eq 0 ]]; then
    for cu in "$here"/kernels/*.cu; do names+=("$(basename "$cu" .cu)"); done
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
for name in "${names[@]}"; do
    cu="$here/kernels/$name.cu"
    [[ -f "$cu" ]] || { echo "make-ptx: no such kernel: $cu" >&2; exit 2; }
    arch=$(sed -n 's|^// corpus-arch: *\(sm_[0-9]*[a-z]*\).*|\1|p' "$cu" | head -n 1)
    arch=${arch:-sm_89}
    out="$tmp/$name.ptx"
    if ! "$nvcc" -ptx -O3 -arch="$arch" -I"$here/kernels" -o "$out" "$cu"; then
        echo "make-ptx: FAIL nvcc $name ($arch)" >&2; failed=1; continue
    fi
    ok=1
    targets=("$arch" sm_90)
    [[ "$arch" == *a ]] && targets=("$arch") # an arch-specific target (sm_90a): its own instructions (wgmma)
    for target in "${targets[@]}"; do
        if ! "$ptxas" -arch="$target" "$out" -o /dev/null; then
            echo "make-ptx: FAIL ptxas -arch=$target $name" >&2; failed=1; ok=0
        fi
    done
    [[ $ok -eq 1 ]] || continue
    if [[ $check -eq 1 ]]; then
        if ! cmp -s "$out" "$here/ptx/$name.ptx"; then
            echo "make-ptx: STALE ptx/$name.ptx (rerun make-ptx.sh)" >&2; failed=1
        fi
    else
        cp "$out" "$here/ptx/$name.ptx"
        echo "make-ptx: $name ($arch) -> ptx/$name.ptx"
    fi
done

# PTX files whose kernel source is gone would silently stay in the corpus; refuse them.
for ptx in "$here"/ptx/*.ptx; do
    [[ -e "$ptx" ]] || continue
    n=$(basename "$ptx" .ptx)
    if [[ ! -f "$here/kernels/$n.cu" ]]; then
        echo "make-ptx: ptx/$n.ptx has no kernels/$n.cu (delete it)" >&2; failed=1
    fi
done
exit $failed
