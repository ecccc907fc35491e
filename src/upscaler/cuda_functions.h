// d4r open NGX core: the CUDA driver API functions the core calls, resolved from a libcuda.
//
// Promise: the core calls CUDA only through this table, so it runs on whatever libcuda the process
// has (d4r's libd4rcuda on any backend, or NVIDIA's driver) and tests can hand it any table.
#pragma once

#include <string>

#include "abi/cuda_api.h"
#include "abi/d4r_extensions.h"
#include "core/status.h"

namespace d4r::upscaler {

// clang-format off
#define D4R_UPSCALER_CUDA_FUNCTIONS(X) \
    X(cuInit) X(cuDeviceGet) X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease_v2) \
    X(cuCtxGetCurrent) X(cuCtxSetCurrent) X(cuCtxPushCurrent_v2) X(cuCtxPopCurrent_v2) X(cuCtxSynchronize) \
    X(cuGetErrorName) X(cuMemAlloc_v2) X(cuMemFree_v2) X(cuMemcpyHtoD_v2) X(cuMemcpyDtoH_v2) \
    X(cuMemHostAlloc) X(cuMemFreeHost) \
    X(cuMemsetD8_v2) X(cuMemsetD32_v2) X(cuMemsetD8Async) X(cuMemcpyHtoDAsync_v2) X(cuMemcpyDtoHAsync_v2) \
    X(cuModuleLoadData) X(cuModuleUnload) X(cuModuleGetFunction) X(cuLaunchKernel) \
    X(cuStreamCreate) X(cuStreamDestroy_v2) X(cuStreamSynchronize) \
    X(cuEventCreate) X(cuEventDestroy_v2) X(cuEventRecord) X(cuEventSynchronize) X(cuEventElapsedTime) \
    X(cuMemGetAddressRange_v2) X(cuPointerGetAttribute)
// clang-format on

struct CudaFunctions {
#define D4R_UPSCALER_MEMBER(name) abi::PFN_##name name = nullptr;
    D4R_UPSCALER_CUDA_FUNCTIONS(D4R_UPSCALER_MEMBER)
#undef D4R_UPSCALER_MEMBER
    // libd4rcuda's own entry point (abi/d4r_extensions.h); null over a library without it (NVIDIA's).
    abi::PFN_d4rFuncIsNative d4rFuncIsNative = nullptr;
    // Optional too (null where the library lacks them): how layer traces honour a kernel's d4r_dynamic_shared.
    abi::PFN_cuModuleGetGlobal_v2 cuModuleGetGlobal_v2 = nullptr;
    abi::PFN_cuFuncSetAttribute cuFuncSetAttribute = nullptr;
};

// Resolves every function by its exported name from `library` (a handle of platform::open_library:
// dlopen on Linux, LoadLibrary on Windows). NotFound naming the first missing symbol.
Expected<CudaFunctions> resolve_cuda_functions(void* library);
// Loads `path` (e.g. "libcuda.so.1", build/lib/libcuda.so.1, or nvcuda.dll in the Windows DLL) and
// resolves it. The handle is kept for the process (a libcuda is never unloaded).
Expected<CudaFunctions> load_cuda_functions(const std::string& path);
// "cuLaunchKernel: CUDA_ERROR_INVALID_VALUE (1)" style message for a failed call.
Error cuda_error(const CudaFunctions& cuda, const char* call, abi::CUresult result);

} // namespace d4r::upscaler
