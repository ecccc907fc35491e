# Sourced by tools/rocjitsu's scripts: the pinned rocjitsu commit, where build.sh put the harness, and the config
# of each gfx target (rocjitsu's own for gfx1100 and gfx1201, ours in configs/ for the others).
RJ_COMMIT=1cb5474cfad0a36b2776bd4483ffddb8fe1a40af
RJ_TOOLS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
RJ_TARGETS="gfx1100 gfx1101 gfx1102 gfx1103 gfx1200 gfx1201"

# rj_config BUILD_DIR TARGET: the config file of TARGET.
rj_config() {
    case "$2" in
    gfx1100) echo "$1/src/configs/gfx1100_w7900.json" ;;
    gfx1201) echo "$1/src/configs/gfx1201_r9700.json" ;;
    *) ls "$RJ_TOOLS/configs/$2"_*.json 2> /dev/null | head -1 ;;
    esac
}

rj_harness() { echo "$1/build/d4r_harness/d4r-rj-run"; }

rj_check_build() {
    [ -x "$(rj_harness "$1")" ] || { echo "$0: no $(rj_harness "$1"): run tools/rocjitsu/build.sh first" >&2; exit 2; }
    local patches_id
    patches_id=$(cd "$RJ_TOOLS/patches" && cat -- *.patch | sha256sum | cut -c1-16)
    [ "$(cat "$1/src/.d4r-exported" 2> /dev/null)" = "$RJ_COMMIT patches $patches_id" ] ||
        echo "$0: warning: $1 was not built from rocjitsu $RJ_COMMIT with tools/rocjitsu/patches ($patches_id)" >&2
}
