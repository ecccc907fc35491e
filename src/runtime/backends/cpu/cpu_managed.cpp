// cpu backend: managed (unified) memory: cuMemAllocManaged, prefetch, advice, range attributes,
// cuStreamAttachMemAsync.
//
// Promise: managed memory is ptxsim device memory like cuMemAlloc's (RegionKind::Managed), which the host
// reaches at the same address; with one memory there is nothing to migrate, so host and kernels may use
// it concurrently (CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS = 1). Prefetches and stream attachments
// are ordered on their stream (a no-op queued there) and recorded; advice is recorded. Both are kept per
// allocation (not per page) and answered by cuMemRangeGetAttribute(s): a range spanning a part of an
// allocation reads the allocation's values. Arguments are validated as NVIDIA's driver documents.
#include <cstring>
#include <set>

#include "core/log.h"
#include "runtime/backends/cpu/cpu_memory_budget.h"
#include "runtime/backends/cpu/cpu_ops.h"
#include "runtime/refusal.h"

namespace d4r::runtime::cpu {

namespace {

constexpr int kDeviceCpu = -1;     // CU_DEVICE_CPU
constexpr int kDeviceInvalid = -2; // CU_DEVICE_INVALID

// What the application said about one managed allocation (by its region id).
struct Advice {
    bool read_mostly = false;
    int preferred = kDeviceInvalid;
    std::set<int> accessed_by;
    int last_prefetch = kDeviceInvalid;
};

struct Advices final : StatePart {
    static constexpr PartSlot kSlot = PartSlot::Managed;
    std::mutex mutex;
    std::map<uint64_t, Advice> advice; // region id -> advice
};

Advices& advices() { return state().part<Advices>(); }

// The managed allocation holding [P, P + COUNT).
CUresult managed_range(CUdeviceptr p, size_t count, Region& out) {
    if (count == 0 || !find_region(p, count, &out) || !is_managed(out)) {
        return refuse(CUDA_ERROR_INVALID_VALUE, "cpu backend: [0x{:x}, +{}) is not inside one managed allocation", p,
                      count);
    }
    return CUDA_SUCCESS;
}

// A CUmemLocation as the device number the v1 entry points use (0, CU_DEVICE_CPU), or an error.
CUresult location_device(const CUmemLocation& loc, int& out) {
    switch (static_cast<int>(loc.type)) {
    case CU_MEM_LOCATION_TYPE_DEVICE:
        D4R_CPU_REFUSE_IF(loc.id != 0, CUDA_ERROR_INVALID_DEVICE);
        out = 0;
        return CUDA_SUCCESS;
    case CU_MEM_LOCATION_TYPE_HOST:
    case CU_MEM_LOCATION_TYPE_HOST_NUMA:
    case CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT:
        out = kDeviceCpu;
        return CUDA_SUCCESS;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}

CUresult check_device_or_cpu(int dev) {
    return dev == 0 || dev == kDeviceCpu ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

CUresult cu_mem_alloc_managed(CUdeviceptr* dptr, size_t bytes, unsigned int flags) {
    if (dptr) *dptr = 0;
    StreamRef ref;
    if (CUresult r = current_stream(ref)) return r;
    if (!dptr || bytes == 0 || (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST)) {
        return refuse(CUDA_ERROR_INVALID_VALUE,
                      "cpu backend: cuMemAllocManaged({} bytes, flags 0x{:x}): invalid (flags must be "
                      "CU_MEM_ATTACH_GLOBAL or CU_MEM_ATTACH_HOST)",
                      bytes, flags);
    }
    uint64_t ptr = 0;
    if (CUresult r = budget_alloc(bytes, "cuMemAllocManaged", ptr)) return r;
    add_region(Region{ptr, bytes, RegionKind::Managed, ref.ctx.get(), flags, 0});
    *dptr = ptr;
    return CUDA_SUCCESS;
}

CUresult prefetch(CUdeviceptr p, size_t count, int device, CUstream stream) {
    if (CUresult r = check_init()) return r;
    StreamRef ref;
    if (CUresult r = resolve_stream(stream, ref)) return r;
    Region region;
    if (CUresult r = managed_range(p, count, region)) return r;
    if (CUresult r = check_device_or_cpu(device)) return r;
    {
        std::lock_guard lock(advices().mutex);
        advices().advice[region.id].last_prefetch = device;
    }
    ref.ctx->submit(ref.stream, [](CUresult) {}); // ordered like the migration it stands for
    return CUDA_SUCCESS;
}

CUresult cu_mem_prefetch_async(CUdeviceptr p, size_t count, CUdevice device, CUstream stream) {
    return prefetch(p, count, device, stream);
}

CUresult cu_mem_prefetch_async_v2(CUdeviceptr p, size_t count, CUmemLocation location, unsigned int flags,
                                  CUstream stream) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(flags != 0, CUDA_ERROR_INVALID_VALUE);
    int device = 0;
    if (CUresult r = location_device(location, device)) return r;
    return prefetch(p, count, device, stream);
}

CUresult advise(CUdeviceptr p, size_t count, CUmem_advise advice, int device) {
    if (CUresult r = check_init()) return r;
    Region region;
    if (CUresult r = managed_range(p, count, region)) return r;
    int a = static_cast<int>(advice);
    D4R_CPU_REFUSE_IF(a < CU_MEM_ADVISE_SET_READ_MOSTLY || a > CU_MEM_ADVISE_UNSET_ACCESSED_BY,
                      CUDA_ERROR_INVALID_VALUE);
    if (a != CU_MEM_ADVISE_SET_READ_MOSTLY && a != CU_MEM_ADVISE_UNSET_READ_MOSTLY)
        if (CUresult r = check_device_or_cpu(device)) return r;
    std::lock_guard lock(advices().mutex);
    Advice& entry = advices().advice[region.id];
    switch (a) {
    case CU_MEM_ADVISE_SET_READ_MOSTLY:
        entry.read_mostly = true;
        break;
    case CU_MEM_ADVISE_UNSET_READ_MOSTLY:
        entry.read_mostly = false;
        break;
    case CU_MEM_ADVISE_SET_PREFERRED_LOCATION:
        entry.preferred = device;
        break;
    case CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION:
        entry.preferred = kDeviceInvalid;
        break;
    case CU_MEM_ADVISE_SET_ACCESSED_BY:
        entry.accessed_by.insert(device);
        break;
    case CU_MEM_ADVISE_UNSET_ACCESSED_BY:
        entry.accessed_by.erase(device);
        break;
    }
    return CUDA_SUCCESS;
}

CUresult cu_mem_advise(CUdeviceptr p, size_t count, CUmem_advise advice, CUdevice device) {
    return advise(p, count, advice, device);
}

CUresult cu_mem_advise_v2(CUdeviceptr p, size_t count, CUmem_advise advice, CUmemLocation location) {
    if (CUresult r = check_init()) return r;
    int device = 0;
    int a = static_cast<int>(advice);
    if (a != CU_MEM_ADVISE_SET_READ_MOSTLY && a != CU_MEM_ADVISE_UNSET_READ_MOSTLY)
        if (CUresult r = location_device(location, device)) return r;
    return advise(p, count, advice, device);
}

void put_int(void* data, int v) { std::memcpy(data, &v, sizeof v); }

// CU_MEM_RANGE_ATTRIBUTE_*_TYPE / _ID of a device number.
int location_type(int device) {
    return device == kDeviceInvalid ? CU_MEM_LOCATION_TYPE_INVALID
           : device == kDeviceCpu   ? CU_MEM_LOCATION_TYPE_HOST
                                    : CU_MEM_LOCATION_TYPE_DEVICE;
}

CUresult range_attribute(void* data, size_t size, CUmem_range_attribute attr, CUdeviceptr p, size_t count) {
    D4R_CPU_REFUSE_IF(!data || size == 0, CUDA_ERROR_INVALID_VALUE);
    Region region;
    if (CUresult r = managed_range(p, count, region)) return r;
    Advice a;
    {
        std::lock_guard lock(advices().mutex);
        if (auto it = advices().advice.find(region.id); it != advices().advice.end()) a = it->second;
    }
    int kind = static_cast<int>(attr);
    if (kind == CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY) {
        D4R_CPU_REFUSE_IF(size % 4, CUDA_ERROR_INVALID_VALUE);
        size_t n = size / 4, i = 0;
        for (int dev : a.accessed_by)
            if (i < n) put_int(static_cast<char*>(data) + 4 * i++, dev);
        for (; i < n; ++i) put_int(static_cast<char*>(data) + 4 * i, kDeviceInvalid);
        return CUDA_SUCCESS;
    }
    D4R_CPU_REFUSE_IF(size != 4, CUDA_ERROR_INVALID_VALUE);
    switch (kind) {
    case CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY:
        put_int(data, a.read_mostly ? 1 : 0);
        return CUDA_SUCCESS;
    case CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION:
        put_int(data, a.preferred);
        return CUDA_SUCCESS;
    case CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION:
        put_int(data, a.last_prefetch);
        return CUDA_SUCCESS;
    case CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE:
        put_int(data, location_type(a.preferred));
        return CUDA_SUCCESS;
    case CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID:
        put_int(data, a.preferred == 0 ? 0 : -1);
        return CUDA_SUCCESS;
    case CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE:
        put_int(data, location_type(a.last_prefetch));
        return CUDA_SUCCESS;
    case CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID:
        put_int(data, a.last_prefetch == 0 ? 0 : -1);
        return CUDA_SUCCESS;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}

CUresult cu_mem_range_get_attribute(void* data, size_t size, CUmem_range_attribute attr, CUdeviceptr p, size_t count) {
    if (CUresult r = check_init()) return r;
    return range_attribute(data, size, attr, p, count);
}

CUresult cu_mem_range_get_attributes(void** data, size_t* sizes, CUmem_range_attribute* attrs, size_t n, CUdeviceptr p,
                                     size_t count) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!data || !sizes || !attrs || n == 0, CUDA_ERROR_INVALID_VALUE);
    for (size_t i = 0; i < n; ++i)
        if (CUresult r = range_attribute(data[i], sizes[i], attrs[i], p, count)) return r;
    return CUDA_SUCCESS;
}

CUresult cu_stream_attach_mem_async(CUstream stream, CUdeviceptr p, size_t length, unsigned int flags) {
    if (CUresult r = check_init()) return r;
    StreamRef ref;
    if (CUresult r = resolve_stream(stream, ref)) return r;
    if (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST && flags != CU_MEM_ATTACH_SINGLE)
        return CUDA_ERROR_INVALID_VALUE;
    Region region;
    if (!find_region(p, 0, &region) || region.kind != RegionKind::Managed || region.base != p ||
        (length != 0 && length != region.size)) {
        return refuse(CUDA_ERROR_INVALID_VALUE,
                      "cpu backend: cuStreamAttachMemAsync: [0x{:x}, +{}) is not a whole managed allocation", p,
                      length);
    }
    // One memory: the attachment only orders; it is queued so that it takes effect in stream order.
    ref.ctx->submit(ref.stream, [](CUresult) {});
    return CUDA_SUCCESS;
}

} // namespace

void forget_managed(uint64_t region_id) {
    std::lock_guard lock(advices().mutex);
    advices().advice.erase(region_id);
}

void fill_managed(ApiTable& t) {
    t.cuMemAllocManaged = cu_mem_alloc_managed;
    t.cuMemPrefetchAsync = cu_mem_prefetch_async;
    t.cuMemPrefetchAsync_v2 = cu_mem_prefetch_async_v2;
    t.cuMemAdvise = cu_mem_advise;
    t.cuMemAdvise_v2 = cu_mem_advise_v2;
    t.cuMemRangeGetAttribute = cu_mem_range_get_attribute;
    t.cuMemRangeGetAttributes = cu_mem_range_get_attributes;
    t.cuStreamAttachMemAsync = cu_stream_attach_mem_async;
}

} // namespace d4r::runtime::cpu
