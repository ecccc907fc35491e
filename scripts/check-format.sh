#!/usr/bin/env bash
# Checks that every C, C++ and CUDA source file is formatted as `.clang-format` says (clang-format-19, the
# version scripts/install-deps.sh installs: other versions format some constructs differently).
#
# Usage: scripts/check-format.sh [--fix] [ROOT]   (ROOT: the repository, default: this script's parent)
#        scripts/check-format.sh --self-test      (checks that a badly formatted file is caught)
# Files: *.c *.h *.cpp *.hpp *.cu *.cuh that git tracks or would track (not ignored); outside git, every
# such file outside build*/ and out/. A folder's own .clang-format may turn formatting off (the PTX corpus
# kernels, laid out as tables). --fix rewrites the files in place instead of checking.
# Exit 0 when every file is formatted; 1 naming each file that is not, with the command that fixes it;
# 2 when clang-format-19 is missing, ROOT is not a folder, or clang-format failed other than by finding a
# badly formatted file (crashed, another exit status or error, no version line from --version).
set -uo pipefail

tool=${CLANG_FORMAT:-clang-format-19}
fix=0
case "${1:-}" in
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    --fix) fix=1; shift ;;
    --self-test)
        command -v "$tool" >/dev/null || { echo "check-format: $tool not found (scripts/install-deps.sh installs it)" >&2; exit 2; }
        tmp=$(mktemp -d) || exit 2
        trap 'rm -rf "$tmp"' EXIT
        cp "$(dirname "$0")/../.clang-format" "$tmp/"
        mkdir -p "$tmp/src" "$tmp/build"
        printf 'int good(int a) { return a + 1; }\n' > "$tmp/src/good.cpp"
        printf 'int  bad( int a ){return a+1;}\n' > "$tmp/src/bad.h"
        printf 'int  ignored( int a ){return a+1;}\n' > "$tmp/build/gen.cpp"
        out=$("$0" "$tmp" 2>&1); rc=$?
        if [ $rc -ne 1 ] || ! grep -q 'src/bad.h' <<< "$out" || grep -q -e good.cpp -e gen.cpp <<< "$out"; then
            echo "check-format self-test: expected exit 1 naming src/bad.h only; got exit $rc:"; echo "$out"; exit 1
        fi
        "$0" --fix "$tmp" >/dev/null && "$0" "$tmp" >/dev/null || { echo "check-format self-test: --fix did not make the tree clean"; exit 1; }
        # A tool that fails or crashes fails the check (exit 2), neither as clean nor as a formatting fault. Fakes:
        # /bin/false; /bin/true (silent); a tool that answers --version and then dies of SIGSEGV; one that
        # exits 1 with another error than a formatting violation.
        printf '#!/bin/sh\ncase "$1" in --version) echo "clang-format version 19.1.7"; exit 0 ;; esac\nkill -SEGV $$\n' > "$tmp/crash"
        printf '#!/bin/sh\ncase "$1" in --version) echo "clang-format version 19.1.7"; exit 0 ;; esac\necho "error: unknown key" >&2; exit 1\n' > "$tmp/fails"
        chmod +x "$tmp/crash" "$tmp/fails"
        for fake in /bin/false:"exited 1 without a 'clang-format version' line" \
                    /bin/true:"exited 0 without a 'clang-format version' line" \
                    "$tmp/crash:crashed (signal 11)" "$tmp/fails:exited 1 without a formatting violation"; do
            out=$(CLANG_FORMAT=${fake%%:*} "$0" "$tmp" 2>&1); rc=$?
            if [ $rc -ne 2 ] || ! grep -qF "${fake#*:}" <<< "$out" || grep -q -e 'files formatted' -e 'not formatted' <<< "$out"; then
                echo "check-format self-test: with CLANG_FORMAT=${fake%%:*} expected exit 2 saying '${fake#*:}'; got exit $rc:"
                echo "$out"; exit 1
            fi
        done
        echo "check-format self-test: ok"
        exit 0 ;;
esac
root=${1:-$(dirname "$0")/..}
[ -d "$root" ] || { echo "check-format: '$root' is not a folder" >&2; exit 2; }
command -v "$tool" >/dev/null || { echo "check-format: $tool not found (scripts/install-deps.sh installs it)" >&2; exit 2; }
# The tool must answer as clang-format does before its silence can mean "formatted".
version=$("$tool" --version 2>&1); vrc=$?
if [ $vrc -ne 0 ] || ! grep -q 'clang-format version' <<< "$version"; then
    echo "check-format: '$tool --version' exited $vrc without a 'clang-format version' line; is it clang-format? It printed:" >&2
    printf '%s\n' "${version:-(nothing)}" | head -5 | sed 's/^/    /' >&2
    exit 2
fi
cd "$root" || exit 2

patterns=('*.c' '*.h' '*.cpp' '*.hpp' '*.cu' '*.cuh')
if git rev-parse --show-toplevel >/dev/null 2>&1 && [ "$(git rev-parse --show-toplevel)" = "$(pwd -P)" ]; then
    mapfile -t files < <(git ls-files --cached --others --exclude-standard -- "${patterns[@]}")
else
    mapfile -t files < <(find . \( -path './build*' -o -path './out' -o -path './.git' \) -prune -o -type f \
        \( -name '*.c' -o -name '*.h' -o -name '*.cpp' -o -name '*.hpp' -o -name '*.cu' -o -name '*.cuh' \) -print |
        sed 's|^\./||' | sort)
fi
[ ${#files[@]} -gt 0 ] || { echo "check-format: no source files under $root" >&2; exit 2; }

if [ $fix = 1 ]; then
    printf '%s\0' "${files[@]}" | xargs -0 -n 64 "$tool" -i || exit 1
    echo "check-format: formatted ${#files[@]} files"
    exit 0
fi
# All files in a few runs first; only when one fails, file by file to name them.
if printf '%s\0' "${files[@]}" | xargs -0 -n 128 -P "$(nproc)" "$tool" --dry-run -Werror >/dev/null 2>&1; then
    echo "check-format: ${#files[@]} files formatted"
    exit 0
fi
# File by file: exit 1 with a -Wclang-format-violations error is a badly formatted file; anything else is the
# tool failing, and the file is not checked.
bad=()
broken=0
while IFS= read -r -d '' f; do
    err=$("$tool" --dry-run -Werror "$f" 2>&1 >/dev/null); rc=$?
    [ $rc = 0 ] && continue
    if [ $rc = 1 ] && grep -q 'clang-format-violations' <<< "$err"; then
        bad+=("$f")
        continue
    fi
    if [ $rc -gt 128 ]; then why="crashed (signal $((rc - 128)))"; else why="exited $rc without a formatting violation"; fi
    echo "check-format: $tool $why on $f:" >&2
    printf '%s\n' "${err:-(no output)}" | tail -n 3 | sed 's/^/    | /' >&2
    broken=$((broken + 1))
done < <(printf '%s\0' "${files[@]}")
if [ $broken -gt 0 ]; then
    echo "check-format: $tool failed on $broken of ${#files[@]} files: not checked" >&2
    exit 2
fi
if [ ${#bad[@]} -gt 0 ]; then
    echo "check-format: ${#bad[@]} of ${#files[@]} files are not formatted as .clang-format says:"
    printf '  %s\n' "${bad[@]}"
    echo "fix them with: scripts/check-format.sh --fix   (or $tool -i FILE)"
    exit 1
fi
echo "check-format: ${#files[@]} files formatted"
