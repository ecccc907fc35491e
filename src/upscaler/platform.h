// d4r open NGX core: the one place where its Linux library (libd4r_ngx.so) and its Windows DLL
// (d4r_ngx.dll, built with mingw) differ: which CUDA driver library to load, how, and where the core's
// own file lies.
//
// Promise: open_library() loads a library for the life of the process (never unloaded: a CUDA driver
// keeps threads and state) or says why it could not; find_symbol() is null for a missing name;
// this_binary_directory() is the folder of the .so or .dll (or program) this code is linked into, ""
// when unknown. Paths are UTF-8 on both systems.
#pragma once

#include <string>

#include "core/status.h"

namespace d4r::upscaler::platform {

#if defined(_WIN32)
// The CUDA driver of Windows; under Wine, d4r's bridge (docs/bridge.md).
inline constexpr const char* kCudaLibraryName = "nvcuda.dll";
inline constexpr const char* kLibrarySearchPath = "the system's (DLL search order)";
inline constexpr char kPathSeparator = '\\';
#else
inline constexpr const char* kCudaLibraryName = "libcuda.so.1";
inline constexpr const char* kLibrarySearchPath = "the system's (dynamic linker search path)";
inline constexpr char kPathSeparator = '/';
#endif

Expected<void*> open_library(const std::string& path);
void* find_symbol(void* library, const char* name);
std::string this_binary_directory();

} // namespace d4r::upscaler::platform
