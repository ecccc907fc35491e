# Test code is built for compile speed, not run speed (docs/performance.md, "Build time"): -O0 even in
# optimised builds (the libraries under test keep their -O2; test code at -O2 took 2.6x as long to build),
# and one precompiled header per test binary for GoogleTest, fmt and the standard headers every test uses.
# Under D4R_FUZZ (the asan and fuzz presets) the libraries carry libFuzzer's coverage instrumentation for the
# fuzz targets; test code needs none, and goes without it (it costs a third more compile time).
function(d4r_test_compile_options target)
    target_compile_options(${target} PRIVATE $<$<NOT:$<CONFIG:Debug>>:-O0>)
    if(D4R_FUZZ)
        target_compile_options(${target} PRIVATE -fno-sanitize=fuzzer-no-link)
    endif()
    target_precompile_headers(${target} PRIVATE
        <gtest/gtest.h> <fmt/format.h> <algorithm> <cstdint> <cstring> <filesystem> <map> <optional>
        <string> <vector>)
endfunction()

# d4r_add_gtest(NAME DIR LIBS ... [LABELS ...])
# One GoogleTest binary per test folder: every *_test.cpp in DIR. Tests are discovered into CTest
# with the given labels ("unit" runs again under the asan preset; "cli" runs the built binary).
function(d4r_add_gtest name)
    cmake_parse_arguments(ARG "" "" "LIBS;LABELS" ${ARGN})
    file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*_test.cpp)
    if(NOT sources)
        return()
    endif()
    add_executable(${name} ${sources})
    target_link_libraries(${name} PRIVATE ${ARG_LIBS} d4r_testsupport GTest::gtest GTest::gtest_main)
    d4r_test_compile_options(${name})
    gtest_discover_tests(${name}
        WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
        PROPERTIES LABELS "${ARG_LABELS}"
        DISCOVERY_TIMEOUT 60)
endfunction()

# d4r_add_program_runs(NAME name COMMAND runner-args... [PROFILE_ARGS args...] [LABELS ...] [TIMEOUT s])
# A program run on libd4rcuda as an application loads it (tests/cudart/run-program.sh) under each option set of
# d4r's layers, every one compared with the same golden: NAME (none: the backend alone), NAME@trace,
# NAME@profile-dump and NAME@overrides-empty (run-program.sh --help says what each sets and checks). Each test
# carries LABELS and option-SET, so `ctest -L option-trace` or `-LE option-profile-dump` steer a run.
# PROFILE_ARGS are passed to the profile-dump run only.
function(d4r_add_program_runs)
    cmake_parse_arguments(ARG "" "NAME;TIMEOUT" "COMMAND;PROFILE_ARGS;LABELS" ${ARGN})
    if(NOT ARG_TIMEOUT)
        set(ARG_TIMEOUT 300)
    endif()
    foreach(set none trace profile-dump overrides-empty)
        set(test ${ARG_NAME}@${set})
        set(extra)
        if(set STREQUAL "none")
            set(test ${ARG_NAME})
        elseif(set STREQUAL "profile-dump")
            set(extra ${ARG_PROFILE_ARGS})
        endif()
        add_test(NAME ${test} COMMAND ${PROJECT_SOURCE_DIR}/tests/cudart/run-program.sh --options ${set} ${extra}
                                      ${ARG_COMMAND})
        set_tests_properties(${test} PROPERTIES LABELS "${ARG_LABELS};option-${set}" TIMEOUT ${ARG_TIMEOUT})
    endforeach()
endfunction()
