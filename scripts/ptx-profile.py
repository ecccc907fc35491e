#!/usr/bin/env python3
"""Summarise the cpu backend's PTX profiles (D4R_CPU_PTX_PROFILE): where a kernel's warp instructions go, without a GPU.

The profile file holds, for every launch, a line "# kernel 'NAME' grid ... block ...: N warp instructions" and then
"COUNT LINE INSTRUCTION" for each line of the kernel's PTX that issued any. This script sums the launches of each kernel
and prints its launches, its warp instructions and its hottest places with their share:

  --by line     (default) the PTX lines themselves;
  --by source   the lines of the CUDA source the PTX was compiled from: the PTX's `.loc` directives (nvcc -lineinfo),
                read from --ptx, the module's PTX exactly as it was loaded (the profile's line numbers are its lines);
                an inlined helper's instructions go to the helper's line;
  --by caller   the same, but an inlined helper's instructions go to the line that called it (`inlined_at`).

With --by source and --sass (nvdisasm -g of the cubin built from the same source with -lineinfo), each source line also
gets an estimate of the SASS instructions the GPU would issue there: its SASS instructions times the times its PTX ran
(the PTX warp instructions there over the PTX instructions there), for the kernel whose name is --kernel. Summed, a
kernel's dynamic SASS count without a GPU; compared between two builds, what a change removes. Lines the PTX never
reached are left out; the estimate assumes a line's SASS runs as often as its PTX, which loops unrolled differently
can break.

Example (the fast sm_90 fused block on ptxsim, its PTX built with -lineinfo in place of the build's):
  D4R_CPU_PTX_PROFILE=/tmp/p.txt build/bin/d4r_network_tests --gtest_filter=...
  scripts/ptx-profile.py /tmp/p.txt --kernel d4r_nn_block --ptx build/.../fast_block.ptx --by source --top 30
"""
import argparse
import collections
import os
import re
import sys
import tempfile

HEADER = re.compile(r"^# kernel '(?P<name>.+)' grid (?P<grid>\S+) block (?P<block>\S+): (?P<n>\d+) warp instructions$")
ROW = re.compile(r"^(?P<count>\d+) (?P<line>\d+) (?P<text>.*)$")
FILE = re.compile(r'^\s*\.file\s+(?P<id>\d+)\s+"(?P<path>[^"]+)"')
LOC = re.compile(r"^\s*\.loc\s+(?P<file>\d+)\s+(?P<line>\d+)\s+\d+(?P<rest>.*)$")
INLINED = re.compile(r"inlined_at\s+(?P<file>\d+)\s+(?P<line>\d+)\s+\d+")


class ProfileError(Exception):
    pass


def read_profile(path):
    """{kernel: {"launches": n, "total": n, "lines": {ptx_line: [count, text]}}} from a profile file."""
    kernels = collections.OrderedDict()
    current = None
    with open(path, encoding="utf-8", errors="replace") as f:
        for number, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if not line:
                continue
            m = HEADER.match(line)
            if m:
                current = kernels.setdefault(m["name"], {"launches": 0, "total": 0, "lines": {}})
                current["launches"] += 1
                current["total"] += int(m["n"])
                continue
            m = ROW.match(line)
            if not m or current is None:
                raise ProfileError(f"{path}:{number}: not a profile line (a kernel header, then 'COUNT LINE TEXT'): "
                                   f"{line[:80]!r}")
            entry = current["lines"].setdefault(int(m["line"]), [0, m["text"]])
            entry[0] += int(m["count"])
    return kernels


def read_locations(ptx_path, caller):
    """{ptx_line: "file:line"} for every PTX line after a .loc (the innermost place, or with CALLER its inliner)."""
    with open(ptx_path, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    files = {}
    for text in lines:
        m = FILE.match(text)
        if m:
            files[m["id"]] = m["path"]
    where = {}
    current = None
    for number, text in enumerate(lines, 1):
        m = LOC.match(text)
        if m:
            file_id, line = m["file"], m["line"]
            inlined = INLINED.search(m["rest"])
            if caller and inlined:
                file_id, line = inlined["file"], inlined["line"]
            current = (files.get(file_id, f"file{file_id}"), int(line))
            continue
        if current:
            where[number] = current
    if not files:
        raise ProfileError(f"{ptx_path}: no .file/.loc directives: build the PTX with nvcc -lineinfo")
    return where


def ptx_static(ptx_path, kernel, where):
    """{place: PTX instructions of KERNEL there} (its entry's body), WHERE being read_locations' answer."""
    with open(ptx_path, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    entry = re.compile(r"\s*(\.visible\s+)?\.entry\s+" + re.escape(kernel) + r"\b")
    counts = collections.Counter()
    inside = False
    for number, text in enumerate(lines, 1):
        if entry.match(text):
            inside = True
            continue
        if inside and re.match(r"\s*(\.visible\s+|\.weak\s+)?\.(entry|func)\s", text):
            inside = False
        stripped = text.strip()
        if (inside and number in where and stripped and not stripped.startswith((".", "//", "{", "}"))
                and not stripped.endswith(":")):
            counts[where[number]] += 1
    return counts


def sass_static(sass_path, kernel):
    """{(file, line): SASS instructions of KERNEL there} from nvdisasm -g's output."""
    counts = collections.Counter()
    inside = False
    current = None
    with open(sass_path, encoding="utf-8", errors="replace") as f:
        for text in f:
            if text.startswith("//-----"):
                inside = f".text.{kernel} " in text
                continue
            m = re.match(r'\s*//## File "([^"]+)", line (\d+)', text)
            if m:
                current = (m.group(1), int(m.group(2)))
                continue
            if inside and current and re.match(r"\s*/\*[0-9a-f]{4,}\*/", text):
                counts[current] += 1
    if not counts:
        raise ProfileError(f"{sass_path}: no SASS of kernel '{kernel}' with line information (nvdisasm -g of a cubin "
                           "built with -lineinfo)")
    return counts


def sass_estimate(kernels, kernel, locations, ptx_counts, sass_counts, top):
    """The estimated dynamic SASS per source line of KERNEL (see the module's help)."""
    ran = collections.Counter()
    for ptx_line, (count, _) in kernels[kernel]["lines"].items():
        if ptx_line in locations:
            ran[locations[ptx_line]] += count
    by_base = {(os.path.basename(p), l): (p, l) for p, l in ptx_counts}
    estimate = collections.Counter()
    for (path, line), sass in sass_counts.items():
        place = by_base.get((os.path.basename(path), line))
        if place and ptx_counts[place]:
            estimate[place] = sass * ran[place] / ptx_counts[place]
    total = sum(estimate.values())
    out = [f"kernel '{kernel}': {kernels[kernel]['launches']} launch(es), {kernels[kernel]['total']} PTX warp "
           f"instructions, about {total:.0f} SASS ones (estimated: SASS a line x the times its PTX ran)"]
    for (path, line), v in sorted(estimate.items(), key=lambda kv: (-kv[1], str(kv[0])))[:top]:
        share = 100.0 * v / total if total else 0.0
        label = f"{os.path.basename(path)}:{line}"
        out.append(f"{v:12.0f} {share:5.1f}%  {label:<28} {source_text(path, line)}")
    return "\n".join(out) + "\n"


def source_text(path, line, cache={}):
    if path not in cache:
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                cache[path] = f.read().split("\n")
        except OSError:
            cache[path] = None
    text = cache[path]
    return text[line - 1].strip() if text and 0 < line <= len(text) else ""


def summary(kernels, by, locations, top, only):
    out = []
    for name, k in kernels.items():
        if only and name != only:
            continue
        total = k["total"]
        out.append(f"kernel '{name}': {k['launches']} launch(es), {total} warp instructions")
        places = collections.Counter()
        texts = {}
        unplaced = 0
        for ptx_line, (count, text) in k["lines"].items():
            if by == "line":
                places[ptx_line] += count
                texts[ptx_line] = text
            elif ptx_line in locations:
                place = locations[ptx_line]
                places[place] += count
            else:
                unplaced += count
        if by != "line" and unplaced:
            places[("(no .loc)", 0)] += unplaced
        ranked = sorted(places.items(), key=lambda kv: (-kv[1], str(kv[0])))
        for place, count in ranked[:top]:
            share = 100.0 * count / total if total else 0.0
            if by == "line":
                out.append(f"{count:12d} {share:5.1f}%  PTX {place:<7d} {texts[place]}")
            else:
                path, line = place
                label = f"{os.path.basename(path)}:{line}"
                out.append(f"{count:12d} {share:5.1f}%  {label:<28} {source_text(path, line) if line else ''}")
        if len(ranked) > top:
            rest = sum(c for _, c in ranked[top:])
            out.append(f"{rest:12d} {100.0 * rest / total if total else 0.0:5.1f}%  ({len(ranked) - top} more)")
    return "\n".join(out) + ("\n" if out else "")


def self_test():
    """Checks the summary of a small profile and PTX (two launches of one kernel, an inlined helper)."""
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "k.cu")
        with open(src, "w") as f:
            f.write("// k\n__device__ int helper(int x) { return x + 1; }\n__global__ void k() {\n  loop();\n}\n")
        ptx = os.path.join(d, "k.ptx")
        with open(ptx, "w") as f:
            f.write("\n".join([
                ".visible .entry k()",      # 1
                "{",                        # 2
                "\t.loc\t1 4 3",            # 3
                "\tmov.u32 %r1, 0;",        # 4
                "\t.loc\t1 2 40, function_name $L__info_string0, inlined_at 1 4 3",  # 5
                "\tadd.s32 %r1, %r1, 1;",   # 6
                "\tret;",                   # 7
                "}",                        # 8
                f'\t.file\t1 "{src}"',      # 9
            ]) + "\n")
        prof = os.path.join(d, "p.txt")
        with open(prof, "w") as f:
            f.write("# kernel 'k' grid 1x1x1 block 32x1x1: 12 warp instructions\n10 6 add.s32 %r1, %r1, 1\n"
                    "1 4 mov.u32 %r1, 0\n1 7 ret\n# kernel 'k' grid 2x1x1 block 32x1x1: 24 warp instructions\n"
                    "20 6 add.s32 %r1, %r1, 1\n2 4 mov.u32 %r1, 0\n2 7 ret\n")
        kernels = read_profile(prof)
        got = summary(kernels, "line", {}, 2, None)
        want = ("kernel 'k': 2 launch(es), 36 warp instructions\n"
                "          30  83.3%  PTX 6       add.s32 %r1, %r1, 1\n"
                "           3   8.3%  PTX 4       mov.u32 %r1, 0\n"
                "           3   8.3%  (1 more)\n")
        assert got == want, f"by line:\n{got}\nwanted:\n{want}"
        got = summary(kernels, "source", read_locations(ptx, False), 5, "k").split("\n")
        assert got[1].split()[:3] == ["33", "91.7%", "k.cu:2"], got  # the helper's line: add and ret
        assert got[1].endswith("__device__ int helper(int x) { return x + 1; }"), got
        assert got[2].split()[:3] == ["3", "8.3%", "k.cu:4"], got
        got = summary(kernels, "caller", read_locations(ptx, True), 5, "k").split("\n")
        assert got[1].split()[:3] == ["36", "100.0%", "k.cu:4"], got  # all of it at the call
        # The estimate: the helper's line has 2 PTX instructions (add, ret) that ran 33 times, and 3 SASS ones; the
        # call's line 1 PTX instruction that ran 3 times, and 2 SASS ones: 3 x 33 / 2 and 2 x 3 / 1.
        sass = os.path.join(d, "k.sass")
        with open(sass, "w") as f:
            f.write("//--------------------- .text.k --------------------------\n"
                    f'\t//## File "{src}", line 4\n        /*0000*/  MOV R1, RZ ;\n        /*0010*/  NOP ;\n'
                    f'\t//## File "{src}", line 2\n        /*0020*/  IADD3 R1, R1, 0x1, RZ ;\n'
                    "        /*0030*/  NOP ;\n        /*0040*/  EXIT ;\n")
        where = read_locations(ptx, False)
        got = sass_estimate(kernels, "k", where, ptx_static(ptx, "k", where),
                            sass_static(sass, "k"), 5).split("\n")
        assert "about 56 SASS ones" in got[0], got
        assert got[1].split()[:3] == ["50", "89.2%", "k.cu:2"], got
        assert got[2].split()[:3] == ["6", "10.8%", "k.cu:4"], got
        with open(prof, "a") as f:
            f.write("not a line\n")
        try:
            read_profile(prof)
            raise AssertionError("a malformed profile was read")
        except ProfileError as e:
            assert ":9: not a profile line" in str(e), e
        try:
            read_locations(prof, False)
            raise AssertionError("a PTX without .file was taken")
        except ProfileError as e:
            assert "-lineinfo" in str(e), e
    print("ptx-profile.py: self-test passed")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("profile", nargs="?", help="the file D4R_CPU_PTX_PROFILE named")
    ap.add_argument("--kernel", help="only this kernel")
    ap.add_argument("--top", type=int, default=25, help="places shown a kernel (default 25)")
    ap.add_argument("--by", choices=("line", "source", "caller"), default="line", help="what a place is")
    ap.add_argument("--ptx", help="the module's PTX as it was loaded, built with -lineinfo (for --by source/caller)")
    ap.add_argument("--sass", help="nvdisasm -g of the same source's cubin (-lineinfo): estimate its dynamic SASS "
                    "per source line (with --by source and --kernel)")
    ap.add_argument("--self-test", action="store_true", help="check this script on a small made-up profile")
    args = ap.parse_args()
    if args.self_test:
        self_test()
        return 0
    if not args.profile:
        ap.error("a profile file is needed (or --self-test)")
    if args.by != "line" and not args.ptx:
        ap.error(f"--by {args.by} needs --ptx: the module's PTX, built with -lineinfo")
    if args.top < 1:
        ap.error("--top must be at least 1")
    if args.sass and (args.by != "source" or not args.kernel):
        ap.error("--sass needs --by source and --kernel")
    try:
        kernels = read_profile(args.profile)
        if args.kernel and args.kernel not in kernels:
            raise ProfileError(f"{args.profile}: no launch of kernel '{args.kernel}' (it has: "
                               f"{', '.join(kernels) or 'none'})")
        locations = read_locations(args.ptx, args.by == "caller") if args.by != "line" else {}
        if args.sass:
            text = sass_estimate(kernels, args.kernel, locations, ptx_static(args.ptx, args.kernel, locations),
                                 sass_static(args.sass, args.kernel), args.top)
        else:
            text = summary(kernels, args.by, locations, args.top, args.kernel)
    except (OSError, ProfileError) as e:
        print(f"ptx-profile.py: {e}", file=sys.stderr)
        return 2
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
