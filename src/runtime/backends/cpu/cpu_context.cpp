// cpu backend: primary and ordinary contexts, the per-thread context stack, limits and cache config.
#include "core/log.h"
#include "runtime/backends/cpu/cpu_heap.h"
#include "runtime/backends/cpu/cpu_state.h"
#include "runtime/refusal.h"

namespace d4r::runtime::cpu {

namespace {

constexpr unsigned kValidCtxFlags = CU_CTX_SCHED_MASK | CU_CTX_MAP_HOST | CU_CTX_LMEM_RESIZE_TO_MAX;
// The largest CU_LIMIT_STACK_SIZE: the local memory one thread may have (512 KiB since compute
// capability 2.0).
constexpr size_t kMaxStackBytes = 512 * 1024;

CUresult check_device(CUdevice dev) {
    if (CUresult r = check_init()) return r;
    return dev == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

std::shared_ptr<Context> create_context(unsigned flags, bool primary) {
    auto ctx = std::make_shared<Context>();
    ctx->flags = flags;
    ctx->primary = primary;
    State& s = state();
    std::lock_guard lock(s.mutex);
    s.contexts[ctx.get()] = ctx;
    return ctx;
}

// Unregisters CTX, lets its queued work finish and frees everything it owns. The worker stops when the
// last reference goes.
void destroy_context(std::shared_ptr<Context> ctx) {
    {
        State& s = state();
        std::lock_guard lock(s.mutex);
        s.contexts.erase(ctx.get());
    }
    ctx->drain();
    release_context_objects(ctx.get());
}

CUresult cu_primary_retain(CUcontext* pctx, CUdevice dev) {
    if (CUresult r = check_device(dev)) return r;
    D4R_CPU_REFUSE_IF(!pctx, CUDA_ERROR_INVALID_VALUE);
    State& s = state();
    std::shared_ptr<Context> ctx;
    {
        std::lock_guard lock(s.mutex);
        ctx = s.primary.ctx;
        if (ctx) ++s.primary.refs;
    }
    if (!ctx) {
        auto created = create_context(0, true);
        std::lock_guard lock(s.mutex);
        if (!s.primary.ctx) { // another thread may have won the race
            created->flags = s.primary.flags;
            s.primary.ctx = created;
        } else {
            s.contexts.erase(created.get());
        }
        ctx = s.primary.ctx;
        ++s.primary.refs;
    }
    *pctx = reinterpret_cast<CUcontext>(ctx.get());
    return CUDA_SUCCESS;
}

CUresult cu_primary_release(CUdevice dev) {
    if (CUresult r = check_device(dev)) return r;
    State& s = state();
    std::shared_ptr<Context> dead;
    {
        std::lock_guard lock(s.mutex);
        D4R_CPU_REFUSE_IF(!s.primary.ctx || s.primary.refs == 0, CUDA_ERROR_INVALID_CONTEXT);
        if (--s.primary.refs == 0) dead = std::move(s.primary.ctx);
    }
    if (dead) destroy_context(std::move(dead));
    return CUDA_SUCCESS;
}

CUresult cu_primary_reset(CUdevice dev) {
    if (CUresult r = check_device(dev)) return r;
    State& s = state();
    std::shared_ptr<Context> dead;
    {
        std::lock_guard lock(s.mutex);
        dead = std::move(s.primary.ctx);
        s.primary.refs = 0;
    }
    if (dead) destroy_context(std::move(dead));
    return CUDA_SUCCESS;
}

CUresult cu_primary_get_state(CUdevice dev, unsigned int* flags, int* active) {
    if (CUresult r = check_device(dev)) return r;
    D4R_CPU_REFUSE_IF(!flags || !active, CUDA_ERROR_INVALID_VALUE);
    State& s = state();
    std::lock_guard lock(s.mutex);
    *flags = s.primary.flags;
    *active = s.primary.ctx ? 1 : 0;
    return CUDA_SUCCESS;
}

CUresult cu_primary_set_flags(CUdevice dev, unsigned int flags) {
    if (CUresult r = check_device(dev)) return r;
    if ((flags & ~kValidCtxFlags) || (flags & CU_CTX_SCHED_MASK) == 3 || (flags & CU_CTX_SCHED_MASK) > 4)
        return CUDA_ERROR_INVALID_VALUE;
    State& s = state();
    std::lock_guard lock(s.mutex);
    s.primary.flags = flags;
    if (s.primary.ctx) s.primary.ctx->flags = flags;
    return CUDA_SUCCESS;
}

CUresult cu_ctx_create(CUcontext* pctx, unsigned int flags, CUdevice dev) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!pctx, CUDA_ERROR_INVALID_VALUE);
    D4R_CPU_REFUSE_IF(dev != 0, CUDA_ERROR_INVALID_DEVICE);
    if ((flags & ~kValidCtxFlags) || (flags & CU_CTX_SCHED_MASK) == 3 || (flags & CU_CTX_SCHED_MASK) > 4)
        return CUDA_ERROR_INVALID_VALUE;
    auto ctx = create_context(flags, false);
    *pctx = reinterpret_cast<CUcontext>(ctx.get());
    context_stack().push_back(*pctx);
    return CUDA_SUCCESS;
}

CUresult cu_ctx_create_v4(CUcontext* pctx, CUctxCreateParams* params, unsigned int flags, CUdevice dev) {
    // Execution affinity and CIG parameters have no meaning on the CPU; the context is created without them.
    if (params && log::once("cpu:cuCtxCreate_v4 params"))
        log::info("cpu backend: cuCtxCreate_v4 ignores its CUctxCreateParams");
    return cu_ctx_create(pctx, flags, dev);
}

CUresult cu_ctx_destroy(CUcontext h) {
    if (CUresult r = check_init()) return r;
    auto ctx = find_context(h);
    D4R_CPU_REFUSE_IF(!ctx || ctx->primary, CUDA_ERROR_INVALID_CONTEXT);
    auto& stack = context_stack();
    if (!stack.empty() && stack.back() == h) stack.pop_back();
    destroy_context(std::move(ctx));
    return CUDA_SUCCESS;
}

CUresult cu_ctx_push(CUcontext h) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!find_context(h), CUDA_ERROR_INVALID_CONTEXT);
    context_stack().push_back(h);
    return CUDA_SUCCESS;
}

CUresult cu_ctx_pop(CUcontext* pctx) {
    if (CUresult r = check_init()) return r;
    auto& stack = context_stack();
    D4R_CPU_REFUSE_IF(stack.empty(), CUDA_ERROR_INVALID_CONTEXT);
    if (pctx) *pctx = stack.back();
    stack.pop_back();
    return CUDA_SUCCESS;
}

CUresult cu_ctx_set_current(CUcontext h) {
    if (CUresult r = check_init()) return r;
    auto& stack = context_stack();
    if (!h) {
        if (!stack.empty()) stack.pop_back();
        return CUDA_SUCCESS;
    }
    D4R_CPU_REFUSE_IF(!find_context(h), CUDA_ERROR_INVALID_CONTEXT);
    if (stack.empty())
        stack.push_back(h);
    else
        stack.back() = h;
    return CUDA_SUCCESS;
}

CUresult cu_ctx_get_current(CUcontext* pctx) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!pctx, CUDA_ERROR_INVALID_VALUE);
    auto& stack = context_stack();
    *pctx = stack.empty() ? nullptr : stack.back();
    return CUDA_SUCCESS;
}

CUresult cu_ctx_get_device(CUdevice* dev) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!dev, CUDA_ERROR_INVALID_VALUE);
    std::shared_ptr<Context> ctx;
    if (CUresult r = current_context(ctx)) return r;
    *dev = ctx->device;
    return CUDA_SUCCESS;
}

CUresult cu_ctx_get_flags(unsigned int* flags) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!flags, CUDA_ERROR_INVALID_VALUE);
    std::shared_ptr<Context> ctx;
    if (CUresult r = current_context(ctx)) return r;
    *flags = ctx->flags;
    return CUDA_SUCCESS;
}

CUresult cu_ctx_get_api_version(CUcontext h, unsigned int* version) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!version, CUDA_ERROR_INVALID_VALUE);
    std::shared_ptr<Context> ctx;
    if (h)
        ctx = find_context(h);
    else
        (void)current_context(ctx);
    D4R_CPU_REFUSE_IF(!ctx, CUDA_ERROR_INVALID_CONTEXT);
    *version = 3020; // what NVIDIA's driver reports for contexts of the _v2 API
    return CUDA_SUCCESS;
}

CUresult cu_ctx_synchronize() {
    if (CUresult r = check_init()) return r;
    std::shared_ptr<Context> ctx;
    if (CUresult r = current_context(ctx)) return r;
    const uint64_t seq = ctx->submitted();
    if (ctx->on_worker() && !ctx->done(seq)) {
        log::debug("cpu backend: cuCtxSynchronize inside a host callback would wait for the callback itself: "
                   "refused with CUDA_ERROR_NOT_PERMITTED");
        return CUDA_ERROR_NOT_PERMITTED;
    }
    ctx->wait(seq);
    return ctx->sticky.load();
}

CUresult cu_ctx_set_limit(CUlimit limit, size_t value) {
    if (CUresult r = check_init()) return r;
    std::shared_ptr<Context> ctx;
    if (CUresult r = current_context(ctx)) return r;
    unsigned i = static_cast<unsigned>(limit);
    D4R_CPU_REFUSE_IF(i >= 7, CUDA_ERROR_INVALID_VALUE);
    // A thread's stack is its local memory, at most 512 KiB on every GPU since sm_20 (NVIDIA refuses a
    // 1 TiB stack; it accepts a SIZE_MAX malloc heap or printf FIFO, so those stay unchecked).
    D4R_CU_INVALID_IF(limit == CU_LIMIT_STACK_SIZE && value > kMaxStackBytes, CUDA_ERROR_INVALID_VALUE,
                      "cpu backend: cuCtxSetLimit: a stack of {} bytes per thread exceeds the {} a thread's local "
                      "memory can hold",
                      value, kMaxStackBytes);
    D4R_CU_INVALID_IF(limit == CU_LIMIT_MALLOC_HEAP_SIZE && heap_reserved(*ctx), CUDA_ERROR_INVALID_VALUE,
                      "cpu backend: cuCtxSetLimit: the device heap is in use (a kernel calling malloc/free ran): "
                      "its size is fixed");
    ctx->limits[i] = value;
    return CUDA_SUCCESS;
}

CUresult cu_ctx_get_limit(size_t* value, CUlimit limit) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!value, CUDA_ERROR_INVALID_VALUE);
    std::shared_ptr<Context> ctx;
    if (CUresult r = current_context(ctx)) return r;
    unsigned i = static_cast<unsigned>(limit);
    D4R_CPU_REFUSE_IF(i >= 7, CUDA_ERROR_INVALID_VALUE);
    *value = ctx->limits[i];
    return CUDA_SUCCESS;
}

CUresult cu_ctx_get_cache_config(CUfunc_cache* config) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!config, CUDA_ERROR_INVALID_VALUE);
    std::shared_ptr<Context> ctx;
    if (CUresult r = current_context(ctx)) return r;
    *config = ctx->cache_config;
    return CUDA_SUCCESS;
}

CUresult cu_ctx_set_cache_config(CUfunc_cache config) {
    if (CUresult r = check_init()) return r;
    std::shared_ptr<Context> ctx;
    if (CUresult r = current_context(ctx)) return r;
    D4R_CPU_REFUSE_IF(static_cast<unsigned>(config) > CU_FUNC_CACHE_PREFER_EQUAL, CUDA_ERROR_INVALID_VALUE);
    ctx->cache_config = config;
    return CUDA_SUCCESS;
}

CUresult cu_ctx_get_stream_priority_range(int* least, int* greatest) {
    if (CUresult r = check_init()) return r;
    std::shared_ptr<Context> ctx;
    if (CUresult r = current_context(ctx)) return r;
    if (least) *least = kStreamPriorityLeast;
    if (greatest) *greatest = kStreamPriorityGreatest;
    return CUDA_SUCCESS;
}

// Persisting L2 lines are a hint to a cache ptxsim does not have: resetting them has nothing to do.
CUresult cu_ctx_reset_persisting_l2_cache() {
    if (CUresult r = check_init()) return r;
    std::shared_ptr<Context> ctx;
    return current_context(ctx);
}

} // namespace

void fill_context(ApiTable& t) {
    t.cuCtxResetPersistingL2Cache = cu_ctx_reset_persisting_l2_cache;
    t.cuDevicePrimaryCtxRetain = cu_primary_retain;
    // The unversioned names (CUDA 7.0) behave as the _v2 ones on every device d4r serves.
    t.cuDevicePrimaryCtxRelease = t.cuDevicePrimaryCtxRelease_v2 = cu_primary_release;
    t.cuDevicePrimaryCtxReset = t.cuDevicePrimaryCtxReset_v2 = cu_primary_reset;
    t.cuDevicePrimaryCtxGetState = cu_primary_get_state;
    t.cuDevicePrimaryCtxSetFlags = t.cuDevicePrimaryCtxSetFlags_v2 = cu_primary_set_flags;
    t.cuCtxCreate_v2 = cu_ctx_create;
    t.cuCtxCreate_v4 = cu_ctx_create_v4;
    t.cuCtxDestroy_v2 = cu_ctx_destroy;
    t.cuCtxPushCurrent_v2 = cu_ctx_push;
    t.cuCtxPopCurrent_v2 = cu_ctx_pop;
    t.cuCtxSetCurrent = cu_ctx_set_current;
    t.cuCtxGetCurrent = cu_ctx_get_current;
    t.cuCtxGetDevice = cu_ctx_get_device;
    t.cuCtxGetFlags = cu_ctx_get_flags;
    t.cuCtxGetApiVersion = cu_ctx_get_api_version;
    t.cuCtxSynchronize = cu_ctx_synchronize;
    t.cuCtxSetLimit = cu_ctx_set_limit;
    t.cuCtxGetLimit = cu_ctx_get_limit;
    t.cuCtxGetCacheConfig = cu_ctx_get_cache_config;
    t.cuCtxSetCacheConfig = cu_ctx_set_cache_config;
    t.cuCtxGetStreamPriorityRange = cu_ctx_get_stream_priority_range;
}

} // namespace d4r::runtime::cpu
