// libd4rcuda: ROCm's HIP runtime (libamdhip64.so), loaded with dlopen to run `.hsaco` native kernels.
//
// Promise: load_hip_runtime() finds HIP once per process and keeps it loaded: first a libamdhip64 the
// process has already loaded (ZLUDA's own, so that native kernels share its device, streams and
// memory), else D4R_ROCM_DIR/lib/libamdhip64.so, else the loader's search path. It resolves every
// entry point in abi/hip.h or fails naming the missing one; `source` says which library was used and
// why.
#pragma once

#include <string>

#include "abi/hip.h"
#include "core/env.h"
#include "core/status.h"

namespace d4r::runtime {

struct HipRuntime {
    std::string library; // the file loaded
    std::string source;  // how it was found ("already loaded", "D4R_ROCM_DIR", "search path")
    abi::PFN_hipModuleLoadData module_load_data = nullptr;
    abi::PFN_hipModuleUnload module_unload = nullptr;
    abi::PFN_hipModuleGetFunction module_get_function = nullptr;
    abi::PFN_hipModuleGetGlobal module_get_global = nullptr;
    abi::PFN_hipModuleLaunchKernel module_launch_kernel = nullptr;
    abi::PFN_hipMemcpyDtoH memcpy_dtoh = nullptr;
    abi::PFN_hipMemsetD32Async memset_d32_async = nullptr;
    abi::PFN_hipGetErrorName get_error_name = nullptr;

    // "hipErrorX (N)" for logs.
    std::string error_text(abi::hipError_t e) const;
};

// Finds and binds HIP (uncached; the library stays loaded).
Expected<HipRuntime> find_hip_runtime(const Environment& env);

// find_hip_runtime() once per process; later calls return the first outcome.
Expected<const HipRuntime*> load_hip_runtime(const Environment& env);

} // namespace d4r::runtime
