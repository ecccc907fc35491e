#!/usr/bin/env bash
# The companions export exactly the functions NVIDIA's libraries of the same names export, under the same symbol
# version: a program linked against NVIDIA's library finds every symbol it binds in the companion.
# Usage: exports-match-nvidia.sh D4R_LIB_DIR CUDA_LIB_DIR
set -u
lib=$1 cuda_lib=$2
status=0
exports() { nm -D --defined-only --with-symbol-versions "$1" | awk '$2 == "T" {print $3}' | sort; }
for name in libnvrtc.so.13 libnvJitLink.so.13; do
    ours=$(exports "$lib/$name") theirs=$(exports "$cuda_lib/$name")
    if [ -z "$theirs" ]; then echo "exports-match-nvidia: $cuda_lib/$name exports nothing"; status=1; continue; fi
    if [ "$ours" != "$theirs" ]; then
        echo "exports-match-nvidia: FAIL: $name: the companion's exports differ from NVIDIA's (< companion, > NVIDIA):"
        diff <(echo "$ours") <(echo "$theirs")
        status=1
    else
        echo "exports-match-nvidia: $name: $(echo "$ours" | wc -l) functions, the same as NVIDIA's"
    fi
done
exit $status
