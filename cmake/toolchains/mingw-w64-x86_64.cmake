# Cross-compiling for 64-bit Windows with mingw-w64's posix-thread compilers (Debian's
# g++-mingw-w64-x86-64-posix; scripts/install-deps.sh --for test installs them). Used by the Windows
# sub-build (cmake/windows/CMakeLists.txt), which the main build configures (cmake/D4rWindows.cmake); it also
# works on its own: cmake -S cmake/windows -B build-win --toolchain cmake/toolchains/mingw-w64-x86_64.cmake.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(D4R_MINGW_TRIPLE x86_64-w64-mingw32)
# posix threads: std::thread and std::mutex, which the shim's CUDA worker uses, need them.
set(CMAKE_C_COMPILER ${D4R_MINGW_TRIPLE}-gcc-posix)
set(CMAKE_CXX_COMPILER ${D4R_MINGW_TRIPLE}-g++-posix)
set(CMAKE_RC_COMPILER ${D4R_MINGW_TRIPLE}-windres)
find_program(CMAKE_DLLTOOL ${D4R_MINGW_TRIPLE}-dlltool)
# Headers and libraries from the mingw sysroot only: the host's /usr/include must never leak in.
set(CMAKE_FIND_ROOT_PATH /usr/${D4R_MINGW_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
