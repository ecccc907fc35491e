// cpu backend: streams, stream waits and host callbacks. All of a context's streams feed its one
// worker, so a stream is only the sequence number of its last operation.
#include "core/log.h"
#include "runtime/backends/cpu/cpu_state.h"
#include "runtime/refusal.h"

namespace d4r::runtime::cpu {

namespace {

CUresult create_stream(CUstream* ph, unsigned flags, int priority) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!ph || (flags & ~unsigned(CU_STREAM_NON_BLOCKING)), CUDA_ERROR_INVALID_VALUE);
    std::shared_ptr<Context> ctx;
    if (CUresult r = current_context(ctx)) return r;
    auto stream = std::make_shared<Stream>();
    stream->ctx = ctx.get();
    stream->flags = flags;
    // As the driver does, a priority outside [greatest, least] is clamped into it.
    stream->priority = std::clamp(priority, kStreamPriorityGreatest, kStreamPriorityLeast);
    State& s = state();
    std::lock_guard lock(s.mutex);
    s.streams[stream.get()] = stream;
    *ph = reinterpret_cast<CUstream>(stream.get());
    return CUDA_SUCCESS;
}

CUresult cu_stream_create(CUstream* ph, unsigned int flags) { return create_stream(ph, flags, 0); }
CUresult cu_stream_create_with_priority(CUstream* ph, unsigned int flags, int priority) {
    return create_stream(ph, flags, priority);
}

CUresult cu_stream_destroy(CUstream h) {
    if (CUresult r = check_init()) return r;
    State& s = state();
    std::lock_guard lock(s.mutex);
    // Work already queued on it still runs, as CUDA lets it complete.
    return s.streams.erase(h) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

// The special streams stand for the whole context: the legacy stream waits for every blocking stream's
// earlier work, and with one worker per context waiting for all of it is the same order.
CUresult cu_stream_query(CUstream h) {
    if (CUresult r = check_init()) return r;
    StreamRef ref;
    if (CUresult r = resolve_stream(h, ref)) return r;
    if (CUresult r = ref.ctx->sticky.load()) return r;
    bool done =
        is_special_stream(h) ? ref.ctx->idle() : ref.ctx->done(ref.stream->last_seq.load(std::memory_order_acquire));
    return done ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}

CUresult cu_stream_synchronize(CUstream h) {
    if (CUresult r = check_init()) return r;
    StreamRef ref;
    if (CUresult r = resolve_stream(h, ref)) return r;
    const uint64_t seq =
        is_special_stream(h) ? ref.ctx->submitted() : ref.stream->last_seq.load(std::memory_order_acquire);
    if (ref.ctx->on_worker() && !ref.ctx->done(seq)) {
        log::debug("cpu backend: cuStreamSynchronize inside a host callback would wait for the callback itself: "
                   "refused with CUDA_ERROR_NOT_PERMITTED");
        return CUDA_ERROR_NOT_PERMITTED;
    }
    ref.ctx->wait(seq);
    return ref.ctx->sticky.load();
}

CUresult cu_stream_wait_event(CUstream h, CUevent ev, unsigned int flags) {
    if (CUresult r = check_init()) return r;
    StreamRef ref;
    if (CUresult r = resolve_stream(h, ref)) return r;
    if (flags > 1) return CUDA_ERROR_INVALID_VALUE; // CU_EVENT_WAIT_DEFAULT / CU_EVENT_WAIT_EXTERNAL
    std::shared_ptr<Context> recorded_on;
    uint64_t seq = 0;
    {
        State& s = state();
        std::lock_guard lock(s.mutex);
        auto it = s.events.find(ev);
        D4R_CPU_REFUSE_IF(it == s.events.end(), CUDA_ERROR_INVALID_HANDLE);
        if (!it->second->recorded) return CUDA_SUCCESS; // waiting for a never-recorded event is a no-op
        recorded_on = it->second->ctx;
        seq = it->second->seq;
    }
    // Recorded on this context: the worker already runs it before anything queued now.
    if (recorded_on == ref.ctx || recorded_on->done(seq)) return CUDA_SUCCESS;
    ref.ctx->submit(ref.stream, [other = std::move(recorded_on), seq](CUresult) { other->wait(seq); });
    return CUDA_SUCCESS;
}

CUresult cu_stream_get_priority(CUstream h, int* priority) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!priority, CUDA_ERROR_INVALID_VALUE);
    StreamRef ref;
    if (CUresult r = resolve_stream(h, ref)) return r;
    *priority = ref.stream->priority;
    return CUDA_SUCCESS;
}

CUresult cu_stream_get_flags(CUstream h, unsigned int* flags) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!flags, CUDA_ERROR_INVALID_VALUE);
    StreamRef ref;
    if (CUresult r = resolve_stream(h, ref)) return r;
    *flags = ref.stream->flags;
    return CUDA_SUCCESS;
}

CUresult cu_stream_get_ctx(CUstream h, CUcontext* pctx) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!pctx, CUDA_ERROR_INVALID_VALUE);
    StreamRef ref;
    if (CUresult r = resolve_stream(h, ref)) return r;
    *pctx = reinterpret_cast<CUcontext>(ref.ctx.get());
    return CUDA_SUCCESS;
}

CUresult cu_stream_add_callback(CUstream h, CUstreamCallback callback, void* user, unsigned int flags) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!callback || flags != 0, CUDA_ERROR_INVALID_VALUE);
    StreamRef ref;
    if (CUresult r = resolve_stream(h, ref)) return r;
    // The callback always runs and receives the context's error (CUDA passes the stream's status).
    ref.ctx->submit(ref.stream, [h, callback, user](CUresult status) { callback(h, status, user); });
    return CUDA_SUCCESS;
}

CUresult cu_launch_host_func(CUstream h, CUhostFn fn, void* user) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!fn, CUDA_ERROR_INVALID_VALUE);
    StreamRef ref;
    if (CUresult r = resolve_stream(h, ref)) return r;
    if (CUresult r = ref.ctx->sticky.load()) return r;
    ref.ctx->submit(ref.stream, [fn, user](CUresult status) {
        if (status == CUDA_SUCCESS) fn(user); // not called once the context has faulted
    });
    return CUDA_SUCCESS;
}

} // namespace

void fill_stream(ApiTable& t) {
    t.cuStreamCreate = cu_stream_create;
    t.cuStreamCreateWithPriority = cu_stream_create_with_priority;
    t.cuStreamDestroy_v2 = cu_stream_destroy;
    t.cuStreamQuery = cu_stream_query;
    t.cuStreamSynchronize = cu_stream_synchronize;
    t.cuStreamWaitEvent = cu_stream_wait_event;
    t.cuStreamGetPriority = cu_stream_get_priority;
    t.cuStreamGetFlags = cu_stream_get_flags;
    t.cuStreamGetCtx = cu_stream_get_ctx;
    t.cuStreamAddCallback = cu_stream_add_callback;
    t.cuLaunchHostFunc = cu_launch_host_func;
}

} // namespace d4r::runtime::cpu
