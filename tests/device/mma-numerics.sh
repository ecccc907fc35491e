#!/usr/bin/env bash
# Tensor-core numerics experiments (issue 4 item 2): builds tests/device/mma_numerics.cu with the
# device machine's nvcc and prints a Markdown report of how mma.sync rounds and accumulates.
# Writes the report to $OUT/mma-numerics.md when OUT is set (the device tool's output folder),
# otherwise to ./out/device/mma-numerics.md; every measured batch is also recorded in
# mma-numerics.bin so the models can be studied offline (mma_numerics --replay FILE, no GPU).
#
# Usage: tests/device/mma-numerics.sh            (on a machine with an NVIDIA GPU and nvcc)
#        tests/device/mma-numerics.sh --selftest  (no GPU: the model search must recover known models)
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
out=${OUT:-$repo/out/device}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "== mma-numerics: building with $nvcc"
"$nvcc" -O2 -std=c++17 -arch=sm_90 -o "$work/mma_numerics" "$repo/tests/device/mma_numerics.cu"
if [[ "${1:-}" == "--selftest" ]]; then
    "$work/mma_numerics" --selftest
    exit
fi
mkdir -p "$out"
echo "== mma-numerics: running"
"$work/mma_numerics" --dump "$out/mma-numerics.bin" | tee "$out/mma-numerics.md"
# Evidence for the FP8 finding: how ptxas lowers mma.sync m16n8k32 FP8 for sm_90.
ptxas=$(dirname "$nvcc")/ptxas
cuobjdump=$(dirname "$nvcc")/cuobjdump
if [[ -x "$cuobjdump" ]] && "$ptxas" -arch=sm_90 "$repo/tests/ptxsim/corpus/ptx/mma_fp8.ptx" -o "$work/mma_fp8.cubin"; then
    {
        echo "### SASS of the corpus kernel mma_fp8 (ptxas -arch=sm_90), tensor-core and conversion lines"
        echo
        echo '```'
        "$cuobjdump" -sass "$work/mma_fp8.cubin" | grep -E "MMA|F2FP|FADD|HADD2" | sed 's#/\* 0x[0-9a-f]* \*/##; s/  */ /g'
        echo '```'
    } | tee -a "$out/mma-numerics.md"
fi
echo "== mma-numerics: report written to $out/mma-numerics.md"
