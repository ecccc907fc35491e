#!/bin/sh
# check.sh: checks this machine for the d4r release this script belongs to (runs d4r doctor).
# Run it from anywhere: it finds d4r beside itself and checks the d4r.ini of its folder, unless you give
# other d4r doctor options (d4r doctor --help lists them), e.g. ./check.sh --json
here=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd) || exit 2
if [ ! -x "$here/bin/d4r" ]; then
    echo "check.sh: $here/bin/d4r is missing or not executable: unpack the whole release again" >&2
    exit 2
fi
if [ $# -eq 0 ] && [ -f "$here/d4r.ini" ]; then
    exec "$here/bin/d4r" doctor --config "$here/d4r.ini"
fi
exec "$here/bin/d4r" doctor "$@"
