/* A stand-in for ROCm's libamdhip64.so, for testing d4r's `.hsaco` path without an AMD GPU.
 *
 * It behaves as HIP does under ZLUDA: its streams and device pointers are the CUDA backend's (the test
 * binds it to the cpu backend's entry points). Its "code objects" are PTX text after the first line
 * FAKE_HSACO_MAGIC; anything else is refused as hipErrorInvalidImage, as HIP refuses a PTX file. It
 * reads `extra` with HIP's keys only (a CUDA END key where HIP's is expected is an error), and records
 * every launch and every hipMemsetD32Async for the test to check. A unit test binds it to a backend with
 * fake_hip_bind(); a whole program binds it through FAKE_HIP_CUDA_LIBRARY (a CUDA driver library's path)
 * and gets a log of the launches in FAKE_HIP_LOG at exit. */
#pragma once

#include <stddef.h>

#include "abi/cuda.h"

#ifdef __cplusplus
extern "C" {
using namespace d4r::abi;
#endif

#define FAKE_HSACO_MAGIC "// d4r fake hsaco\n"

typedef struct FakeHipCuda {
    CUresult (*module_load_data)(CUmodule*, const void*);
    CUresult (*module_unload)(CUmodule);
    CUresult (*module_get_function)(CUfunction*, CUmodule, const char*);
    CUresult (*module_get_global)(CUdeviceptr*, size_t*, CUmodule, const char*);
    CUresult (*launch_kernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                              CUstream, void**, void**);
    CUresult (*memcpy_dtoh)(void*, CUdeviceptr, size_t);
    CUresult (*memset_d32_async)(CUdeviceptr, unsigned int, size_t, CUstream);
} FakeHipCuda;

typedef struct FakeHipLaunch {
    char name[64];
    unsigned grid[3];
    unsigned block[3];
    unsigned shared;
    void* stream;
    int used_extra; /* 1 when the parameters came through `extra` */
} FakeHipLaunch;

typedef struct FakeHipMemset {
    unsigned long long address;
    int value;
    size_t count;
    void* stream;
} FakeHipMemset;

typedef void (*PFN_fake_hip_bind)(const FakeHipCuda* cuda);
typedef int (*PFN_fake_hip_launch_count)(void);
typedef const FakeHipLaunch* (*PFN_fake_hip_launch)(int index);
typedef int (*PFN_fake_hip_memset_count)(void);
typedef const FakeHipMemset* (*PFN_fake_hip_memset)(int index);
typedef int (*PFN_fake_hip_load_count)(void); /* hipModuleLoadData calls, refused ones included */
/* Reads u32 number INDEX of global NAME in the last module loaded; 0 on success. */
typedef int (*PFN_fake_hip_global_u32)(const char* name, unsigned index, unsigned* value);
typedef void (*PFN_fake_hip_reset)(void);

#ifdef __cplusplus
}
#endif
