#!/bin/bash
# tests/device/host-path-bench.sh [CARRY]: the shim's host data path benchmark (tests/bench/shim/bench_host_path.cpp)
# on the H200 machine's host: once over libd4rcuda's cpu backend (memcpy uploads, as on the development machine) and
# once over its driver backend on NVIDIA's libcuda (pinned host planes, real host<->device copies). Each run prints
# ms per frame and the ratio to the same run's memcpy baseline (docs/performance.md, "The shim's host data path").
# CARRY holds bin/bench_host_path and lib/{libd4rcuda.so,libcuda.so.1,libbenchmark.so.1debian} (+ libfmt from
# build-device/lib when carried). Everything is printed.
set -uo pipefail
carry=$(realpath "${1:-.carry}")
nvlib=$(ldconfig -p | awk '/libcuda\.so\.1 / {print $NF; exit}')
[ -n "$nvlib" ] || { echo "host-path-bench: NVIDIA's libcuda.so.1 not found"; exit 2; }
libs="$carry/lib"
[ -d build-device/lib ] && libs="$libs:$(realpath build-device/lib)"
lscpu | grep -E 'Model name|^CPU\(s\)'
for backend in cpu "driver:$(readlink -f "$nvlib")"; do
    echo "== backend $backend"
    D4R_CUDA_BACKEND=$backend LD_LIBRARY_PATH="$libs" "$carry/bin/bench_host_path" --lib "$carry/lib" --benchmark_min_time=${MIN_TIME:-1}
done
