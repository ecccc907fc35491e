// cpu backend: events. A record is an operation in the stream; when the context's worker reaches it, it
// takes a steady-clock timestamp, so elapsed times measure the work queued between two records.
#include <chrono>

#include "core/log.h"
#include "runtime/backends/cpu/cpu_state.h"
#include "runtime/refusal.h"

namespace d4r::runtime::cpu {

namespace {

constexpr unsigned kEventFlags = CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS;

int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

struct Snapshot {
    std::shared_ptr<Event> event;
    std::shared_ptr<Context> ctx;
    uint64_t seq = 0;
    bool recorded = false;
    std::shared_ptr<std::atomic<int64_t>> time_ns;
};

CUresult snapshot(CUevent h, Snapshot& out) {
    State& s = state();
    std::lock_guard lock(s.mutex);
    auto it = s.events.find(h);
    D4R_CPU_REFUSE_IF(it == s.events.end(), CUDA_ERROR_INVALID_HANDLE);
    out.event = it->second;
    out.ctx = it->second->ctx;
    out.seq = it->second->seq;
    out.recorded = it->second->recorded;
    out.time_ns = it->second->time_ns;
    return CUDA_SUCCESS;
}

CUresult cu_event_create(CUevent* ph, unsigned int flags) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!ph || (flags & ~kEventFlags), CUDA_ERROR_INVALID_VALUE);
    D4R_CPU_REFUSE_IF((flags & CU_EVENT_INTERPROCESS) && !(flags & CU_EVENT_DISABLE_TIMING), CUDA_ERROR_INVALID_VALUE);
    std::shared_ptr<Context> ctx;
    if (CUresult r = current_context(ctx)) return r;
    auto ev = std::make_shared<Event>();
    ev->owner = ctx.get();
    ev->flags = flags;
    State& s = state();
    std::lock_guard lock(s.mutex);
    s.events[ev.get()] = ev;
    *ph = reinterpret_cast<CUevent>(ev.get());
    return CUDA_SUCCESS;
}

CUresult cu_event_destroy(CUevent h) {
    if (CUresult r = check_init()) return r;
    State& s = state();
    std::lock_guard lock(s.mutex);
    return s.events.erase(h) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

CUresult cu_event_record_with_flags(CUevent h, CUstream stream, unsigned int flags) {
    if (CUresult r = check_init()) return r;
    if (flags > 1) return CUDA_ERROR_INVALID_VALUE; // CU_EVENT_RECORD_DEFAULT / CU_EVENT_RECORD_EXTERNAL
    StreamRef ref;
    if (CUresult r = resolve_stream(stream, ref)) return r;
    State& s = state();
    std::lock_guard lock(s.mutex);
    auto it = s.events.find(h);
    D4R_CPU_REFUSE_IF(it == s.events.end(), CUDA_ERROR_INVALID_HANDLE);
    std::shared_ptr<Event> ev = it->second;
    // cuEventRecord: "hEvent and hStream must be from the same context" (NVIDIA refuses A's event on B's
    // stream or null stream).
    D4R_CU_INVALID_IF(ev->owner != ref.ctx.get(), CUDA_ERROR_INVALID_HANDLE,
                      "cpu backend: cuEventRecord: the event belongs to context {}, the stream to context {}",
                      static_cast<const void*>(ev->owner), static_cast<const void*>(ref.ctx.get()));
    // Queued under State::mutex so that the event's (context, sequence) and the queue agree.
    ev->ctx = ref.ctx;
    ev->recorded = true;
    auto slot = std::make_shared<std::atomic<int64_t>>(0);
    ev->time_ns = slot;
    ev->seq = ref.ctx->submit(ref.stream, [slot](CUresult) { slot->store(now_ns(), std::memory_order_release); });
    return CUDA_SUCCESS;
}

CUresult cu_event_record(CUevent h, CUstream stream) { return cu_event_record_with_flags(h, stream, 0); }

CUresult cu_event_query(CUevent h) {
    if (CUresult r = check_init()) return r;
    Snapshot snap;
    if (CUresult r = snapshot(h, snap)) return r;
    if (!snap.recorded) return CUDA_SUCCESS;
    return snap.ctx->done(snap.seq) ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}

CUresult cu_event_synchronize(CUevent h) {
    if (CUresult r = check_init()) return r;
    Snapshot snap;
    if (CUresult r = snapshot(h, snap)) return r;
    if (!snap.recorded) return CUDA_SUCCESS;
    if (snap.ctx->on_worker() && !snap.ctx->done(snap.seq)) {
        log::debug("cpu backend: cuEventSynchronize inside a host callback would wait for the callback itself: "
                   "refused with CUDA_ERROR_NOT_PERMITTED");
        return CUDA_ERROR_NOT_PERMITTED;
    }
    snap.ctx->wait(snap.seq);
    return snap.ctx->sticky.load();
}

CUresult cu_event_elapsed_time(float* ms, CUevent start, CUevent end) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!ms, CUDA_ERROR_INVALID_VALUE);
    Snapshot a, b;
    if (CUresult r = snapshot(start, a)) return r;
    if (CUresult r = snapshot(end, b)) return r;
    // As the driver: timing disabled or never recorded is an invalid handle for this call.
    D4R_CPU_REFUSE_IF((a.event->flags | b.event->flags) & CU_EVENT_DISABLE_TIMING, CUDA_ERROR_INVALID_HANDLE);
    D4R_CPU_REFUSE_IF(!a.recorded || !b.recorded, CUDA_ERROR_INVALID_HANDLE);
    if (!a.ctx->done(a.seq) || !b.ctx->done(b.seq)) return CUDA_ERROR_NOT_READY; // an answer, not a refusal
    int64_t delta = b.time_ns->load(std::memory_order_acquire) - a.time_ns->load(std::memory_order_acquire);
    *ms = static_cast<float>(static_cast<double>(delta) / 1e6);
    return CUDA_SUCCESS;
}

} // namespace

void fill_event(ApiTable& t) {
    t.cuEventCreate = cu_event_create;
    t.cuEventDestroy_v2 = cu_event_destroy;
    t.cuEventRecord = cu_event_record;
    t.cuEventRecordWithFlags = cu_event_record_with_flags;
    t.cuEventQuery = cu_event_query;
    t.cuEventSynchronize = cu_event_synchronize;
    t.cuEventElapsedTime = cu_event_elapsed_time;
    t.cuEventElapsedTime_v2 = cu_event_elapsed_time;
}

} // namespace d4r::runtime::cpu
