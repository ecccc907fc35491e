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
# 2 when clang-format-19 is missing or ROOT is not a folder.
set -uo pipefail

tool=${CLANG_FORMAT:-clang-format-19}
fix=0
case "${1:-}" in
    -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
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
        echo "check-format self-test: ok"
        exit 0 ;;
esac
root=${1:-$(dirname "$0")/..}
[ -d "$root" ] || { echo "check-format: '$root' is not a folder" >&2; exit 2; }
command -v "$tool" >/dev/null || { echo "check-format: $tool not found (scripts/install-deps.sh installs it)" >&2; exit 2; }
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
bad=()
while IFS= read -r -d '' f; do
    "$tool" --dry-run -Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done < <(printf '%s\0' "${files[@]}")
if [ ${#bad[@]} -gt 0 ]; then
    echo "check-format: ${#bad[@]} of ${#files[@]} files are not formatted as .clang-format says:"
    printf '  %s\n' "${bad[@]}"
    echo "fix them with: scripts/check-format.sh --fix   (or $tool -i FILE)"
    exit 1
fi
echo "check-format: ${#files[@]} files formatted"
