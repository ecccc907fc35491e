#!/usr/bin/env bash
# Fails on every test that ctest skipped (SKIP_RETURN_CODE 77, SKIP_REGULAR_EXPRESSION, GTEST_SKIP) and that no
# CMakeLists.txt allows with d4r_allow_skip(PATTERN "reason") (cmake/D4rTesting.cmake): ctest counts a skip as
# passed, so a suite whose tools were never found would otherwise pass without running. make test runs it
# after each ctest run (default and asan presets).
#
# Usage: scripts/check-skips.sh BUILD_DIR [JUNIT_XML]  (JUNIT_XML: ctest --output-junit FILE of the run,
#                                                     default BUILD_DIR/ctest-junit.xml; the allow-list is
#                                                     BUILD_DIR/d4r-allowed-skips.tsv, written by the configure)
#        scripts/check-skips.sh --self-test          (checks the checker on made-up runs)
# Prints how many tests the run had and how many were skipped, each allowed skip with its reason, then each skip that is not
# allowed with the test's own skip message and the file that defines the test.
# Exit 0 when every skip is allowed; 1 naming each one that is not; 2 when the junit file or the allow-list is
# missing or unreadable.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd -P)
case "${1:-}" in
    -h|--help|"") sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; [ -n "${1:-}" ]; exit $? ;;
esac

if [ "$1" = --self-test ]; then
    tmp=$(mktemp -d) || exit 2
    trap 'rm -rf "$tmp"' EXIT
    fails=0
    # expect NAME WANT_RC GREP_PATTERN... : runs the check on $tmp/NAME, wants that exit status and every pattern
    expect() {
        local name=$1 want=$2 out rc p
        shift 2
        out=$("$0" "$tmp/$name" 2>&1); rc=$?
        for p in "$@"; do
            if ! grep -qE -- "$p" <<< "$out"; then rc="$rc (output lacks /$p/)"; break; fi
        done
        if [ "$rc" != "$want" ]; then
            echo "check-skips self-test: case '$name': expected exit $want; got $rc:"
            echo "$out" | sed 's/^/    /'
            fails=$((fails + 1))
        fi
    }
    junit() { # junit DIR: testcases from stdin lines "name|status|skip message|output"
        mkdir -p "$1"
        {
            echo '<?xml version="1.0" encoding="UTF-8"?>'
            echo '<testsuite name="t" tests="3" failures="0" disabled="0" skipped="1" hostname="" time="0">'
            while IFS='|' read -r name status message output; do
                echo "  <testcase name=\"$name\" classname=\"$name\" time=\"0.1\" status=\"$status\">"
                [ -n "$message" ] && echo "    <skipped message=\"$message\"/>"
                echo "    <system-out>$output</system-out>"
                echo "  </testcase>"
            done
            echo '</testsuite>'
        } > "$1/ctest-junit.xml"
    }
    allow() { # allow DIR: allow-list lines "pattern|reason" from stdin
        mkdir -p "$1"
        { echo "# pattern	reason	declared in"; tr '|' '\t' | sed 's/$/\tCMakeLists.txt/'; } > "$1/d4r-allowed-skips.tsv"
    }
    # A skipped test outside the allow-list fails, named with its own skip message.
    printf '%s\n' 'ok_test|run||' 'bridge_vector_add|notrun|SKIP_RETURN_CODE=77|SKIPPED: not installed: D4R_MINGW_CC' \
        'shim_d3d12_color_rgb9e5|notrun|SKIP_RETURN_CODE=77|SKIPPED: no R9G9B9E5' | junit "$tmp/unlisted"
    echo 'shim_d3d12_color_rgb9e5|lavapipe has no R9G9B9E5 textures' | allow "$tmp/unlisted"
    expect unlisted 1 'bridge_vector_add.*not installed: D4R_MINGW_CC' '1 of them not allowed' \
        'shim_d3d12_color_rgb9e5: lavapipe has no R9G9B9E5' 'd4r_allow_skip'
    # Allowed skips pass, by exact name and by pattern (GTEST_SKIP through SKIP_REGULAR_EXPRESSION too).
    printf '%s\n' 'ok_test|run||' 'shim_d3d12_color_rgb9e5|notrun|SKIP_RETURN_CODE=77|SKIPPED: no R9G9B9E5' \
        'Corpus.case_tex|notrun|SKIP_REGULAR_EXPRESSION_MATCHED|[  SKIPPED ] Corpus.case_tex' | junit "$tmp/allowed"
    printf '%s\n' 'shim_d3d12_color_rgb9e5|lavapipe has no R9G9B9E5 textures' 'Corpus\..*|listed in status.md' |
        allow "$tmp/allowed"
    expect allowed 0 '3 tests in the run, 2 skipped, all allowed' 'Corpus.case_tex: listed in status.md'
    # A value-parameterized case's name carries its parameter after the name: the pattern matches the name itself.
    printf '%s\n' 'Corpus/Round.Trip/wgmma  # GetParam() = &quot;wgmma&quot;|notrun|SKIP_REGULAR_EXPRESSION_MATCHED|[  SKIPPED ] x' |
        junit "$tmp/param"
    echo 'Corpus/Round\.Trip/wgmma|listed in nvptx-status.md' | allow "$tmp/param"
    expect param 0 '1 skipped, all allowed'
    # A pattern matches whole names only: bridge_vector matches neither bridge_vector_add nor xbridge_vector.
    printf '%s\n' 'bridge_vector_add|notrun|SKIP_RETURN_CODE=77|SKIPPED: x' | junit "$tmp/partial"
    echo 'bridge_vector|a prefix is not a match' | allow "$tmp/partial"
    expect partial 1 'bridge_vector_add'
    # A test ctest did not run (its executable missing) is not a skip, and not a pass either.
    printf '%s\n' 'ok_test|run||' 'lost_test|notrun|Unable to find executable|' | junit "$tmp/notrun"
    allow "$tmp/notrun" < /dev/null
    expect notrun 1 '0 skipped, 1 not run' 'NOT RUN  lost_test: Unable to find executable'
    # No skip at all: passes and says so.
    printf '%s\n' 'ok_test|run||' | junit "$tmp/none"
    allow "$tmp/none" < /dev/null
    expect none 0 '1 tests in the run, 0 skipped'
    # No junit file (ctest not run, or without --output-junit) is an error, not a pass.
    allow "$tmp/nojunit" < /dev/null
    expect nojunit 2 'ctest-junit.xml not found'
    # No allow-list (not configured with cmake/D4rTesting.cmake) is an error too.
    printf '%s\n' 'ok_test|run||' | junit "$tmp/noallow"
    expect noallow 2 'd4r-allowed-skips.tsv not found'
    # A truncated junit file (a killed ctest) is an error.
    mkdir -p "$tmp/broken" && allow "$tmp/broken" < /dev/null && echo '<testsuite><testcase name="a"' > "$tmp/broken/ctest-junit.xml"
    expect broken 2 'cannot read'
    # An allow-list line without a reason is refused.
    printf '%s\n' 'ok_test|run||' | junit "$tmp/noreason"
    printf 'ok_test\t\tCMakeLists.txt\n' > "$tmp/noreason/d4r-allowed-skips.tsv"
    expect noreason 2 'no reason'
    if [ $fails -gt 0 ]; then exit 1; fi
    echo "check-skips self-test: ok"
    exit 0
fi

build=$1
junit=${2:-$build/ctest-junit.xml}
allow=$build/d4r-allowed-skips.tsv
[ -f "$junit" ] || { echo "check-skips: $junit not found (run ctest with --output-junit $junit first)" >&2; exit 2; }
[ -f "$allow" ] || { echo "check-skips: $allow not found (configure $build first: cmake/D4rTesting.cmake writes it)" >&2; exit 2; }
# Where each test is defined (its add_test), for the message; only when BUILD_DIR is a configured ctest folder.
defined=$(mktemp) || exit 2
trap 'rm -f "$defined"' EXIT
if [ -f "$build/CTestTestfile.cmake" ]; then
    ctest --test-dir "$build" --show-only=json-v1 > "$defined" 2>/dev/null
fi
python3 - "$junit" "$allow" "$build" "$defined" <<'PY'
import json, os, re, sys
import xml.etree.ElementTree as ET

junit_path, allow_path, build, defined_path = sys.argv[1:5]
try:
    root = ET.parse(junit_path).getroot()
except (ET.ParseError, OSError) as e:
    print(f"check-skips: cannot read {junit_path}: {e}", file=sys.stderr)
    sys.exit(2)
allowed = []
for n, line in enumerate(open(allow_path, encoding="utf-8"), 1):
    line = line.rstrip("\n")
    if not line or line.startswith("#"):
        continue
    fields = line.split("\t")
    if len(fields) < 3 or not fields[0] or not fields[1].strip():
        print(f"check-skips: {allow_path}:{n}: no reason for '{fields[0]}' (d4r_allow_skip(PATTERN \"reason\"))",
              file=sys.stderr)
        sys.exit(2)
    try:
        allowed.append((re.compile(fields[0]), fields[0], fields[1], fields[2]))
    except re.error as e:
        print(f"check-skips: {allow_path}:{n}: '{fields[0]}' is not a regular expression: {e}", file=sys.stderr)
        sys.exit(2)

# The file and line of each test's add_test, from ctest --show-only=json-v1.
where = {}
try:
    info = json.loads(open(defined_path).read() or "{}")
except ValueError:
    info = {}
graph = info.get("backtraceGraph", {})
for t in info.get("tests", []):
    try:  # tests a generated include file adds (discovered GoogleTests) have no backtrace
        node = graph["nodes"][t["backtrace"]]
        where[t["name"]] = f'{graph["files"][node["file"]]}:{node.get("line", "?")}'
    except (KeyError, IndexError, TypeError):
        pass

def skip_message(case):
    out = case.findtext("system-out") or ""
    lines = [l.strip() for l in out.splitlines() if l.strip()]
    for i, l in enumerate(lines):  # GoogleTest: "file:line: Skipped" then the message
        if l.endswith(": Skipped") and i + 1 < len(lines) and not lines[i + 1].startswith("[  SKIPPED ]"):
            return lines[i + 1]
    for l in lines:
        if re.match(r"(SKIPPED|SKIP)\b", l) or "skipped" in l.lower():
            return l
    s = case.find("skipped")
    return (s.get("message") if s is not None else "") or "(no message)"

# ctest marks a skip (SKIP_RETURN_CODE=N, SKIP_REGULAR_EXPRESSION_MATCHED) and a test it did not run (its
# executable missing, a fixture that failed, DISABLED) alike with <skipped message=...>; only the former are
# skips. A test that did not run has not passed either: it is named too.
total = 0
skipped, not_run = [], []
for case in root.iter("testcase"):
    total += 1
    s = case.find("skipped")
    if s is not None:
        (skipped if (s.get("message") or "").startswith("SKIP_") else not_run).append(case)
ok, bad = [], []
for case in skipped:
    name = case.get("name")
    # A value-parameterized GoogleTest case is named with its parameter after the test's name
    # ("Suite/Test.Case/p  # GetParam() = ..."): the patterns match the name before it.
    bare = re.sub(r"\s+# GetParam\(\) = .*$", "", name or "")
    rule = next((a for a in allowed if a[0].fullmatch(bare)), None)
    (ok if rule else bad).append((name, rule, case))
state = ("" if not skipped else ", all allowed" if not bad else f", {len(bad)} of them not allowed")
state += f", {len(not_run)} not run" if not_run else ""
print(f"check-skips: {total} tests in the run, {len(skipped)} skipped{state}")
for name, rule, case in ok:
    print(f"  allowed  {name}: {rule[2]} (d4r_allow_skip(\"{rule[1]}\") in {rule[3]})")
for name, rule, case in bad:
    at = where.get(name)
    print(f"  SKIPPED  {name}: {skip_message(case)}" + (f" (defined at {at})" if at else ""))
for case in not_run:
    print(f"  NOT RUN  {case.get('name')}: {case.find('skipped').get('message') or '(no reason)'}")
if not_run:
    print(f"check-skips: {len(not_run)} tests did not run (ctest counts them as failed)")
if bad:
    print(f"check-skips: {len(bad)} skipped tests are not on the allow-list of {build}: make them run (install what"
          " they miss: scripts/install-deps.sh --for test), or, when the skip is expected, declare it where the test"
          ' is defined: d4r_allow_skip(NAME_OR_PATTERN "reason") (cmake/D4rTesting.cmake)')
    sys.exit(1)
sys.exit(1 if not_run else 0)
PY
