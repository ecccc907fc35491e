#!/bin/bash
# tests/device/fused-check.sh [CARRY]: one device call that checks and measures this build's sm_90 fast set against
# variants of it (tests/device/kernel-variants.sh's CARRY/variants/<name>/), for a change to the fused kernels:
#  1. the SASS and the resource use of every cubin of CARRY/share/d4r/native/sm_90 and of the variants, as one
#     archive ($OUT/sass.tar.gz of sass/<set>-<kernel>.sass and sass/res-usage.txt: for reading instruction counts
#     here, where no disassembler is installed; the device returns only a few files a call);
#  2. `d4r kernels check --fused` of refine-v2 at SIZE (default 1280x720) against the PTX path, at least 60 dB
#     ($OUT/check.txt);
#  3. kernel-variants.sh with ROUNDS (default 2) and PROFILE (default the fused kernels) ($OUT/kernel-variants.txt).
# CARRY as for kernel-variants.sh (bin/d4r, lib/, share/d4r/native, variants/). Exit 1 when a step fails.
set -uo pipefail
carry=${1:-.carry}
out=${OUT:-out/device}
sass=$(mktemp -d)/sass
mkdir -p "$sass"
status=0
cuobjdump=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
for f in "$carry"/share/d4r/native/sm_90/*.cubin "$carry"/variants/*/*.cubin "$carry"/variants/*/native/sm_90/*.cubin; do
    [ -e "$f" ] || continue
    name=$(echo "${f#"$carry"/}" | sed 's|share/d4r/native/sm_90|now|; s|/native/sm_90||; s|variants/||; s|/|-|g')
    "$cuobjdump" -sass "$f" > "$sass/${name%.cubin}.sass" 2>&1 || status=1
    { echo "== $name"; "$cuobjdump" -res-usage "$f" 2>&1; } >> "$sass/res-usage.txt"
done
mkdir -p "$out"
tar -czf "$out/sass.tar.gz" -C "$(dirname "$sass")" sass || status=1
"$carry/bin/d4r" kernels check --fused --backend driver --model models/refine-v2.d4rnet --size "${SIZE:-1280x720}" \
    --native-root "$carry/share/d4r/native" --lib-dir "$carry/lib" --min-psnr 60 > "$out/check.txt" 2>&1 || status=1
tail -25 "$out/check.txt"
OUT="$out" ROUNDS="${ROUNDS:-2}" PROFILE="${PROFILE:-d4r_nn_block|d4r_nn_coarse_block|d4r_nn_pixel_embed|d4r_nn_pixel_head}" \
    PROFILE_LINES="${PROFILE_LINES:-12}" bash tests/device/kernel-variants.sh "$carry" || status=1
exit $status
