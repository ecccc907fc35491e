/* d4r ABI: the few HIP module and launch entry points d4r calls in ROCm's libamdhip64.so, declared by d4r
 * from public facts (exported names, parameter lists, numeric values as documented for HIP). No AMD
 * header is used or copied.
 *
 * Promise: d4r runs AMD native kernels (`.hsaco` code objects) through exactly these entry points,
 * resolved with dlsym, on the streams and device pointers that ZLUDA hands the application (ZLUDA's
 * CUstream and CUdeviceptr are HIP's). In C the declarations are global; in C++ they live in
 * `d4r::abi`, like abi/cuda.h. x86-64 Linux only. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
namespace d4r::abi {
extern "C" {
#endif

typedef int hipError_t; /* hipSuccess is 0; other values are only logged */
typedef struct d4r_hip_module* hipModule_t;
typedef struct d4r_hip_function* hipFunction_t;
typedef struct d4r_hip_stream* hipStream_t;
typedef void* hipDeviceptr_t;

#define D4R_HIP_SUCCESS 0
#define D4R_HIP_ERROR_INVALID_VALUE 1
#define D4R_HIP_ERROR_INVALID_IMAGE 200
#define D4R_HIP_ERROR_NOT_FOUND 500

/* hipModuleLaunchKernel's `extra` keys. END differs from CUDA's (CU_LAUNCH_PARAM_END is 0), so a CUDA
 * `extra` array cannot be handed to HIP as it is. */
#define D4R_HIP_LAUNCH_PARAM_BUFFER_POINTER ((void*)0x01)
#define D4R_HIP_LAUNCH_PARAM_BUFFER_SIZE ((void*)0x02)
#define D4R_HIP_LAUNCH_PARAM_END ((void*)0x03)

typedef hipError_t (*PFN_hipModuleLoadData)(hipModule_t* module, const void* image);
typedef hipError_t (*PFN_hipModuleUnload)(hipModule_t module);
typedef hipError_t (*PFN_hipModuleGetFunction)(hipFunction_t* function, hipModule_t module, const char* name);
typedef hipError_t (*PFN_hipModuleGetGlobal)(hipDeviceptr_t* address, size_t* bytes, hipModule_t module,
                                             const char* name);
typedef hipError_t (*PFN_hipModuleLaunchKernel)(hipFunction_t function, unsigned int grid_x, unsigned int grid_y,
                                                unsigned int grid_z, unsigned int block_x, unsigned int block_y,
                                                unsigned int block_z, unsigned int shared_bytes, hipStream_t stream,
                                                void** kernel_params, void** extra);
typedef hipError_t (*PFN_hipMemcpyDtoH)(void* destination, hipDeviceptr_t source, size_t bytes);
typedef hipError_t (*PFN_hipMemsetD32Async)(hipDeviceptr_t destination, int value, size_t count, hipStream_t stream);
typedef const char* (*PFN_hipGetErrorName)(hipError_t error);

#ifdef __cplusplus
} /* extern "C" */
} /* namespace d4r::abi */
#endif
