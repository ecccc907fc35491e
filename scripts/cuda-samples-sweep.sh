#!/usr/bin/env bash
# Builds NVIDIA's cuda-samples with nvcc and runs them on libd4rcuda's cpu backend (ptxsim), its driver
# backend, or directly on NVIDIA's libcuda.
#   scripts/cuda-samples-sweep.sh --samples DIR [options] [NAME...]
#     --samples DIR     a checkout of github.com/NVIDIA/cuda-samples (holds Samples/ and Common/); required
#     --lib DIR         the folder with d4r's libcuda.so.1 (default: build/lib of this repository)
#     --out DIR         build folders, logs and results (default /tmp/d4r-sweep)
#     --list FILE       sample names, one a line ('#' starts a comment); NAME arguments add to it
#     --timeout S       seconds each sample may run (default 120)
#     --variants LIST   cudart variants: static, shared or static,shared (default static,shared)
#     --cuda DIR        the CUDA toolkit (default /usr/local/cuda)
#     --backend B       cpu (default: libd4rcuda, D4R_CUDA_BACKEND=cpu), driver (libd4rcuda over NVIDIA's
#                       libcuda, D4R_CUDA_BACKEND=driver) or direct (NVIDIA's libcuda as installed, no d4r)
#     --jobs N          samples built and run at once (default 1)
#     --phase P         all (default), build (build only, run = -) or run (reuse OUT's builds, build none)
#     --help            this text
# Without --list or NAMEs the acceptance list of docs/compatibility.md is swept (tests/samples/sweep-list.txt
# is the wider list, from scripts/cuda-samples-eligible.sh). Prints a table:
# sample, variant, build ok/fail, run pass/fail/waive/timeout, seconds, and for anything but a pass the
# last meaningful line of the output. Also writes OUT/results.md and OUT/results.tsv (which adds the
# first warning d4r logged in each unsuccessful run), and OUT/logs/SAMPLE.VARIANT.{build,run}.log.
# Backends other than cpu name their run logs SAMPLE.VARIANT.BACKEND.run.log; every run also keeps the
# sample's own output (no sweep or d4r log lines) in OUT/output/BACKEND/SAMPLE.VARIANT.txt, and the results
# are copied to OUT/results-BACKEND.{md,tsv}, so that runs on several backends into one OUT can be compared
# (scripts/cuda-samples-compare.sh OUT).
# Exit status: 0 when the sweep ran (failures included), 1 when the toolkit is unusable, 2 on a usage error.
set -euo pipefail

prog=cuda-samples-sweep
# Prefix of the lines the sweep itself writes into the logs (commands, exit status), so that they are
# never taken for the sample's own output.
mark='## sweep: '
repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# The acceptance list (docs/compatibility.md): the samples a CUDA driver API implementation running
# on a CPU can be expected to run, from plain kernels to textures, tensor cores and driver-API programs.
default_samples=(
    vectorAdd matrixMul simpleTemplates simpleAtomicIntrinsics simpleVoteIntrinsics shfl_scan reduction
    transpose histogram scan sortingNetworks simpleCooperativeGroups simpleTexture simpleSurfaceWrite
    cudaTensorCoreGemm bf16TensorCoreGemm simpleStreams asyncAPI simplePrintf clock simpleOccupancy
    simpleCallback simpleAWBarrier globalToShmemAsyncCopy deviceQuery simpleDrvRuntime ptxjit
    matrixMulDynlinkJIT vectorAddMMAP vectorAddDrv matrixMulDrv
)

usage() { sed -n '2,30p' "$0" | sed -n '/^set -euo/q;p' | sed 's/^# \{0,1\}//'; }

usage_error() {
    echo "$prog: $*" >&2
    echo "$prog: see --help" >&2
    exit 2
}

# ---------------------------------------------------------------------------------------------------
# Arguments

samples_dir='' lib_dir=$repo_root/build/lib out_dir=/tmp/d4r-sweep list_file='' timeout_s=120
variants_arg=static,shared cuda_dir=/usr/local/cuda backend=cpu jobs=1 phase=all
names=()

need_value() {  # $1 option, $2 number of arguments left (the option included)
    [ "$2" -ge 2 ] || usage_error "$1 needs a value"
}

parse_args() {
    while [ $# -gt 0 ]; do
        case "$1" in
            --samples) need_value "$1" $#; samples_dir=$2; shift 2 ;;
            --samples=*) samples_dir=${1#*=}; shift ;;
            --lib) need_value "$1" $#; lib_dir=$2; shift 2 ;;
            --lib=*) lib_dir=${1#*=}; shift ;;
            --out) need_value "$1" $#; out_dir=$2; shift 2 ;;
            --out=*) out_dir=${1#*=}; shift ;;
            --list) need_value "$1" $#; list_file=$2; shift 2 ;;
            --list=*) list_file=${1#*=}; shift ;;
            --timeout) need_value "$1" $#; timeout_s=$2; shift 2 ;;
            --timeout=*) timeout_s=${1#*=}; shift ;;
            --variants) need_value "$1" $#; variants_arg=$2; shift 2 ;;
            --variants=*) variants_arg=${1#*=}; shift ;;
            --cuda) need_value "$1" $#; cuda_dir=$2; shift 2 ;;
            --cuda=*) cuda_dir=${1#*=}; shift ;;
            --backend) need_value "$1" $#; backend=$2; shift 2 ;;
            --backend=*) backend=${1#*=}; shift ;;
            --jobs) need_value "$1" $#; jobs=$2; shift 2 ;;
            --jobs=*) jobs=${1#*=}; shift ;;
            --phase) need_value "$1" $#; phase=$2; shift 2 ;;
            --phase=*) phase=${1#*=}; shift ;;
            -h|--help) usage; exit 0 ;;
            --) shift; names+=("$@"); break ;;
            -*) usage_error "unknown option '$1' (accepted: --samples DIR, --lib DIR, --out DIR, --list FILE, --timeout S, --variants LIST, --cuda DIR, --backend B, --jobs N, --phase P, --help)" ;;
            *) names+=("$1"); shift ;;
        esac
    done

    [ -n "$samples_dir" ] || usage_error "--samples DIR is required (a cuda-samples checkout with Samples/ and Common/)"
    if [ ! -d "$samples_dir/Samples" ] || [ ! -d "$samples_dir/Common" ]; then
        usage_error "--samples '$samples_dir' is not a cuda-samples checkout (accepted: a folder holding Samples/ and Common/)"
    fi
    samples_dir=$(cd "$samples_dir" && pwd)

    case "$backend" in
        cpu|driver|direct) ;;
        *) usage_error "--backend '$backend' is not accepted (cpu, driver or direct)" ;;
    esac
    [[ "$jobs" =~ ^[1-9][0-9]*$ ]] || usage_error "--jobs '$jobs' is not accepted (a whole number, 1 or more)"
    case "$phase" in
        all|build|run) ;;
        *) usage_error "--phase '$phase' is not accepted (all, build or run)" ;;
    esac
    if [ "$backend" != direct ]; then
        [ -e "$lib_dir/libcuda.so.1" ] ||
            usage_error "--lib '$lib_dir' holds no libcuda.so.1 (accepted: d4r's library folder, e.g. build/lib)"
        lib_dir=$(cd "$lib_dir" && pwd)
    fi

    [[ "$timeout_s" =~ ^[1-9][0-9]*$ ]] || usage_error "--timeout '$timeout_s' is not accepted (a whole number of seconds, 1 or more)"

    case "$variants_arg" in
        static|shared) variants=("$variants_arg") ;;
        static,shared|shared,static) variants=(static shared) ;;
        *) usage_error "--variants '$variants_arg' is not accepted (static, shared or static,shared)" ;;
    esac

    [ -d "$cuda_dir" ] || usage_error "--cuda '$cuda_dir' is not a folder (accepted: a CUDA toolkit folder)"
    cuda_dir=$(cd "$cuda_dir" && pwd)

    if [ -n "$list_file" ]; then
        [ -r "$list_file" ] || usage_error "--list '$list_file' cannot be read (accepted: a file of sample names, one a line)"
        local line
        while IFS= read -r line || [ -n "$line" ]; do
            line=${line%%#*}
            line=$(echo "$line" | tr -d '[:space:]')
            [ -n "$line" ] && names+=("$line")
        done <"$list_file"
    fi
    [ ${#names[@]} -gt 0 ] || names=("${default_samples[@]}")

    mkdir -p "$out_dir" || usage_error "--out '$out_dir' cannot be created (accepted: a writable folder)"
    out_dir=$(cd "$out_dir" && pwd)
}

check_toolkit() {
    nvcc=$cuda_dir/bin/nvcc
    if [ ! -x "$nvcc" ]; then
        echo "$prog: no nvcc at $nvcc (install the CUDA toolkit or pass --cuda DIR)" >&2
        exit 1
    fi
    if ! command -v timeout >/dev/null; then
        echo "$prog: 'timeout' (coreutils) is needed to bound each run" >&2
        exit 1
    fi
}

# ---------------------------------------------------------------------------------------------------
# Finding and building a sample

# The folder of sample $1: a folder of that name anywhere under Samples/ (the tree is grouped in
# numbered categories that have moved between releases, so the name is the stable key).
find_sample() {
    find "$samples_dir/Samples" -type d -name "$1" -print 2>/dev/null | sort | head -n 1
}

# Sources of the executable, one a line: the list in the sample's own CMakeLists.txt
# (add_executable(NAME src...)), because some folders hold sources that are not part of it (kernels
# compiled to a fatbin or PTX file, or read by NVRTC at run time). Without a usable line: every .cu,
# .cpp and .c file of the folder.
sample_sources() {
    local dir=$1 name=$2 cmake=$1/CMakeLists.txt line=
    if [ -f "$cmake" ]; then
        line=$(grep -E "^[[:space:]]*add_executable\(${name}[[:space:]]+[^)]*\)" "$cmake" | head -n 1 || true)
        [ -n "$line" ] || line=$(grep -E '^[[:space:]]*add_executable\([A-Za-z0-9_]+[[:space:]]+[^)]*\)' "$cmake" | head -n 1 || true)
    fi
    if [ -n "$line" ]; then
        local src
        for src in $(echo "$line" | sed -E 's/^[^(]*\([A-Za-z0-9_]+[[:space:]]+//; s/\).*//'); do
            [ -f "$dir/$src" ] && echo "$src"
        done
        return 0
    fi
    (cd "$dir" && find . -maxdepth 1 -type f \( -name '*.cu' -o -name '*.cpp' -o -name '*.c' \) -printf '%f\n' | sort)
}

# Extra nvcc flags for sample $1 (folder $2), one a line, from what the sample uses:
#   -lcuda              the CMakeLists links CUDA::cuda_driver (driver API samples); nvcc's profile
#                       already puts the toolkit's stub folder on the link path, and at run time
#                       libcuda.so.1 resolves to d4r's through LD_LIBRARY_PATH
#   -l<lib>             any other CUDA::<lib> target (nvrtc, cublas, cufft, curand, npp*, ...)
#   -lnvvm              libNVVM samples (found by find_library, not a CUDA:: target), with
#                       -I/-L for the toolkit's nvvm/{include,lib64} (the run puts nvvm/lib64 on
#                       LD_LIBRARY_PATH)
#   -D...               libNVVM samples: their category's add_definitions (libdevice version),
#                       LIBNVVM_HOME and LIBCUDADEVRT as their CMakeLists define them
#   -lnvJitLink         find_library(... NAME nvJitLink) (jitLto), not a CUDA:: target there
#   -Xcompiler -fopenmp -lgomp
#                       the CMakeLists links OpenMP::OpenMP_CXX (cudaOpenMP)
#   -rdc=true           grid-wide synchronisation (this_grid/grid_group/cudaLaunchCooperativeKernel)
#                       and dynamic parallelism (cdp*, with -lcudadevrt); other samples are compiled
#                       whole-program although their CMakeLists turn on separable compilation, as a
#                       plain `nvcc sample.cu` would
#   -ldl                the CMakeLists links dl (samples that dlopen libcuda themselves)
sample_flags() {
    local name=$1 dir=$2 cmake=$2/CMakeLists.txt
    if [ -f "$cmake" ]; then
        local target
        while read -r target; do
            case "${target#CUDA::}" in
                cudart|cudart_static) ;;        # the variant decides
                cuda_driver) echo -lcuda ;;
                *) echo "-l${target#CUDA::}" ;;
            esac
        done < <(grep -oE 'CUDA::[A-Za-z0-9_]+' "$cmake" | sort -u)
        if grep -qiE 'nvvm' "$cmake"; then
            [ -d "$cuda_dir/nvvm/include" ] && echo "-I$cuda_dir/nvvm/include"
            [ -d "$cuda_dir/nvvm/lib64" ] && echo "-L$cuda_dir/nvvm/lib64"
            echo -lnvvm
            # What 7_libNVVM/CMakeLists.txt and the sample's own one define: the libdevice version
            # (add_definitions), libNVVM's home (ptxgen finds libdevice there) and cudadevrt's path
            # (device-side-launch links it at run time).
            [ ! -f "$dir/../CMakeLists.txt" ] ||
                sed -nE 's/^[[:space:]]*add_definitions\((-D[A-Za-z0-9_]+=[A-Za-z0-9_.]+)\).*/\1/p' "$dir/../CMakeLists.txt"
            grep -q 'LIBNVVM_HOME=' "$cmake" && echo "-DLIBNVVM_HOME=$cuda_dir/nvvm"
            grep -q 'LIBCUDADEVRT=' "$cmake" && echo "-DLIBCUDADEVRT=\"$cuda_dir/lib64/libcudadevrt.a\""
        fi
        # ${CUDA_LIB}: the driver library as 7_libNVVM's CMakeLists finds it (CUDA::cuda_driver elsewhere).
        grep -qF '${CUDA_LIB}' "$cmake" && echo -lcuda
        if grep -qE 'NAMES?[[:space:]]+nvJitLink' "$cmake" && ! grep -qE 'CUDA::nvJitLink' "$cmake"; then
            echo -lnvJitLink
        fi
        if grep -qE 'OpenMP::OpenMP_(CXX|C)' "$cmake"; then
            echo -Xcompiler; echo -fopenmp; echo -lgomp
        fi
        grep -qE 'target_link_libraries\([^)]*[[:space:]]dl[[:space:])]' "$cmake" && echo -ldl
    fi
    if grep -qsE 'this_grid\(|grid_group|cudaLaunchCooperativeKernel' "$dir"/*.cu "$dir"/*.cuh; then
        echo -rdc=true
    fi
    case "$name" in
        cdp*) echo -rdc=true; echo -lcudadevrt ;;
    esac
    return 0
}

# Kernel files a sample loads at run time (driver API samples): its CMakeLists compiles
# CUDA_KERNEL_SOURCE into CUDA_FATBIN_FILE (-fatbin) or CUDA_PTX_FILE (-ptx) beside the executable.
# Prints "fatbin|ptx OUTPUT SOURCE" or nothing.
sample_kernel_file() {
    local cmake=$1/CMakeLists.txt src out
    [ -f "$cmake" ] || return 0
    src=$(sed -nE 's/.*set\(CUDA_KERNEL_SOURCE[[:space:]]+"[^"]*\/([^"/]+)"\).*/\1/p' "$cmake" | head -n 1)
    [ -n "$src" ] || return 0
    out=$(sed -nE 's/.*set\(CUDA_FATBIN_FILE[[:space:]]+"[^"]*\/([^"/]+)"\).*/\1/p' "$cmake" | head -n 1)
    if [ -n "$out" ]; then echo "fatbin $out $src"; return 0; fi
    out=$(sed -nE 's/.*set\(CUDA_PTX_FILE[[:space:]]+"[^"]*\/([^"/]+)"\).*/\1/p' "$cmake" | head -n 1)
    [ -n "$out" ] && echo "ptx $out $src"
    return 0
}

# NVRTC samples compile their kernels at run time; Common/nvrtc_helper.h finds cooperative_groups.h
# (for kernels that use it, e.g. matrixMul_nvrtc) with sdkFindFilePath, which looks in the working
# directory and in folders relative to the cuda-samples tree, never in the toolkit, and passes the folder
# it found to NVRTC as --include-path. A sample folder $1 whose sources include nvrtc_helper.h gets the
# toolkit's cooperative_groups.h and cooperative_groups/ linked into its run folder $2, with what they
# include (nv/ and cuda/, in include/ or, from CUDA 13 on, include/cccl/): symbolic links to --cuda DIR,
# so a run on another machine (--phase run) needs the toolkit at the same path.
link_nvrtc_headers() {
    grep -qsE '#[[:space:]]*include[[:space:]]*[<"]nvrtc_helper\.h' "$1"/*.cu "$1"/*.cuh "$1"/*.cpp "$1"/*.h || return 0
    local f inc
    for f in cooperative_groups.h cooperative_groups nv cuda; do
        for inc in "$cuda_dir/include" "$cuda_dir/include/cccl"; do
            if [ -e "$inc/$f" ] && [ ! -e "$2/$f" ]; then
                ln -s "$inc/$f" "$2/$f"
                break
            fi
        done
    done
    return 0
}

# Arguments for sample $1, one a line, from the checkout's test_args.json (what NVIDIA's own
# run_tests.py passes: data files, sizes). Prints SKIP for samples it marks "skip" (graphics and
# platform-specific ones). Needs python3; without it samples run without arguments.
sample_args() {
    local json=$samples_dir/test_args.json
    [ -f "$json" ] && command -v python3 >/dev/null || return 0
    python3 - "$json" "$1" <<'EOF'
import json, sys
entry = json.load(open(sys.argv[1])).get(sys.argv[2], {})
if entry.get("skip"):
    print("SKIP")
else:
    runs = entry.get("runs") or [entry]
    for arg in runs[0].get("args", []):
        print(arg)
EOF
}

# The line that best explains an unsuccessful run or build, from the program's (or compiler's) own
# lines (d4r's log lines are reported apart, see first_d4r_warning), shortened for the table:
#   1. the last line saying what is missing or unsupported ("Failed to find required function X",
#      "undefined symbol: X", "does not support ..."): samples often follow it with a generic error;
#   2. else the last line naming an error, a failure or a waiver;
#   3. else the last non-blank line.
meaningful_line() {
    local log=$1 own line
    own=$(grep -av "^$mark" "$log" | grep -av '^d4r: ' | grep -avE '^[[:space:]]*$' || true)
    line=$(echo "$own" | grep -aiE 'not supported|unsupported|failed to find|not found|undefined (symbol|reference)|does not support|doesn.t support|waiv' |
        tail -n 1 || true)
    [ -n "$line" ] || line=$(echo "$own" |
        grep -aiE 'error|fail|abort|exception|assert|illegal|invalid|requires|mismatch|segmentation|core dumped' |
        tail -n 1 || true)
    [ -n "$line" ] || line=$(echo "$own" | tail -n 1)
    [ -n "$line" ] || line=$(last_line "$log")
    line=$(echo "$line" | tr -d '\r' | tr '\t|' '  ' | sed -E 's/^[[:space:]]+//; s/[[:space:]]+$//')
    [ ${#line} -le 150 ] || line="${line:0:147}..."
    echo "$line"
}

# The last non-blank line of a log that the sample wrote.
last_line() {
    grep -av "^$mark" "$1" | grep -avE '^[[:space:]]*$' | tail -n 1 || true
}

# The first warning or error d4r logged (its log lines start with "d4r: warn" / "d4r: error"): usually
# the root cause (an unsupported PTX instruction, an unsupported flag) where the sample's own message
# only says which CUDA call failed.
first_d4r_warning() {
    local line
    line=$(grep -aE '^d4r: (warn|error)' "$1" | head -n 1 | tr -d '\r' | tr '\t|' '  ' || true)
    [ ${#line} -le 200 ] || line="${line:0:197}..."
    echo "$line"
}

signal_name() {
    local n=$(($1 - 128))
    kill -l "$n" 2>/dev/null || echo "$n"
}

now() { echo "$EPOCHREALTIME"; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# Builds and runs sample $1 with cudart variant $2. Sets r_build, r_run, r_secs, r_note, r_d4r.
sweep_one() {
    local name=$1 variant=$2
    r_build=fail r_run=- r_secs=- r_note='' r_d4r=''
    local build_log=$out_dir/logs/$name.$variant.build.log run_log=$out_dir/logs/$name.$variant.run.log
    [ "$backend" = cpu ] || run_log=$out_dir/logs/$name.$variant.$backend.run.log
    local output=$out_dir/output/$backend/$name.$variant.txt
    [ "$phase" = run ] || : >"$build_log"
    : >"$run_log"
    rm -f "$output"

    local dir
    dir=$(find_sample "$name")
    if [ -z "$dir" ]; then
        r_build=missing r_note="no folder named $name under Samples/"
        return 0
    fi

    # The run folder is a copy of the sample's folder: samples find their data files (and driver API
    # samples their fatbin or PTX) relative to the working directory, and some write output files next
    # to their inputs; a copy keeps the checkout untouched.
    local run_dir=$out_dir/build/$name/$variant
    if [ "$phase" = run ]; then
        # A build made by an earlier --phase build (on this or another machine).
        if [ ! -x "$run_dir/$name" ]; then
            r_note="build: $(meaningful_line "$build_log" 2>/dev/null || true)"
            [ -s "$build_log" ] || r_note="not built (run --phase build first)"
            return 0
        fi
    else
    rm -rf "$run_dir"
    mkdir -p "$run_dir"
    cp -R "$dir/." "$run_dir/"
    link_nvrtc_headers "$dir" "$run_dir"

    local sources flags kernel
    mapfile -t sources < <(sample_sources "$dir" "$name")
    mapfile -t flags < <(sample_flags "$name" "$dir")
    kernel=$(sample_kernel_file "$dir")
    if [ ${#sources[@]} -eq 0 ]; then
        r_note="no .cu, .cpp or .c source in $name"
        return 0
    fi

    # PTX for compute_80 is what the cpu backend runs; SASS for sm_80 is what a GPU would pick.
    # shellcheck disable=SC2054  # the commas belong to nvcc's -gencode values
    local gencode=(-gencode arch=compute_80,code=compute_80 -gencode arch=compute_80,code=sm_80)
    local common=(-O2 -std=c++17 -Wno-deprecated-gpu-targets --extended-lambda -I"$samples_dir/Common" -I"$dir")
    local ok=1
    {
        echo "$mark$name ($variant cudart) from ${dir#"$samples_dir"/}"
        if [ -n "$kernel" ]; then
            local kind kout ksrc
            read -r kind kout ksrc <<<"$kernel"
            if [ "$kind" = fatbin ]; then
                echo "${mark}nvcc ${gencode[*]} -fatbin -o $kout $ksrc"
                "$nvcc" "${common[@]}" "${gencode[@]}" -fatbin -o "$run_dir/$kout" "$dir/$ksrc" || ok=0
            else
                echo "${mark}nvcc -arch=compute_80 -ptx -o $kout $ksrc"
                "$nvcc" "${common[@]}" -arch=compute_80 -ptx -o "$run_dir/$kout" "$dir/$ksrc" || ok=0
            fi
        fi
        if [ "$ok" = 1 ]; then
            echo "${mark}nvcc ${gencode[*]} -cudart $variant ${flags[*]} -o $name ${sources[*]}"
            (cd "$dir" && "$nvcc" "${common[@]}" "${gencode[@]}" -cudart "$variant" -o "$run_dir/$name" \
                "${sources[@]}" "${flags[@]}") || ok=0
        fi
    } >>"$build_log" 2>&1
    if [ "$ok" = 0 ]; then
        r_note="build: $(meaningful_line "$build_log")"
        return 0
    fi
    fi  # phase
    r_build=ok
    [ "$phase" != build ] || return 0

    local args
    mapfile -t args < <(sample_args "$name")
    if [ "${args[0]:-}" = SKIP ]; then
        r_run=skip r_note="marked skip in test_args.json"
        return 0
    fi

    # stdbuf makes the sample's stdout line-buffered: a run stopped by the timeout otherwise loses the
    # output still in its stdio buffer, which is exactly what tells how far it got.
    local linebuf=()
    command -v stdbuf >/dev/null && linebuf=(stdbuf -oL -eL)
    local start rc=0
    start=$(now)
    # direct: NVIDIA's libcuda as the system installs it (the toolkit's lib64 only for libnvrtc and the
    # shared cudart); cpu and driver: d4r's libcuda.so.1 first on the path.
    # NVIDIA's JIT cache is off: a run that hits it prints no ptxas log lines (ptxjit's linker output), so
    # the direct and driver runs of one PTX would differ by which ran first.
    local ld=$cuda_dir/lib64 env=(CUDA_CACHE_DISABLE=1)
    if [ "$backend" != direct ]; then
        ld=$lib_dir:$ld
        env+=(D4R_CUDA_BACKEND="$backend")
    fi
    [ ! -d "$cuda_dir/nvvm/lib64" ] || ld=$ld:$cuda_dir/nvvm/lib64
    (
        cd "$run_dir"
        echo "${mark}LD_LIBRARY_PATH=$ld ${env[*]} ./$name ${args[*]}"
        env LD_LIBRARY_PATH="$ld" "${env[@]}" \
            timeout -k 10 "$timeout_s" "${linebuf[@]}" "./$name" "${args[@]}" </dev/null
    ) >>"$run_log" 2>&1 || rc=$?
    mkdir -p "$(dirname "$output")"
    grep -av "^$mark" "$run_log" | grep -av '^d4r: ' >"$output" || true
    r_secs=$(elapsed "$start" "$(now)")

    case "$rc" in
        0) r_run=pass ;;
        2) r_run=waive r_note=$(meaningful_line "$run_log") ;;  # EXIT_WAIVED in cuda-samples
        124|137) r_run=timeout r_note="no exit within ${timeout_s} s; last output: $(last_line "$run_log" | cut -c1-100)" ;;
        *)
            r_run=fail
            r_note=$(meaningful_line "$run_log")
            [ "$rc" -gt 128 ] && r_note="SIG$(signal_name "$rc"); $r_note"
            r_note="exit $rc: $r_note"
            ;;
    esac
    [ "$r_run" = pass ] || r_d4r=$(first_d4r_warning "$run_log")
    echo "${mark}exit status $rc after $r_secs s" >>"$run_log"
    return 0
}

# ---------------------------------------------------------------------------------------------------
# Main

main() {
    parse_args "$@"
    check_toolkit
    mkdir -p "$out_dir/logs" "$out_dir/build" "$out_dir/rows"

    local tsv=$out_dir/results.tsv md=$out_dir/results.md
    printf 'sample\tvariant\tbuild\trun\tseconds\tnote\td4r_first_warning\n' >"$tsv"
    {
        echo "| sample | variant | build | run | s | note |"
        echo "|---|---|---|---|---:|---|"
    } >"$md"

    echo "$prog: ${#names[@]} sample(s) x ${variants[*]}; backend $backend; phase $phase; $jobs job(s); lib $lib_dir; out $out_dir; timeout ${timeout_s} s" >&2
    local total=$((${#names[@]} * ${#variants[@]})) i=0 name variant running=0
    local -A counts=()
    local rows=()
    # Each sample runs in a subshell that leaves its result in OUT/rows/; the table keeps the list's order.
    for name in "${names[@]}"; do
        for variant in "${variants[@]}"; do
            i=$((i + 1))
            rm -f "$out_dir/rows/$name.$variant.$backend"
            (
                sweep_one "$name" "$variant"
                printf '[%d/%d] %s %s: build %s, run %s, %s s\n' "$i" "$total" "$name" "$variant" \
                    "$r_build" "$r_run" "$r_secs" >&2
                printf '%s\t%s\t%s\t%s\t%s\n' "$r_build" "$r_run" "$r_secs" "$r_note" "$r_d4r" >"$out_dir/rows/$name.$variant.$backend"
            ) &
            running=$((running + 1))
            if [ "$running" -ge "$jobs" ]; then wait -n || true; running=$((running - 1)); fi
        done
    done
    wait || true
    for name in "${names[@]}"; do
        for variant in "${variants[@]}"; do
            r_build=fail r_run=- r_secs=- r_note='sweep lost this result' r_d4r=''
            [ ! -f "$out_dir/rows/$name.$variant.$backend" ] ||
                IFS=$'\t' read -r r_build r_run r_secs r_note r_d4r <"$out_dir/rows/$name.$variant.$backend" || true
            printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$variant" "$r_build" "$r_run" "$r_secs" "$r_note" "$r_d4r" >>"$tsv"
            printf '| %s | %s | %s | %s | %s | %s |\n' "$name" "$variant" "$r_build" "$r_run" "$r_secs" \
                "${r_note:+\`$r_note\`}" >>"$md"
            rows+=("$name"$'\t'"$variant"$'\t'"$r_build"$'\t'"$r_run"$'\t'"$r_secs"$'\t'"$r_note")
            if [ "$r_build" = ok ]; then counts[$r_run]=$((${counts[$r_run]:-0} + 1)); else counts[build-$r_build]=$((${counts[build-$r_build]:-0} + 1)); fi
        done
    done

    # The table, widths fitted to the names.
    local w=6 row
    for name in "${names[@]}"; do [ ${#name} -le "$w" ] || w=${#name}; done
    printf "%-${w}s  %-7s  %-7s  %-7s  %7s  %s\n" sample variant build run seconds note
    for row in "${rows[@]}"; do
        IFS=$'\t' read -r name variant r_build r_run r_secs r_note <<<"$row"
        printf "%-${w}s  %-7s  %-7s  %-7s  %7s  %s\n" "$name" "$variant" "$r_build" "$r_run" "$r_secs" "$r_note"
    done
    local summary='' key
    for key in pass fail waive timeout skip - build-fail build-missing; do
        [ -n "${counts[$key]:-}" ] && summary+="${summary:+, }${counts[$key]} $key"
    done
    echo
    cp "$tsv" "$out_dir/results-$backend.tsv"
    cp "$md" "$out_dir/results-$backend.md"
    echo "$total run(s) on $backend: $summary. Logs: $out_dir/logs; results: $tsv, $md (and results-$backend.*)"
}

main "$@"
