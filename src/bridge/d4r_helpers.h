/* d4r's own exports of the Wine bridge nvcuda.dll: what d4r's NGX shim needs from the Linux side beyond
 * the CUDA driver API. C and C++, for Windows code (mingw, MSVC) and for the bridge itself (wineg++).
 *
 * Promise:
 *   * Every function uses the Windows x64 calling convention, nulls its out-parameters first, checks its
 *     arguments (CUDA_ERROR_INVALID_VALUE, said at debug level with D4R_LOG=debug), never throws and never
 *     crashes the caller. Without libd4rcuda each answers CUDA_ERROR_NOT_INITIALIZED, except
 *     d4r_SetEnvironment and d4r_GetLoadError, which work without it.
 *   * A program finds out whether its nvcuda.dll is d4r's bridge by looking up d4r_GetLoadError with
 *     GetProcAddress; NVIDIA's nvcuda.dll has none of these names.
 *   * d4r_EventWait really waits: it is a host-side poll of the event that sleeps between polls whatever
 *     flags the event was created with, and nothing d4r does to synchronisations an NGX core asks for
 *     (D4R_ELIDE_NGX_SYNC) applies to it.
 */
#pragma once

#include "abi/cuda.h"

#if defined(_MSC_VER)
#define D4R_HELPER_CALL __cdecl
#else
#define D4R_HELPER_CALL __attribute__((ms_abi)) /* the default under mingw; needed under wineg++ */
#endif

#ifdef __cplusplus
namespace d4r::abi {
extern "C" {
#endif

/* d4r_Memcpy2DAsync's direction, numbered as the CUDA runtime's cudaMemcpyKind. */
typedef enum d4r_memcpy_kind_enum {
    D4R_MEMCPY_HOST_TO_HOST = 0,
    D4R_MEMCPY_HOST_TO_DEVICE = 1,
    D4R_MEMCPY_DEVICE_TO_HOST = 2,
    D4R_MEMCPY_DEVICE_TO_DEVICE = 3
} d4r_memcpy_kind;

/* d4r_EventWait's timeout that never expires. */
#define D4R_WAIT_FOREVER 0xffffffffu

/* Sets (VALUE non-null) or removes (VALUE null) the Linux process environment variable NAME, which is
 * where libd4rcuda reads its configuration (D4R_CUDA_BACKEND, D4R_LOG, ...): a Windows program's
 * SetEnvironmentVariable does not reach it. Call it before cuInit; libd4rcuda reads most variables once.
 * CUDA_ERROR_INVALID_VALUE for a null or empty NAME or one holding '='. */
CUresult D4R_HELPER_CALL d4r_SetEnvironment(const char* name, const char* value);

/* Why the bridge could not load libd4rcuda ("" when it loaded). Loads it first if no call has yet. Writes
 * at most SIZE bytes including the terminating NUL into TEXT (truncating) and the whole text's length
 * (without NUL) into *LENGTH; either may be null, not both. CUDA_ERROR_INVALID_VALUE when TEXT is null
 * with a non-zero SIZE. */
CUresult D4R_HELPER_CALL d4r_GetLoadError(char* text, size_t size, size_t* length);

/* Waits on the calling thread, sleeping between polls, until EVENT has completed (CUDA_SUCCESS), an error
 * is reported for it (that error), or TIMEOUT_MS milliseconds have passed (CUDA_ERROR_NOT_READY);
 * D4R_WAIT_FOREVER waits without limit. */
CUresult D4R_HELPER_CALL d4r_EventWait(CUevent event, unsigned int timeout_ms);

/* cudaMemcpy2DAsync's shape over the driver API: HEIGHT rows of WIDTH bytes from SRC (rows SRC_PITCH
 * bytes apart) to DST (rows DST_PITCH apart), queued on STREAM. A device address is passed as a pointer
 * ((void*)(uintptr_t)CUdeviceptr). CUDA_ERROR_INVALID_VALUE for an unknown KIND or a WIDTH above a pitch. */
CUresult D4R_HELPER_CALL d4r_Memcpy2DAsync(void* dst, size_t dst_pitch, const void* src, size_t src_pitch, size_t width,
                                           size_t height, d4r_memcpy_kind kind, CUstream stream);

/* In stream order on the device: wait until the 32-bit value at ADDR satisfies FLAGS (CU_STREAM_WAIT_VALUE_*)
 * against VALUE, or write VALUE there (FLAGS: CU_STREAM_WRITE_VALUE_*). ADDR must be 4-byte aligned
 * device memory or mapped host memory (cuMemHostGetDevicePointer). The backend's own stream memory
 * operations do the work; a backend without them answers CUDA_ERROR_NOT_SUPPORTED. */
CUresult D4R_HELPER_CALL d4r_StreamWaitValue32(CUstream stream, CUdeviceptr addr, cuuint32_t value, unsigned int flags);
CUresult D4R_HELPER_CALL d4r_StreamWriteValue32(CUstream stream, CUdeviceptr addr, cuuint32_t value,
                                                unsigned int flags);

/* The same as pointer types, for GetProcAddress. */
typedef CUresult(D4R_HELPER_CALL* PFN_d4r_SetEnvironment)(const char*, const char*);
typedef CUresult(D4R_HELPER_CALL* PFN_d4r_GetLoadError)(char*, size_t, size_t*);
typedef CUresult(D4R_HELPER_CALL* PFN_d4r_EventWait)(CUevent, unsigned int);
typedef CUresult(D4R_HELPER_CALL* PFN_d4r_Memcpy2DAsync)(void*, size_t, const void*, size_t, size_t, size_t,
                                                         d4r_memcpy_kind, CUstream);
typedef CUresult(D4R_HELPER_CALL* PFN_d4r_StreamWaitValue32)(CUstream, CUdeviceptr, cuuint32_t, unsigned int);
typedef CUresult(D4R_HELPER_CALL* PFN_d4r_StreamWriteValue32)(CUstream, CUdeviceptr, cuuint32_t, unsigned int);

#ifdef __cplusplus
} /* extern "C" */
} /* namespace d4r::abi */
#endif
