#!/bin/sh
# check.sh: checks this machine for the d4r release this script belongs to (runs d4r doctor).
# Run it from anywhere: it finds d4r beside itself and checks the d4r.ini of its folder, unless you give
# other d4r doctor options (d4r doctor --help lists them), e.g. ./check.sh --json
here=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd) || exit 2
if [ ! -x "$here/d4r" ]; then
    echo "check.sh: $here/d4r is missing or not executable: unpack the whole release again" >&2
    exit 2
fi
# The release's runtime folder (libd4rcuda.so, nvcuda.dll, the DLLs) is this one, unless you chose another.
D4R_RUNTIME_DIR=${D4R_RUNTIME_DIR:-$here}
export D4R_RUNTIME_DIR
if [ $# -eq 0 ] && [ -f "$here/d4r.ini" ]; then
    exec "$here/d4r" doctor --config "$here/d4r.ini"
fi
exec "$here/d4r" doctor "$@"
