// cpu backend: streams, events, callbacks and ordering. A host function that blocks on a gate holds the
// context's worker, which makes "not finished yet" states deterministic.
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

#include "cpu_test_util.h"

namespace d4r::runtime::cpu_test {
namespace {

using CpuStreamTest = CpuBackendTest;

struct Gate {
    std::atomic<bool> open{false};
    static void wait(void* self) {
        auto* g = static_cast<Gate*>(self);
        while (!g->open.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
};

TEST_F(CpuStreamTest, CreateQueryPriorities) {
    CUstream s = nullptr;
    EXPECT_EQ(api().cuStreamCreate(&s, 2), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuStreamCreate(nullptr, 0), CUDA_ERROR_INVALID_VALUE);
    ASSERT_EQ(api().cuStreamCreateWithPriority(&s, CU_STREAM_NON_BLOCKING, -10), CUDA_SUCCESS);
    int prio = 0;
    EXPECT_EQ(api().cuStreamGetPriority(s, &prio), CUDA_SUCCESS);
    EXPECT_EQ(prio, -5); // clamped to the greatest priority
    unsigned flags = 0;
    EXPECT_EQ(api().cuStreamGetFlags(s, &flags), CUDA_SUCCESS);
    EXPECT_EQ(flags, unsigned(CU_STREAM_NON_BLOCKING));
    CUcontext ctx = nullptr;
    EXPECT_EQ(api().cuStreamGetCtx(s, &ctx), CUDA_SUCCESS);
    EXPECT_EQ(ctx, m_ctx);
    EXPECT_EQ(api().cuStreamGetPriority(nullptr, &prio), CUDA_SUCCESS);
    EXPECT_EQ(prio, 0);
    EXPECT_EQ(api().cuStreamGetCtx(D4R_CU_STREAM_LEGACY, &ctx), CUDA_SUCCESS);
    EXPECT_EQ(ctx, m_ctx);
    EXPECT_EQ(api().cuStreamQuery(D4R_CU_STREAM_PER_THREAD), CUDA_SUCCESS);

    Gate gate;
    ASSERT_EQ(api().cuLaunchHostFunc(s, Gate::wait, &gate), CUDA_SUCCESS);
    EXPECT_EQ(api().cuStreamQuery(s), CUDA_ERROR_NOT_READY);
    EXPECT_EQ(api().cuStreamQuery(nullptr), CUDA_ERROR_NOT_READY); // the legacy stream covers the context
    gate.open = true;
    EXPECT_EQ(api().cuStreamSynchronize(s), CUDA_SUCCESS);
    EXPECT_EQ(api().cuStreamQuery(s), CUDA_SUCCESS);
    EXPECT_EQ(api().cuStreamDestroy_v2(s), CUDA_SUCCESS);
    EXPECT_EQ(api().cuStreamDestroy_v2(s), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_EQ(api().cuStreamQuery(s), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_EQ(api().cuStreamSynchronize(s), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_EQ(api().cuLaunchHostFunc(nullptr, nullptr, nullptr), CUDA_ERROR_INVALID_VALUE);
}

struct Recorder {
    std::mutex mutex;
    std::vector<int> order;
    std::vector<CUresult> statuses;
};
struct Tag {
    Recorder* rec;
    int id;
};
void record_callback(CUstream, CUresult status, void* user) {
    auto* t = static_cast<Tag*>(user);
    std::lock_guard lock(t->rec->mutex);
    t->rec->order.push_back(t->id);
    t->rec->statuses.push_back(status);
}
void record_host(void* user) { record_callback(nullptr, CUDA_SUCCESS, user); }

TEST_F(CpuStreamTest, CallbacksRunInStreamOrderAfterPriorWork) {
    CUmodule m = load_test_module();
    CUfunction spin = function(m, "spin");
    CUdeviceptr d = 0;
    ASSERT_EQ(api().cuMemAlloc_v2(&d, 4), CUDA_SUCCESS);
    CUstream a = nullptr, b = nullptr;
    ASSERT_EQ(api().cuStreamCreate(&a, 0), CUDA_SUCCESS);
    ASSERT_EQ(api().cuStreamCreate(&b, 0), CUDA_SUCCESS);
    Recorder rec;
    Tag t1{&rec, 1}, t2{&rec, 2}, t3{&rec, 3}, t4{&rec, 4};
    uint32_t n = 20000;
    void* params[] = {&d, &n};
    ASSERT_EQ(api().cuLaunchKernel(spin, 1, 1, 1, 1, 1, 1, 0, a, params, nullptr), CUDA_SUCCESS);
    ASSERT_EQ(api().cuStreamAddCallback(a, record_callback, &t1, 0), CUDA_SUCCESS);
    ASSERT_EQ(api().cuLaunchHostFunc(b, record_host, &t2), CUDA_SUCCESS);
    ASSERT_EQ(api().cuLaunchHostFunc(a, record_host, &t3), CUDA_SUCCESS);
    ASSERT_EQ(api().cuStreamAddCallback(b, record_callback, &t4, 0), CUDA_SUCCESS);
    EXPECT_EQ(api().cuStreamAddCallback(a, record_callback, &t4, 1), CUDA_ERROR_INVALID_VALUE);
    ASSERT_EQ(api().cuCtxSynchronize(), CUDA_SUCCESS);
    ASSERT_EQ(rec.order.size(), 4u);
    auto pos = [&](int id) { return std::find(rec.order.begin(), rec.order.end(), id) - rec.order.begin(); };
    EXPECT_LT(pos(1), pos(3)); // stream a's order
    EXPECT_LT(pos(2), pos(4)); // stream b's order
    for (CUresult s : rec.statuses) EXPECT_EQ(s, CUDA_SUCCESS);
    // The callback ran after the kernel: the kernel's result is there.
    uint32_t v = 0;
    ASSERT_EQ(api().cuMemcpyDtoH_v2(&v, d, 4), CUDA_SUCCESS);
    EXPECT_EQ(v, spin_result(n));
    api().cuStreamDestroy_v2(a);
    api().cuStreamDestroy_v2(b);
    api().cuMemFree_v2(d);
    api().cuModuleUnload(m);
}

// A host callback that synchronises its own stream, context or a later event would wait for itself (it
// runs on the context's only worker): refused with CUDA_ERROR_NOT_PERMITTED (NVIDIA's driver deadlocks;
// CUDA forbids the call). Synchronising on work that has already run is allowed.
struct SyncInside {
    CUcontext ctx = nullptr;
    CUstream stream = nullptr;
    CUevent before = nullptr, after = nullptr;
    CUresult stream_sync = CUDA_SUCCESS, ctx_sync = CUDA_SUCCESS, before_sync = CUDA_ERROR_UNKNOWN,
             after_sync = CUDA_SUCCESS;
};
void sync_inside(void* p) {
    auto* s = static_cast<SyncInside*>(p);
    (void)api().cuCtxSetCurrent(s->ctx); // the worker thread has no current context of its own
    s->stream_sync = api().cuStreamSynchronize(s->stream);
    s->ctx_sync = api().cuCtxSynchronize();
    s->before_sync = api().cuEventSynchronize(s->before);
    s->after_sync = api().cuEventSynchronize(s->after);
}

TEST_F(CpuStreamTest, SynchronisingInsideAHostCallbackIsRefused) {
    SyncInside s;
    s.ctx = m_ctx;
    ASSERT_EQ(api().cuStreamCreate(&s.stream, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    ASSERT_EQ(api().cuEventCreate(&s.before, CU_EVENT_DEFAULT), CUDA_SUCCESS);
    ASSERT_EQ(api().cuEventCreate(&s.after, CU_EVENT_DEFAULT), CUDA_SUCCESS);
    ASSERT_EQ(api().cuEventRecord(s.before, s.stream), CUDA_SUCCESS);
    // The stream is held until `after` is recorded, so that inside the callback `after` is pending (without
    // the gate the worker could run the callback before the record was queued).
    Gate gate;
    ASSERT_EQ(api().cuLaunchHostFunc(s.stream, Gate::wait, &gate), CUDA_SUCCESS);
    ASSERT_EQ(api().cuLaunchHostFunc(s.stream, sync_inside, &s), CUDA_SUCCESS);
    ASSERT_EQ(api().cuEventRecord(s.after, s.stream), CUDA_SUCCESS);
    gate.open = true;
    ASSERT_EQ(api().cuStreamSynchronize(s.stream), CUDA_SUCCESS);
    EXPECT_EQ(s.stream_sync, CUDA_ERROR_NOT_PERMITTED);
    EXPECT_EQ(s.ctx_sync, CUDA_ERROR_NOT_PERMITTED);
    EXPECT_EQ(s.before_sync, CUDA_SUCCESS) << "an event recorded before the callback has completed";
    EXPECT_EQ(s.after_sync, CUDA_ERROR_NOT_PERMITTED);
    // The context is not poisoned by the refusals.
    EXPECT_EQ(api().cuCtxSynchronize(), CUDA_SUCCESS);
    EXPECT_EQ(api().cuEventDestroy_v2(s.before), CUDA_SUCCESS);
    EXPECT_EQ(api().cuEventDestroy_v2(s.after), CUDA_SUCCESS);
    EXPECT_EQ(api().cuStreamDestroy_v2(s.stream), CUDA_SUCCESS);
}

TEST_F(CpuStreamTest, EventsTimingAndErrors) {
    CUevent start = nullptr, end = nullptr, untimed = nullptr;
    EXPECT_EQ(api().cuEventCreate(&start, 0x40), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuEventCreate(&start, CU_EVENT_INTERPROCESS), CUDA_ERROR_INVALID_VALUE);
    ASSERT_EQ(api().cuEventCreate(&start, CU_EVENT_DEFAULT), CUDA_SUCCESS);
    ASSERT_EQ(api().cuEventCreate(&end, CU_EVENT_BLOCKING_SYNC), CUDA_SUCCESS);
    ASSERT_EQ(api().cuEventCreate(&untimed, CU_EVENT_DISABLE_TIMING), CUDA_SUCCESS);
    float ms = -1;
    EXPECT_EQ(api().cuEventQuery(start), CUDA_SUCCESS); // never recorded
    EXPECT_EQ(api().cuEventElapsedTime(&ms, start, end), CUDA_ERROR_INVALID_HANDLE);

    CUmodule m = load_test_module();
    CUfunction spin = function(m, "spin");
    CUdeviceptr d = 0;
    ASSERT_EQ(api().cuMemAlloc_v2(&d, 4), CUDA_SUCCESS);
    uint32_t n = 200000;
    void* params[] = {&d, &n};
    Gate gate;
    ASSERT_EQ(api().cuEventRecord(start, nullptr), CUDA_SUCCESS);
    ASSERT_EQ(api().cuLaunchKernel(spin, 1, 1, 1, 1, 1, 1, 0, nullptr, params, nullptr), CUDA_SUCCESS);
    ASSERT_EQ(api().cuLaunchHostFunc(nullptr, Gate::wait, &gate), CUDA_SUCCESS);
    ASSERT_EQ(api().cuEventRecordWithFlags(end, nullptr, 0), CUDA_SUCCESS);
    ASSERT_EQ(api().cuEventRecord(untimed, nullptr), CUDA_SUCCESS);
    EXPECT_EQ(api().cuEventQuery(end), CUDA_ERROR_NOT_READY);
    EXPECT_EQ(api().cuEventElapsedTime(&ms, start, end), CUDA_ERROR_NOT_READY);
    // The worker stamps `start` when it reaches it, which on a loaded machine can be after this thread
    // moves on: wait until it has, so that the 20 ms below all lie between the two stamps.
    while (api().cuEventQuery(start) == CUDA_ERROR_NOT_READY) std::this_thread::yield();
    auto opened = std::chrono::steady_clock::now();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    gate.open = true;
    ASSERT_EQ(api().cuEventSynchronize(end), CUDA_SUCCESS);
    EXPECT_EQ(api().cuEventQuery(end), CUDA_SUCCESS);
    ASSERT_EQ(api().cuEventElapsedTime(&ms, start, end), CUDA_SUCCESS);
    // The worker was held for at least the 20 ms sleep between the two records.
    EXPECT_GE(ms, 19.0f);
    EXPECT_LT(ms, 60000.0f);
    (void)opened;
    float ms2 = 0;
    ASSERT_EQ(api().cuEventElapsedTime_v2(&ms2, end, start), CUDA_SUCCESS);
    EXPECT_EQ(ms2, -ms);
    EXPECT_EQ(api().cuEventElapsedTime(&ms, start, untimed), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_EQ(api().cuEventElapsedTime(nullptr, start, end), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuEventRecordWithFlags(end, nullptr, 5), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuEventDestroy_v2(untimed), CUDA_SUCCESS);
    EXPECT_EQ(api().cuEventDestroy_v2(untimed), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_EQ(api().cuEventQuery(untimed), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_EQ(api().cuEventRecord(untimed, nullptr), CUDA_ERROR_INVALID_HANDLE);
    api().cuEventDestroy_v2(start);
    api().cuEventDestroy_v2(end);
    api().cuMemFree_v2(d);
    api().cuModuleUnload(m);
}

TEST_F(CpuStreamTest, EventOrdersWorkAcrossContexts) {
    // Context A produces a value (slowly, behind a gate); context B waits for A's event before reading it.
    CUmodule ma = load_test_module();
    CUfunction spin = function(ma, "spin");
    CUdeviceptr x = 0;
    ASSERT_EQ(api().cuMemAlloc_v2(&x, 4), CUDA_SUCCESS);
    CUstream sa = nullptr;
    ASSERT_EQ(api().cuStreamCreate(&sa, 0), CUDA_SUCCESS);
    CUevent produced = nullptr;
    ASSERT_EQ(api().cuEventCreate(&produced, CU_EVENT_DISABLE_TIMING), CUDA_SUCCESS);
    Gate gate;
    uint32_t n = 5000;
    void* params[] = {&x, &n};
    ASSERT_EQ(api().cuLaunchHostFunc(sa, Gate::wait, &gate), CUDA_SUCCESS);
    ASSERT_EQ(api().cuLaunchKernel(spin, 1, 1, 1, 1, 1, 1, 0, sa, params, nullptr), CUDA_SUCCESS);
    ASSERT_EQ(api().cuEventRecord(produced, sa), CUDA_SUCCESS);

    CUcontext other = nullptr;
    ASSERT_EQ(api().cuCtxCreate_v2(&other, 0, 0), CUDA_SUCCESS);
    CUmodule mb = load_test_module();
    CUfunction add = function(mb, "add_one");
    CUstream sb = nullptr;
    ASSERT_EQ(api().cuStreamCreate(&sb, 0), CUDA_SUCCESS);
    CUdeviceptr y = 0;
    ASSERT_EQ(api().cuMemAlloc_v2(&y, 4), CUDA_SUCCESS);
    ASSERT_EQ(api().cuStreamWaitEvent(sb, produced, 0), CUDA_SUCCESS);
    ASSERT_EQ(api().cuMemcpyDtoDAsync_v2(y, x, 4, sb), CUDA_SUCCESS);
    uint32_t one = 1;
    void* add_params[] = {&y, &one};
    ASSERT_EQ(api().cuLaunchKernel(add, 1, 1, 1, 1, 1, 1, 0, sb, add_params, nullptr), CUDA_SUCCESS);
    uint32_t result = 0;
    void* pinned = nullptr;
    ASSERT_EQ(api().cuMemAllocHost_v2(&pinned, 4), CUDA_SUCCESS);
    ASSERT_EQ(api().cuMemcpyDtoHAsync_v2(pinned, y, 4, sb), CUDA_SUCCESS);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    EXPECT_EQ(api().cuStreamQuery(sb), CUDA_ERROR_NOT_READY); // still waiting for context A
    gate.open = true;
    ASSERT_EQ(api().cuStreamSynchronize(sb), CUDA_SUCCESS);
    std::memcpy(&result, pinned, 4);
    EXPECT_EQ(result, spin_result(n) + 1);
    EXPECT_EQ(api().cuStreamWaitEvent(sb, produced, 7), CUDA_ERROR_INVALID_VALUE);
    api().cuMemFreeHost(pinned);
    EXPECT_EQ(api().cuCtxDestroy_v2(other), CUDA_SUCCESS);
    api().cuEventDestroy_v2(produced);
    api().cuStreamDestroy_v2(sa);
    api().cuMemFree_v2(x);
    api().cuModuleUnload(ma);
}

TEST_F(CpuStreamTest, HostAllocatedMemoryIsKernelMemory) {
    CUmodule m = load_test_module();
    CUfunction add = function(m, "add_one");
    void* h = nullptr;
    ASSERT_EQ(api().cuMemHostAlloc(&h, 256 * 4, CU_MEMHOSTALLOC_DEVICEMAP), CUDA_SUCCESS);
    auto* v = static_cast<uint32_t*>(h);
    for (int i = 0; i < 256; ++i) v[i] = uint32_t(i);
    CUdeviceptr d = 0;
    ASSERT_EQ(api().cuMemHostGetDevicePointer_v2(&d, h, 0), CUDA_SUCCESS);
    uint32_t n = 256;
    void* params[] = {&d, &n};
    ASSERT_EQ(api().cuLaunchKernel(add, 2, 1, 1, 128, 1, 1, 0, nullptr, params, nullptr), CUDA_SUCCESS);
    ASSERT_EQ(api().cuStreamSynchronize(nullptr), CUDA_SUCCESS);
    for (int i = 0; i < 256; ++i) ASSERT_EQ(v[i], uint32_t(i + 1));
    api().cuMemFreeHost(h);
    api().cuModuleUnload(m);
}

} // namespace
} // namespace d4r::runtime::cpu_test
