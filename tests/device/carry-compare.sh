#!/bin/bash
# tests/device/carry-compare.sh NEW OLD: refine-v2's 4K frame (kernel-variants.sh's demo: 1920x1080 -> 3840x2160, city,
# median GPU ms of 6 frames) with two whole builds, for a change outside the native kernels (the host libraries, a
# parameter block) that a variant native root cannot show. NEW and OLD are carries as kernel-variants.sh takes them
# (bin/d4r, lib/, share/d4r/native; no variants/). ROUNDS rounds (default 2), NEW then OLD in each, and PROFILE's
# launches (default the pixel kernels and the core's accumulate) of each build's second frame. Writes
# $OUT/carry-compare.txt; exit 1 when a run fails.
set -uo pipefail
[ $# = 2 ] || { echo "usage: carry-compare.sh NEW OLD" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-out/device}
mkdir -p "$out"
report="$out/carry-compare.txt"
: > "$report"
status=0
for round in $(seq "${ROUNDS:-2}"); do
    for which in new old; do
        carry=$1
        [ "$which" = old ] && carry=$2
        work=$(mktemp -d)
        OUT="$work" ROUNDS=1 PROFILE="${PROFILE:-d4r_nn_pixel_embed|d4r_nn_pixel_head|d4r_up_accumulate}" \
            PROFILE_LINES="${PROFILE_LINES:-6}" bash "$here/kernel-variants.sh" "$carry" > /dev/null 2>&1 || status=1
        sed "s/^/round $round, $which: /" "$work/kernel-variants.txt" | tee -a "$report"
    done
done
exit $status
