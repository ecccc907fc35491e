// cpu backend: launch back-pressure (issue 14, item 13). A thread that queues without synchronising must
// not grow the context's queue without bound: like NVIDIA's driver at about a thousand pending launches,
// it waits until the worker has drained the queue, and goes on by itself afterwards. A host callback
// queuing work (the worker itself) never waits, which would deadlock.
#include <atomic>
#include <chrono>
#include <thread>

#include "cpu_test_util.h"

namespace d4r::runtime::cpu_test {
namespace {

using CpuBackPressureTest = CpuBackendTest;

struct Gate {
    std::atomic<bool> open{false};
    static void wait(void* self) {
        auto* g = static_cast<Gate*>(self);
        while (!g->open.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
};

// Waits until COUNT has not moved for 100 ms (the producer is blocked or finished); returns it.
int settled(const std::atomic<int>& count) {
    int last = -1;
    for (int i = 0; i < 200; ++i) {
        int now = count.load();
        if (now == last) return now;
        last = now;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return count.load();
}

TEST_F(CpuBackPressureTest, AThreadThatNeverSynchronisesWaitsAtAboutAThousandPending) {
    constexpr int kOps = 5000;
    CUdeviceptr d = 0;
    ASSERT_EQ(api().cuMemAlloc_v2(&d, 4), CUDA_SUCCESS);
    CUstream s = nullptr, other = nullptr;
    ASSERT_EQ(api().cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    ASSERT_EQ(api().cuStreamCreate(&other, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    Gate gate;
    ASSERT_EQ(api().cuLaunchHostFunc(s, Gate::wait, &gate), CUDA_SUCCESS); // holds the worker
    std::atomic<int> queued{0};
    std::atomic<bool> all_ok{true};
    std::thread producer([&] {
        ASSERT_EQ(api().cuCtxSetCurrent(m_ctx), CUDA_SUCCESS);
        for (int i = 0; i < kOps; ++i) {
            if (api().cuMemsetD32Async(d, uint32_t(i), 1, s) != CUDA_SUCCESS) all_ok = false;
            queued.fetch_add(1);
        }
    });
    const int blocked_at = settled(queued);
    EXPECT_GE(blocked_at, 1000);
    EXPECT_LE(blocked_at, 1030); // held at the limit, not at 5000
    // Other threads are not held: a stream with nothing queued answers at once, the busy one NOT_READY.
    EXPECT_EQ(api().cuStreamQuery(other), CUDA_SUCCESS);
    EXPECT_EQ(api().cuStreamQuery(s), CUDA_ERROR_NOT_READY);
    gate.open = true;
    producer.join();
    EXPECT_TRUE(all_ok.load());
    EXPECT_EQ(queued.load(), kOps);
    EXPECT_EQ(api().cuStreamSynchronize(s), CUDA_SUCCESS);
    uint32_t last = 0;
    ASSERT_EQ(api().cuMemcpyDtoH_v2(&last, d, 4), CUDA_SUCCESS);
    EXPECT_EQ(last, uint32_t(kOps - 1)); // every memset ran, in order
    EXPECT_EQ(api().cuStreamDestroy_v2(s), CUDA_SUCCESS);
    EXPECT_EQ(api().cuStreamDestroy_v2(other), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemFree_v2(d), CUDA_SUCCESS);
}

struct Flood {
    CUstream stream = nullptr;
    CUdeviceptr target = 0;
    int queued = 0;
    static void run(void* self) {
        auto* f = static_cast<Flood*>(self);
        // On the worker: the queue can only drain after this returns, so nothing here may wait for it.
        for (int i = 0; i < 3000; ++i)
            if (api().cuMemsetD32Async(f->target, uint32_t(i), 1, f->stream) == CUDA_SUCCESS) ++f->queued;
    }
};

TEST_F(CpuBackPressureTest, AHostCallbackQueuingWorkNeverWaits) {
    CUdeviceptr d = 0;
    ASSERT_EQ(api().cuMemAlloc_v2(&d, 4), CUDA_SUCCESS);
    CUstream s = nullptr;
    ASSERT_EQ(api().cuStreamCreate(&s, 0), CUDA_SUCCESS);
    Flood flood{s, d, 0};
    ASSERT_EQ(api().cuLaunchHostFunc(s, Flood::run, &flood), CUDA_SUCCESS);
    EXPECT_EQ(api().cuCtxSynchronize(), CUDA_SUCCESS);
    EXPECT_EQ(flood.queued, 3000);
    EXPECT_EQ(api().cuStreamSynchronize(s), CUDA_SUCCESS);
    uint32_t last = 0;
    ASSERT_EQ(api().cuMemcpyDtoH_v2(&last, d, 4), CUDA_SUCCESS);
    EXPECT_EQ(last, 2999u);
    EXPECT_EQ(api().cuStreamDestroy_v2(s), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemFree_v2(d), CUDA_SUCCESS);
}

TEST_F(CpuBackPressureTest, LaunchesFromOneThreadRunAtFullSpeed) {
    // 20000 launches without synchronising: the producer waits at the limit but the result is complete.
    CUmodule m = load_test_module();
    CUfunction add = function(m, "add_one");
    CUdeviceptr d = 0;
    ASSERT_EQ(api().cuMemAlloc_v2(&d, 4), CUDA_SUCCESS);
    uint32_t n = 1;
    void* params[] = {&d, &n};
    for (int i = 0; i < 20000; ++i)
        ASSERT_EQ(api().cuLaunchKernel(add, 1, 1, 1, 1, 1, 1, 0, nullptr, params, nullptr), CUDA_SUCCESS);
    EXPECT_EQ(api().cuCtxSynchronize(), CUDA_SUCCESS);
    uint32_t v = 0;
    ASSERT_EQ(api().cuMemcpyDtoH_v2(&v, d, 4), CUDA_SUCCESS);
    EXPECT_EQ(v, 20000u);
    EXPECT_EQ(api().cuMemFree_v2(d), CUDA_SUCCESS);
}

} // namespace
} // namespace d4r::runtime::cpu_test
