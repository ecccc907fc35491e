#!/bin/bash
# Every entry point NVIDIA's libcuda exports (as the CUDA toolkit's stub library lists them) is exported by
# libd4rcuda. Usage: exports-cover-nvidia.sh LIBD4RCUDA STUB_LIBCUDA. Exit 0 when none is missing, 1 with
# the missing names (run scripts/update-unimplemented.sh), 77 (skipped) without the stub.
set -euo pipefail
lib=$1 stub=$2
[ -f "$stub" ] || { echo "skipped: the CUDA toolkit's stub $stub is not installed"; exit 77; }
missing=$(comm -23 <(nm -D --defined-only "$stub" | awk '$2 == "T" {print $3}' | grep '^cu' | sort -u) \
                   <(nm -D --defined-only "$lib" | awk '{print $3}' | sort -u))
if [ -n "$missing" ]; then
    echo "libd4rcuda does not export $(echo "$missing" | wc -l) of NVIDIA's entry points (scripts/update-unimplemented.sh adds them):"
    echo "$missing"
    exit 1
fi
echo "libd4rcuda exports all $(nm -D --defined-only "$stub" | awk '$2 == "T"' | grep -c ' cu') entry points of $stub"
