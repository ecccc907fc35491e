// libd4rcuda: which native code objects the backend in use runs, and for which GPU architecture.
//
// Promise: the cpu backend runs `.cpu` kernels (arch "cpu"); a driver backend whose library is ZLUDA's
// (its path names "zluda", or it lies under D4R_ZLUDA_DIR) runs `.hsaco` code objects for the AMD GPU
// that D4R_GPU_ARCH or the KFD topology names; any other driver backend runs `.cubin` for the
// device's sm_XY. `why` says how the choice was made, for the log.
#pragma once

#include <filesystem>
#include <string>

#include "core/env.h"
#include "runtime/backend.h"

namespace d4r::runtime {

struct NativeTarget {
    std::string extension; // "cpu", "hsaco" or "cubin"
    std::string arch;      // "cpu", "gfx1101", "sm_90"; empty when unknown
    std::string why;
};

// True when the driver library of backend NAME ("driver:/path/libcuda.so") is ZLUDA's.
bool is_zluda_backend(const std::string& name, const Environment& env);

NativeTarget native_target_for(const Backend& backend, const Environment& env, const std::filesystem::path& kfd_root);

} // namespace d4r::runtime
