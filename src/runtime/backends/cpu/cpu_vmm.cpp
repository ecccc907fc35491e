// cpu backend: virtual memory management (cuMemCreate, cuMemAddressReserve, cuMemMap, cuMemSetAccess ...).
//
// Promise: a physical allocation (cuMemCreate) is a memfd of its size; a reservation
// (cuMemAddressReserve) is an mmap(PROT_NONE) of address space; cuMemMap maps a piece of an allocation
// MAP_SHARED | MAP_FIXED into a reservation, still inaccessible; cuMemSetAccess makes it readable and
// writable, which also makes it device memory for the API (a RegionKind::Mapped region: copies, memset,
// pointer attributes) and for kernels (expose_to_kernels). Two mappings of one allocation therefore
// share their bytes. cuMemUnmap puts PROT_NONE address space back; the allocation's memory is returned
// when it is neither mapped nor held by a handle. Handles can be exported as POSIX file descriptors
// (a dup of the memfd) and imported back. Every call validates its arguments and answers with the
// CUresult NVIDIA's driver documents; nothing here can fault on bad input.
//
// Compression (CU_MEM_ALLOCATION_COMP_GENERIC) is granted, as on the H200, and kept in the allocation's
// properties: it changes how a GPU stores bytes, never their values, so on the CPU it changes nothing else.
// Not modelled: read-only access (CU_MEM_ACCESS_FLAGS_PROT_READ maps read-write: a kernel or copy
// writing there is not trapped), Win32 and fabric handles (CUDA_ERROR_NOT_SUPPORTED). Copies, memsets and kernels may
// cross from one accessible piece to the next when they are mapped back to back (check_range's mapped_span).
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/log.h"
#include "runtime/backends/cpu/cpu_ops.h"
#include "runtime/refusal.h"

namespace d4r::runtime::cpu {

namespace {

constexpr uint64_t kRecommendedGranularity = 2ull << 20; // what NVIDIA's driver reports for device memory

uint64_t page_size() {
    static const uint64_t page = [] {
        long p = sysconf(_SC_PAGE_SIZE);
        return p > 0 ? uint64_t(p) : uint64_t(4096);
    }();
    return page;
}

struct Allocation {
    ~Allocation() {
        if (fd >= 0) ::close(fd);
    }
    int fd = -1;
    uint64_t size = 0;
    CUmemAllocationProp prop{};
    CUmemGenericAllocationHandle handle = 0;
};

struct Mapping {
    uint64_t base = 0;
    uint64_t size = 0;
    uint64_t offset = 0;
    std::shared_ptr<Allocation> allocation;
    unsigned long long access = CU_MEM_ACCESS_FLAGS_PROT_NONE;
};

struct Reservation {
    uint64_t base = 0;
    uint64_t size = 0;
};

struct Vmm final : StatePart {
    static constexpr PartSlot kSlot = PartSlot::Vmm;
    std::mutex mutex;
    // Live handles: each cuMemCreate / import / retain adds one reference, cuMemRelease drops one.
    std::map<CUmemGenericAllocationHandle, std::pair<std::shared_ptr<Allocation>, int>> handles;
    std::map<uint64_t, Reservation> reservations; // by base
    std::map<uint64_t, Mapping> mappings;         // by base
    CUmemGenericAllocationHandle next_handle = 0x1000;
};

Vmm& vmm() { return state().part<Vmm>(); }

// The reservation holding [P, P + SIZE), or null. Caller holds Vmm::mutex.
const Reservation* reservation_of(Vmm& v, uint64_t p, uint64_t size) {
    auto it = v.reservations.upper_bound(p);
    if (it == v.reservations.begin()) return nullptr;
    --it;
    const Reservation& r = it->second;
    if (p < r.base || size > r.size || p - r.base > r.size - size) return nullptr;
    return &r;
}

// The mappings that exactly tile [P, P + SIZE) (empty when the range is not made of whole mappings).
std::vector<Mapping*> mappings_tiling(Vmm& v, uint64_t p, uint64_t size) {
    std::vector<Mapping*> out;
    uint64_t at = p, end = p + size;
    while (at < end) {
        auto it = v.mappings.find(at);
        if (it == v.mappings.end()) return {};
        out.push_back(&it->second);
        at += it->second.size;
    }
    if (at != end) return {};
    return out;
}

const Mapping* mapping_at(Vmm& v, uint64_t p) {
    auto it = v.mappings.upper_bound(p);
    if (it == v.mappings.begin()) return nullptr;
    --it;
    return p - it->second.base < it->second.size ? &it->second : nullptr;
}

bool device_location(const CUmemLocation& loc) { return loc.type == CU_MEM_LOCATION_TYPE_DEVICE && loc.id == 0; }

CUresult check_prop(const CUmemAllocationProp* prop) {
    D4R_CPU_REFUSE_IF(!prop, CUDA_ERROR_INVALID_VALUE);
    if (prop->type != CU_MEM_ALLOCATION_TYPE_PINNED) {
        return refuse(CUDA_ERROR_INVALID_VALUE,
                      "cpu backend: VMM: allocation type {} (only CU_MEM_ALLOCATION_TYPE_PINNED is supported)",
                      static_cast<int>(prop->type));
    }
    if (prop->location.type != CU_MEM_LOCATION_TYPE_DEVICE) {
        return refuse(CUDA_ERROR_INVALID_VALUE,
                      "cpu backend: VMM: location type {} (only CU_MEM_LOCATION_TYPE_DEVICE is supported)",
                      static_cast<int>(prop->location.type));
    }
    D4R_CPU_REFUSE_IF(prop->location.id != 0, CUDA_ERROR_INVALID_DEVICE);
    if (prop->allocFlags.compressionType != CU_MEM_ALLOCATION_COMP_NONE &&
        prop->allocFlags.compressionType != CU_MEM_ALLOCATION_COMP_GENERIC) {
        return refuse(CUDA_ERROR_INVALID_VALUE, "cpu backend: VMM: compression type {} (none or generic)",
                      static_cast<int>(prop->allocFlags.compressionType));
    }
    return CUDA_SUCCESS;
}

CUresult cu_mem_get_allocation_granularity(size_t* granularity, const CUmemAllocationProp* prop,
                                           CUmemAllocationGranularity_flags option) {
    if (granularity) *granularity = 0;
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!granularity, CUDA_ERROR_INVALID_VALUE);
    if (CUresult r = check_prop(prop)) return r;
    if (option == CU_MEM_ALLOC_GRANULARITY_MINIMUM)
        *granularity = page_size();
    else if (option == CU_MEM_ALLOC_GRANULARITY_RECOMMENDED)
        *granularity = std::max(page_size(), kRecommendedGranularity);
    else
        return CUDA_ERROR_INVALID_VALUE;
    return CUDA_SUCCESS;
}

constexpr unsigned kHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR | CU_MEM_HANDLE_TYPE_WIN32 |
                                  CU_MEM_HANDLE_TYPE_WIN32_KMT | CU_MEM_HANDLE_TYPE_FABRIC;

CUmemGenericAllocationHandle add_handle(Vmm& v, std::shared_ptr<Allocation> a) {
    if (!a->handle) a->handle = v.next_handle++;
    auto& slot = v.handles[a->handle];
    slot.first = std::move(a);
    ++slot.second;
    return slot.first->handle;
}

CUresult cu_mem_create(CUmemGenericAllocationHandle* handle, size_t size, const CUmemAllocationProp* prop,
                       unsigned long long flags) {
    if (handle) *handle = 0;
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!handle || size == 0 || flags != 0, CUDA_ERROR_INVALID_VALUE);
    if (CUresult r = check_prop(prop)) return r;
    if (size % page_size()) {
        return refuse(CUDA_ERROR_INVALID_VALUE,
                      "cpu backend: cuMemCreate: {} bytes is not a multiple of the granularity ({})", size,
                      page_size());
    }
    unsigned types = static_cast<unsigned>(prop->requestedHandleTypes);
    D4R_CPU_REFUSE_IF(types & ~kHandleTypes, CUDA_ERROR_INVALID_VALUE);
    if (types & ~unsigned(CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)) {
        return refuse(CUDA_ERROR_NOT_SUPPORTED,
                      "cpu backend: cuMemCreate: only POSIX file descriptor handles can be requested (asked 0x{:x})",
                      types);
    }
    int fd = memfd_create("d4r-cuMemCreate", MFD_CLOEXEC);
    D4R_CPU_REFUSE_IF(fd < 0, CUDA_ERROR_OUT_OF_MEMORY);
    auto a = std::make_shared<Allocation>();
    a->fd = fd;
    D4R_CPU_REFUSE_IF(ftruncate(fd, static_cast<off_t>(size)) != 0, CUDA_ERROR_OUT_OF_MEMORY);
    a->size = size;
    a->prop = *prop;
    a->prop.win32HandleMetaData = nullptr;
    Vmm& v = vmm();
    std::lock_guard lock(v.mutex);
    *handle = add_handle(v, std::move(a));
    return CUDA_SUCCESS;
}

CUresult cu_mem_release(CUmemGenericAllocationHandle handle) {
    if (CUresult r = check_init()) return r;
    Vmm& v = vmm();
    std::lock_guard lock(v.mutex);
    auto it = v.handles.find(handle);
    if (it == v.handles.end()) {
        return refuse(CUDA_ERROR_INVALID_VALUE, "cpu backend: cuMemRelease: 0x{:x} is not a live allocation handle",
                      handle);
    }
    if (--it->second.second == 0) v.handles.erase(it); // mappings keep the memory until unmapped
    return CUDA_SUCCESS;
}

CUresult cu_mem_address_reserve(CUdeviceptr* ptr, size_t size, size_t alignment, CUdeviceptr addr,
                                unsigned long long flags) {
    if (ptr) *ptr = 0;
    if (CUresult r = check_init()) return r;
    if (!ptr || size == 0 || flags != 0 || size % page_size() || (alignment & (alignment - 1))) {
        return refuse(CUDA_ERROR_INVALID_VALUE,
                      "cpu backend: cuMemAddressReserve(size {}, alignment {}, flags 0x{:x}): invalid", size, alignment,
                      flags);
    }
    alignment = std::max<uint64_t>(alignment, page_size());
    uint64_t span = size + alignment - page_size();
    D4R_CPU_REFUSE_IF(span < size, CUDA_ERROR_INVALID_VALUE);
    // A hint is honoured when the kernel can place the range there (no MAP_FIXED: never replace mappings).
    void* hint = addr && addr % alignment == 0 ? reinterpret_cast<void*>(addr) : nullptr;
    void* p = mmap(hint, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    D4R_CPU_REFUSE_IF(p == MAP_FAILED, CUDA_ERROR_OUT_OF_MEMORY);
    uint64_t start = reinterpret_cast<uint64_t>(p);
    uint64_t base = (start + alignment - 1) / alignment * alignment;
    if (base > start) munmap(p, base - start);
    if (start + span > base + size) munmap(reinterpret_cast<void*>(base + size), start + span - (base + size));
    Vmm& v = vmm();
    std::lock_guard lock(v.mutex);
    v.reservations[base] = Reservation{base, size};
    *ptr = base;
    return CUDA_SUCCESS;
}

CUresult cu_mem_address_free(CUdeviceptr ptr, size_t size) {
    if (CUresult r = check_init()) return r;
    Vmm& v = vmm();
    std::lock_guard lock(v.mutex);
    auto it = v.reservations.find(ptr);
    if (it == v.reservations.end() || it->second.size != size) {
        return refuse(CUDA_ERROR_INVALID_VALUE, "cpu backend: cuMemAddressFree: [0x{:x}, +{}) is not a reservation",
                      ptr, size);
    }
    auto m = v.mappings.lower_bound(ptr);
    if (m != v.mappings.end() && m->first < ptr + size) {
        return refuse(CUDA_ERROR_INVALID_VALUE,
                      "cpu backend: cuMemAddressFree: [0x{:x}, +{}) still has mappings (cuMemUnmap them first)", ptr,
                      size);
    }
    munmap(reinterpret_cast<void*>(ptr), size);
    v.reservations.erase(it);
    return CUDA_SUCCESS;
}

CUresult cu_mem_map(CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle handle,
                    unsigned long long flags) {
    if (CUresult r = check_init()) return r;
    if (size == 0 || flags != 0 || ptr % page_size() || size % page_size() || offset % page_size())
        return CUDA_ERROR_INVALID_VALUE;
    Vmm& v = vmm();
    std::lock_guard lock(v.mutex);
    auto h = v.handles.find(handle);
    if (h == v.handles.end()) {
        return refuse(CUDA_ERROR_INVALID_VALUE, "cpu backend: cuMemMap: 0x{:x} is not a live allocation handle",
                      handle);
    }
    const std::shared_ptr<Allocation>& a = h->second.first;
    if (offset > a->size || size > a->size - offset) {
        return refuse(CUDA_ERROR_INVALID_VALUE, "cpu backend: cuMemMap: [{}, +{}) exceeds the allocation's {} bytes",
                      offset, size, a->size);
    }
    if (!reservation_of(v, ptr, size)) {
        return refuse(CUDA_ERROR_INVALID_VALUE, "cpu backend: cuMemMap: [0x{:x}, +{}) is not inside a reserved range",
                      ptr, size);
    }
    auto next = v.mappings.lower_bound(ptr);
    bool overlaps = (next != v.mappings.end() && next->first < ptr + size) || mapping_at(v, ptr);
    if (overlaps) {
        return refuse(CUDA_ERROR_INVALID_VALUE, "cpu backend: cuMemMap: [0x{:x}, +{}) overlaps an existing mapping",
                      ptr, size);
    }
    // Inaccessible until cuMemSetAccess, as on a GPU.
    void* p =
        mmap(reinterpret_cast<void*>(ptr), size, PROT_NONE, MAP_SHARED | MAP_FIXED, a->fd, static_cast<off_t>(offset));
    D4R_CPU_REFUSE_IF(p == MAP_FAILED, CUDA_ERROR_OUT_OF_MEMORY);
    v.mappings[ptr] = Mapping{ptr, size, offset, a, CU_MEM_ACCESS_FLAGS_PROT_NONE};
    return CUDA_SUCCESS;
}

// Makes mapping M inaccessible to the API and kernels. Caller holds Vmm::mutex.
void withdraw(Mapping& m) {
    if (m.access == CU_MEM_ACCESS_FLAGS_PROT_NONE) return;
    if (remove_region(m.base)) hide_from_kernels(m.base);
    m.access = CU_MEM_ACCESS_FLAGS_PROT_NONE;
}

// Mappings are not tied to a context: work queued in any context may still use a range being taken away.
void drain_all_contexts() {
    std::vector<std::shared_ptr<Context>> contexts;
    {
        State& st = state();
        std::lock_guard lock(st.mutex);
        for (auto& [h, ctx] : st.contexts) contexts.push_back(ctx);
    }
    for (auto& ctx : contexts) ctx->drain();
}

CUresult cu_mem_unmap(CUdeviceptr ptr, size_t size) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(size == 0, CUDA_ERROR_INVALID_VALUE);
    drain_all_contexts();
    Vmm& v = vmm();
    std::lock_guard lock(v.mutex);
    std::vector<Mapping*> tiles = mappings_tiling(v, ptr, size);
    if (tiles.empty()) {
        return refuse(CUDA_ERROR_INVALID_VALUE, "cpu backend: cuMemUnmap: [0x{:x}, +{}) is not made of whole mappings",
                      ptr, size);
    }
    std::vector<uint64_t> bases;
    for (Mapping* m : tiles) {
        withdraw(*m);
        bases.push_back(m->base);
    }
    // Back to reserved, inaccessible address space (the reservation stays whole).
    if (mmap(reinterpret_cast<void*>(ptr), size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1,
             0) == MAP_FAILED)
        log::warn("cuMemUnmap: could not make {:#x} (+{} bytes) inaccessible again ({}): the range stays readable", ptr,
                  size, std::strerror(errno));
    for (uint64_t b : bases) v.mappings.erase(b);
    return CUDA_SUCCESS;
}

CUresult cu_mem_set_access(CUdeviceptr ptr, size_t size, const CUmemAccessDesc* desc, size_t count) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!desc || count == 0 || size == 0, CUDA_ERROR_INVALID_VALUE);
    unsigned long long access = CU_MEM_ACCESS_FLAGS_PROT_NONE;
    for (size_t i = 0; i < count; ++i) {
        D4R_CPU_REFUSE_IF(desc[i].location.type != CU_MEM_LOCATION_TYPE_DEVICE, CUDA_ERROR_INVALID_VALUE);
        D4R_CPU_REFUSE_IF(desc[i].location.id != 0, CUDA_ERROR_INVALID_DEVICE);
        int f = static_cast<int>(desc[i].flags);
        if (f != CU_MEM_ACCESS_FLAGS_PROT_NONE && f != CU_MEM_ACCESS_FLAGS_PROT_READ &&
            f != CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
            return CUDA_ERROR_INVALID_VALUE;
        access = static_cast<unsigned long long>(f); // the last descriptor for the device wins
    }
    if (access == CU_MEM_ACCESS_FLAGS_PROT_NONE) drain_all_contexts();
    Vmm& v = vmm();
    std::lock_guard lock(v.mutex);
    std::vector<Mapping*> tiles = mappings_tiling(v, ptr, size);
    if (tiles.empty()) {
        return refuse(CUDA_ERROR_INVALID_VALUE,
                      "cpu backend: cuMemSetAccess: [0x{:x}, +{}) is not made of whole mappings", ptr, size);
    }
    for (Mapping* m : tiles) {
        // READ maps read-write too (a stray write must not kill the process); NONE takes the range away.
        int prot = access == CU_MEM_ACCESS_FLAGS_PROT_NONE ? PROT_NONE : PROT_READ | PROT_WRITE;
        D4R_CPU_REFUSE_IF(mprotect(reinterpret_cast<void*>(m->base), m->size, prot) != 0, CUDA_ERROR_INVALID_VALUE);
        if (access == CU_MEM_ACCESS_FLAGS_PROT_NONE) {
            withdraw(*m);
        } else if (m->access == CU_MEM_ACCESS_FLAGS_PROT_NONE) {
            add_region(Region{m->base, m->size, RegionKind::Mapped, nullptr, 0, 0});
            expose_to_kernels(m->base, m->size);
        }
        m->access = access;
    }
    return CUDA_SUCCESS;
}

CUresult cu_mem_get_access(unsigned long long* flags, const CUmemLocation* location, CUdeviceptr ptr) {
    if (flags) *flags = 0;
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!flags || !location, CUDA_ERROR_INVALID_VALUE);
    D4R_CPU_REFUSE_IF(location->type != CU_MEM_LOCATION_TYPE_DEVICE, CUDA_ERROR_INVALID_VALUE);
    D4R_CPU_REFUSE_IF(!device_location(*location), CUDA_ERROR_INVALID_DEVICE);
    Vmm& v = vmm();
    std::lock_guard lock(v.mutex);
    const Mapping* m = mapping_at(v, ptr);
    if (!m) {
        return refuse(CUDA_ERROR_INVALID_VALUE, "cpu backend: cuMemGetAccess: 0x{:x} is not mapped", ptr);
    }
    *flags = m->access;
    return CUDA_SUCCESS;
}

CUresult cu_mem_get_allocation_properties_from_handle(CUmemAllocationProp* prop, CUmemGenericAllocationHandle handle) {
    if (prop) std::memset(prop, 0, sizeof *prop);
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!prop, CUDA_ERROR_INVALID_VALUE);
    Vmm& v = vmm();
    std::lock_guard lock(v.mutex);
    auto it = v.handles.find(handle);
    D4R_CPU_REFUSE_IF(it == v.handles.end(), CUDA_ERROR_INVALID_VALUE);
    *prop = it->second.first->prop;
    return CUDA_SUCCESS;
}

CUresult cu_mem_retain_allocation_handle(CUmemGenericAllocationHandle* handle, void* addr) {
    if (handle) *handle = 0;
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!handle || !addr, CUDA_ERROR_INVALID_VALUE);
    Vmm& v = vmm();
    std::lock_guard lock(v.mutex);
    const Mapping* m = mapping_at(v, reinterpret_cast<uint64_t>(addr));
    if (!m) {
        return refuse(CUDA_ERROR_INVALID_VALUE, "cpu backend: cuMemRetainAllocationHandle: {} is not mapped", addr);
    }
    *handle = add_handle(v, m->allocation);
    return CUDA_SUCCESS;
}

CUresult cu_mem_export_to_shareable_handle(void* shareable, CUmemGenericAllocationHandle handle,
                                           CUmemAllocationHandleType type, unsigned long long flags) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!shareable || flags != 0, CUDA_ERROR_INVALID_VALUE);
    Vmm& v = vmm();
    std::lock_guard lock(v.mutex);
    auto it = v.handles.find(handle);
    D4R_CPU_REFUSE_IF(it == v.handles.end(), CUDA_ERROR_INVALID_VALUE);
    const Allocation& a = *it->second.first;
    if (type != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) {
        return refuse(CUDA_ERROR_NOT_SUPPORTED,
                      "cpu backend: cuMemExportToShareableHandle: handle type {} is not supported (POSIX file "
                      "descriptors are)",
                      static_cast<int>(type));
    }
    if (!(static_cast<unsigned>(a.prop.requestedHandleTypes) & CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)) {
        return refuse(CUDA_ERROR_INVALID_VALUE,
                      "cpu backend: cuMemExportToShareableHandle: the allocation was not created with "
                      "CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR in requestedHandleTypes");
    }
    int fd = fcntl(a.fd, F_DUPFD_CLOEXEC, 0);
    D4R_CPU_REFUSE_IF(fd < 0, CUDA_ERROR_OUT_OF_MEMORY);
    std::memcpy(shareable, &fd, sizeof fd);
    return CUDA_SUCCESS;
}

CUresult cu_mem_import_from_shareable_handle(CUmemGenericAllocationHandle* handle, void* os_handle,
                                             CUmemAllocationHandleType type) {
    if (handle) *handle = 0;
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!handle, CUDA_ERROR_INVALID_VALUE);
    D4R_CPU_REFUSE_IF(type != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, CUDA_ERROR_NOT_SUPPORTED);
    // The descriptor is passed as the pointer's value, as NVIDIA documents for POSIX handles.
    int given = static_cast<int>(reinterpret_cast<intptr_t>(os_handle));
    struct stat st{};
    if (given < 0 || fstat(given, &st) != 0 || st.st_size <= 0 || uint64_t(st.st_size) % page_size()) {
        return refuse(CUDA_ERROR_INVALID_VALUE,
                      "cpu backend: cuMemImportFromShareableHandle: {} is not a shareable allocation descriptor",
                      given);
    }
    int fd = fcntl(given, F_DUPFD_CLOEXEC, 0);
    D4R_CPU_REFUSE_IF(fd < 0, CUDA_ERROR_INVALID_VALUE);
    auto a = std::make_shared<Allocation>();
    a->fd = fd;
    a->size = uint64_t(st.st_size);
    a->prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    a->prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    a->prop.location = CUmemLocation{CU_MEM_LOCATION_TYPE_DEVICE, 0};
    Vmm& v = vmm();
    std::lock_guard lock(v.mutex);
    *handle = add_handle(v, std::move(a));
    return CUDA_SUCCESS;
}

} // namespace

bool overlaps_reservation(uint64_t base, uint64_t bytes) {
    Vmm& v = vmm();
    std::lock_guard lock(v.mutex);
    if (v.reservations.empty()) return false;
    auto it = v.reservations.upper_bound(base);
    if (it != v.reservations.begin()) {
        auto prev = std::prev(it);
        if (base - prev->first < prev->second.size) return true;
    }
    return it != v.reservations.end() && it->first < base + std::max<uint64_t>(bytes, 1);
}

void fill_vmm(ApiTable& t) {
    t.cuMemGetAllocationGranularity = cu_mem_get_allocation_granularity;
    t.cuMemCreate = cu_mem_create;
    t.cuMemRelease = cu_mem_release;
    t.cuMemAddressReserve = cu_mem_address_reserve;
    t.cuMemAddressFree = cu_mem_address_free;
    t.cuMemMap = cu_mem_map;
    t.cuMemUnmap = cu_mem_unmap;
    t.cuMemSetAccess = cu_mem_set_access;
    t.cuMemGetAccess = cu_mem_get_access;
    t.cuMemGetAllocationPropertiesFromHandle = cu_mem_get_allocation_properties_from_handle;
    t.cuMemRetainAllocationHandle = cu_mem_retain_allocation_handle;
    t.cuMemExportToShareableHandle = cu_mem_export_to_shareable_handle;
    t.cuMemImportFromShareableHandle = cu_mem_import_from_shareable_handle;
}

} // namespace d4r::runtime::cpu
