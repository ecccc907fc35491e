// cpu backend: stream-ordered allocation (cuMemAllocAsync, cuMemFreeAsync) and memory pools.
//
// A pool keeps the blocks freed into it: cuMemFreeAsync queues the block's return to its pool on the
// stream (a second free of the same pointer is refused at once), so it is reusable only after every
// operation queued before the free has run (the context's one worker runs everything in order). cuMemAllocAsync
// takes a free block of the same rounded size when the pool has one, else new device memory; either way
// at once, since memory available now is available at any later point of the stream. Blocks beyond the
// pool's release threshold go back to the device when they are returned; cuMemPoolTrimTo releases free
// blocks down to the bytes asked. Each device has a default pool (the current pool until
// cuDeviceSetMemPool). Pools are device memory only: no IPC export, access is always read-write.
#include <algorithm>
#include <cstring>
#include <optional>
#include <set>

#include "core/log.h"
#include "runtime/backends/cpu/cpu_graph.h"
#include "runtime/backends/cpu/cpu_memory_budget.h"
#include "runtime/backends/cpu/cpu_ops.h"
#include "runtime/refusal.h"

namespace d4r::runtime::cpu {

namespace {

constexpr uint64_t kPoolGranularity = 512; // allocations are rounded to this many bytes

struct Pool {
    CUmemPoolProps props{};
    uint64_t release_threshold = 0;
    int follow_event_dependencies = 1, allow_opportunistic = 1, allow_internal_dependencies = 1;
    uint64_t reserved = 0, reserved_high = 0, used = 0, used_high = 0;
    std::multimap<uint64_t, uint64_t> free_blocks; // size -> base
    bool destroyed = false;
};

struct Block {
    std::shared_ptr<Pool> pool;
    uint64_t size = 0;
};

struct Pools final : StatePart {
    static constexpr PartSlot kSlot = PartSlot::Pools;
    Pools() {
        default_pool = std::make_shared<Pool>();
        default_pool->props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
        default_pool->props.location = CUmemLocation{CU_MEM_LOCATION_TYPE_DEVICE, 0};
        pools[default_pool.get()] = default_pool;
        current = default_pool;
    }
    std::mutex mutex; // guards everything here and every Pool
    std::unordered_map<void*, std::shared_ptr<Pool>> pools;
    std::shared_ptr<Pool> default_pool;
    std::shared_ptr<Pool> current;
    std::unordered_map<uint64_t, Block> blocks; // live pool allocations by base
    std::set<uint64_t> pending_free;            // bases whose cuMemFreeAsync the stream has not reached
};

Pools& pools() { return state().part<Pools>(); }

std::shared_ptr<Pool> find_pool(CUmemoryPool h) {
    auto it = pools().pools.find(h);
    return it == pools().pools.end() ? nullptr : it->second;
}

void release_block(Pool& pool, uint64_t base, uint64_t size) {
    (void)state().device.free(base);
    pool.reserved -= size;
}

// Gives free blocks back to the device until the pool reserves at most KEEP bytes (under Pools::mutex).
void trim(Pool& pool, uint64_t keep) {
    for (auto it = pool.free_blocks.begin(); it != pool.free_blocks.end() && pool.reserved > keep;) {
        release_block(pool, it->second, it->first);
        it = pool.free_blocks.erase(it);
    }
}

CUresult alloc_from(const std::shared_ptr<Pool>& pool, Context* ctx, CUdeviceptr* dptr, size_t bytes) {
    uint64_t size = (bytes + kPoolGranularity - 1) / kPoolGranularity * kPoolGranularity;
    std::lock_guard lock(pools().mutex);
    if (pool->props.maxSize && pool->reserved + size > pool->props.maxSize &&
        pool->free_blocks.find(size) == pool->free_blocks.end())
        return CUDA_ERROR_OUT_OF_MEMORY;
    uint64_t base = 0;
    auto it = pool->free_blocks.find(size);
    if (it != pool->free_blocks.end()) {
        base = it->second;
        pool->free_blocks.erase(it);
    } else {
        if (CUresult r = budget_alloc(size, "cuMemAllocAsync", base)) return r;
        pool->reserved += size;
        pool->reserved_high = std::max(pool->reserved_high, pool->reserved);
    }
    pool->used += size;
    pool->used_high = std::max(pool->used_high, pool->used);
    add_region(Region{base, size, RegionKind::Device, ctx, 0, 0});
    pools().blocks[base] = Block{pool, size};
    *dptr = base;
    return CUDA_SUCCESS;
}

// The block at BASE goes back to its pool (or to the device when the pool is gone or over its threshold).
void return_block(uint64_t base, const Block& b) {
    std::lock_guard lock(pools().mutex);
    Pool& pool = *b.pool;
    pool.used -= b.size;
    if (pool.destroyed) {
        release_block(pool, base, b.size);
        return;
    }
    pool.free_blocks.emplace(b.size, base);
    if (pool.reserved > pool.release_threshold) trim(pool, pool.release_threshold);
}

// Takes the block at BASE out of the live allocations; false if BASE is no pool allocation.
bool take_block(uint64_t base, Block& out) {
    std::lock_guard lock(pools().mutex);
    auto it = pools().blocks.find(base);
    if (it == pools().blocks.end()) return false;
    out = it->second;
    pools().blocks.erase(it);
    return true;
}

bool is_pool_block(uint64_t base) {
    std::lock_guard lock(pools().mutex);
    return pools().blocks.count(base) != 0;
}

CUresult cu_mem_alloc_from_pool_async(CUdeviceptr* dptr, size_t bytes, CUmemoryPool h, CUstream stream) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!dptr, CUDA_ERROR_INVALID_VALUE);
    *dptr = 0;
    StreamRef ref;
    if (CUresult r = resolve_stream(stream, ref)) return r;
    D4R_CPU_REFUSE_IF(bytes == 0, CUDA_ERROR_INVALID_VALUE);
    std::shared_ptr<Pool> pool;
    {
        std::lock_guard lock(pools().mutex);
        pool = find_pool(h);
    }
    D4R_CPU_REFUSE_IF(!pool, CUDA_ERROR_INVALID_VALUE);
    return alloc_from(pool, ref.ctx.get(), dptr, bytes);
}

CUresult cu_mem_alloc_async(CUdeviceptr* dptr, size_t bytes, CUstream stream) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!dptr, CUDA_ERROR_INVALID_VALUE);
    *dptr = 0;
    StreamRef ref;
    if (CUresult r = resolve_stream(stream, ref)) return r;
    D4R_CPU_REFUSE_IF(bytes == 0, CUDA_ERROR_INVALID_VALUE);
    std::shared_ptr<Pool> pool;
    {
        std::lock_guard lock(pools().mutex);
        pool = pools().current;
    }
    return alloc_from(pool, ref.ctx.get(), dptr, bytes);
}

// Returns DPTR (a pool block or cuMemAlloc memory) now; it must be in pending_free.
void release_now(CUdeviceptr dptr) {
    remove_region(dptr);
    {
        std::lock_guard lock(pools().mutex);
        pools().pending_free.erase(dptr);
    }
    Block b;
    if (take_block(dptr, b))
        return_block(dptr, b);
    else
        (void)state().device.free(dptr); // cuMemAlloc memory
}

// A free of a graph allocation its graph retains (GraphMemory): marked free, the memory kept mapped for the
// graph's next launch. Nullopt when DPTR is not one.
std::optional<CUresult> free_graph_allocation(CUdeviceptr dptr) {
    switch (free_retained_graph_allocation(dptr)) {
    case GraphFree::Freed:
        return CUDA_SUCCESS;
    case GraphFree::AlreadyFree:
        return refuse(CUDA_ERROR_INVALID_VALUE, "cpu backend: graph allocation 0x{:x} freed twice", dptr);
    case GraphFree::NotRetained:
        break;
    }
    return std::nullopt;
}

CUresult cu_mem_free_async(CUdeviceptr dptr, CUstream stream) {
    if (CUresult r = check_init()) return r;
    StreamRef ref;
    if (CUresult r = resolve_stream(stream, ref)) return r;
    if (auto graph = free_graph_allocation(dptr)) return *graph;
    Region r;
    D4R_CPU_REFUSE_IF(!find_region(dptr, 0, &r) || r.base != dptr || r.kind != RegionKind::Device,
                      CUDA_ERROR_INVALID_VALUE);
    {
        std::lock_guard lock(pools().mutex);
        if (!pools().pending_free.insert(dptr).second) return CUDA_ERROR_INVALID_VALUE; // freed twice
    }
    // The work queued before the free still uses the memory: it is released when the stream gets there.
    ref.ctx->submit(ref.stream, [dptr](CUresult) { release_now(dptr); });
    return CUDA_SUCCESS;
}

// cuMemFree of a pool allocation: after the context's work, as for any allocation, back to its pool.
PFN_cuMemFree_v2 g_mem_free = nullptr;
CUresult cu_mem_free(CUdeviceptr dptr) {
    if (state().initialized.load())
        if (auto graph = free_graph_allocation(dptr)) return *graph;
    {
        std::lock_guard lock(pools().mutex);
        if (pools().pending_free.count(dptr)) return CUDA_ERROR_INVALID_VALUE; // already freed
    }
    if (!state().initialized.load() || !is_pool_block(dptr)) return g_mem_free(dptr);
    std::shared_ptr<Context> ctx;
    if (CUresult r = current_context(ctx)) return r;
    Region r;
    D4R_CPU_REFUSE_IF(!find_region(dptr, 0, &r) || r.base != dptr, CUDA_ERROR_INVALID_VALUE);
    if (auto owner = find_context(reinterpret_cast<CUcontext>(r.ctx))) owner->drain();
    D4R_CPU_REFUSE_IF(!remove_region(dptr), CUDA_ERROR_INVALID_VALUE);
    Block b;
    if (take_block(dptr, b)) return_block(dptr, b);
    return CUDA_SUCCESS;
}

CUresult check_device(CUdevice dev) {
    if (CUresult r = check_init()) return r;
    return dev == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

CUresult cu_mem_pool_create(CUmemoryPool* out, const CUmemPoolProps* props) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!out, CUDA_ERROR_INVALID_VALUE);
    *out = nullptr;
    D4R_CPU_REFUSE_IF(!props || props->allocType != CU_MEM_ALLOCATION_TYPE_PINNED, CUDA_ERROR_INVALID_VALUE);
    if (props->location.type != CU_MEM_LOCATION_TYPE_DEVICE) {
        log::debug("cpu backend: cuMemPoolCreate: only device pools are supported (location type {})",
                   static_cast<int>(props->location.type));
        return props->location.type == CU_MEM_LOCATION_TYPE_HOST ? CUDA_ERROR_NOT_SUPPORTED : CUDA_ERROR_INVALID_VALUE;
    }
    D4R_CPU_REFUSE_IF(props->location.id != 0, CUDA_ERROR_INVALID_DEVICE);
    if (props->handleTypes != CU_MEM_HANDLE_TYPE_NONE) {
        return refuse(CUDA_ERROR_NOT_SUPPORTED,
                      "cpu backend: cuMemPoolCreate: exportable pools (handle types 0x{:x}) are not supported",
                      static_cast<unsigned>(props->handleTypes));
    }
    auto pool = std::make_shared<Pool>();
    pool->props = *props;
    std::lock_guard lock(pools().mutex);
    pools().pools[pool.get()] = pool;
    *out = reinterpret_cast<CUmemoryPool>(pool.get());
    return CUDA_SUCCESS;
}

CUresult cu_mem_pool_destroy(CUmemoryPool h) {
    if (CUresult r = check_init()) return r;
    std::lock_guard lock(pools().mutex);
    auto pool = find_pool(h);
    D4R_CPU_REFUSE_IF(!pool || pool == pools().default_pool, CUDA_ERROR_INVALID_VALUE);
    // Allocations still live stay valid; their memory goes back to the device when they are freed.
    trim(*pool, 0);
    pool->destroyed = true;
    if (pools().current == pool) pools().current = pools().default_pool;
    pools().pools.erase(h);
    return CUDA_SUCCESS;
}

CUresult cu_device_get_default_mem_pool(CUmemoryPool* out, CUdevice dev) {
    D4R_CPU_REFUSE_IF(!out, CUDA_ERROR_INVALID_VALUE);
    *out = nullptr;
    if (CUresult r = check_device(dev)) return r;
    std::lock_guard lock(pools().mutex);
    *out = reinterpret_cast<CUmemoryPool>(pools().default_pool.get());
    return CUDA_SUCCESS;
}

CUresult cu_device_get_mem_pool(CUmemoryPool* out, CUdevice dev) {
    D4R_CPU_REFUSE_IF(!out, CUDA_ERROR_INVALID_VALUE);
    *out = nullptr;
    if (CUresult r = check_device(dev)) return r;
    std::lock_guard lock(pools().mutex);
    *out = reinterpret_cast<CUmemoryPool>(pools().current.get());
    return CUDA_SUCCESS;
}

CUresult cu_device_set_mem_pool(CUdevice dev, CUmemoryPool h) {
    if (CUresult r = check_device(dev)) return r;
    std::lock_guard lock(pools().mutex);
    auto pool = find_pool(h);
    D4R_CPU_REFUSE_IF(!pool, CUDA_ERROR_INVALID_VALUE);
    pools().current = pool;
    return CUDA_SUCCESS;
}

CUresult cu_mem_pool_set_attribute(CUmemoryPool h, CUmemPool_attribute attr, void* value) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!value, CUDA_ERROR_INVALID_VALUE);
    std::lock_guard lock(pools().mutex);
    auto pool = find_pool(h);
    D4R_CPU_REFUSE_IF(!pool, CUDA_ERROR_INVALID_VALUE);
    switch (attr) {
    case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES:
        std::memcpy(&pool->follow_event_dependencies, value, sizeof(int));
        return CUDA_SUCCESS;
    case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC:
        std::memcpy(&pool->allow_opportunistic, value, sizeof(int));
        return CUDA_SUCCESS;
    case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES:
        std::memcpy(&pool->allow_internal_dependencies, value, sizeof(int));
        return CUDA_SUCCESS;
    case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD:
        std::memcpy(&pool->release_threshold, value, sizeof(uint64_t));
        return CUDA_SUCCESS;
    case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH:
    case CU_MEMPOOL_ATTR_USED_MEM_HIGH: {
        uint64_t v = 0;
        std::memcpy(&v, value, sizeof v);
        if (v != 0) return CUDA_ERROR_INVALID_VALUE; // the high-water marks can only be reset
        (attr == CU_MEMPOOL_ATTR_USED_MEM_HIGH ? pool->used_high = pool->used : pool->reserved_high = pool->reserved);
        return CUDA_SUCCESS;
    }
    default:
        return CUDA_ERROR_INVALID_VALUE; // the current sizes are read-only
    }
}

CUresult cu_mem_pool_get_attribute(CUmemoryPool h, CUmemPool_attribute attr, void* value) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!value, CUDA_ERROR_INVALID_VALUE);
    std::lock_guard lock(pools().mutex);
    auto pool = find_pool(h);
    D4R_CPU_REFUSE_IF(!pool, CUDA_ERROR_INVALID_VALUE);
    auto put64 = [&](uint64_t v) { std::memcpy(value, &v, sizeof v); };
    switch (attr) {
    case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES:
        std::memcpy(value, &pool->follow_event_dependencies, sizeof(int));
        break;
    case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC:
        std::memcpy(value, &pool->allow_opportunistic, sizeof(int));
        break;
    case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES:
        std::memcpy(value, &pool->allow_internal_dependencies, sizeof(int));
        break;
    case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD:
        put64(pool->release_threshold);
        break;
    case CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT:
        put64(pool->reserved);
        break;
    case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH:
        put64(pool->reserved_high);
        break;
    case CU_MEMPOOL_ATTR_USED_MEM_CURRENT:
        put64(pool->used);
        break;
    case CU_MEMPOOL_ATTR_USED_MEM_HIGH:
        put64(pool->used_high);
        break;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

CUresult cu_mem_pool_trim_to(CUmemoryPool h, size_t keep) {
    if (CUresult r = check_init()) return r;
    std::lock_guard lock(pools().mutex);
    auto pool = find_pool(h);
    D4R_CPU_REFUSE_IF(!pool, CUDA_ERROR_INVALID_VALUE);
    trim(*pool, keep);
    return CUDA_SUCCESS;
}

// One device: its own pools are always read-write to it; no other location can be given access.
CUresult cu_mem_pool_set_access(CUmemoryPool h, const CUmemAccessDesc* map, size_t count) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(count && !map, CUDA_ERROR_INVALID_VALUE);
    {
        std::lock_guard lock(pools().mutex);
        D4R_CPU_REFUSE_IF(!find_pool(h), CUDA_ERROR_INVALID_VALUE);
    }
    for (size_t i = 0; i < count; ++i) {
        D4R_CPU_REFUSE_IF(map[i].location.type != CU_MEM_LOCATION_TYPE_DEVICE, CUDA_ERROR_INVALID_VALUE);
        D4R_CPU_REFUSE_IF(map[i].location.id != 0, CUDA_ERROR_INVALID_DEVICE);
        if (map[i].flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE) return CUDA_ERROR_INVALID_VALUE; // the owner's access
    }
    return CUDA_SUCCESS;
}

CUresult cu_mem_pool_get_access(CUmemAccess_flags* flags, CUmemoryPool h, CUmemLocation* location) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!flags || !location, CUDA_ERROR_INVALID_VALUE);
    *flags = CU_MEM_ACCESS_FLAGS_PROT_NONE;
    std::lock_guard lock(pools().mutex);
    D4R_CPU_REFUSE_IF(!find_pool(h), CUDA_ERROR_INVALID_VALUE);
    D4R_CPU_REFUSE_IF(location->type != CU_MEM_LOCATION_TYPE_DEVICE, CUDA_ERROR_INVALID_VALUE);
    D4R_CPU_REFUSE_IF(location->id != 0, CUDA_ERROR_INVALID_DEVICE);
    *flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    return CUDA_SUCCESS;
}

} // namespace

void fill_mempool(ApiTable& t) {
    g_mem_free = t.cuMemFree_v2;
    t.cuMemFree_v2 = cu_mem_free;
    t.cuMemAllocAsync = cu_mem_alloc_async;
    t.cuMemFreeAsync = cu_mem_free_async;
    t.cuMemAllocFromPoolAsync = cu_mem_alloc_from_pool_async;
    t.cuMemPoolCreate = cu_mem_pool_create;
    t.cuMemPoolDestroy = cu_mem_pool_destroy;
    t.cuDeviceGetDefaultMemPool = cu_device_get_default_mem_pool;
    t.cuDeviceGetMemPool = cu_device_get_mem_pool;
    t.cuDeviceSetMemPool = cu_device_set_mem_pool;
    t.cuMemPoolSetAttribute = cu_mem_pool_set_attribute;
    t.cuMemPoolGetAttribute = cu_mem_pool_get_attribute;
    t.cuMemPoolTrimTo = cu_mem_pool_trim_to;
    t.cuMemPoolSetAccess = cu_mem_pool_set_access;
    t.cuMemPoolGetAccess = cu_mem_pool_get_access;
}

GraphMemory::~GraphMemory() {
    std::vector<CUdeviceptr> release = owned;
    for (CUdeviceptr dptr : allocated)
        if (forget_retained_graph_allocation(dptr) && std::find(owned.begin(), owned.end(), dptr) == owned.end())
            release.push_back(dptr);
    for (CUdeviceptr dptr : release) {
        Region r;
        if (!find_region(dptr, 0, &r) || r.base != dptr) continue; // its context is gone, and with it the memory
        auto ctx = find_context(reinterpret_cast<CUcontext>(r.ctx));
        if (!ctx) continue;
        {
            std::lock_guard lock(pools().mutex);
            if (!pools().pending_free.insert(dptr).second) continue;
        }
        ctx->submit(nullptr, [dptr](CUresult) { release_now(dptr); });
    }
}

} // namespace d4r::runtime::cpu
