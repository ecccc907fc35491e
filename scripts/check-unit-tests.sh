#!/usr/bin/env bash
# Checks that the asan run holds every unit test of the default run: each test labelled `unit` in the default
# build folder must be labelled `unit` in the asan build folder too (the asan preset runs `ctest -L unit`; a
# label lost on the way, as LABELS "cli;unit" through gtest_discover_tests once was, leaves a suite out of the
# sanitizer run while everything still passes). make test runs it after the asan tests.
#
# Usage: scripts/check-unit-tests.sh DEFAULT_BUILD_DIR ASAN_BUILD_DIR   (both built: GoogleTest binaries list
#                                                                      their tests at build time)
#        scripts/check-unit-tests.sh --self-test                       (checks the check on made-up folders)
# Exit 0 when every unit test of DEFAULT_BUILD_DIR is a unit test of ASAN_BUILD_DIR; 1 naming each missing one
# (and each GoogleTest binary not built); 2 when a folder is not a ctest build folder or has no unit tests.
set -uo pipefail

case "${1:-}" in
    -h|--help|"") sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; [ -n "${1:-}" ]; exit $? ;;
esac

if [ "$1" = --self-test ]; then
    tmp=$(mktemp -d) || exit 2
    trap 'rm -rf "$tmp"' EXIT
    fails=0
    folder() { # folder DIR "name label;label" ...: a ctest folder of tests that do nothing
        mkdir -p "$1"
        local dir=$1 t
        shift
        : > "$dir/CTestTestfile.cmake"
        for t in "$@"; do
            echo "add_test(${t%% *} true)" >> "$dir/CTestTestfile.cmake"
            echo "set_tests_properties(${t%% *} PROPERTIES LABELS \"${t#* }\")" >> "$dir/CTestTestfile.cmake"
        done
    }
    expect() { # expect WANT_RC PATTERN DEFAULT ASAN
        local out rc
        out=$("$0" "$3" "$4" 2>&1); rc=$?
        if [ "$rc" != "$1" ] || ! grep -qE -- "$2" <<< "$out"; then
            echo "check-unit-tests self-test: $3 vs $4: expected exit $1 and /$2/; got exit $rc:"
            echo "$out" | sed 's/^/    /'
            fails=$((fails + 1))
        fi
    }
    folder "$tmp/default" "Cli.Version cli;unit" "Core.Status unit" "demo_run demo" "format style"
    # The asan folder lost the unit label of the CLI tests (the old bug): they are named.
    folder "$tmp/lost" "Cli.Version cli" "Core.Status unit"
    expect 1 'Cli\.Version' "$tmp/default" "$tmp/lost"
    # Every unit test there (other labels may differ, non-unit tests may be absent): passes.
    folder "$tmp/same" "Cli.Version cli;unit" "Core.Status unit;asan-only" "Fuzz.Extra unit"
    expect 0 '2 unit tests of .*default are all in' "$tmp/default" "$tmp/same"
    # A GoogleTest binary that was not built stands as NAME_NOT_BUILT: named even when both lack it.
    folder "$tmp/notbuilt" "d4r_cli_tests_NOT_BUILT cli;unit" "Core.Status unit"
    expect 1 'd4r_cli_tests_NOT_BUILT' "$tmp/notbuilt" "$tmp/notbuilt"
    # No unit test in the default folder: an error, not a vacuous pass.
    folder "$tmp/nounit" "format style"
    expect 2 'no test labelled unit' "$tmp/nounit" "$tmp/same"
    # Not a build folder.
    expect 2 'not a ctest build folder' "$tmp/absent" "$tmp/same"
    if [ $fails -gt 0 ]; then exit 1; fi
    echo "check-unit-tests self-test: ok"
    exit 0
fi

[ $# -eq 2 ] || { echo "check-unit-tests: give two build folders: DEFAULT_BUILD_DIR ASAN_BUILD_DIR (--help)" >&2; exit 2; }
unit_tests() { # unit_tests DIR: the names of its tests labelled unit, one a line, sorted
    [ -f "$1/CTestTestfile.cmake" ] || { echo "check-unit-tests: $1 is not a ctest build folder (no CTestTestfile.cmake: configure and build it first)" >&2; return 2; }
    local json
    json=$(ctest --test-dir "$1" --show-only=json-v1 -L unit) ||
        { echo "check-unit-tests: ctest --test-dir $1 --show-only=json-v1 failed" >&2; return 2; }
    python3 -c 'import json, sys; print("\n".join(sorted(t["name"] for t in json.load(sys.stdin)["tests"])))' <<< "$json"
}
default=$(unit_tests "$1") || exit 2
asan=$(unit_tests "$2") || exit 2
[ -n "$default" ] || { echo "check-unit-tests: $1 has no test labelled unit" >&2; exit 2; }
missing=$(comm -23 <(echo "$default") <(echo "$asan"))
not_built=$(grep -E '_NOT_BUILT$' <<< "$default"$'\n'"$asan" | sort -u)
n=$(wc -l <<< "$default")
status=0
if [ -n "$missing" ]; then
    echo "check-unit-tests: $(wc -l <<< "$missing") of the $n unit tests of $1 are not unit tests of $2 (the asan run leaves them out):"
    sed 's/^/  /' <<< "$missing"
    echo "each test labelled unit must be labelled unit in both presets: d4r_add_gtest(... LABELS unit ...) or d4r_discover_gtests, not gtest_discover_tests' PROPERTIES (cmake/D4rTesting.cmake)"
    status=1
fi
if [ -n "$not_built" ]; then
    echo "check-unit-tests: GoogleTest binaries not built (their tests were never listed):"
    sed 's/^/  /' <<< "$not_built"
    status=1
fi
[ $status = 0 ] && echo "check-unit-tests: the $n unit tests of $1 are all in $2 ($(wc -l <<< "$asan") there)"
exit $status
