// d4r doctor: probes of third-party libraries and programs (NVIDIA driver, HIP, Wine).
#pragma once

#include <string>

#include "core/status.h"

namespace d4r::cli {

struct CudaProbe {
    bool loaded = false;
    std::string library;    // the file dlopen found
    int driver_version = 0; // e.g. 13000
    int init_result = -1;   // cuInit's CUresult
    int device_count = 0;
    std::string first_device;
    std::string error; // why it could not be loaded or used
};

// dlopen(LIBRARY) and cuInit/cuDeviceGetCount, in a child process with a time limit.
CudaProbe probe_cuda_driver(const std::string& library = "libcuda.so.1");

// The path a library NAME resolves to with dlopen (in a child process), or an error saying why not.
Expected<std::string> probe_library(const std::string& name);

// dlopen(NAME) with RTLD_NOW in a child process and dlsym(SYMBOL): the path it resolved to, or why not.
Expected<std::string> probe_library_symbol(const std::string& name, const std::string& symbol);

} // namespace d4r::cli
