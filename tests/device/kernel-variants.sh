#!/bin/bash
# tests/device/kernel-variants.sh [CARRY]: this build's sm_90 fast set against variants of some of its kernels, in one
# call, for choosing between ways of writing a kernel. CARRY as for sm90-compare.sh (bin/d4r, lib/, share/d4r/native),
# plus CARRY/variants/<name>/*.cubin: each variant is a copy of the fast set with those files replaced (or, when
# CARRY/variants/<name>/native exists, that whole native root: an earlier build's sets). PROFILE='a|b' adds kernels
# to the profile lines (default: the replaced ones). For "now" and
# every variant in turn, ROUNDS rounds (default 2): refine-v2's 4K frame (1920x1080 -> 3840x2160, city, median GPU ms
# of 6 frames) and the kernel profile of the replaced kernels (D4R_CUDA_KERNEL_PROFILE, one frame). Writes
# $OUT/kernel-variants.txt; exit 1 when a run fails. (ncu's full set on the 4K demo did not finish within 9 minutes on
# an H100: use sm90-compare.sh's four sections for a kernel's profile.)
set -uo pipefail
carry=$(realpath "${1:-.carry}")
out=${OUT:-out/device}
mkdir -p "$out"
report="$out/kernel-variants.txt"
: > "$report"
status=0
now="$carry/share/d4r/native"
[ -e "$carry/lib/libcuda.so.1" ] || ln -s libd4rcuda.so "$carry/lib/libcuda.so.1"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$report"
demo() { # ROOT OUT FRAMES
    "$carry/bin/d4r" demo --scene city --backend driver --native on --native-root "$1" --render 1920x1080 \
        --output 3840x2160 --frames "$3" --translated-frames 0 --no-images --lib-dir "$carry/lib" --out "$2" \
        --network on --network-model models/refine-v2.d4rnet
}
names=(now)
kernels=""
for dir in "$carry"/variants/*/; do
    [ -d "$dir" ] || continue # no variants: the pattern itself
    name=$(basename "$dir")
    names+=("$name")
    if [ -d "$dir/native" ]; then # a whole native root (an earlier build's), not an overlay
        rm -rf "/tmp/kv-$name" && cp -r "$dir/native" "/tmp/kv-$name" || status=1
        continue
    fi
    rm -rf "/tmp/kv-$name" && cp -r "$now" "/tmp/kv-$name" && cp "$dir"/*.cubin "/tmp/kv-$name/sm_90/" || status=1
    for f in "$dir"/*.cubin; do kernels="$kernels|$(basename "$f" .cubin)"; done
done
echo "variants: ${names[*]}; kernels:${kernels//|/ }" | tee -a "$report"
root_of() { [ "$1" = now ] && echo "$now" || echo "/tmp/kv-$1"; }
for round in $(seq "${ROUNDS:-2}"); do
    for name in "${names[@]}"; do
        demo "$(root_of "$name")" "/tmp/kv-out-$name" 6 > "/tmp/kv-$name.log" 2>&1 || { status=1; tail -3 "/tmp/kv-$name.log"; }
        echo "round $round, $name: $(grep -E '^time' "/tmp/kv-$name.log")" | tee -a "$report"
    done
done
for name in "${names[@]}"; do
    D4R_CUDA_KERNEL_PROFILE=1 D4R_LOG=info demo "$(root_of "$name")" /tmp/kv-profile 2 > "/tmp/kv-profile-$name.log" 2>&1 ||
        status=1
    grep -E "name=(${PROFILE:-${kernels#|}})\$" "/tmp/kv-profile-$name.log" | tail -"${PROFILE_LINES:-4}" |
        sed "s/^/$name: /" | tee -a "$report"
done
exit $status
