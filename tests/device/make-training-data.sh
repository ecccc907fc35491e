#!/bin/bash
# Training data for refine-v1 (docs/network.md): frame dumps of the generated training scenes
# train-1 .. train-SEEDS (docs/scenes.md, "Training scenes"; never the evaluation scenes), FRAMES frames
# each, through `d4r demo --dump-frames` (docs/demo.md, "Frame dumps").
#
#   tests/device/make-training-data.sh OUTDIR SEEDS FRAMES [BIN_DIR]
#
# BIN_DIR (or $D4R_BIN; default build/bin) holds d4r; its libraries (libd4rcuda.so, libd4r_ngx.so) are in
# BIN_DIR/../lib (or $D4R_LIB). Writes OUTDIR/train-<seed>/train-<seed>-fNNN.d4rframe, the demo's
# report.json of each seed in OUTDIR/reports/train-<seed>/ and its output in OUTDIR/logs/train-<seed>.log.
# Seeds run in parallel: $JOBS demos at once (default nproc / 4), each rendering its scene on $THREADS
# threads (default nproc / JOBS); the upscaler runs on --backend auto (the GPU when there is one).
# $DEMO_ARGS is passed on to every demo (e.g. "--render 320x180 --output 640x360"; the default
# 640x360 -> 1280x720 makes 11 MB per frame). Exits 1 when a seed failed, 2 on bad arguments.
set -u

if [ "${1:-}" = "--one" ]; then # one seed, run by xargs below
    seed=$2
    name="train-$seed"
    start=$(date +%s)
    # shellcheck disable=SC2086 # DEMO_ARGS is a list of words
    if "$D4R_BIN/d4r" demo --scene "$name" --frames "$FRAMES" --no-images --translated-frames 0 \
        --dump-frames "$OUTDIR/$name" --out "$OUTDIR/reports/$name" --quiet --backend auto \
        --scene-threads "$THREADS" --lib-dir "$D4R_LIB" ${DEMO_ARGS:-} >"$OUTDIR/logs/$name.log" 2>&1; then
        result="ok"
    else
        result="FAILED (exit $?; $OUTDIR/logs/$name.log): $(tail -n 3 "$OUTDIR/logs/$name.log" | tr '\n' ' ')"
    fi
    record="echo '$name $result' >> '$OUTDIR/logs/progress'; wc -l < '$OUTDIR/logs/progress'"
    if command -v flock >/dev/null; then
        done_count=$(flock "$OUTDIR/logs/progress" sh -c "$record")
    else
        done_count=$(sh -c "$record")
    fi
    echo "[$done_count/$SEEDS] $name $result ($(($(date +%s) - start)) s)"
    [ "$result" = ok ]
    exit
fi

if [ $# -lt 3 ] || [ $# -gt 4 ]; then
    sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
OUTDIR=$1
SEEDS=$2
FRAMES=$3
D4R_BIN=${4:-${D4R_BIN:-build/bin}}
D4R_LIB=${D4R_LIB:-$D4R_BIN/../lib}
case "$SEEDS$FRAMES" in '' | *[!0-9]*)
    echo "make-training-data.sh: SEEDS and FRAMES must be positive numbers" >&2
    exit 2
    ;;
esac
if [ "$SEEDS" -lt 1 ] || [ "$FRAMES" -lt 1 ]; then
    echo "make-training-data.sh: SEEDS and FRAMES must be at least 1" >&2
    exit 2
fi
if [ ! -x "$D4R_BIN/d4r" ] || [ ! -f "$D4R_LIB/libd4r_ngx.so" ] || [ ! -f "$D4R_LIB/libd4rcuda.so" ]; then
    echo "make-training-data.sh: need $D4R_BIN/d4r, $D4R_LIB/libd4rcuda.so and $D4R_LIB/libd4r_ngx.so" >&2
    exit 2
fi
D4R_BIN=$(cd "$D4R_BIN" && pwd)
D4R_LIB=$(cd "$D4R_LIB" && pwd)
# The demo loads libd4rcuda under the driver's name.
[ -e "$D4R_LIB/libcuda.so.1" ] || ln -s libd4rcuda.so "$D4R_LIB/libcuda.so.1"
export LD_LIBRARY_PATH="$D4R_LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

cores=$(nproc)
JOBS=${JOBS:-$((cores / 4 > 0 ? cores / 4 : 1))}
THREADS=${THREADS:-$((cores / JOBS > 0 ? cores / JOBS : 1))}
mkdir -p "$OUTDIR/logs" "$OUTDIR/reports"
OUTDIR=$(cd "$OUTDIR" && pwd)
: >"$OUTDIR/logs/progress"
export OUTDIR SEEDS FRAMES D4R_BIN D4R_LIB THREADS DEMO_ARGS

echo "training data: seeds 1..$SEEDS, $FRAMES frames each, $JOBS demos at once on $THREADS threads each, into $OUTDIR"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
seq 1 "$SEEDS" | xargs -P "$JOBS" -I{} "$0" --one {}
failed=$(grep -vc ' ok$' "$OUTDIR/logs/progress")
frames=$(find "$OUTDIR" -name '*.d4rframe' | wc -l)
echo "done in $(($(date +%s) - start)) s: $frames frame dumps, $failed of $SEEDS seeds failed"
[ "$failed" -eq 0 ]
