#!/usr/bin/env bash
# Imports the archive written by tests/device/ptxsim-golden.sh (goldens.tar.gz from the H200) into
# golden/<case>.out.zst, plus golden/summary.txt (device, byte counts and FNV-1a 64 hashes; an archive of some cases
# updates their lines and keeps the rest).
# Refuses archives made from PTX that differs from the PTX in this tree (the goldens would not
# belong to it) or containing failed cases, unless --force.
#
# Usage: tests/ptxsim/corpus/import-goldens.sh [--force] ARCHIVE
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
force=0
archive=""
for arg in "$@"; do
    case "$arg" in
        --force) force=1 ;;
        -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
        *) archive=$arg ;;
    esac
done
[[ -n "$archive" && -f "$archive" ]] || { echo "usage: $0 [--force] ARCHIVE" >&2; exit 2; }
command -v zstd >/dev/null || { echo "import-goldens: zstd not found" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar xzf "$archive" -C "$tmp"
src="$tmp/goldens"
[[ -f "$src/summary.txt" ]] || { echo "import-goldens: $archive has no goldens/summary.txt" >&2; exit 1; }

problems=0
if ! (cd "$here/ptx" && sha256sum --quiet -c "$src/ptx.sha256"); then
    echo "import-goldens: the archive was made from different PTX than ptx/ in this tree" >&2
    problems=1
fi
if grep -q '^FAIL' "$src/summary.txt"; then
    echo "import-goldens: failed cases in the archive:" >&2
    grep '^FAIL' "$src/summary.txt" >&2
    problems=1
fi
if [[ $problems -ne 0 && $force -eq 0 ]]; then
    echo "import-goldens: refusing (use --force to import anyway)" >&2
    exit 1
fi

mkdir -p "$here/golden"
count=0
while read -r name bytes hash poison; do
    [[ "$name" == \#* || "$name" == FAIL ]] && continue
    out="$src/$name.out"
    [[ -f "$out" ]] || { echo "import-goldens: $name.out missing from the archive" >&2; exit 1; }
    actual=$(stat -c %s "$out")
    [[ "$actual" == "$bytes" ]] || { echo "import-goldens: $name.out has $actual bytes, summary says $bytes" >&2; exit 1; }
    if [[ "$poison" != 0 ]]; then
        echo "import-goldens: note: $name has $poison output words still equal to the 0xCD poison"
    fi
    zstd -q -19 -f "$out" -o "$here/golden/$name.out.zst"
    count=$((count + 1))
done < "$src/summary.txt"
# The summary: a full archive replaces it; a partial one (ptxsim-golden.sh --case) replaces the lines of its cases and
# keeps the others, each imported line naming its GPU when that is not the one of the summary's header.
summary="$here/golden/summary.txt"
if [[ -f "$summary" ]]; then
    header_device=$(sed -n 's/^# device: //p' "$summary")
    archive_device=$(sed -n 's/^# device: //p' "$src/summary.txt")
    awk -v dev="$archive_device" -v keep_dev="$header_device" '
        FNR == NR { if ($1 !~ /^#/ && $1 != "FAIL" && NF >= 4) new[$1] = $1 " " $2 " " $3 " " $4 (dev != keep_dev ? " " dev : ""); next }
        /^#/ { print; next }
        { if ($1 in new) { print new[$1]; done[$1] = 1 } else print }
        END { for (n in new) if (!(n in done)) print new[n] }
    ' "$src/summary.txt" "$summary" > "$tmp/summary.txt"
    if [[ $(grep -vc '^#' "$src/summary.txt") -ge $(grep -vc '^#' "$summary") ]]; then
        cp "$src/summary.txt" "$summary" # a full run: its own header and lines
    else
        cp "$tmp/summary.txt" "$summary"
    fi
else
    cp "$src/summary.txt" "$summary"
fi
echo "import-goldens: wrote $count goldens to $here/golden ($(du -sh "$here/golden" | cut -f1))"
