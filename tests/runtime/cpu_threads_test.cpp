// cpu backend: several host threads allocating, launching, copying and freeing at once, on one shared
// context and on contexts of their own (run under the asan preset as well).
#include <atomic>
#include <thread>

#include "cpu_test_util.h"

namespace d4r::runtime::cpu_test {
namespace {

using CpuThreadsTest = CpuBackendTest;

void worker(CUcontext shared, bool own_context, std::atomic<int>& failures) {
    auto check = [&](CUresult r) {
        if (r != CUDA_SUCCESS) failures.fetch_add(1);
        return r == CUDA_SUCCESS;
    };
    CUcontext own = nullptr;
    if (own_context) {
        if (!check(api().cuCtxCreate_v2(&own, 0, 0))) return;
    } else if (!check(api().cuCtxSetCurrent(shared))) {
        return;
    }
    CUmodule m = nullptr;
    if (!check(api().cuModuleLoadData(&m, kTestPtx))) return;
    CUfunction add = nullptr;
    check(api().cuModuleGetFunction(&add, m, "add_one"));
    CUstream s = nullptr;
    check(api().cuStreamCreate(&s, 0));
    for (int iter = 0; iter < 15; ++iter) {
        uint32_t n = 64 + 37 * iter;
        std::vector<uint32_t> h(n);
        for (uint32_t i = 0; i < n; ++i) h[i] = i * 3 + iter;
        CUdeviceptr d = 0;
        if (!check(api().cuMemAlloc_v2(&d, n * 4))) break;
        check(api().cuMemcpyHtoDAsync_v2(d, h.data(), n * 4, s));
        void* params[] = {&d, &n};
        check(api().cuLaunchKernel(add, (n + 63) / 64, 1, 1, 64, 1, 1, 0, s, params, nullptr));
        check(api().cuLaunchKernel(add, (n + 127) / 128, 1, 1, 128, 1, 1, 0, s, params, nullptr));
        std::vector<uint32_t> out(n);
        check(api().cuMemcpyDtoHAsync_v2(out.data(), d, n * 4, s));
        check(api().cuStreamSynchronize(s));
        for (uint32_t i = 0; i < n; ++i)
            if (out[i] != i * 3 + iter + 2) {
                failures.fetch_add(1);
                break;
            }
        check(api().cuMemFree_v2(d));
    }
    check(api().cuStreamDestroy_v2(s));
    check(api().cuModuleUnload(m));
    if (own) check(api().cuCtxDestroy_v2(own));
}

TEST_F(CpuThreadsTest, ConcurrentAllocLaunchFree) {
    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    for (int i = 0; i < 6; ++i) threads.emplace_back(worker, m_ctx, i % 3 == 2, std::ref(failures));
    for (auto& t : threads) t.join();
    EXPECT_EQ(failures.load(), 0);
    EXPECT_EQ(api().cuCtxSynchronize(), CUDA_SUCCESS);
}

TEST_F(CpuThreadsTest, DestroyingHandlesWhileOthersUseThem) {
    // One thread creates and destroys streams and events while another queries whatever it last saw:
    // stale handles must give INVALID_HANDLE, never a crash.
    std::atomic<CUstream> last_stream{nullptr};
    std::atomic<CUevent> last_event{nullptr};
    std::atomic<bool> stop{false};
    std::atomic<int> unexpected{0};
    std::thread user([&] {
        api().cuCtxSetCurrent(m_ctx);
        while (!stop.load()) {
            CUresult r = api().cuStreamQuery(last_stream.load());
            if (r != CUDA_SUCCESS && r != CUDA_ERROR_INVALID_HANDLE && r != CUDA_ERROR_NOT_READY) unexpected++;
            CUevent e = last_event.load();
            if (e) {
                r = api().cuEventQuery(e);
                if (r != CUDA_SUCCESS && r != CUDA_ERROR_INVALID_HANDLE && r != CUDA_ERROR_NOT_READY) unexpected++;
                r = api().cuEventRecord(e, last_stream.load());
                if (r != CUDA_SUCCESS && r != CUDA_ERROR_INVALID_HANDLE) unexpected++;
            }
        }
    });
    for (int i = 0; i < 300; ++i) {
        CUstream s = nullptr;
        CUevent e = nullptr;
        ASSERT_EQ(api().cuStreamCreate(&s, 0), CUDA_SUCCESS);
        ASSERT_EQ(api().cuEventCreate(&e, 0), CUDA_SUCCESS);
        last_stream = s;
        last_event = e;
        std::this_thread::yield();
        ASSERT_EQ(api().cuEventDestroy_v2(e), CUDA_SUCCESS);
        ASSERT_EQ(api().cuStreamDestroy_v2(s), CUDA_SUCCESS);
    }
    stop = true;
    user.join();
    EXPECT_EQ(unexpected.load(), 0);
    EXPECT_EQ(api().cuCtxSynchronize(), CUDA_SUCCESS);
}

} // namespace
} // namespace d4r::runtime::cpu_test
