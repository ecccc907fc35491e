# Build-time helpers for d4r's own libraries (docs/performance.md, "Build time").

# d4r_library_pch(TARGET [HEADER ...])
# One precompiled header for a library's files: fmt (every d4r file includes it through core/status.h) and the
# standard headers most files use, plus the given HEADERs. Most of a typical library file's compile time is
# parsing these (about 1.4 of 2-3 CPU-seconds for a runtime file); the header is parsed once per library.
# Code must still include what it uses: the header only saves the time.
function(d4r_library_pch target)
    target_precompile_headers(${target} PRIVATE
        <fmt/format.h> <algorithm> <cstdint> <cstring> <functional> <map> <memory> <mutex> <optional> <string>
        <string_view> <unordered_map> <variant> <vector> ${ARGN})
endfunction()

# d4r_arithmetic_library(<target> [FUZZED] | SOURCES <file>...): a library (or some sources of one) whose loops
# are most of the unit tests' time: the tensor-core rule of d4r_numerics, the refine network's host and cpu
# kernels, the scene renderer, SHA-256, the PTX front end and ptxsim. The asan preset builds everything at -O0 with libFuzzer's coverage for
# compile speed; these ran 8-50x slower that way (the mma rule alone was three quarters of the asan run's network
# tests: one of them 64 s, 7.8 s after). So under D4R_SANITIZE or D4R_FUZZ they are optimised (-O2: AddressSanitizer
# and UndefinedBehaviorSanitizer still check every access and operation) and carry no fuzzer coverage (no fuzz target
# is about them), except a FUZZED one: the PTX front end and ptxsim's loader are what fuzz_ptx_index and
# fuzz_ptxsim_load explore, so they keep it. Other presets are unchanged; the build costs about a minute more.
function(d4r_arithmetic_library)
    if(NOT (D4R_SANITIZE OR D4R_FUZZ))
        return()
    endif()
    if(ARGV0 STREQUAL "SOURCES")
        list(SUBLIST ARGV 1 -1 files)
        set_property(SOURCE ${files} APPEND PROPERTY COMPILE_OPTIONS -O2 -fno-sanitize=fuzzer-no-link)
    elseif(ARGV1 STREQUAL "FUZZED")
        target_compile_options(${ARGV0} PRIVATE -O2)
    else()
        target_compile_options(${ARGV0} PRIVATE -O2 -fno-sanitize=fuzzer-no-link)
    endif()
endfunction()
