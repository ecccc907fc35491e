#!/usr/bin/env python3
"""The hot spots of a kernel from Nsight Compute's source page (tests/device/source-profile.sh's CSVs).

source_hot.py FILE.csv[.gz] [--top N]: the kernel's executed warp instructions and its stall samples by reason
(stall_long_sb: waiting for global or local memory; stall_short_sb: shared memory or the special-function unit;
stall_wait: a fixed-latency dependency; stall_barrier: __syncthreads), then the SASS instructions with the most stall
samples (a sample is charged to the instruction that waits, so a load's latency shows at its first use), each with
its share, its executions and its main reason, then the samples of each opcode. The columns are found by name, so a
newer Nsight Compute that adds columns still reads.
"""
import argparse
import collections
import csv
import gzip
import io
import sys


def read_rows(path):
    raw = gzip.open(path, "rb").read() if path.endswith(".gz") else open(path, "rb").read()
    text = raw.decode("utf-8", "replace")
    lines = text.splitlines()
    # ncu prints lines of its own (==PROF== ...) before the table: the header is the first line naming a stall column.
    start = next((i for i, line in enumerate(lines) if "Warp Stall Sampling" in line), None)
    if start is None:
        sys.exit(f"{path}: no 'Warp Stall Sampling' column (not an ncu --page source --csv file?)")
    return list(csv.DictReader(io.StringIO("\n".join(lines[start:]))))


def column(rows, *words):
    for name in rows[0].keys():
        if name and all(w in name for w in words):
            return name
    return None


def number(text):
    try:
        return float((text or "0").replace(",", ""))
    except ValueError:
        return 0.0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv", help="source-<kernel>-{sass,cuda}.csv[.gz]")
    parser.add_argument("--top", type=int, default=40, help="lines to print (default 40)")
    args = parser.parse_args()
    rows = read_rows(args.csv)
    if not rows:
        sys.exit(f"{args.csv}: no rows")
    stall = column(rows, "Warp Stall Sampling", "All")
    executed = column(rows, "Instructions Executed")
    source = column(rows, "Source")
    if not stall or not source:
        sys.exit(f"{args.csv}: columns {list(rows[0].keys())} lack a stall or source column")
    total = sum(number(r[stall]) for r in rows) or 1.0
    reasons = [c for c in rows[0].keys() if c and c.startswith("stall_") and "Not Issued" not in c]
    executed_total = sum(number(r[executed]) for r in rows) if executed else 0
    print(f"{args.csv}: {len(rows)} lines, {executed_total:.0f} warp instructions executed, {total:.0f} stall samples")
    if reasons:
        by_reason = collections.Counter({c[len("stall_"):]: sum(number(r[c]) for r in rows) for c in reasons})
        whole = sum(by_reason.values()) or 1.0
        print("by reason: " + ", ".join(f"{k} {100 * v / whole:.1f}%" for k, v in by_reason.most_common(10)))
    for r in sorted(rows, key=lambda r: -number(r[stall]))[: args.top]:
        ex = f"{number(r[executed]):>12.0f}" if executed else ""
        main_reason = max(reasons, key=lambda c: number(r[c]))[len("stall_"):] if reasons else ""
        print(f"{100 * number(r[stall]) / total:6.2f}%  {ex}  {main_reason:>14}  {r[source].strip()[:100]}")
    groups = collections.Counter()
    for r in rows:
        text = r[source].strip()
        key = text.split()[0] if text else "?"
        if key.startswith("@"):  # a predicated SASS instruction: its opcode is the next word
            key = text.split()[1] if len(text.split()) > 1 else key
        groups[key.split(".")[0]] += number(r[stall])
    print("by opcode:")
    for key, samples in groups.most_common(20):
        print(f"{100 * samples / total:6.2f}%  {key}")


if __name__ == "__main__":
    main()
