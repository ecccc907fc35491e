#!/usr/bin/env bash
# Runs clang-tidy-19 with the repository's .clang-tidy over d4r's own C++ sources (src/**/*.cpp that the
# build compiles), every finding an error. The checks are a short list of bug patterns (use after move,
# dangling handles, swapped arguments, ...), chosen to stay quiet on correct code and cheap enough for CI.
#
# Usage: scripts/check-tidy.sh BUILD_DIR [FILE...]  (BUILD_DIR: a configured build with compile_commands.json;
#                                                    FILE...: only these, else every src/**/*.cpp in it)
#        scripts/check-tidy.sh --record-seed BUILD_DIR   (the whole tree; writes the seed when clean)
#        scripts/check-tidy.sh --self-test          (checks that a planted use-after-move is caught)
# Clean results are cached by content: a file is not checked again while the sha256 of its compile command,
# the contents of the source and of every header it includes (from ninja's dependency log of BUILD_DIR, so
# the build must have compiled it), .clang-tidy and clang-tidy's --version are those of a clean run. Paths of
# the repository and the build folder are left out of the key, so another clone shares it. The cache is
# $D4R_TIDY_CACHE, default ${XDG_CACHE_HOME:-~/.cache}/d4r-tidy; D4R_TIDY_CACHE=off checks every file (the seed
# too). The committed seed tests/core/tidy-clean.txt holds the keys of a clean run of the whole tree (each key a
# sha256 of everything that can change clang-tidy's answer), so a fresh clone on a machine with the same
# packages (CI) checks only what changed since: a key found there counts as cached. D4R_TIDY_SEED=FILE reads
# another, D4R_TIDY_SEED=off none. --record-seed (first argument; whole tree only) writes the seed after a
# clean run: every file's key, sorted. Run it before committing (`make tidy-seed`).
# Exit 0 when clean; 1 naming each finding (file:line: message [check]); 2 when clang-tidy-19 is missing,
# BUILD_DIR has no compile_commands.json, or clang-tidy failed without a finding to show for it (a non-zero
# exit with no finding, a crash, no version line from --version): a file it could not check is not clean.
set -uo pipefail

tool=${CLANG_TIDY:-clang-tidy-19}
here=$(cd "$(dirname "$0")/.." && pwd -P)
case "${1:-}" in
    -h|--help|"") sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; [ -n "${1:-}" ]; exit $? ;;
esac
command -v "$tool" >/dev/null || { echo "check-tidy: $tool not found (scripts/install-deps.sh installs it)" >&2; exit 2; }
# The tool must answer as clang-tidy does before its silence can mean "clean".
version=$("$tool" --version 2>&1); vrc=$?
if [ $vrc -ne 0 ] || ! grep -q 'LLVM version' <<< "$version"; then
    echo "check-tidy: '$tool --version' exited $vrc without an 'LLVM version' line; is it clang-tidy? It printed:" >&2
    printf '%s\n' "${version:-(nothing)}" | head -5 | sed 's/^/    /' >&2
    exit 2
fi

if [ "$1" = --self-test ]; then
    tmp=$(mktemp -d) || exit 2
    trap 'rm -rf "$tmp"' EXIT
    export D4R_TIDY_CACHE=$tmp/cache # the self-test's own cache
    mkdir -p "$tmp/src" "$tmp/build"
    cp "$here/.clang-tidy" "$tmp/"
    cat > "$tmp/src/moved.cpp" <<'CPP'
#include <string>
#include <utility>
std::string take(std::string s) { return s; }
int planted() {
    std::string a = "x";
    std::string b = take(std::move(a));
    return static_cast<int>(a.size() + b.size());
}
CPP
    printf 'int fine(int a) { return a + 1; }\n' > "$tmp/src/fine.cpp"
    printf '[{"directory":"%s","file":"%s/src/moved.cpp","command":"c++ -std=c++20 -c %s/src/moved.cpp"},' "$tmp" "$tmp" "$tmp" > "$tmp/build/compile_commands.json"
    printf '{"directory":"%s","file":"%s/src/fine.cpp","command":"c++ -std=c++20 -c %s/src/fine.cpp"}]\n' "$tmp" "$tmp" "$tmp" >> "$tmp/build/compile_commands.json"
    out=$(D4R_TIDY_ROOT="$tmp" "$0" "$tmp/build" 2>&1); rc=$?
    if [ $rc -ne 1 ] || ! grep -q 'moved.cpp:7:.*bugprone-use-after-move' <<< "$out" || grep -q 'fine.cpp' <<< "$out"; then
        echo "check-tidy self-test: expected exit 1 naming moved.cpp:7 (bugprone-use-after-move) only; got exit $rc:"
        echo "$out"
        exit 1
    fi
    out=$(D4R_TIDY_ROOT="$tmp" "$0" "$tmp/build" "$tmp/src/fine.cpp" 2>&1); rc=$?
    if [ $rc -ne 0 ] || ! grep -q '1 files clean' <<< "$out"; then
        echo "check-tidy self-test: expected exit 0 for fine.cpp alone; got exit $rc:"; echo "$out"; exit 1
    fi
    # A tool that fails or crashes must fail the check, never pass it as clean. Fakes: /bin/false; a tool that
    # answers --version and then dies of SIGSEGV on every file; one that exits 1 without a finding (as clang-tidy
    # does for an unreadable config); one that prints no version.
    printf '#!/bin/sh\ncase "$1" in --version) echo "LLVM version 19.1.7"; exit 0 ;; esac\nkill -SEGV $$\n' > "$tmp/crash"
    printf '#!/bin/sh\ncase "$1" in --version) echo "LLVM version 19.1.7"; exit 0 ;; esac\necho "Error: no checks" >&2; exit 1\n' > "$tmp/fails"
    printf '#!/bin/sh\nexit 0\n' > "$tmp/silent"
    chmod +x "$tmp/crash" "$tmp/fails" "$tmp/silent"
    for fake in /bin/false:"exited 1 without an 'LLVM version' line" "$tmp/crash:crashed (signal 11)" \
                "$tmp/fails:exited 1 without a finding" "$tmp/silent:exited 0 without an 'LLVM version' line"; do
        out=$(CLANG_TIDY=${fake%%:*} D4R_TIDY_ROOT="$tmp" "$0" "$tmp/build" 2>&1); rc=$?
        if [ $rc -ne 2 ] || ! grep -qF "${fake#*:}" <<< "$out" || grep -q clean <<< "$out"; then
            echo "check-tidy self-test: with CLANG_TIDY=${fake%%:*} expected exit 2 saying '${fake#*:}'; got exit $rc:"
            echo "$out"
            exit 1
        fi
    done
    # The cache: on a Ninja build (its dependency log names the headers), a clean file is checked once; a change
    # to a header it includes checks it again; a file with a finding is never cached.
    mkdir -p "$tmp/proj/src"
    cp "$here/.clang-tidy" "$tmp/src/moved.cpp" "$tmp/proj/"
    mv "$tmp/proj/moved.cpp" "$tmp/proj/src/"
    printf 'inline int twice(int a) { return 2 * a; }\n' > "$tmp/proj/src/a.h"
    printf '#include "a.h"\nint four() { return twice(2); }\n' > "$tmp/proj/src/a.cpp"
    printf 'cmake_minimum_required(VERSION 3.25)\nproject(p CXX)\nset(CMAKE_EXPORT_COMPILE_COMMANDS ON)\nadd_library(p STATIC src/a.cpp src/moved.cpp)\n' > "$tmp/proj/CMakeLists.txt"
    if ! { cmake -S "$tmp/proj" -B "$tmp/proj/build" -G Ninja && cmake --build "$tmp/proj/build"; } > "$tmp/proj.log" 2>&1; then
        echo "check-tidy self-test: the scratch Ninja project for the cache does not build:"; cat "$tmp/proj.log"; exit 1
    fi
    tidy_cached() { # tidy_cached WANT_RC PATTERN: one run over the scratch project
        out=$(D4R_TIDY_ROOT="$tmp/proj" "$0" "$tmp/proj/build" 2>&1); rc=$?
        if [ $rc -ne "$1" ] || ! grep -qE -- "$2" <<< "$out"; then
            echo "check-tidy self-test: cache: expected exit $1 and /$2/; got exit $rc:"; echo "$out"; exit 1
        fi
    }
    tidy_cached 1 'moved.cpp:7:.*bugprone-use-after-move'
    tidy_cached 1 'moved.cpp:7:.*bugprone-use-after-move' # not cached: checked again
    rm "$tmp/proj/src/moved.cpp" && touch "$tmp/proj/src/moved.cpp" # now clean: two clean files
    tidy_cached 0 '2 files clean \(1 checked, 1 from the cache'
    tidy_cached 0 '2 files clean \(0 checked, 2 from the cache'
    printf '// changed\ninline int twice(int a) { return 2 * a; }\n' > "$tmp/proj/src/a.h"
    tidy_cached 0 '2 files clean \(1 checked, 1 from the cache'
    # The seed: recorded from a clean run, it stands in for an empty cache (a fresh clone), file by file.
    mkdir -p "$tmp/proj/tests/core"
    out=$(D4R_TIDY_ROOT="$tmp/proj" "$0" --record-seed "$tmp/proj/build" 2>&1)
    grep -q 'recorded 2 keys' <<< "$out" || { echo "check-tidy self-test: --record-seed:"; echo "$out"; exit 1; }
    export D4R_TIDY_CACHE=$tmp/cache2
    tidy_cached 0 '2 files clean \(0 checked, 0 from the cache .*, 2 from the seed'
    printf '// changed again\ninline int twice(int a) { return 2 * a; }\n' > "$tmp/proj/src/a.h"
    export D4R_TIDY_CACHE=$tmp/cache3
    tidy_cached 0 '2 files clean \(1 checked, 0 from the cache .*, 1 from the seed'
    echo "check-tidy self-test: ok"
    exit 0
fi

record_seed=0
if [ "$1" = --record-seed ]; then
    record_seed=1
    shift
    [ $# -eq 1 ] || { echo "check-tidy: --record-seed takes BUILD_DIR only (the seed holds the whole tree)" >&2; exit 2; }
fi
build=$1
shift
root=${D4R_TIDY_ROOT:-$here}
seed=${D4R_TIDY_SEED:-$root/tests/core/tidy-clean.txt}
[ -f "$build/compile_commands.json" ] || { echo "check-tidy: $build/compile_commands.json not found (configure the build first)" >&2; exit 2; }
if [ $# -gt 0 ]; then
    files=("$@")
else
    mapfile -t files < <(python3 - "$build/compile_commands.json" "$root" <<'PY'
import json, os, sys
root = os.path.realpath(sys.argv[2]) + "/src/"
seen = set()
for e in json.load(open(sys.argv[1])):
    f = os.path.realpath(os.path.join(e["directory"], e["file"]))
    if f.startswith(root) and f.endswith(".cpp") and f not in seen:
        seen.add(f)
        print(f)
PY
)
fi
[ ${#files[@]} -gt 0 ] || { echo "check-tidy: no sources under $root/src in $build/compile_commands.json" >&2; exit 2; }

work=$(mktemp -d) || exit 2
trap 'rm -rf "$work"' EXIT
start=$(date +%s)
cache=${D4R_TIDY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/d4r-tidy}
# The cache key of each file ("-": none, no dependency log for it), one "KEY<TAB>FILE" line each.
if [ "$cache" != off ]; then
    mkdir -p "$cache" || { echo "check-tidy: cannot make the cache folder $cache (D4R_TIDY_CACHE=off checks without)" >&2; exit 2; }
    printf '%s\0' "${files[@]}" | python3 -c '
import hashlib, json, os, re, shlex, subprocess, sys
build, root, config, version = sys.argv[1:5]
build, root = os.path.realpath(build), os.path.realpath(root)
files = [f for f in sys.stdin.read().split("\0") if f]
commands = {}
for e in json.load(open(os.path.join(build, "compile_commands.json"))):
    commands.setdefault(os.path.realpath(os.path.join(e["directory"], e["file"])), e)
# ninja dependency log: every header each object included when the build compiled it.
deps, current = {}, None
try:
    log = subprocess.run(["ninja", "-C", build, "-t", "deps"], capture_output=True, text=True, timeout=120).stdout
except (OSError, subprocess.SubprocessError):
    log = ""
for line in log.splitlines():
    m = re.match(r"^(\S.*): #deps \d+, deps mtime \d+ \((\w+)\)$", line)
    if m:
        current = deps.setdefault(m.group(1), []) if m.group(2) == "VALID" else None
    elif line.startswith("    ") and current is not None:
        current.append(line.strip())
content = {}
def file_hash(path):
    if path not in content:
        try:
            content[path] = hashlib.sha256(open(path, "rb").read()).hexdigest()
        except OSError:
            content[path] = "missing"
    return content[path]
def neutral(text):  # the key must not depend on where the clone or the build folder is
    return text.replace(build, "@BUILD@").replace(root, "@ROOT@")
common = hashlib.sha256((version + "\0" + file_hash(config)).encode()).hexdigest()
for f in files:
    e = commands.get(os.path.realpath(f))
    args = (e.get("arguments") or shlex.split(e.get("command", ""))) if e else []
    out = args[args.index("-o") + 1] if "-o" in args[:-1] else None
    dep_list = deps.get(out) if out else None
    if not dep_list:
        print(f"-\t{f}")
        continue
    h = hashlib.sha256((common + "\0" + neutral(" ".join(args))).encode())
    for d in dep_list:
        path = os.path.normpath(os.path.join(e["directory"], d))
        h.update(f"\0{neutral(path)}\0{file_hash(path)}".encode())
    print(f"{h.hexdigest()}\t{f}")
' "$build" "$root" "$root/.clang-tidy" "$version" > "$work/keys" ||
        { echo "check-tidy: computing the cache keys failed (D4R_TIDY_CACHE=off checks without the cache)" >&2; exit 2; }
else
    printf -- '-\t%s\n' "${files[@]}" > "$work/keys"
fi
to_check=()
from_cache=0 from_seed=0
seeded=$work/seeded
: > "$seeded"
if [ "$cache" != off ] && [ "$seed" != off ] && [ -f "$seed" ]; then grep -v '^#' "$seed" > "$seeded"; fi
while IFS=$'\t' read -r key f; do
    if [ "$key" != - ] && [ -e "$cache/$key" ]; then
        from_cache=$((from_cache + 1))
    elif [ "$key" != - ] && grep -qxF "$key" "$seeded"; then
        from_seed=$((from_seed + 1))
    else
        to_check+=("$f")
    fi
done < "$work/keys"
# The libraries with a precompiled header (d4r_library_pch) compile with GCC's cmake_pch.hxx.gch, which clang
# cannot read: it reads cmake_pch.hxx instead and warns (clang-diagnostic-ignored-gch, an error through
# WarningsAsErrors, with no file:line), so that warning is off.
# One file per clang-tidy run, one run per core; each run leaves its output (NAME.out, NAME.err) and its exit
# status with its file (NAME.rc), so that a run that failed or crashed is known and named, and a clean file
# can be cached.
export D4R_TIDY_TOOL=$tool D4R_TIDY_BUILD=$build D4R_TIDY_CONFIG=$root/.clang-tidy D4R_TIDY_WORK=$work
[ ${#to_check[@]} -eq 0 ] || printf '%s\0' "${to_check[@]}" | xargs -0 -n 1 -P "$(nproc)" bash -c '
    run=$(mktemp "$D4R_TIDY_WORK/run.XXXXXX") || exit 255
    "$D4R_TIDY_TOOL" -p "$D4R_TIDY_BUILD" --quiet --config-file="$D4R_TIDY_CONFIG" --extra-arg=-Wno-ignored-gch \
        "$@" > "$run.out" 2> "$run.err"
    rc=$?
    { echo "$rc"; printf "%s\n" "$@"; } > "$run.rc"' check-tidy
xrc=$?
if [ $xrc -ne 0 ]; then
    echo "check-tidy: xargs exited $xrc: a clang-tidy run could not be started or its wrapper failed" >&2
    exit 2
fi
finding_re='^[^ ].*:[0-9]+:[0-9]+: (warning|error): '
failed=0 runs=0 checked=0
for rcfile in "$work"/run.*.rc; do
    [ -e "$rcfile" ] || continue
    run=${rcfile%.rc}
    runs=$((runs + 1))
    rc=$(head -1 "$rcfile")
    checked=$((checked + $(tail -n +2 "$rcfile" | wc -l)))
    [ "$rc" = 0 ] && continue
    if [ "$rc" -gt 128 ]; then
        why="crashed (signal $((rc - 128)))"
    elif grep -qE "$finding_re" "$run.out"; then
        continue # findings: reported below
    else
        why="exited $rc without a finding"
    fi
    failed=$((failed + 1))
    echo "check-tidy: $tool $why on:" >&2
    tail -n +2 "$rcfile" | sed 's/^/    /' >&2
    tail -n 5 "$run.err" "$run.out" 2>/dev/null | grep -v '^$' | grep -v '^==>' | sed 's/^/    | /' >&2
done
if [ $failed -gt 0 ] || [ $checked -ne ${#to_check[@]} ]; then
    echo "check-tidy: $failed of $runs clang-tidy runs failed; $checked of ${#to_check[@]} files reported: not checked" >&2
    exit 2
fi
# Cache each file whose run was clean: exit 0, no finding.
if [ "$cache" != off ]; then
    for rcfile in "$work"/run.*.rc; do
        [ -e "$rcfile" ] && [ "$(head -1 "$rcfile")" = 0 ] || continue
        grep -qE "$finding_re" "${rcfile%.rc}.out" && continue
        f=$(sed -n 2p "$rcfile")
        key=$(awk -F'\t' -v f="$f" '$2 == f { print $1; exit }' "$work/keys")
        if [ -n "$key" ] && [ "$key" != - ]; then : > "$cache/$key"; fi
    done
fi
findings=$(cat "$work"/run.*.out 2>/dev/null | grep -E "$finding_re" | sort -u)
if [ -n "$findings" ]; then
    echo "check-tidy: $(wc -l <<< "$findings") findings in ${#files[@]} files:"
    echo "$findings"
    exit 1
fi
where=" from the cache $cache, $from_seed from the seed"
[ "$cache" != off ] || where=" (cache off)"
echo "check-tidy: ${#files[@]} files clean (${#to_check[@]} checked, $from_cache$where; $(( $(date +%s) - start )) s)"
if [ $record_seed = 1 ]; then
    if grep -q $'^-\t' "$work/keys"; then
        echo "check-tidy: not recording the seed: some files have no dependency log in $build (build it first):" >&2
        grep $'^-\t' "$work/keys" | cut -f2 | sed 's/^/    /' >&2
        exit 2
    fi
    tmp_seed=$(mktemp "$seed.XXXXXX") || exit 2
    { echo "# clang-tidy-clean keys of d4r's sources (scripts/check-tidy.sh --record-seed; see its --help)."
      echo "# $(grep -m1 'LLVM version' <<< "$version" | sed 's/^ *//')"
      cut -f1 "$work/keys" | sort -u; } > "$tmp_seed" && mv "$tmp_seed" "$seed" ||
        { rm -f "$tmp_seed"; echo "check-tidy: could not write the seed $seed" >&2; exit 2; }
    echo "check-tidy: recorded $(grep -vc '^#' "$seed") keys in $seed"
fi
