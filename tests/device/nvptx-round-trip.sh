#!/usr/bin/env bash
# The round trip of issue 29 on the H200 (docs/ptx-front-end.md, "The round trip"): every corpus case run from the
# PTX that d4r's front end and LLVM's NVPTX back end made of its module (d4r ptx nvptx), compared with the case's
# golden from the original PTX. Identical bytes for every case prove that the front end reads each instruction as
# the hardware executes it, with no ptxsim in between.
#
# Two steps:
#  1. Development machine (LLVM 19 is there): tests/device/nvptx-round-trip.sh --prepare DIR [--d4r PATH]
#     [--no-inline-ptx] writes DIR/ptx/<module>.ptx for every module of tests/ptxsim/corpus/ptx that round-trips and
#     DIR/refused.txt (one line per refused module, with the reason); --no-inline-ptx passes it to d4r ptx nvptx (the
#     instructions LLVM has no intrinsic for refused instead of passed through). DIR must be inside the repository
#     and ignored by git (for example build/nvptx-round-trip); carry it to the device.
#  2. Device machine (repository root): tests/device/nvptx-round-trip.sh DIR
#     builds tests/device/ptxsim_golden_runner.cpp with g++ alone, runs every case on DIR/ptx, compares each
#     case's byte count and FNV-1a 64 with tests/ptxsim/corpus/golden/summary.txt, and writes
#     $OUT/nvptx-round-trip.md (one line per case: identical, DIFFERENT, FAILED, or refused with the reason) and
#     $OUT/nvptx-round-trip.tar.gz (the runner's log and summary, the .out of each case that differs, the PTX).
# Exit status: 0 when every round-tripped case is identical to its golden; 1 when one differs or fails, or the
# runner cannot be built; 2 bad usage. DRY_RUN=1 runs the runner with --dry-run (no GPU; every case then differs).
set -uo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
corpus=$repo/tests/ptxsim/corpus
usage() { sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; }

if [[ $# -ge 1 && ( $1 == -h || $1 == --help ) ]]; then
    usage
    exit 0
fi

if [[ $# -ge 2 && $1 == --prepare ]]; then
    dir=$2
    d4r=$repo/build/bin/d4r
    strict=()
    shift 2
    while [[ $# -gt 0 ]]; do
        case $1 in
            --d4r) d4r=${2:?--d4r needs a path}; shift 2 ;;
            --no-inline-ptx) strict=(--no-inline-ptx); shift ;;
            *) echo "nvptx-round-trip: unknown argument '$1' after --prepare DIR (accepted: --d4r PATH, --no-inline-ptx)" >&2
               exit 2 ;;
        esac
    done
    if [[ ! -x $d4r ]]; then
        echo "nvptx-round-trip: no d4r at $d4r (build it, or give --d4r PATH)" >&2
        exit 2
    fi
    rm -rf "$dir"
    mkdir -p "$dir/ptx" || exit 2
    : > "$dir/refused.txt"
    made=0 refused=0
    for ptx in "$corpus"/ptx/*.ptx; do
        module=$(basename "$ptx" .ptx)
        if why=$("$d4r" ptx nvptx "${strict[@]}" "$ptx" -o "$dir/ptx/$module.ptx" 2>&1); then
            made=$((made + 1))
        else
            refused=$((refused + 1))
            echo "$module: ${why//$'\n'/ }" >> "$dir/refused.txt"
        fi
    done
    echo "nvptx-round-trip: $made modules round-tripped into $dir/ptx, $refused refused ($dir/refused.txt)"
    exit 0
fi

if [[ $# -ne 1 || ! -d $1/ptx ]]; then
    usage >&2
    exit 2
fi
dir=$(cd "$1" && pwd)
out=${OUT:-$repo/out/device}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
start=$(date +%s)

echo "== nvptx-round-trip: building the runner (g++ -O2 -std=c++17 ... -ldl)"
if ! ${CXX:-g++} -O2 -std=c++17 -Wall -o "$work/runner" \
        "$repo/tests/device/ptxsim_golden_runner.cpp" "$corpus"/{corpus,corpus_gen,corpus_cases}.cpp -ldl; then
    echo "nvptx-round-trip: FAILED to build the runner" >&2
    exit 1
fi
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader || true

# The runner reads CORPUS/ptx/<module>.ptx: the round-tripped modules (a refused module's cases fail to read).
mkdir -p "$work/corpus" "$work/results"
ln -s "$dir/ptx" "$work/corpus/ptx"
# DRY_RUN=1: the runner's --dry-run (host memory, no launches: every case differs), to check this script without a GPU.
"$work/runner" --corpus "$work/corpus" --out "$work/results" ${DRY_RUN:+--dry-run} 2>&1 | tee "$work/results/runner.log"

report=$out/nvptx-round-trip.md
identical=0 different=0 failed=0 refused=0
{
    echo "# The NVPTX round trip on $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
    echo
    echo "Each corpus case run from the PTX d4r's front end and LLVM's NVPTX back end made of its module, compared"
    echo "with the golden of the original PTX (tests/ptxsim/corpus/golden/summary.txt: bytes and FNV-1a 64)."
    echo
    echo "| case | result |"
    echo "|---|---|"
} > "$report"
mkdir -p "$work/different"
while read -r name bytes hash _; do
    [[ $name == \#* || -z $name ]] && continue
    got=$(grep -E "^(FAIL )?$name( |$)" "$work/results/summary.txt" | head -1)
    if [[ $got == "FAIL $name" ]]; then
        reason=$(grep -E "^FAIL $name:" "$work/results/runner.log" | head -1 | cut -d: -f2-)
        if [[ $reason == *"cannot read"* ]]; then
            m=$(basename "${reason##* }" .ptx)
            why=$(grep -E "^$m: " "$dir/refused.txt" | head -1 | cut -d: -f2-)
            echo "| $name | refused:${why:- (module $m not round-tripped)} |" >> "$report"
            refused=$((refused + 1))
        else
            echo "| $name | FAILED:$reason |" >> "$report"
            failed=$((failed + 1))
        fi
        continue
    fi
    read -r _ got_bytes got_hash _ <<< "$got"
    if [[ $got_bytes == "$bytes" && $got_hash == "$hash" ]]; then
        echo "| $name | identical ($bytes bytes) |" >> "$report"
        identical=$((identical + 1))
    else
        echo "| $name | DIFFERENT: $got_bytes bytes, fnv1a64 $got_hash (golden $bytes, $hash) |" >> "$report"
        cp "$work/results/$name.out" "$work/different/" 2>/dev/null
        different=$((different + 1))
    fi
done < "$corpus/golden/summary.txt"
{
    echo
    echo "$identical identical, $different different, $failed failed, $refused refused (not round-tripped)."
} >> "$report"
cp -r "$dir/ptx" "$work/results/round-tripped-ptx"
cp "$dir/refused.txt" "$work/results/"
tar czf "$out/nvptx-round-trip.tar.gz" -C "$work" results different
cat "$report"
echo "== nvptx-round-trip: $identical identical, $different different, $failed failed, $refused refused in $(( $(date +%s) - start )) s"
[[ $different -eq 0 && $failed -eq 0 ]]
