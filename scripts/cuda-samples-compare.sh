#!/usr/bin/env bash
# Compares cuda-samples sweeps of one OUT folder across backends (scripts/cuda-samples-sweep.sh --backend B
# --out OUT, once per backend).
#   scripts/cuda-samples-compare.sh OUT
# Reads OUT/results-{direct,driver,cpu}.tsv (those present) and OUT/output/BACKEND/SAMPLE.VARIANT.txt and
# writes OUT/comparison.md: per sample and variant the verdict on each backend, whether the driver
# backend's output equals the direct run's ("same" / "differs" / "-"), and for anything but a pass the
# reason (the sweep's note). Outputs are compared after normalisation: lines that carry timings or
# throughputs vary from run to run and are dropped (see normalise below: time, msec/ms/usec/sec units,
# GB/s, GFlop/s, TFLOPS, any rate per second (Mpixels/sec, Gsamples/s), bandwidth, throughput, elapsed,
# "Processing time", clock counts, CPU iterations while waiting), and addresses (0x and six or more hex
# digits: contexts, pointers) are masked. When the lines match only in another order (printf from
# concurrent blocks or threads, whose order CUDA leaves open) it says so. Prints the table too.
set -euo pipefail
if [ $# -ne 1 ] || [ ! -d "$1" ]; then
    echo "cuda-samples-compare: usage: $0 OUT (a sweep's --out folder)" >&2; exit 2
fi
out=$1

normalise() {
    grep -avE '[Tt]ime|[0-9.]+ *(m?sec|ms|us|usec|s)\b|[GMK]B/s|[GT]?[Ff]lop|FLOPS|[Bb]andwidth|[Tt]hroughput|[Ee]lapsed|[Pp]erformance=|[0-9.]+ *[A-Za-z]+/s(ec)?\b|[A-Za-z]+/s(ec)?:|clocks|iterations while waiting' "$1" |
        sed -E 's/0x[0-9a-fA-F]{6,}/0x.../g' || true
}

backends=()
for b in direct driver cpu; do [ -f "$out/results-$b.tsv" ] && backends+=("$b"); done
[ ${#backends[@]} -gt 0 ] || { echo "cuda-samples-compare: no results-*.tsv in $out" >&2; exit 2; }

declare -A verdict note
keys=()
for b in "${backends[@]}"; do
    while IFS=$'\t' read -r name variant build run _secs n _d4r; do
        [ "$name" = sample ] && continue
        k="$name.$variant"
        [ -n "${verdict[$k.seen]:-}" ] || { keys+=("$k"); verdict[$k.seen]=1; }
        if [ "$build" = ok ]; then verdict[$k.$b]=$run; else verdict[$k.$b]="build-$build"; fi
        note[$k.$b]=$n
    done <"$out/results-$b.tsv"
done

md=$out/comparison.md
{
    printf '| sample | variant |'; for b in "${backends[@]}"; do printf ' %s |' "$b"; done; printf ' driver vs direct | reasons |\n'
    printf '|---|---|'; for _ in "${backends[@]}"; do printf -- '---|'; done; printf -- '---|---|\n'
    for k in "${keys[@]}"; do
        name=${k%.*} variant=${k##*.}
        cmp=-
        if [ -n "${verdict[$k.direct]:-}" ] && [ -n "${verdict[$k.driver]:-}" ]; then
            if [ "${verdict[$k.direct]}" != "${verdict[$k.driver]}" ]; then cmp="verdict differs"
            elif [ -f "$out/output/direct/$k.txt" ] && [ -f "$out/output/driver/$k.txt" ]; then
                if cmp -s <(normalise "$out/output/direct/$k.txt") <(normalise "$out/output/driver/$k.txt"); then
                    cmp="same verdict, same output"
                elif cmp -s <(normalise "$out/output/direct/$k.txt" | sort) <(normalise "$out/output/driver/$k.txt" | sort); then
                    cmp="same verdict, same lines in another order" # printf from concurrent blocks or threads
                else cmp="same verdict, output differs"; fi
            fi
        fi
        reasons=''
        for b in "${backends[@]}"; do
            v=${verdict[$k.$b]:--}
            [ "$v" = pass ] || [ "$v" = - ] || [ -z "${note[$k.$b]:-}" ] || reasons+="${reasons:+; }$b: ${note[$k.$b]}"
        done
        printf '| %s | %s |' "$name" "$variant"
        for b in "${backends[@]}"; do printf ' %s |' "${verdict[$k.$b]:--}"; done
        printf ' %s | %s |\n' "$cmp" "${reasons//|/ }"
    done
    echo
    for b in "${backends[@]}"; do
        printf '%s: ' "$b"
        for k in "${keys[@]}"; do echo "${verdict[$k.$b]:--}"; done | sort | uniq -c | awk '{printf "%s%s %s", (NR>1?", ":""), $1, $2}'
        echo
    done
} >"$md"
cat "$md"
