/* d4r ABI for programs: what a C or C++ program includes instead of NVIDIA's cuda.h to call the CUDA
 * driver API. It adds to cuda.h (types) the function prototypes of cuda_api.h, the unversioned names
 * cuda.h maps to versioned exports (cuMemAlloc -> cuMemAlloc_v2, as CUDA 13's header does) and the
 * macro constants. The test programs in tests/runtime/programs/ build against this header or against
 * NVIDIA's cuda.h, unchanged. Not used inside libd4rcuda (it declares its exports itself). */
#pragma once

#include "abi/cuda.h"
#include "abi/cuda_api.h"

#ifdef __cplusplus
using namespace d4r::abi;
extern "C" {
#endif

#define D4R_CUDA_PROTOTYPE(exp, base, since, params, args) CUresult exp params;
D4R_CUDA_API(D4R_CUDA_PROTOTYPE)
#undef D4R_CUDA_PROTOTYPE

#ifdef __cplusplus
}
#endif

#define CU_STREAM_LEGACY D4R_CU_STREAM_LEGACY
#define CU_STREAM_PER_THREAD D4R_CU_STREAM_PER_THREAD
#define CU_LAUNCH_PARAM_END D4R_CU_LAUNCH_PARAM_END
#define CU_LAUNCH_PARAM_BUFFER_POINTER D4R_CU_LAUNCH_PARAM_BUFFER_POINTER
#define CU_LAUNCH_PARAM_BUFFER_SIZE D4R_CU_LAUNCH_PARAM_BUFFER_SIZE
#define CUDA_VERSION 13000

/* Unversioned names, as cuda.h maps them (the newest version d4r exports). */
#define cuArray3DCreate cuArray3DCreate_v2
#define cuArray3DGetDescriptor cuArray3DGetDescriptor_v2
#define cuArrayCreate cuArrayCreate_v2
#define cuArrayGetDescriptor cuArrayGetDescriptor_v2
#define cuCtxCreate cuCtxCreate_v4
#define cuCtxDestroy cuCtxDestroy_v2
#define cuCtxPopCurrent cuCtxPopCurrent_v2
#define cuCtxPushCurrent cuCtxPushCurrent_v2
#define cuDeviceGetUuid cuDeviceGetUuid_v2
#define cuDevicePrimaryCtxRelease cuDevicePrimaryCtxRelease_v2
#define cuDevicePrimaryCtxReset cuDevicePrimaryCtxReset_v2
#define cuDevicePrimaryCtxSetFlags cuDevicePrimaryCtxSetFlags_v2
#define cuDeviceTotalMem cuDeviceTotalMem_v2
#define cuEventDestroy cuEventDestroy_v2
#define cuEventElapsedTime cuEventElapsedTime_v2
#define cuGetProcAddress cuGetProcAddress_v2
#define cuMemAlloc cuMemAlloc_v2
#define cuMemAllocHost cuMemAllocHost_v2
#define cuMemAllocPitch cuMemAllocPitch_v2
#define cuMemFree cuMemFree_v2
#define cuMemGetAddressRange cuMemGetAddressRange_v2
#define cuMemGetInfo cuMemGetInfo_v2
#define cuMemHostGetDevicePointer cuMemHostGetDevicePointer_v2
#define cuMemHostRegister cuMemHostRegister_v2
#define cuMemcpy2D cuMemcpy2D_v2
#define cuMemcpy2DAsync cuMemcpy2DAsync_v2
#define cuMemcpy2DUnaligned cuMemcpy2DUnaligned_v2
#define cuMemcpy3D cuMemcpy3D_v2
#define cuMemcpy3DAsync cuMemcpy3DAsync_v2
#define cuMemcpyAtoH cuMemcpyAtoH_v2
#define cuMemcpyDtoD cuMemcpyDtoD_v2
#define cuMemcpyDtoDAsync cuMemcpyDtoDAsync_v2
#define cuMemcpyDtoH cuMemcpyDtoH_v2
#define cuMemcpyDtoHAsync cuMemcpyDtoHAsync_v2
#define cuMemcpyHtoA cuMemcpyHtoA_v2
#define cuMemcpyHtoD cuMemcpyHtoD_v2
#define cuMemcpyHtoDAsync cuMemcpyHtoDAsync_v2
#define cuMemsetD16 cuMemsetD16_v2
#define cuMemsetD2D16 cuMemsetD2D16_v2
#define cuMemsetD2D32 cuMemsetD2D32_v2
#define cuMemsetD2D8 cuMemsetD2D8_v2
#define cuMemsetD32 cuMemsetD32_v2
#define cuMemsetD8 cuMemsetD8_v2
#define cuModuleGetGlobal cuModuleGetGlobal_v2
#define cuStreamDestroy cuStreamDestroy_v2
