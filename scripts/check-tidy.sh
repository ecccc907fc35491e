#!/usr/bin/env bash
# Runs clang-tidy-19 with the repository's .clang-tidy over d4r's own C++ sources (src/**/*.cpp that the
# build compiles), every finding an error. The checks are a short list of bug patterns (use after move,
# dangling handles, swapped arguments, ...), chosen to stay quiet on correct code and cheap enough for CI.
#
# Usage: scripts/check-tidy.sh BUILD_DIR [FILE...]  (BUILD_DIR: a configured build with compile_commands.json;
#                                                    FILE...: only these, else every src/**/*.cpp in it)
#        scripts/check-tidy.sh --self-test          (checks that a planted use-after-move is caught)
# Exit 0 when clean; 1 naming each finding (file:line: message [check]); 2 when clang-tidy-19 is missing
# or BUILD_DIR has no compile_commands.json.
set -uo pipefail

tool=${CLANG_TIDY:-clang-tidy-19}
here=$(cd "$(dirname "$0")/.." && pwd -P)
case "${1:-}" in
    -h|--help|"") sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; [ -n "${1:-}" ]; exit $? ;;
esac
command -v "$tool" >/dev/null || { echo "check-tidy: $tool not found (scripts/install-deps.sh installs it)" >&2; exit 2; }

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

log=$(mktemp) || exit 2
trap 'rm -f "$log"' EXIT
start=$(date +%s)
printf '%s\0' "${files[@]}" |
    xargs -0 -n 4 -P "$(nproc)" "$tool" -p "$build" --quiet --config-file="$root/.clang-tidy" > "$log" 2>/dev/null
findings=$(grep -E '^[^ ].*:[0-9]+:[0-9]+: (warning|error): ' "$log" | sort -u)
if [ -n "$findings" ]; then
    echo "check-tidy: $(wc -l <<< "$findings") findings in ${#files[@]} files:"
    echo "$findings"
    exit 1
fi
echo "check-tidy: ${#files[@]} files clean ($(( $(date +%s) - start )) s)"
