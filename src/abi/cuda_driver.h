// d4r ABI: the CUDA driver API, declared by d4r from public facts (names, signatures, numeric values
// as documented for the CUDA driver API). No NVIDIA header is used. This file grows with the runtime
// (issue: libd4rcuda); for now it holds what `d4r doctor` needs to probe a driver.
#pragma once

#include <cstdint>

extern "C" {

typedef int CUresult;
typedef int CUdevice;

enum : CUresult {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_INVALID_VALUE = 1,
    CUDA_ERROR_NOT_INITIALIZED = 3,
    CUDA_ERROR_NO_DEVICE = 100,
    CUDA_ERROR_INVALID_DEVICE = 101,
};

typedef CUresult (*PFN_cuInit)(unsigned int flags);
typedef CUresult (*PFN_cuDriverGetVersion)(int* version);
typedef CUresult (*PFN_cuDeviceGetCount)(int* count);
typedef CUresult (*PFN_cuDeviceGet)(CUdevice* device, int ordinal);
typedef CUresult (*PFN_cuDeviceGetName)(char* name, int length, CUdevice device);
typedef CUresult (*PFN_cuGetErrorName)(CUresult error, const char** name);

} // extern "C"
