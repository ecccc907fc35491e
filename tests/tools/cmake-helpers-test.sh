#!/usr/bin/env bash
# The build infrastructure's own regression test, on a scratch CMake project that includes the repository's
# cmake/D4rTesting.cmake (configured and built in a temporary folder, a few seconds):
#  1. a tool installed after the first configure is found by the next one: the project finds a fake tool with
#     find_program as src/bridge finds wineg++; configured without it, then with it on PATH, its test appears;
#  2. the Makefile configures again on every make build / make demo / make test-default (make -n shows
#     `cmake --preset default` although build/build.ninja is up to date), so that step 1 happens;
#  3. d4r_discover_gtests keeps every label: a GoogleTest binary discovered with LABELS cli unit is selected by
#     both `ctest -L cli` and `ctest -L unit` (gtest_discover_tests' PROPERTIES kept only `cli`);
#  4. d4r_allow_skip writes the allow-list scripts/check-skips.sh reads, with the reason and the file, and
#     refuses a call without a reason;
#  5. d4r_add_skipped_test registers a test that ctest reports as skipped and the allow-list allows, with a reason
#     that holds an apostrophe (NVIDIA's), and refuses a reason with a double quote.
# Usage: tests/tools/cmake-helpers-test.sh [--keep]   (--keep: leave the scratch folder and print its path)
# Exit 0 when every check holds; 1 naming each that does not.
set -uo pipefail

case "${1:-}" in
    -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    --keep|"") ;;
    *) echo "cmake-helpers-test: unknown argument '$1' (accepted: --keep, --help)" >&2; exit 2 ;;
esac
root=$(cd "$(dirname "$0")/../.." && pwd -P)
tmp=$(mktemp -d) || exit 2
if [ "${1:-}" = --keep ]; then echo "scratch folder: $tmp"; else trap 'rm -rf "$tmp"' EXIT; fi
fails=0
fail() { echo "cmake-helpers-test: FAIL: $*"; fails=$((fails + 1)); }

mkdir -p "$tmp/src" "$tmp/tools"
cat > "$tmp/src/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.25)
project(scratch CXX)
enable_testing()
find_package(GTest REQUIRED)
include(GoogleTest)
include($root/cmake/D4rTesting.cmake)
# 1: as src/bridge/CMakeLists.txt finds wineg++
find_program(SCRATCH_TOOL d4r-scratch-tool)
if(SCRATCH_TOOL)
    add_test(NAME tool_runs COMMAND \${SCRATCH_TOOL})
endif()
# 3
add_executable(labelled labelled_test.cpp)
target_link_libraries(labelled PRIVATE GTest::gtest GTest::gtest_main)
d4r_discover_gtests(labelled LABELS cli unit)
# 4
add_test(NAME maybe_skipped COMMAND true)
d4r_allow_skip(maybe_skipped "the scratch reason; with a semicolon")
if(SCRATCH_NO_REASON)
    d4r_allow_skip(maybe_skipped "")
endif()
# 5
d4r_add_skipped_test(stands_in unit "NVIDIA's toolkit is not installed (the scratch reason)")
if(SCRATCH_QUOTED_REASON)
    d4r_add_skipped_test(stands_in_quoted unit "a \\"quoted\\" reason")
endif()
CMAKE
printf '#include <gtest/gtest.h>\nTEST(Labelled, Runs) { EXPECT_EQ(1 + 1, 2); }\n' > "$tmp/src/labelled_test.cpp"
printf '#!/bin/sh\nexit 0\n' > "$tmp/tools/d4r-scratch-tool"
chmod +x "$tmp/tools/d4r-scratch-tool"

configure() { cmake -S "$tmp/src" -B "$tmp/build" -G Ninja "$@" > "$tmp/configure.log" 2>&1; }
tests() { ctest --test-dir "$tmp/build" -N "$@" | sed -n 's/^ *Test *#[0-9]*: //p' | sort | tr '\n' ' '; }

# 1. Without the tool, then with it.
configure || { cat "$tmp/configure.log"; fail "the scratch project does not configure"; exit 1; }
grep -q '^SCRATCH_TOOL:FILEPATH=SCRATCH_TOOL-NOTFOUND' "$tmp/build/CMakeCache.txt" ||
    fail "1: the first configure should cache SCRATCH_TOOL as NOTFOUND (is d4r-scratch-tool on PATH?)"
[[ " $(tests) " != *" tool_runs "* ]] || fail "1: tool_runs registered without the tool"
PATH="$tmp/tools:$PATH" configure || { cat "$tmp/configure.log"; fail "1: the second configure failed"; }
grep -q "^SCRATCH_TOOL:FILEPATH=$tmp/tools/d4r-scratch-tool" "$tmp/build/CMakeCache.txt" ||
    fail "1: the configure after installing the tool kept: $(grep '^SCRATCH_TOOL:' "$tmp/build/CMakeCache.txt")"
[[ " $(tests) " == *" tool_runs "* ]] || fail "1: tool_runs not registered once the tool is there: $(tests)"

# 2. The Makefile's configure step runs every time, though build/build.ninja is newer than every input.
for target in build demo test-default; do
    plan=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -n -C "$root" "$target" 2>&1) # not the make running ctest
    grep -q '^cmake --preset default' <<< "$plan" ||
        fail "2: make -n $target does not configure again (a tool installed since would stay NOTFOUND):"$'\n'"$plan"
done

# 3. Both labels on the discovered test.
cmake --build "$tmp/build" > "$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; fail "3: the scratch gtest binary does not build"; }
for label in cli unit; do
    [[ " $(tests -L "^$label\$") " == *" Labelled.Runs "* ]] || fail "3: Labelled.Runs is not labelled $label: $(tests -L "^$label\$")"
done
ctest --test-dir "$tmp/build" -L '^unit$' -R Labelled > "$tmp/ctest.log" 2>&1 || { cat "$tmp/ctest.log"; fail "3: Labelled.Runs does not pass"; }

# 4. The allow-list, and a call without a reason.
list=$tmp/build/d4r-allowed-skips.tsv
grep -qP '^maybe_skipped\tthe scratch reason; with a semicolon\tCMakeLists.txt$' "$list" 2>/dev/null ||
    fail "4: $list lacks 'maybe_skipped<TAB>the scratch reason; with a semicolon<TAB>CMakeLists.txt':"$'\n'"$(cat "$list" 2>&1)"
[ "$(grep -c '^maybe_skipped' "$list")" = 1 ] || fail "4: a second configure must write the allow-list anew, not append"
if configure -DSCRATCH_NO_REASON=ON; then
    fail "4: d4r_allow_skip without a reason was accepted"
elif ! grep -q 'give a test name or pattern and one reason' "$tmp/configure.log"; then
    fail "4: d4r_allow_skip without a reason failed without saying why: $(cat "$tmp/configure.log")"
fi

# 5. The stand-in test is skipped (not failed) and allowed; a double quote in the reason is refused.
configure -DSCRATCH_NO_REASON=OFF || fail "5: the scratch project no longer configures"
ctest --test-dir "$tmp/build" -R '^stands_in$' > "$tmp/skip.log" 2>&1 || fail "5: stands_in failed: $(cat "$tmp/skip.log")"
grep -q 'Skipped' "$tmp/skip.log" || fail "5: stands_in was not reported skipped: $(cat "$tmp/skip.log")"
grep -qP "^stands_in\tNVIDIA's toolkit is not installed \(the scratch reason\)\tCMakeLists.txt\$" "$list" ||
    fail "5: $list lacks stands_in with its reason:"$'\n'"$(cat "$list")"
if configure -DSCRATCH_NO_REASON=OFF -DSCRATCH_QUOTED_REASON=ON; then
    fail "5: d4r_add_skipped_test accepted a reason with a double quote"
elif ! grep -q 'no double quotes' "$tmp/configure.log"; then
    fail "5: the quoted reason failed without saying why: $(cat "$tmp/configure.log")"
fi

if [ $fails -gt 0 ]; then
    echo "cmake-helpers-test: $fails checks failed"
    exit 1
fi
echo "cmake-helpers-test: ok (a tool installed later is found; make configures every time; both labels kept; allow-list written; stand-in skips allowed)"
