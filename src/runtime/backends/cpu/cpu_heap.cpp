// cpu backend: the device heap of a context (cpu_heap.h).
#include "runtime/backends/cpu/cpu_heap.h"

#include "core/log.h"
#include "runtime/backends/cpu/cpu_memory_budget.h"

namespace d4r::runtime::cpu {

CUresult context_heap(Context& ctx, std::shared_ptr<ptxsim::DeviceHeap>& out) {
    std::lock_guard lock(ctx.heap_mutex);
    if (!ctx.heap) {
        // At least one 16-byte block, as a heap limit of 0 still lets a kernel that calls malloc run.
        const uint64_t bytes = std::max<uint64_t>(ctx.limits[CU_LIMIT_MALLOC_HEAP_SIZE], 16);
        uint64_t base = 0;
        if (CUresult r = budget_alloc(bytes, "the device heap (CU_LIMIT_MALLOC_HEAP_SIZE)", base)) {
            log::warn("cpu backend: the device heap of {} bytes (CU_LIMIT_MALLOC_HEAP_SIZE) does not fit: a kernel "
                      "calling malloc cannot launch ({})",
                      bytes, error_name(r));
            return r;
        }
        ctx.heap = std::shared_ptr<ptxsim::DeviceHeap>(new ptxsim::DeviceHeap(base, bytes), [](ptxsim::DeviceHeap* h) {
            const uint64_t memory = h->base();
            delete h;
            (void)state().device.free(memory);
        });
        log::debug("cpu backend: context {}: device heap of {} bytes at 0x{:x}", static_cast<const void*>(&ctx), bytes,
                   base);
    }
    out = ctx.heap;
    return CUDA_SUCCESS;
}

bool heap_reserved(Context& ctx) {
    std::lock_guard lock(ctx.heap_mutex);
    return ctx.heap != nullptr;
}

} // namespace d4r::runtime::cpu
