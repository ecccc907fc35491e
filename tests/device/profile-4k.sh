#!/bin/bash
# tests/device/profile-4k.sh [CARRY]: where a 4K frame's GPU time goes (the open core + the refine network's
# fast sm_90 set), on the H200:
#   1. d4r demo, city 1920x1080 -> 3840x2160, network off and on: GPU time per frame (events around the frame), and
#      the frames of the fast set (sm_90: the core's fast d4r_up_accumulate and the network's fast kernels) against
#      the accuracy set's (D4R_PREFER_ACCURACY=1), tone-mapped PSNR per frame, and the accuracy set's frames against
#      the PTX path's (--native off): identical files;
#   2. Nsight Compute: duration, DRAM and SM throughput and achieved occupancy of every kernel of the last frame.
# SKIP_TIMING=1 runs step 2 alone; SKIP_NCU=1 step 1 alone.
# CARRY as for refine-sm90.sh. Everything is printed; the raw reports go to $OUT when it is set.
set -uo pipefail
carry=$(realpath "${1:-.carry}")
export carry
root="$carry/share/d4r/native"
out=${OUT:-/tmp/profile-4k}
mkdir -p "$out"
log() { echo "== $(date +%T) $*"; }
demo() {
    D4R_NETWORK_MODEL=models/refine-v1.d4rnet "$carry/bin/d4r" demo --scene city --backend driver --native "${NATIVE:-on}" \
        --render 1920x1080 --output 3840x2160 --translated-frames 0 --no-images --lib-dir "$carry/lib" "$@"
}
export D4R_CUDA_BACKEND=driver D4R_NATIVE_KERNEL_DIR="$root"

log "1. GPU time per frame"
nets="off on"
[ -n "${SKIP_TIMING:-}" ] && nets="" && echo "skipped (SKIP_TIMING)"
for net in $nets; do
    echo "-- network $net: $(demo --network "$net" --frames 6 --out /tmp/p-$net 2>&1 | grep -E '^time')"
done
if [ -z "${SKIP_TIMING:-}" ]; then
    demo --network on --frames 6 --out /tmp/p-fast --dump-frames /tmp/f-fast > /dev/null 2>&1
    D4R_PREFER_ACCURACY=1 demo --network on --frames 6 --out /tmp/p-acc --dump-frames /tmp/f-acc 2>&1 | grep -E '^time' | sed 's/^/   accuracy set: /'
    (unset D4R_NATIVE_KERNEL_DIR; NATIVE=off demo --network on --frames 6 --out /tmp/p-ptx --dump-frames /tmp/f-ptx \
        2>&1 | grep -E '^time|error' | sed 's/^/   PTX path: /')
    echo "-- the accuracy set's frames against the PTX path's (native kernels off): must be identical"
    for f in /tmp/f-ptx/*.d4rframe; do
        cmp -s "$f" "/tmp/f-acc/$(basename "$f")" && echo "   $(basename "$f"): identical" || echo "   $(basename "$f"): DIFFERENT"
    done
    echo "-- the fast set's frames against the accuracy set's"
    python3 - /tmp/f-acc /tmp/f-fast <<'PY'
import sys, glob, numpy as np
for fa in sorted(glob.glob(sys.argv[1] + "/*.d4rframe")):
    fb = fa.replace(sys.argv[1], sys.argv[2])
    def out(path):
        raw = np.fromfile(path, dtype=np.uint8)
        w, h = np.frombuffer(raw[8:16].tobytes(), dtype="<u4")
        return np.frombuffer(raw[24:24 + int(w) * int(h) * 6].tobytes(), dtype="<f2").astype(np.float32)
    x, y = out(fa), out(fb)
    tone = lambda v: np.clip(v, 0, None) / (1 + np.clip(v, 0, None))
    mse = float(np.mean((tone(x) - tone(y)) ** 2))
    print(f"   {fb.split('/')[-1]}: {np.count_nonzero(x != y)} of {x.size} values differ, tone-mapped PSNR "
          f"{'inf' if mse == 0 else f'{10 * np.log10(1 / mse):.1f}'} dB")
PY
fi

[ -n "${SKIP_NCU:-}" ] && { log "2. skipped (SKIP_NCU)"; exit 0; }
log "2. per kernel (ncu, frame 3)"
ncu --launch-skip 0 --kernel-name-base function --csv --page raw \
    --metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,launch__grid_size,launch__block_size,launch__registers_per_thread \
    bash -c "$(declare -f demo); demo --network on --frames 3 --out /tmp/p-ncu" > "$out/ncu.csv" 2> "$out/ncu.err"
python3 - "$out/ncu.csv" <<'PY'
import csv, sys
lines = open(sys.argv[1]).read().splitlines()
start = next(i for i, l in enumerate(lines) if l.startswith('"ID"'))
rows = list(csv.DictReader(lines[start:]))[1:]  # the first row after the header holds units
f = lambda s: float(s.replace(",", ""))
last = max(i for i, r in enumerate(rows) if r["Kernel Name"].startswith("d4r_up_prepare"))
total = 0.0
for r in rows[last:]:
    t = f(r["gpu__time_duration.sum"]) / 1e3
    total += t
    print(f'{r["Kernel Name"][:28]:28s} {t:8.1f} us  dram {f(r["dram__throughput.avg.pct_of_peak_sustained_elapsed"]):5.1f}%  '
          f'sm {f(r["sm__throughput.avg.pct_of_peak_sustained_elapsed"]):5.1f}%  '
          f'warps {f(r["sm__warps_active.avg.pct_of_peak_sustained_active"]):5.1f}%  '
          f'grid {r["launch__grid_size"]} block {r["launch__block_size"]} regs {r["launch__registers_per_thread"]}')
print(f"sum of the last frame's kernels: {total / 1e3:.3f} ms")
PY
log "done"
