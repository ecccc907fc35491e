#!/usr/bin/env bash
# Compiles tools/rocjitsu/probes for every gfx target with clang-19 and runs d4r-rj-run --selftest on every
# config: WMMA (f16 on gfx11 and gfx12, fp8 on gfx12), the gfx12 WMMA K order, cross-lane operations, LDS with
# barriers, hidden kernel arguments, and the negative control (a gfx1100 object on the gfx1201 model).
#
#   tools/rocjitsu/selftest.sh --build DIR [--out FILE]
#
# DIR: build.sh's build folder. FILE: also write the report there (tests/fixtures/amd/probes.txt holds ours).
# Exit 0 when every case gives its expected result.
set -euo pipefail
. "$(dirname "$0")/common.sh"
dir="" out=""
while [ $# -gt 0 ]; do
    case "$1" in
    --build) dir=${2:?}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "selftest.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
[ -n "$dir" ] || { echo "selftest.sh: --build DIR is required" >&2; exit 2; }
rj_check_build "$dir"
command -v clang-19 > /dev/null || { echo "selftest.sh: clang-19 is missing" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/probes" "$work/configs"
for t in $RJ_TARGETS; do
    case "$t" in gfx11*) src=probes_gfx11.hip ;; *) src=probes_gfx12.hip ;; esac
    clang-19 -x hip --offload-arch="$t" --offload-device-only --no-gpu-bundle-output -nogpulib -nogpuinc -O3 \
        "$RJ_TOOLS/probes/$src" -o "$work/probes/probes_$t.hsaco"
    cfg=$(rj_config "$dir" "$t")
    [ -f "$cfg" ] || { echo "selftest.sh: no config for $t" >&2; exit 2; }
    cp "$cfg" "$work/configs/"
done
{
    echo "# d4r-rj-run --selftest: rocjitsu $(cat "$dir/src/.d4r-exported"), probes compiled by $(clang-19 --version | head -1)"
    echo "# (tools/rocjitsu/selftest.sh; no AMD hardware: every result is rocjitsu's model)"
    "$(rj_harness "$dir")" --selftest --configs "$work/configs" --probes "$work/probes"
} > "$work/report.txt" 2>&1 && rc=0 || rc=$?
cat "$work/report.txt"
[ -z "$out" ] || cp "$work/report.txt" "$out"
exit $rc
