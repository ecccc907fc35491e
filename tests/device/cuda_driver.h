// The few CUDA driver API types, constants and functions the golden runner uses, declared by us
// (no NVIDIA header) and loaded from libcuda.so.1 at run time. Values and struct layouts follow the
// driver's documented ABI; the exported names are the versioned ones (`cuMemAlloc_v2`, ...) that
// the unversioned macros of the official header resolve to.
#pragma once

#include <cstddef>
#include <string>

namespace d4r::device {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUtexObject = unsigned long long;
using CUsurfObject = unsigned long long;
struct CUctx_st;
struct CUmod_st;
struct CUfunc_st;
struct CUarray_st;
struct CUstream_st;
using CUcontext = CUctx_st*;
using CUmodule = CUmod_st*;
using CUfunction = CUfunc_st*;
using CUarray = CUarray_st*;
using CUstream = CUstream_st*;

constexpr CUresult CUDA_SUCCESS = 0;

// CUarray_format
constexpr int CU_AD_FORMAT_UNSIGNED_INT8 = 0x01;
constexpr int CU_AD_FORMAT_HALF = 0x10;
constexpr int CU_AD_FORMAT_FLOAT = 0x20;
constexpr int CU_AD_FORMAT_UNORM_INT_101010_2 = 0x50;
// CUaddress_mode, CUfilter_mode, CUresourcetype, CUmemorytype
constexpr int CU_TR_ADDRESS_MODE_WRAP = 0;
constexpr int CU_TR_ADDRESS_MODE_CLAMP = 1;
constexpr int CU_TR_ADDRESS_MODE_MIRROR = 2;
constexpr int CU_TR_ADDRESS_MODE_BORDER = 3;
constexpr int CU_TR_FILTER_MODE_POINT = 0;
constexpr int CU_TR_FILTER_MODE_LINEAR = 1;
constexpr int CU_RESOURCE_TYPE_ARRAY = 0;
constexpr int CU_RESOURCE_TYPE_PITCH2D = 3;
constexpr int CU_MEMORYTYPE_HOST = 1;
constexpr int CU_MEMORYTYPE_DEVICE = 2;
constexpr int CU_MEMORYTYPE_ARRAY = 3;
// Flags
constexpr unsigned CU_TRSF_READ_AS_INTEGER = 0x01;
constexpr unsigned CU_TRSF_NORMALIZED_COORDINATES = 0x02;
constexpr unsigned CUDA_ARRAY3D_SURFACE_LDST = 0x02;
// CUjit_option
constexpr int CU_JIT_INFO_LOG_BUFFER = 3;
constexpr int CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4;
constexpr int CU_JIT_ERROR_LOG_BUFFER = 5;
constexpr int CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;
// CUdevice_attribute
constexpr int CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT = 14;
constexpr int CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT = 51;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
// cuLaunchKernel `extra` markers
inline void* const CU_LAUNCH_PARAM_END = reinterpret_cast<void*>(0x00);
inline void* const CU_LAUNCH_PARAM_BUFFER_POINTER = reinterpret_cast<void*>(0x01);
inline void* const CU_LAUNCH_PARAM_BUFFER_SIZE = reinterpret_cast<void*>(0x02);

struct CudaArray3DDescriptor { // CUDA_ARRAY3D_DESCRIPTOR_v2
    size_t Width, Height, Depth;
    int Format;
    unsigned NumChannels;
    unsigned Flags;
};

struct CudaMemcpy2D { // CUDA_MEMCPY2D_v2
    size_t srcXInBytes, srcY;
    int srcMemoryType;
    const void* srcHost;
    CUdeviceptr srcDevice;
    CUarray srcArray;
    size_t srcPitch;
    size_t dstXInBytes, dstY;
    int dstMemoryType;
    void* dstHost;
    CUdeviceptr dstDevice;
    CUarray dstArray;
    size_t dstPitch;
    size_t WidthInBytes, Height;
};

struct CudaResourceDesc { // CUDA_RESOURCE_DESC_v1
    int resType;
    union {
        struct {
            CUarray hArray;
        } array;
        struct {
            CUdeviceptr devPtr;
            int format;
            unsigned numChannels;
            size_t width, height, pitchInBytes;
        } pitch2D;
        int reserved[32];
    } res;
    unsigned flags;
};

struct CudaTextureDesc { // CUDA_TEXTURE_DESC_v1
    int addressMode[3];
    int filterMode;
    unsigned flags;
    unsigned maxAnisotropy;
    int mipmapFilterMode;
    float mipmapLevelBias, minMipmapLevelClamp, maxMipmapLevelClamp;
    float borderColor[4];
    int reserved[12];
};

static_assert(sizeof(CudaArray3DDescriptor) == 40, "CUDA_ARRAY3D_DESCRIPTOR layout");
static_assert(sizeof(CudaMemcpy2D) == 128, "CUDA_MEMCPY2D layout");
static_assert(sizeof(CudaResourceDesc) == 144, "CUDA_RESOURCE_DESC layout");
static_assert(sizeof(CudaTextureDesc) == 104, "CUDA_TEXTURE_DESC layout");

// X(name, exported symbol, signature)
#define D4R_CUDA_DRIVER_FUNCS(X)                                                                                       \
    X(init, "cuInit", CUresult (*)(unsigned))                                                                          \
    X(driver_get_version, "cuDriverGetVersion", CUresult (*)(int*))                                                    \
    X(device_get, "cuDeviceGet", CUresult (*)(CUdevice*, int))                                                         \
    X(device_get_name, "cuDeviceGetName", CUresult (*)(char*, int, CUdevice))                                          \
    X(device_get_attribute, "cuDeviceGetAttribute", CUresult (*)(int*, int, CUdevice))                                 \
    X(primary_ctx_retain, "cuDevicePrimaryCtxRetain", CUresult (*)(CUcontext*, CUdevice))                              \
    X(primary_ctx_release, "cuDevicePrimaryCtxRelease_v2", CUresult (*)(CUdevice))                                     \
    X(primary_ctx_reset, "cuDevicePrimaryCtxReset_v2", CUresult (*)(CUdevice))                                         \
    X(ctx_set_current, "cuCtxSetCurrent", CUresult (*)(CUcontext))                                                     \
    X(ctx_synchronize, "cuCtxSynchronize", CUresult (*)())                                                             \
    X(module_load_data_ex, "cuModuleLoadDataEx", CUresult (*)(CUmodule*, const void*, unsigned, int*, void**))         \
    X(module_unload, "cuModuleUnload", CUresult (*)(CUmodule))                                                         \
    X(module_get_function, "cuModuleGetFunction", CUresult (*)(CUfunction*, CUmodule, const char*))                    \
    X(launch_kernel, "cuLaunchKernel",                                                                                 \
      CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream, void**, \
                   void**))                                                                                            \
    X(mem_alloc, "cuMemAlloc_v2", CUresult (*)(CUdeviceptr*, size_t))                                                  \
    X(mem_free, "cuMemFree_v2", CUresult (*)(CUdeviceptr))                                                             \
    X(memcpy_htod, "cuMemcpyHtoD_v2", CUresult (*)(CUdeviceptr, const void*, size_t))                                  \
    X(memcpy_dtoh, "cuMemcpyDtoH_v2", CUresult (*)(void*, CUdeviceptr, size_t))                                        \
    X(memcpy_2d, "cuMemcpy2D_v2", CUresult (*)(const CudaMemcpy2D*))                                                   \
    X(array_3d_create, "cuArray3DCreate_v2", CUresult (*)(CUarray*, const CudaArray3DDescriptor*))                     \
    X(array_destroy, "cuArrayDestroy", CUresult (*)(CUarray))                                                          \
    X(tex_object_create, "cuTexObjectCreate",                                                                          \
      CUresult (*)(CUtexObject*, const CudaResourceDesc*, const CudaTextureDesc*, const void*))                        \
    X(tex_object_destroy, "cuTexObjectDestroy", CUresult (*)(CUtexObject))                                             \
    X(surf_object_create, "cuSurfObjectCreate", CUresult (*)(CUsurfObject*, const CudaResourceDesc*))                  \
    X(surf_object_destroy, "cuSurfObjectDestroy", CUresult (*)(CUsurfObject))                                          \
    X(get_error_name, "cuGetErrorName", CUresult (*)(CUresult, const char**))                                          \
    X(get_error_string, "cuGetErrorString", CUresult (*)(CUresult, const char**))

template <typename T>
using FnPtr = T; // lets a macro argument spelled `R (*)(Args...)` declare a variable

struct CudaDriver {
#define D4R_CUDA_FIELD(field, symbol, type) FnPtr<type> field = nullptr;
    D4R_CUDA_DRIVER_FUNCS(D4R_CUDA_FIELD)
#undef D4R_CUDA_FIELD
    void* handle = nullptr;

    // dlopen()s `library` and resolves every function; "" on success, else what is missing.
    std::string load(const char* library = "libcuda.so.1");
    // "cuFoo failed: CUDA_ERROR_X (text)" for a non-success result.
    std::string describe(const char* what, CUresult r) const;
};

} // namespace d4r::device
