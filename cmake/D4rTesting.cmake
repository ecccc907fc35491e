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
    gtest_discover_tests(${name}
        WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
        PROPERTIES LABELS "${ARG_LABELS}"
        DISCOVERY_TIMEOUT 60)
endfunction()
