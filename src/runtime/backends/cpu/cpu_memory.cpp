// cpu backend: device and host allocations, memset, pointer attributes. Device memory is ptxsim::Device
// memory: a device pointer is a host address, so the host reaches it directly and kernels reach it
// through ptxsim's bounds-checked accesses.
#include <unistd.h>

#include <cstring>

#include "core/log.h"
#include "runtime/backends/cpu/cpu_host_memory.h"
#include "runtime/backends/cpu/cpu_memory_budget.h"
#include "runtime/backends/cpu/cpu_ops.h"
#include "runtime/refusal.h"

namespace d4r::runtime::cpu {

namespace {

// cuMemAllocPitch's row alignment. NVIDIA's driver pads pitched rows to 512 bytes on sm_70 and later
// GPUs (cudaMallocPitch of 100 bytes gives a pitch of 512 there), so programs that assume it keep
// working; CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT (32) is only the minimum for textures.
constexpr uint64_t kPitchAlignment = 512;

// Within the memory budget (cpu_memory_budget.h): memory the process cannot hold is OUT_OF_MEMORY, not an
// OOM kill while it is zero-filled.
CUresult allocate(Context* ctx, uint64_t bytes, RegionKind kind, unsigned flags, CUdeviceptr* out) {
    uint64_t ptr = 0;
    if (CUresult r = budget_alloc(bytes, kind == RegionKind::HostAlloc ? "cuMemHostAlloc" : "cuMemAlloc", ptr))
        return r;
    add_region(Region{ptr, bytes, kind, ctx, flags, 0});
    *out = ptr;
    return CUDA_SUCCESS;
}

// The memory budget: free is what an allocation may still take, total the budget's whole.
CUresult cu_mem_get_info(size_t* free_bytes, size_t* total) {
    StreamRef ref;
    if (CUresult r = current_stream(ref)) return r;
    D4R_CPU_REFUSE_IF(!free_bytes || !total, CUDA_ERROR_INVALID_VALUE);
    const MemoryBudget b = memory_budget();
    *total = b.total;
    *free_bytes = b.free;
    return CUDA_SUCCESS;
}

CUresult cu_mem_alloc(CUdeviceptr* dptr, size_t bytes) {
    StreamRef ref;
    if (CUresult r = current_stream(ref)) return r;
    D4R_CPU_REFUSE_IF(!dptr || bytes == 0, CUDA_ERROR_INVALID_VALUE);
    return allocate(ref.ctx.get(), bytes, RegionKind::Device, 0, dptr);
}

CUresult cu_mem_alloc_pitch(CUdeviceptr* dptr, size_t* pitch, size_t width, size_t height, unsigned int element) {
    StreamRef ref;
    if (CUresult r = current_stream(ref)) return r;
    D4R_CPU_REFUSE_IF(!dptr || !pitch || width == 0 || height == 0, CUDA_ERROR_INVALID_VALUE);
    D4R_CPU_REFUSE_IF(element != 4 && element != 8 && element != 16, CUDA_ERROR_INVALID_VALUE);
    D4R_CPU_REFUSE_IF(width > (1ull << 31), CUDA_ERROR_INVALID_VALUE);
    uint64_t p = (width + kPitchAlignment - 1) / kPitchAlignment * kPitchAlignment;
    D4R_CPU_REFUSE_IF(height > (1ull << 40) / p, CUDA_ERROR_OUT_OF_MEMORY);
    if (CUresult r = allocate(ref.ctx.get(), p * height, RegionKind::Device, 0, dptr)) return r;
    *pitch = p;
    return CUDA_SUCCESS;
}

// Frees the allocation at BASE of KIND after the work queued on its context has finished with it.
CUresult free_region(uint64_t base, RegionKind kind) {
    Region r;
    D4R_CPU_REFUSE_IF(!find_region(base, 0, &r) || r.base != base || r.kind != kind, CUDA_ERROR_INVALID_VALUE);
    if (auto ctx = find_context(reinterpret_cast<CUcontext>(r.ctx))) ctx->drain();
    if (!remove_region(base)) return CUDA_ERROR_INVALID_VALUE; // freed by another thread meanwhile
    if (kind == RegionKind::Managed) forget_managed(r.id);
    (void)state().device.free(base);
    return CUDA_SUCCESS;
}

CUresult cu_mem_free(CUdeviceptr dptr) {
    if (CUresult r = check_init()) return r;
    std::shared_ptr<Context> ctx;
    if (CUresult r = current_context(ctx)) return r;
    Region r;
    if (is_external_buffer(dptr)) return free_external_buffer(dptr);
    bool managed = find_region(dptr, 0, &r) && r.base == dptr && r.kind == RegionKind::Managed;
    return free_region(dptr, managed ? RegionKind::Managed : RegionKind::Device);
}

CUresult cu_mem_get_address_range(CUdeviceptr* base, size_t* size, CUdeviceptr dptr) {
    StreamRef ref;
    if (CUresult r = current_stream(ref)) return r;
    Region r;
    // Registered host memory answers with its registered range, as NVIDIA's driver does (measured on an H100 with
    // tests/device/registered_memory_probe.cu: aligned_alloc and mmap memory, whole or from an offset).
    if (!find_region(dptr, 0, &r) || r.kind == RegionKind::Array) return CUDA_ERROR_NOT_FOUND;
    if (base) *base = r.base;
    if (size) *size = r.size;
    return CUDA_SUCCESS;
}

constexpr unsigned kHostAllocFlags =
    CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_WRITECOMBINED;

CUresult cu_mem_host_alloc(void** pp, size_t bytes, unsigned int flags) {
    StreamRef ref;
    if (CUresult r = current_stream(ref)) return r;
    D4R_CPU_REFUSE_IF(!pp || (flags & ~kHostAllocFlags), CUDA_ERROR_INVALID_VALUE);
    if (bytes == 0) {
        // NVIDIA's driver accepts an empty host allocation (cuMemAllocHost of 0 bytes succeeds); there is
        // nothing to hand out, so the pointer is NULL.
        log::debug("cpu backend: cuMemHostAlloc of 0 bytes: SUCCESS with a NULL pointer");
        *pp = nullptr;
        return CUDA_SUCCESS;
    }
    // Page-locked host memory that is also device memory: kernels can use the same address (what
    // CU_MEMHOSTALLOC_DEVICEMAP gives on a GPU with unified addressing).
    CUdeviceptr p = 0;
    if (CUresult r = allocate(ref.ctx.get(), bytes, RegionKind::HostAlloc, flags, &p)) return r;
    *pp = reinterpret_cast<void*>(p);
    return CUDA_SUCCESS;
}

CUresult cu_mem_alloc_host(void** pp, size_t bytes) { return cu_mem_host_alloc(pp, bytes, 0); }

CUresult cu_mem_free_host(void* p) {
    if (CUresult r = check_init()) return r;
    std::shared_ptr<Context> ctx;
    if (CUresult r = current_context(ctx)) return r;
    return free_region(reinterpret_cast<uint64_t>(p), RegionKind::HostAlloc);
}

CUresult cu_mem_host_get_device_pointer(CUdeviceptr* pdptr, void* p, unsigned int flags) {
    if (pdptr) *pdptr = 0;
    StreamRef ref;
    if (CUresult r = current_stream(ref)) return r;
    D4R_CPU_REFUSE_IF(!pdptr || !p || flags != 0, CUDA_ERROR_INVALID_VALUE);
    Region r;
    if (!find_region(reinterpret_cast<uint64_t>(p), 0, &r) ||
        (r.kind != RegionKind::HostAlloc && r.kind != RegionKind::HostRegistered)) {
        log::debug("cpu backend: cuMemHostGetDevicePointer: {} is not page-locked host memory", p);
        return CUDA_ERROR_INVALID_VALUE;
    }
    // Device memory is host memory here: every page-locked range is mapped at its own address (as on a
    // GPU with CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM).
    *pdptr = reinterpret_cast<CUdeviceptr>(p);
    return CUDA_SUCCESS;
}

CUresult cu_mem_host_get_flags(unsigned int* pflags, void* p) {
    if (pflags) *pflags = 0;
    StreamRef ref;
    if (CUresult r = current_stream(ref)) return r;
    D4R_CPU_REFUSE_IF(!pflags || !p, CUDA_ERROR_INVALID_VALUE);
    Region r;
    if (!find_region(reinterpret_cast<uint64_t>(p), 0, &r) ||
        (r.kind != RegionKind::HostAlloc && r.kind != RegionKind::HostRegistered)) {
        log::debug("cpu backend: cuMemHostGetFlags: {} is not page-locked host memory", p);
        return CUDA_ERROR_INVALID_VALUE;
    }
    *pflags = r.flags;
    return CUDA_SUCCESS;
}

bool overlaps_region(uint64_t p, uint64_t bytes) {
    if (find_region(p, 0)) return true;
    State& s = state();
    std::shared_lock lock(s.regions_mutex);
    auto it = s.regions.upper_bound(p);
    return it != s.regions.end() && it->first < p + bytes;
}

constexpr unsigned kRegisterFlags = CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP |
                                    CU_MEMHOSTREGISTER_IOMEMORY | CU_MEMHOSTREGISTER_READ_ONLY;

CUresult cu_mem_host_register(void* p, size_t bytes, unsigned int flags) {
    StreamRef ref;
    if (CUresult r = current_stream(ref)) return r;
    if (!p || bytes == 0 || (flags & ~kRegisterFlags)) {
        log::debug("cpu backend: cuMemHostRegister({}, {}, 0x{:x}): null pointer, empty range or unknown flag", p,
                   bytes, flags);
        return CUDA_ERROR_INVALID_VALUE;
    }
    uint64_t base = reinterpret_cast<uint64_t>(p);
    D4R_CPU_REFUSE_IF(base + bytes < base, CUDA_ERROR_INVALID_VALUE);
    if (flags & CU_MEMHOSTREGISTER_IOMEMORY) {
        // I/O memory is a third-party device's PCIe space; the cpu backend has no such space to map.
        log::debug("cpu backend: cuMemHostRegister: CU_MEMHOSTREGISTER_IOMEMORY is not supported (no I/O memory "
                   "space reaches the CPU device)");
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    // Only real memory: kernels and copies will read (and unless READ_ONLY, write) it. NVIDIA's driver refuses
    // to pin what is not mapped; a no-access page or read-only memory here crashed the next memset.
    D4R_CU_INVALID_IF(!host_readable(base, bytes), CUDA_ERROR_INVALID_VALUE,
                      "cpu backend: cuMemHostRegister: [{}, +{}) is not readable memory", p, bytes);
    D4R_CU_INVALID_IF(!(flags & CU_MEMHOSTREGISTER_READ_ONLY) && !host_mapped_writable(base, bytes),
                      CUDA_ERROR_INVALID_VALUE,
                      "cpu backend: cuMemHostRegister: [{}, +{}) is not writable memory (and not registered "
                      "CU_MEMHOSTREGISTER_READ_ONLY)",
                      p, bytes);
    if (overlaps_region(base, bytes)) {
        log::debug("cpu backend: cuMemHostRegister: [{}, +{}) overlaps memory the API already tracks", p, bytes);
        return CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
    }
    // Registered memory is mapped at its own address (DEVICEMAP or not: with unified addressing every
    // page-locked range is), so kernels reach it like device memory.
    add_region(Region{base, bytes, RegionKind::HostRegistered, ref.ctx.get(), flags, 0});
    expose_to_kernels(base, bytes);
    return CUDA_SUCCESS;
}

CUresult cu_mem_host_unregister(void* p) {
    StreamRef ref;
    if (CUresult r = current_stream(ref)) return r;
    D4R_CPU_REFUSE_IF(!p, CUDA_ERROR_INVALID_VALUE);
    Region r;
    uint64_t base = reinterpret_cast<uint64_t>(p);
    if (!find_region(base, 0, &r) || r.base != base || r.kind != RegionKind::HostRegistered) {
        log::debug("cpu backend: cuMemHostUnregister: {} is not the start of a registered range", p);
        return CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
    }
    ref.ctx->drain(); // queued async copies and kernels may still use it
    if (remove_region(base)) hide_from_kernels(base);
    return CUDA_SUCCESS;
}

// ---- memset ------------------------------------------------------------------------------------------

template <typename T>
CUresult memset_2d(CUstream stream, bool async, CUdeviceptr dst, size_t pitch, T value, size_t width, size_t height) {
    StreamRef ref;
    if (async) {
        if (CUresult r = check_init()) return r;
        if (CUresult r = resolve_stream(stream, ref)) return r;
    } else if (CUresult r = current_stream(ref)) {
        return r;
    }
    if (width == 0 || height == 0) return CUDA_SUCCESS;
    D4R_CPU_REFUSE_IF(dst % sizeof(T), CUDA_ERROR_INVALID_VALUE);
    D4R_CPU_REFUSE_IF(height > 1 && (pitch < width * sizeof(T) || pitch % sizeof(T)), CUDA_ERROR_INVALID_VALUE);
    // The rows' extent, refused where it would wrap past 2^64 (a huge pitch) or exceed any allocation.
    uint64_t extent = 0;
    if (width > (1ull << 40) || height > (1ull << 40) ||
        __builtin_mul_overflow(uint64_t(height - 1), uint64_t(pitch), &extent) ||
        __builtin_add_overflow(extent, uint64_t(width) * sizeof(T), &extent) || extent > (1ull << 48)) {
        log::debug("cpu backend: cuMemsetD2D: refused: {} rows of pitch {} ({} elements wide) exceed any allocation",
                   height, pitch, width);
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (CUresult r = check_range(dst, extent)) return r;
    return run_memory_op(ref, async, [=]() -> CUresult {
        if (CUresult r = check_range(dst, extent)) return r;
        for (size_t y = 0; y < height; ++y) {
            T* row = reinterpret_cast<T*>(dst + y * pitch);
            if constexpr (sizeof(T) == 1)
                std::memset(row, value, width);
            else
                std::fill(row, row + width, value);
        }
        return CUDA_SUCCESS;
    });
}

CUresult cu_memset_d8(CUdeviceptr d, unsigned char v, size_t n) {
    return memset_2d<uint8_t>(nullptr, false, d, n, v, n, 1);
}
CUresult cu_memset_d16(CUdeviceptr d, unsigned short v, size_t n) {
    return memset_2d<uint16_t>(nullptr, false, d, 2 * n, v, n, 1);
}
CUresult cu_memset_d32(CUdeviceptr d, unsigned int v, size_t n) {
    return memset_2d<uint32_t>(nullptr, false, d, 4 * n, v, n, 1);
}
CUresult cu_memset_d8_async(CUdeviceptr d, unsigned char v, size_t n, CUstream s) {
    return memset_2d<uint8_t>(s, true, d, n, v, n, 1);
}
CUresult cu_memset_d16_async(CUdeviceptr d, unsigned short v, size_t n, CUstream s) {
    return memset_2d<uint16_t>(s, true, d, 2 * n, v, n, 1);
}
CUresult cu_memset_d32_async(CUdeviceptr d, unsigned int v, size_t n, CUstream s) {
    return memset_2d<uint32_t>(s, true, d, 4 * n, v, n, 1);
}
CUresult cu_memset_d2d8(CUdeviceptr d, size_t pitch, unsigned char v, size_t w, size_t h) {
    return memset_2d<uint8_t>(nullptr, false, d, pitch, v, w, h);
}
CUresult cu_memset_d2d16(CUdeviceptr d, size_t pitch, unsigned short v, size_t w, size_t h) {
    return memset_2d<uint16_t>(nullptr, false, d, pitch, v, w, h);
}
CUresult cu_memset_d2d32(CUdeviceptr d, size_t pitch, unsigned int v, size_t w, size_t h) {
    return memset_2d<uint32_t>(nullptr, false, d, pitch, v, w, h);
}
CUresult cu_memset_d2d8_async(CUdeviceptr d, size_t pitch, unsigned char v, size_t w, size_t h, CUstream s) {
    return memset_2d<uint8_t>(s, true, d, pitch, v, w, h);
}
CUresult cu_memset_d2d16_async(CUdeviceptr d, size_t pitch, unsigned short v, size_t w, size_t h, CUstream s) {
    return memset_2d<uint16_t>(s, true, d, pitch, v, w, h);
}
CUresult cu_memset_d2d32_async(CUdeviceptr d, size_t pitch, unsigned int v, size_t w, size_t h, CUstream s) {
    return memset_2d<uint32_t>(s, true, d, pitch, v, w, h);
}

// ---- pointer attributes --------------------------------------------------------------------------------

// Bytes of the value each attribute writes (0: unknown attribute).
size_t attribute_bytes(int attr) {
    switch (attr) {
    case 1:
        return sizeof(CUcontext);
    case 2:
        return sizeof(unsigned int);
    case 3:
        return sizeof(CUdeviceptr);
    case 4:
        return sizeof(void*);
    case 6:
    case 8:
    case 10:
    case 13:
    case 15:
        return sizeof(bool);
    case 7:
    case 14:
    case 20:
        return sizeof(unsigned long long);
    case 9:
        return sizeof(int);
    case 11:
    case 19:
        return sizeof(CUdeviceptr);
    case 12:
    case 18:
        return sizeof(size_t);
    case 16:
        return sizeof(unsigned int);
    case 17:
        return sizeof(void*);
    default:
        return 0;
    }
}

template <typename T>
void put(void* data, T value) {
    // T may be a pointer type: its value is what is written.
    std::memcpy(data, &value, sizeof(T)); // NOLINT(bugprone-sizeof-expression)
}

CUresult pointer_attribute(void* data, int attr, const Region& r, uint64_t ptr) {
    bool host = r.kind == RegionKind::HostAlloc || r.kind == RegionKind::HostRegistered;
    bool managed = is_managed(r);
    switch (attr) {
    case 1:
        put(data, reinterpret_cast<CUcontext>(r.ctx));
        return CUDA_SUCCESS;
    case 2:
        put(data, static_cast<unsigned>(host ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE));
        return CUDA_SUCCESS;
    case 3:
        put(data, CUdeviceptr(ptr));
        return CUDA_SUCCESS;
    case 4:
        D4R_CPU_REFUSE_IF(!host && !managed, CUDA_ERROR_INVALID_VALUE);
        put(data, reinterpret_cast<void*>(ptr));
        return CUDA_SUCCESS;
    case 8:
        put(data, managed);
        return CUDA_SUCCESS;
    case 6:
    case 10:
    case 15:
        put(data, false);
        return CUDA_SUCCESS;
    case 13:
        put(data, true);
        return CUDA_SUCCESS;
    case 7:
    case 20:
        put(data, static_cast<unsigned long long>(r.id));
        return CUDA_SUCCESS;
    case 9:
        put(data, 0);
        return CUDA_SUCCESS;
    case 11:
    case 19:
        put(data, CUdeviceptr(r.base));
        return CUDA_SUCCESS;
    case 12:
    case 18:
        put(data, size_t(r.size));
        return CUDA_SUCCESS;
    case 14:
        put(data, 0ull);
        return CUDA_SUCCESS;
    case 16:
        put(data, 3u);
        return CUDA_SUCCESS; // CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READWRITE
    case 17:
        put(data, static_cast<void*>(nullptr));
        return CUDA_SUCCESS;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}

CUresult cu_pointer_get_attribute(void* data, CUpointer_attribute attr, CUdeviceptr ptr) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!data || attribute_bytes(attr) == 0, CUDA_ERROR_INVALID_VALUE);
    Region r;
    D4R_CPU_REFUSE_IF(!find_region(ptr, 0, &r) || r.kind == RegionKind::Array, CUDA_ERROR_INVALID_VALUE);
    return pointer_attribute(data, attr, r, ptr);
}

CUresult cu_pointer_get_attributes(unsigned int n, CUpointer_attribute* attrs, void** data, CUdeviceptr ptr) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(n == 0 || !attrs || !data, CUDA_ERROR_INVALID_VALUE);
    for (unsigned i = 0; i < n; ++i)
        D4R_CPU_REFUSE_IF(!data[i] || attribute_bytes(attrs[i]) == 0, CUDA_ERROR_INVALID_VALUE);
    Region r;
    bool known = find_region(ptr, 0, &r) && r.kind != RegionKind::Array;
    // As the driver does: a pointer the API does not know reads as "no context, memory type 0"; an
    // attribute that does not apply to the memory reads as zero.
    for (unsigned i = 0; i < n; ++i) {
        std::memset(data[i], 0, attribute_bytes(attrs[i]));
        if (known) (void)pointer_attribute(data[i], attrs[i], r, ptr);
    }
    return CUDA_SUCCESS;
}

} // namespace

void fill_memory(ApiTable& t) {
    t.cuMemGetInfo_v2 = cu_mem_get_info;
    t.cuMemAlloc_v2 = cu_mem_alloc;
    t.cuMemAllocPitch_v2 = cu_mem_alloc_pitch;
    t.cuMemFree_v2 = cu_mem_free;
    t.cuMemGetAddressRange_v2 = cu_mem_get_address_range;
    t.cuMemAllocHost_v2 = cu_mem_alloc_host;
    t.cuMemFreeHost = cu_mem_free_host;
    t.cuMemHostAlloc = cu_mem_host_alloc;
    t.cuMemHostGetDevicePointer_v2 = cu_mem_host_get_device_pointer;
    t.cuMemHostRegister_v2 = cu_mem_host_register;
    t.cuMemHostUnregister = cu_mem_host_unregister;
    t.cuMemHostGetFlags = cu_mem_host_get_flags;
    t.cuMemsetD8_v2 = cu_memset_d8;
    t.cuMemsetD16_v2 = cu_memset_d16;
    t.cuMemsetD32_v2 = cu_memset_d32;
    t.cuMemsetD8Async = cu_memset_d8_async;
    t.cuMemsetD16Async = cu_memset_d16_async;
    t.cuMemsetD32Async = cu_memset_d32_async;
    t.cuMemsetD2D8Async = cu_memset_d2d8_async;
    t.cuMemsetD2D16Async = cu_memset_d2d16_async;
    t.cuMemsetD2D32Async = cu_memset_d2d32_async;
    t.cuMemsetD2D8_v2 = cu_memset_d2d8;
    t.cuMemsetD2D16_v2 = cu_memset_d2d16;
    t.cuMemsetD2D32_v2 = cu_memset_d2d32;
    t.cuPointerGetAttribute = cu_pointer_get_attribute;
    t.cuPointerGetAttributes = cu_pointer_get_attributes;
}

} // namespace d4r::runtime::cpu
