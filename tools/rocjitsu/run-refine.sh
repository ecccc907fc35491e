#!/usr/bin/env bash
# Runs d4r's refine network on rocjitsu with d4r's AMD native kernels, for every gfx target, both kernel sets
# and several image sizes, compares each run with the PTX path (d4r kernels check --trace) and writes one
# result per target, set and size: tests/fixtures/amd/<target>-<set>-<W>x<H>.txt (tests/network/amd_results_test
# recomputes the reference and checks them). No AMD hardware: every result is rocjitsu's model of the GPU.
#
#   tools/rocjitsu/run-refine.sh --build DIR --kernels ROOT [--d4r BIN] [--out DIR] [--targets "gfx1100 ..."]
#                                [--sets "accuracy fast"] [--sizes "72x40 44x20"] [--seed N]
#                                [--known-failures FILE] [--fp8 | --model models/NAME.d4rnet]
#
# DIR: build.sh's build folder. ROOT: a kernel root (ROOT/<target>/NAME.hsaco is the fast set,
# ROOT/accuracy/<target>/ the accuracy set), e.g. a build's share/d4r/native. BIN: d4r (default build/bin/d4r of
# this checkout). Exit 1 when a run fails or a result misses its bar (accuracy: identical at every launch;
# fast: the image at 60 dB or more) and is not a known failure; every result is written anyway.
# --fp8: the refine-v1-fp8 test model (enc2's linears in e4m3) on the gfx12 targets' -fp8 sets (ROOT/<target>-fp8,
# ROOT/accuracy/<target>-fp8: native FP8 WMMA in the fast d4r_nn_linear_fp8), results <target>-fp8-<set>-<W>x<H>.txt;
# the fast bar is then the FP8 variant's 40 dB (docs/network.md, "The FP8 layers"); gfx11 targets are skipped.
# --model: a trained model of models/ (named relative to the repository) instead of the test model, results
# <target>-<NAME>-<set>-<W>x<H>.txt; refine-v2 (models/refine-v2.d4rnet) reads the core's frame, which the job carries
# (d4r kernels check --write-job runs the core's PTX on the cpu backend first). An FP8 model (NAME-fp8.d4rnet) runs
# on the gfx12 targets' -fp8 sets and the gfx11 targets' own sets (their fast FP8 linear widens e4m3 to f16), its
# fast bar the FP8 variants' 40 dB as displayed.
# FILE (default tools/rocjitsu/known-failures.txt): lines "TARGET-SET REASON"; a result of that target and set
# gets the line "known_failure REASON", and the test then expects it to miss its bar (and still checks its hashes).
set -uo pipefail
. "$(dirname "$0")/common.sh"
repo=$(cd "$RJ_TOOLS/../.." && pwd)
dir="" root="" d4r="$repo/build/bin/d4r" out="$repo/tests/fixtures/amd" targets=$RJ_TARGETS sets="accuracy fast"
sizes="72x40 44x20" seed=7 known="$RJ_TOOLS/known-failures.txt" fp8="" model="" fp8_model=""
while [ $# -gt 0 ]; do
    case "$1" in
    --build) dir=${2:?}; shift 2 ;;
    --kernels) root=${2:?}; shift 2 ;;
    --d4r) d4r=${2:?}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    --targets) targets=${2:?}; shift 2 ;;
    --sets) sets=${2:?}; shift 2 ;;
    --sizes) sizes=${2:?}; shift 2 ;;
    --seed) seed=${2:?}; shift 2 ;;
    --known-failures) known=${2:?}; shift 2 ;;
    --fp8) fp8=1; shift ;;
    --model) model=${2:?}; shift 2 ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "run-refine.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
[ -n "$dir" ] && [ -n "$root" ] || { echo "run-refine.sh: --build and --kernels are required" >&2; exit 2; }
rj_check_build "$dir"
[ -x "$d4r" ] || { echo "run-refine.sh: no d4r at $d4r" >&2; exit 2; }
[ -z "$fp8" ] || [ -z "$model" ] || { echo "run-refine.sh: --fp8 is the test model's variant: not with --model" >&2; exit 2; }
model_args=() tag=""
if [ -n "$model" ]; then
    case "$model" in models/*.d4rnet) ;; *) echo "run-refine.sh: --model $model: give a model of models/, named relative to the repository (models/NAME.d4rnet)" >&2; exit 2 ;; esac
    [ -f "$repo/$model" ] || { echo "run-refine.sh: --model $model: no such file in $repo" >&2; exit 2; }
    model_args=(--model "$model")
    tag=-$(basename "$model" .d4rnet)
    case "$model" in *-fp8.d4rnet) fp8_model=1 ;; esac
fi
# The model is named relative to the repository, where d4r runs; the other paths were given relative to here.
dir=$(realpath "$dir") root=$(realpath "$root") d4r=$(realpath "$d4r") out=$(realpath -m "$out") known=$(realpath -m "$known")
cd "$repo" || exit 2
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
kernels_rev=$(git -C "$root" rev-parse HEAD 2> /dev/null || echo unknown)
git -C "$root" diff --quiet HEAD 2> /dev/null || kernels_rev="$kernels_rev (with uncommitted changes)"
status=0
for size in $sizes; do
    job="$work/refine-$size.job"
    "$d4r" kernels check --write-job "$job" --size "$size" --seed "$seed" ${fp8:+--fp8} "${model_args[@]}" || exit 1
    for target in $targets; do
        if [ -n "$fp8" ] && [ "${target#gfx12}" = "$target" ]; then
            echo "run-refine.sh: $target: no -fp8 sets (gfx12 only), skipped"
            continue
        fi
        cfg=$(rj_config "$dir" "$target")
        folder=$target${fp8:+-fp8}
        [ -n "$fp8_model" ] && [ "${target#gfx12}" != "$target" ] && folder=$target-fp8
        for set in $sets; do
            kdir="$root/$folder"
            [ "$set" = accuracy ] && kdir="$root/accuracy/$folder"
            name="$folder-$set-$size"
            [ -z "$model" ] || name="$target$tag-$set-$size" # the kernel set is recorded inside
            if [ ! -d "$kdir" ]; then
                echo "run-refine.sh: $name: no kernel folder $kdir" >&2
                status=1
                continue
            fi
            echo "run-refine.sh: [$(date +%H:%M:%S)] $name"
            start=$(date +%s)
            if ! "$(rj_harness "$dir")" --config "$cfg" --kernels "$kdir" --job "$job" --trace "$work/$name.trace" \
                > "$work/$name.run.log" 2>&1; then
                tail -5 "$work/$name.run.log" >&2
                echo "run-refine.sh: $name: d4r-rj-run failed" >&2
                { echo "# FAILED on rocjitsu: $(tail -1 "$work/$name.run.log")"; } > "$out/$name.failed"
                status=1
                continue
            fi
            seconds=$(( $(date +%s) - start ))
            bar=(--require-identical)
            fast_bar=60
            [ -n "$fp8$fp8_model" ] && fast_bar=40
            [ "$set" = fast ] && bar=(--min-psnr "$fast_bar")
            reason=$(awk -v k="${name%-"$size"}" '$1 == k {sub(/^[^ ]+ +/, ""); print; exit}' "$known" 2> /dev/null)
            if ! "$d4r" kernels check --trace "$work/$name.trace" --size "$size" --seed "$seed" ${fp8:+--fp8} "${model_args[@]}" --summary "$work/$name.sum" \
                "${bar[@]}" > "$work/$name.check.log" 2>&1; then
                if [ -n "$reason" ]; then
                    echo "run-refine.sh: $name: below its bar, a known failure: $reason"
                else
                    status=1
                    echo "run-refine.sh: $name: below its bar" >&2
                fi
            fi
            [ -f "$work/$name.sum" ] || { cat "$work/$name.check.log" >&2; status=1; continue; }
            rm -f "$out/$name.failed"
            {
                echo "# d4r's $set kernels for $target on rocjitsu, AMD's emulator (no AMD hardware), against the PTX path"
                echo "# made by tools/rocjitsu/run-refine.sh; checked by tests/network/amd_results_test.cpp"
                echo "rocjitsu $(cat "$dir/src/.d4r-exported")"
                echo "config $(basename "$cfg")"
                echo "target $target"
                echo "set $set"
                echo "kernel_set $folder"
                echo "kernels $kernels_rev"
                (cd "$kdir" && sha256sum ./*.hsaco) | sed 's|  \./| |; s/^/code /'
                echo "wall_seconds $seconds"
                [ -z "$reason" ] || echo "known_failure $reason"
                cat "$work/$name.sum"
            } > "$out/$name.txt"
            tail -1 "$work/$name.sum"
        done
    done
done
exit $status
