// cpu backend: the unversioned and legacy entry points NVIDIA's libcuda still exports (programs that
// dlsym them by name, as matrixMulDynlinkJIT's cuda_drvapi_dynlink.c does).
//
// Promise: a legacy name whose ABI equals its versioned successor's (cuCtxDestroy, cuCtxPushCurrent,
// cuStreamDestroy, cuMemHostRegister, ...) runs the same implementation. The pre-3.2 entry points with
// 32-bit sizes and device pointers (cuMemAlloc, cuMemFree, cuMemcpyHtoD, cuMemcpyDtoH, cuMemcpyDtoDAsync,
// cuMemGetInfo) convert faithfully: sizes widen, pointers zero-extend, results that do not fit 32 bits
// are refused (an allocation above 4 GiB of address space: CUDA_ERROR_OUT_OF_MEMORY, as no 32-bit
// pointer can name it; free and total memory saturate). The execution-control API of CUDA 1.0-3.2
// (cuFuncSetBlockShape, cuParamSet*, cuLaunchGrid, ...) is not here: it is a layer over every backend
// (runtime/legacy_launch.h), so its launches reach overrides, profiles and dumps as cuLaunchKernel. Texture and
// surface references, graphics interoperability and IPC are not implemented (their entries answer
// CUDA_ERROR_NOT_SUPPORTED, logged once): ptxsim binds textures through texture objects only.
#include <climits>
#include <cstring>

#include "core/log.h"
#include "runtime/backends/cpu/cpu_ops.h"
#include "runtime/refusal.h"

namespace d4r::runtime::cpu {

namespace {

// The versioned implementations the legacy names convert to (set by fill_legacy from the same table).
ApiTable g_table;

// ---- Contexts ---------------------------------------------------------------------------------------

struct Attachments final : StatePart {
    static constexpr PartSlot kSlot = PartSlot::Legacy;
    std::mutex mutex;
    std::map<CUcontext, int> counts; // references added by cuCtxAttach (the creator's is implicit)
};

Attachments& attachments() { return state().part<Attachments>(); }

CUresult cu_ctx_attach(CUcontext* pctx, unsigned int flags) {
    if (pctx) *pctx = nullptr;
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!pctx || flags != 0, CUDA_ERROR_INVALID_VALUE);
    std::shared_ptr<Context> ctx;
    if (CUresult r = current_context(ctx)) return r;
    CUcontext h = reinterpret_cast<CUcontext>(ctx.get());
    std::lock_guard lock(attachments().mutex);
    ++attachments().counts[h];
    *pctx = h;
    return CUDA_SUCCESS;
}

// Drops one usage reference of CTX, which must be current; the last one destroys it.
CUresult cu_ctx_detach(CUcontext ctx) {
    if (CUresult r = check_init()) return r;
    std::shared_ptr<Context> current;
    if (current_context(current) != CUDA_SUCCESS || reinterpret_cast<CUcontext>(current.get()) != ctx)
        return CUDA_ERROR_INVALID_CONTEXT;
    {
        std::lock_guard lock(attachments().mutex);
        auto it = attachments().counts.find(ctx);
        if (it != attachments().counts.end()) {
            if (--it->second == 0) attachments().counts.erase(it);
            return CUDA_SUCCESS;
        }
    }
    return g_table.cuCtxDestroy_v2(ctx);
}

CUresult cu_ctx_get_shared_mem_config(CUsharedconfig* config) {
    if (config) *config = CU_SHARED_MEM_CONFIG_DEFAULT_BANK_SIZE;
    StreamRef ref;
    if (CUresult r = current_stream(ref)) return r;
    D4R_CPU_REFUSE_IF(!config, CUDA_ERROR_INVALID_VALUE);
    *config = static_cast<CUsharedconfig>(1); // CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE, fixed since sm_50
    return CUDA_SUCCESS;
}

CUresult cu_ctx_set_shared_mem_config(CUsharedconfig config) {
    StreamRef ref;
    if (CUresult r = current_stream(ref)) return r;
    int c = static_cast<int>(config);
    D4R_CPU_REFUSE_IF(c < 0 || c > 2, CUDA_ERROR_INVALID_VALUE);
    return CUDA_SUCCESS; // deprecated; the bank size is fixed (NVIDIA ignores it on sm_50 and later too)
}

// ---- 32-bit memory entry points ----------------------------------------------------------------------

CUresult cu_mem_get_info_v1(unsigned int* free_bytes, unsigned int* total) {
    size_t f = 0, t = 0;
    if (!free_bytes || !total) return g_table.cuMemGetInfo_v2(nullptr, nullptr);
    CUresult r = g_table.cuMemGetInfo_v2(&f, &t);
    if (r) return r;
    *free_bytes = static_cast<unsigned>(std::min<size_t>(f, UINT_MAX));
    *total = static_cast<unsigned>(std::min<size_t>(t, UINT_MAX));
    return CUDA_SUCCESS;
}

CUresult cu_mem_alloc_v1(CUdeviceptr_v1* dptr, unsigned int bytes) {
    if (dptr) *dptr = 0;
    if (!dptr) return g_table.cuMemAlloc_v2(nullptr, bytes);
    CUdeviceptr p = 0;
    if (CUresult r = g_table.cuMemAlloc_v2(&p, bytes)) return r;
    if (p > UINT_MAX) {
        (void)g_table.cuMemFree_v2(p);
        log::debug("cpu backend: cuMemAlloc (32-bit): the allocation lies above 4 GiB, which a CUdeviceptr_v1 "
                   "cannot hold; use cuMemAlloc_v2");
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    *dptr = static_cast<CUdeviceptr_v1>(p);
    return CUDA_SUCCESS;
}

CUresult cu_mem_free_v1(CUdeviceptr_v1 dptr) { return g_table.cuMemFree_v2(dptr); }

CUresult cu_memcpy_htod_v1(CUdeviceptr_v1 dst, const void* src, unsigned int bytes) {
    return g_table.cuMemcpyHtoD_v2(dst, src, bytes);
}

CUresult cu_memcpy_dtoh_v1(void* dst, CUdeviceptr_v1 src, unsigned int bytes) {
    return g_table.cuMemcpyDtoH_v2(dst, src, bytes);
}

CUresult cu_memcpy_dtod_async_v1(CUdeviceptr_v1 dst, CUdeviceptr_v1 src, unsigned int bytes, CUstream stream) {
    return g_table.cuMemcpyDtoDAsync_v2(dst, src, bytes, stream);
}

// ---- Copies between arrays and linear memory --------------------------------------------

// A 1D copy of BYTES at byte OFFSET of an array's first row, as a 2D copy of one row.
CUDA_MEMCPY2D row_copy(size_t bytes) {
    CUDA_MEMCPY2D c{};
    c.WidthInBytes = bytes;
    c.Height = 1;
    return c;
}

CUresult cu_memcpy_dtoa(CUarray dst, size_t offset, CUdeviceptr src, size_t bytes) {
    CUDA_MEMCPY2D c = row_copy(bytes);
    c.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    c.srcDevice = src;
    c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    c.dstArray = dst;
    c.dstXInBytes = offset;
    return g_table.cuMemcpy2D_v2(&c);
}

CUresult cu_memcpy_atod(CUdeviceptr dst, CUarray src, size_t offset, size_t bytes) {
    CUDA_MEMCPY2D c = row_copy(bytes);
    c.srcMemoryType = CU_MEMORYTYPE_ARRAY;
    c.srcArray = src;
    c.srcXInBytes = offset;
    c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    c.dstDevice = dst;
    return g_table.cuMemcpy2D_v2(&c);
}

CUresult cu_memcpy_atoa(CUarray dst, size_t dst_offset, CUarray src, size_t src_offset, size_t bytes) {
    CUDA_MEMCPY2D c = row_copy(bytes);
    c.srcMemoryType = CU_MEMORYTYPE_ARRAY;
    c.srcArray = src;
    c.srcXInBytes = src_offset;
    c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    c.dstArray = dst;
    c.dstXInBytes = dst_offset;
    return g_table.cuMemcpy2D_v2(&c);
}

CUresult cu_memcpy_htoa_async(CUarray dst, size_t offset, const void* src, size_t bytes, CUstream stream) {
    CUDA_MEMCPY2D c = row_copy(bytes);
    c.srcMemoryType = CU_MEMORYTYPE_HOST;
    c.srcHost = src;
    c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    c.dstArray = dst;
    c.dstXInBytes = offset;
    return g_table.cuMemcpy2DAsync_v2(&c, stream);
}

CUresult cu_memcpy_atoh_async(void* dst, CUarray src, size_t offset, size_t bytes, CUstream stream) {
    CUDA_MEMCPY2D c = row_copy(bytes);
    c.srcMemoryType = CU_MEMORYTYPE_ARRAY;
    c.srcArray = src;
    c.srcXInBytes = offset;
    c.dstMemoryType = CU_MEMORYTYPE_HOST;
    c.dstHost = dst;
    return g_table.cuMemcpy2DAsync_v2(&c, stream);
}

} // namespace

void fill_legacy(ApiTable& t) {
    // Same ABI as the versioned entry: the same implementation.
    t.cuCtxCreate = t.cuCtxCreate_v2;
    t.cuCtxDestroy = t.cuCtxDestroy_v2;
    t.cuCtxPushCurrent = t.cuCtxPushCurrent_v2;
    t.cuCtxPopCurrent = t.cuCtxPopCurrent_v2;
    t.cuStreamDestroy = t.cuStreamDestroy_v2;
    t.cuEventDestroy = t.cuEventDestroy_v2;
    t.cuMemHostRegister = t.cuMemHostRegister_v2;
    g_table = t;
    t.cuCtxAttach = cu_ctx_attach;
    t.cuCtxDetach = cu_ctx_detach;
    t.cuCtxGetSharedMemConfig = cu_ctx_get_shared_mem_config;
    t.cuCtxSetSharedMemConfig = cu_ctx_set_shared_mem_config;
    t.cuMemGetInfo = cu_mem_get_info_v1;
    t.cuMemAlloc = cu_mem_alloc_v1;
    t.cuMemFree = cu_mem_free_v1;
    t.cuMemcpyHtoD = cu_memcpy_htod_v1;
    t.cuMemcpyDtoH = cu_memcpy_dtoh_v1;
    t.cuMemcpyDtoDAsync = cu_memcpy_dtod_async_v1;
    t.cuMemcpyDtoA_v2 = cu_memcpy_dtoa;
    t.cuMemcpyAtoD_v2 = cu_memcpy_atod;
    t.cuMemcpyAtoA_v2 = cu_memcpy_atoa;
    t.cuMemcpyHtoAAsync_v2 = cu_memcpy_htoa_async;
    t.cuMemcpyAtoHAsync_v2 = cu_memcpy_atoh_async;
}

} // namespace d4r::runtime::cpu
