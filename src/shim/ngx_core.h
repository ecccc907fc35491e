// d4r NGX shim: the NGX core it evaluates through (NGX's CUDA API in a Windows DLL, or in a Linux library for the
// shim's Linux build).
//
// Promise: `choose_core` decides which library from D4R_SHIM_NGX_CORE — unset, empty or "d4r": d4r's open core
// (`d4r_ngx.dll`; on Linux `libd4r_ngx.so`); "nvidia": NVIDIA's `_nvngx.dll` (Windows only: there is no NVIDIA core
// for Linux, the name is then refused at load); anything else: that path — looking beside the shim's own file first
// and then through the system's search order, and says why in `reason`. `load_core` loads it
// and resolves its entry points by name into one table; a missing required entry point is an error naming
// it, optional ones are null. The DLL is never unloaded (a core keeps CUDA state and threads).
#pragma once

#include <string>

#include "abi/ngx.h"
#include "core/env.h"
#include "core/status.h"

namespace d4r::shim {

#if defined(_WIN32)
inline constexpr const char* kOpenCoreName = "d4r_ngx.dll";
#else
inline constexpr const char* kOpenCoreName = "libd4r_ngx.so";
#endif
inline constexpr const char* kNvidiaCoreName = "_nvngx.dll";

struct CoreChoice {
    std::string path;   // what LoadLibrary is given
    std::string reason; // "d4r's open core beside the shim", "D4R_SHIM_NGX_CORE", ...
};
// SHIM_DIR is the folder of d4r_nvngx.dll ("" if unknown); EXISTS tells whether a file is there.
CoreChoice choose_core(const Environment& env, const std::string& shim_dir, bool (*exists)(const std::string&));

// clang-format off
#define D4R_SHIM_CORE_REQUIRED(X) \
    X(NVSDK_NGX_CUDA_Init) X(NVSDK_NGX_CUDA_Shutdown) X(NVSDK_NGX_CUDA_AllocateParameters) \
    X(NVSDK_NGX_CUDA_DestroyParameters) X(NVSDK_NGX_CUDA_CreateFeature) X(NVSDK_NGX_CUDA_EvaluateFeature) \
    X(NVSDK_NGX_CUDA_ReleaseFeature)
#define D4R_SHIM_CORE_OPTIONAL(X) X(NVSDK_NGX_CUDA_GetCapabilityParameters)
// clang-format on

struct CoreFunctions {
#define D4R_SHIM_CORE_MEMBER(name) decltype(&abi::name) name = nullptr;
    D4R_SHIM_CORE_REQUIRED(D4R_SHIM_CORE_MEMBER)
    D4R_SHIM_CORE_OPTIONAL(D4R_SHIM_CORE_MEMBER)
#undef D4R_SHIM_CORE_MEMBER
    std::string path;
};

Expected<CoreFunctions> load_core(const CoreChoice& choice);

} // namespace d4r::shim
