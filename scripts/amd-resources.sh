#!/usr/bin/env bash
# The resources of d4r's AMD code objects (*.hsaco under each ROOT), from their AMDGPU metadata notes
# (llvm-readelf-19 --notes): per kernel, VGPRs, SGPRs, scratch (private segment) bytes, VGPR and SGPR spills,
# LDS (group segment) bytes and the waves per SIMD its VGPR count allows.
#
# Usage: scripts/amd-resources.sh [--check] ROOT...
#   --check: exit 1 naming every kernel that spills or uses scratch (the ctest amd_kernels_no_spills_or_scratch).
# Occupancy assumes the wave32 VGPR file per SIMD that LLVM's AMDGPU backend models (AMDGPUBaseInfo.cpp,
# getTotalNumVGPRs/getVGPRAllocGranule; FeatureGFX11FullVGPRs): 1536 VGPRs, granule 24, on gfx1100, gfx1101,
# gfx1151, gfx1200 and gfx1201 (192 KB per SIMD: 1536 x 32 lanes x 4 bytes); 1024 VGPRs, granule 16, on the other
# gfx11 parts (gfx1102, gfx1103: 128 KB), and at most 16 waves per SIMD (RDNA3/RDNA4 ISA guides).
set -uo pipefail
readelf=${LLVM_READELF:-llvm-readelf-19}
check=0
if [ "${1:-}" = --check ]; then check=1; shift; fi
[ $# -ge 1 ] || { sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
command -v "$readelf" >/dev/null || { echo "amd-resources: $readelf not found" >&2; exit 2; }

printf '%-40s %-22s %5s %5s %7s %6s %6s %6s %5s\n' set kernel vgpr sgpr scratch vspill sspill lds waves
bad=0
found=0
for root in "$@"; do
    while IFS= read -r file; do
        found=1
        rel=${file#"$root"/}
        set_name=$(dirname "$rel")
        arch=$(basename "$set_name")
        arch=${arch%%-*}
        case "$arch" in
            gfx1100 | gfx1101 | gfx1151 | gfx1200 | gfx1201) total=1536 granule=24 ;;
            *) total=1024 granule=16 ;;
        esac
        notes=$("$readelf" --notes "$file" 2>&1) || { echo "amd-resources: $file: $notes" >&2; exit 2; }
        out=$(awk -v set="$set_name" -v total="$total" -v granule="$granule" '
            function flush() {
                if (name == "") return
                alloc = int((vgpr + granule - 1) / granule) * granule
                waves = alloc > 0 ? int(total / alloc) : 16
                if (waves > 16) waves = 16
                printf "%-40s %-22s %5d %5d %7d %6d %6d %6d %5d\n", set, name, vgpr, sgpr, scratch, vspill, sspill, lds, waves
                name = ""
            }
            /^  - \.(agpr_count|args):/ { flush() }
            /^    \.name:/ { name = $2 }
            /^    \.vgpr_count:/ { vgpr = $2 }
            /^    \.sgpr_count:/ { sgpr = $2 }
            /^    \.private_segment_fixed_size:/ { scratch = $2 }
            /^    \.vgpr_spill_count:/ { vspill = $2 }
            /^    \.sgpr_spill_count:/ { sspill = $2 }
            /^    \.group_segment_fixed_size:/ { lds = $2 }
            END { flush() }' <<< "$notes")
        [ -n "$out" ] || { echo "amd-resources: $file: no kernel in its metadata notes" >&2; exit 2; }
        echo "$out"
        if [ $check = 1 ]; then
            while read -r s k v sg scr vs ss l w; do
                if [ "$scr" != 0 ] || [ "$vs" != 0 ] || [ "$ss" != 0 ]; then
                    echo "amd-resources: $s/$k: scratch $scr bytes, $vs VGPR and $ss SGPR spills" >&2
                    bad=1
                fi
            done <<< "$out"
        fi
    done < <(find "$root" -name '*.hsaco' | LC_ALL=C sort)
done
[ $found = 1 ] || { echo "amd-resources: no .hsaco under $*" >&2; exit 2; }
exit $bad
