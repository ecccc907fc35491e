#!/usr/bin/env bash
# Runs clang-tidy-19 with the repository's .clang-tidy over d4r's own C++ sources (src/**/*.cpp that the
# build compiles), every finding an error. The checks are a short list of bug patterns (use after move,
# dangling handles, swapped arguments, ...), chosen to stay quiet on correct code and cheap enough for CI.
#
# Usage: scripts/check-tidy.sh BUILD_DIR [FILE...]  (BUILD_DIR: a configured build with compile_commands.json;
#                                                    FILE...: only these, else every src/**/*.cpp in it)
#        scripts/check-tidy.sh --self-test          (checks that a planted use-after-move is caught)
# Exit 0 when clean; 1 naming each finding (file:line: message [check]); 2 when clang-tidy-19 is missing,
# BUILD_DIR has no compile_commands.json, or clang-tidy failed without a finding to show for it (a non-zero
# exit with no finding, a crash, no version line from --version): a file it could not check is not clean.
set -uo pipefail

tool=${CLANG_TIDY:-clang-tidy-19}
here=$(cd "$(dirname "$0")/.." && pwd -P)
case "${1:-}" in
    -h|--help|"") sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; [ -n "${1:-}" ]; exit $? ;;
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
    echo "check-tidy self-test: ok"
    exit 0
fi

build=$1
shift
root=${D4R_TIDY_ROOT:-$here}
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
# Four files per clang-tidy run, one run per core; each run leaves its output (NAME.out, NAME.err) and its exit
# status with its files (NAME.rc), so that a run that failed or crashed is known and named.
export D4R_TIDY_TOOL=$tool D4R_TIDY_BUILD=$build D4R_TIDY_CONFIG=$root/.clang-tidy D4R_TIDY_WORK=$work
printf '%s\0' "${files[@]}" | xargs -0 -n 4 -P "$(nproc)" bash -c '
    run=$(mktemp "$D4R_TIDY_WORK/run.XXXXXX") || exit 255
    "$D4R_TIDY_TOOL" -p "$D4R_TIDY_BUILD" --quiet --config-file="$D4R_TIDY_CONFIG" "$@" > "$run.out" 2> "$run.err"
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
    tail -5 "$run.err" "$run.out" 2>/dev/null | grep -v '^$' | grep -v '^==>' | sed 's/^/    | /' >&2
done
if [ $failed -gt 0 ] || [ $checked -ne ${#files[@]} ]; then
    echo "check-tidy: $failed of $runs clang-tidy runs failed; $checked of ${#files[@]} files reported: not checked" >&2
    exit 2
fi
findings=$(cat "$work"/run.*.out | grep -E "$finding_re" | sort -u)
if [ -n "$findings" ]; then
    echo "check-tidy: $(wc -l <<< "$findings") findings in ${#files[@]} files:"
    echo "$findings"
    exit 1
fi
echo "check-tidy: ${#files[@]} files clean ($(( $(date +%s) - start )) s)"
