# The Windows sub-build (cmake/windows/CMakeLists.txt), configured and built from the main build as the
# target d4r_windows, cross-compiled with cmake/toolchains/mingw-w64-x86_64.cmake. It is added when
# mingw-w64's posix-thread compilers are installed (scripts/install-deps.sh --for test); D4R_WINDOWS says so
# to the folders that use its outputs.
#
# d4r_windows_program(NAME OUTPUT_DIR dir SOURCES ... [INCLUDES ...] [DEFINES ...] [NVCUDA] [SHARED]): a test's
#   Windows program (NAME.exe, or NAME.dll with SHARED), built by the sub-build into OUTPUT_DIR; NVCUDA links
#   the import library of the bridge's nvcuda.dll. Depend on the target d4r_windows to use it.
# d4r_windows_build(): once, after every d4r_windows_program: writes the sub-build's inputs and adds
#   d4r_windows. The sub-build always runs its own build step (cheap when nothing changed) so that its
#   compilers' dependency tracking, not a list kept here, decides what is stale.
find_program(D4R_MINGW_CXX x86_64-w64-mingw32-g++-posix)
find_program(D4R_MINGW_CC x86_64-w64-mingw32-gcc-posix)
find_path(D4R_FMT_HEADERS fmt/format.h)
set(D4R_WINDOWS OFF)
if(D4R_UNIT_TESTS_ONLY)
    message(STATUS "d4r: D4R_UNIT_TESTS_ONLY: the Windows sub-build is not built")
elseif(D4R_MINGW_CXX AND D4R_MINGW_CC AND D4R_FMT_HEADERS)
    set(D4R_WINDOWS ON)
else()
    message(STATUS "d4r: x86_64-w64-mingw32-g++-posix not found: the Windows sub-build (d4r_ngx.dll, d4r_nvngx.dll, "
                   "the Windows test programs) is not built")
endif()
set(D4R_WIN_OUT ${CMAKE_BINARY_DIR}/win)
set(D4R_NGX_DLL ${D4R_WIN_OUT}/d4r_ngx.dll)
set(D4R_SHIM_DLL ${D4R_WIN_OUT}/d4r_nvngx.dll)
set_property(GLOBAL PROPERTY D4R_WINDOWS_PROGRAMS "")

function(d4r_windows_program name)
    cmake_parse_arguments(arg "NVCUDA;SHARED" "OUTPUT_DIR" "SOURCES;INCLUDES;DEFINES" ${ARGN})
    set(call "d4r_win_program(${name} OUTPUT_DIR [[${arg_OUTPUT_DIR}]]")
    foreach(kind SOURCES INCLUDES DEFINES)
        if(arg_${kind})
            string(APPEND call " ${kind}")
            foreach(item ${arg_${kind}})
                string(APPEND call " [[${item}]]")
            endforeach()
        endif()
    endforeach()
    foreach(flag NVCUDA SHARED)
        if(arg_${flag})
            string(APPEND call " ${flag}")
        endif()
    endforeach()
    set_property(GLOBAL APPEND_STRING PROPERTY D4R_WINDOWS_PROGRAMS "${call})\n")
endfunction()

function(d4r_windows_build)
    if(NOT D4R_WINDOWS)
        return()
    endif()
    include(ExternalProject)
    set(dir ${CMAKE_BINARY_DIR}/windows)
    get_property(programs GLOBAL PROPERTY D4R_WINDOWS_PROGRAMS)
    d4r_kernel_family_embedded_source(upscaler upscaler_ptx)
    d4r_kernel_family_embedded_source(refine refine_ptx)
    get_property(shim_ptx GLOBAL PROPERTY D4R_SHIM_EMBEDDED_PTX) # src/shim/CMakeLists.txt
    set(bridge_def)
    if(DEFINED D4R_BRIDGE_DEF)
        set(bridge_def ${D4R_BRIDGE_DEF})
    endif()
    # Vulkan's headers for the shim's Vulkan entry points: a folder holding only links to vulkan/ and vk_video/
    # (the system include folder itself would hand mingw Linux's C library headers).
    set(vulkan_headers)
    if(D4R_VULKAN_INCLUDE AND EXISTS ${D4R_VULKAN_INCLUDE}/vulkan/vulkan.h)
        set(vulkan_headers ${dir}/vulkan-include)
        file(MAKE_DIRECTORY ${vulkan_headers})
        foreach(sub vulkan vk_video)
            if(EXISTS ${D4R_VULKAN_INCLUDE}/${sub} AND NOT EXISTS ${vulkan_headers}/${sub})
                file(CREATE_LINK ${D4R_VULKAN_INCLUDE}/${sub} ${vulkan_headers}/${sub} SYMBOLIC)
            endif()
        endforeach()
    endif()
    # Written only when it changes (file(CONFIGURE)), so an unchanged configuration rebuilds nothing.
    file(CONFIGURE OUTPUT ${dir}/programs.cmake CONTENT "${programs}")
    file(CONFIGURE OUTPUT ${dir}/inputs.cmake CONTENT "# Written by the main build (cmake/D4rWindows.cmake).
set(D4R_SOURCE_DIR [[${CMAKE_SOURCE_DIR}]])
set(D4R_WIN_OUT [[${D4R_WIN_OUT}]])
set(D4R_FMT_HEADERS [[${D4R_FMT_HEADERS}]])
set(D4R_WARNING_FLAGS [[${D4R_WARNING_FLAGS}]])
set(D4R_NATIVE_ROOT_IN_BUILD [[${D4R_NATIVE_ROOT_IN_BUILD}]])
set(D4R_EMBEDDED_PTX_SOURCES [[${upscaler_ptx};${refine_ptx};${shim_ptx}]])
set(D4R_BRIDGE_DEF [[${bridge_def}]])
set(D4R_VULKAN_HEADERS [[${vulkan_headers}]])
set(D4R_WINDOWS_PROGRAM_FILES [[${dir}/programs.cmake]])
")
    set(launcher)
    if(D4R_CCACHE)
        set(launcher -DCMAKE_C_COMPILER_LAUNCHER=${D4R_CCACHE} -DCMAKE_CXX_COMPILER_LAUNCHER=${D4R_CCACHE})
    endif()
    set(products ${D4R_NGX_DLL} ${D4R_SHIM_DLL})
    ExternalProject_Add(d4r_windows
        SOURCE_DIR ${CMAKE_SOURCE_DIR}/cmake/windows
        BINARY_DIR ${dir}/build
        STAMP_DIR ${dir}/stamp
        TMP_DIR ${dir}/tmp
        CMAKE_ARGS -DCMAKE_TOOLCHAIN_FILE=${CMAKE_SOURCE_DIR}/cmake/toolchains/mingw-w64-x86_64.cmake
                   -DCMAKE_BUILD_TYPE=Release -DD4R_WINDOWS_INPUTS=${dir}/inputs.cmake ${launcher}
        BUILD_ALWAYS ON
        BUILD_BYPRODUCTS ${products}
        INSTALL_COMMAND ""
        USES_TERMINAL_BUILD ON)
    if(TARGET d4r_bridge)
        add_dependencies(d4r_windows d4r_bridge) # nvcuda.def, for the import library
    endif()
    # The names the DLLs' targets had before the sub-build (d4r package's hint names them).
    add_custom_target(d4r_ngx_dll)
    add_custom_target(d4r_nvngx_dll)
    add_dependencies(d4r_ngx_dll d4r_windows)
    add_dependencies(d4r_nvngx_dll d4r_windows)
endfunction()
