// cpu backend: objects of context A used while context B is current (issue 14, item 14). NVIDIA's driver
// refuses a launch of A's function on B's (null) stream and a record of A's event on B's streams, and
// accepts a launch or an async copy on A's own stream whatever context is current.
#include <vector>

#include "cpu_test_util.h"

namespace d4r::runtime::cpu_test {
namespace {

using CpuContextOwnershipTest = CpuBackendTest;

TEST_F(CpuContextOwnershipTest, AnotherContextsObjectsOnlyOnTheirOwnStreams) {
    // Context A: the fixture's; its function, event, stream and memory.
    CUmodule m = load_test_module();
    CUfunction add = function(m, "add_one");
    CUevent ev = nullptr;
    ASSERT_EQ(api().cuEventCreate(&ev, 0), CUDA_SUCCESS);
    CUstream sa = nullptr;
    ASSERT_EQ(api().cuStreamCreate(&sa, 0), CUDA_SUCCESS);
    CUdeviceptr d = 0;
    ASSERT_EQ(api().cuMemAlloc_v2(&d, 64 * 4), CUDA_SUCCESS);
    ASSERT_EQ(api().cuMemsetD32_v2(d, 0, 64), CUDA_SUCCESS);
    uint32_t n = 64;
    void* params[] = {&d, &n};

    // Context B current.
    CUcontext b = nullptr;
    ASSERT_EQ(api().cuCtxCreate_v2(&b, 0, 0), CUDA_SUCCESS);
    CUstream sb = nullptr;
    ASSERT_EQ(api().cuStreamCreate(&sb, 0), CUDA_SUCCESS);
    EXPECT_EQ(api().cuLaunchKernel(add, 1, 1, 1, 64, 1, 1, 0, nullptr, params, nullptr), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_EQ(api().cuLaunchKernel(add, 1, 1, 1, 64, 1, 1, 0, sb, params, nullptr), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_EQ(api().cuLaunchCooperativeKernel(add, 1, 1, 1, 64, 1, 1, 0, D4R_CU_STREAM_LEGACY, params),
              CUDA_ERROR_INVALID_HANDLE);
    EXPECT_EQ(api().cuEventRecord(ev, nullptr), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_EQ(api().cuEventRecord(ev, sb), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_EQ(api().cuEventRecordWithFlags(ev, sb, 0), CUDA_ERROR_INVALID_HANDLE);
    // On A's own stream they are fine, B current or not.
    EXPECT_EQ(api().cuLaunchKernel(add, 1, 1, 1, 64, 1, 1, 0, sa, params, nullptr), CUDA_SUCCESS);
    std::vector<uint32_t> h(64, 0);
    EXPECT_EQ(api().cuMemcpyDtoHAsync_v2(h.data(), d, 64 * 4, sa), CUDA_SUCCESS);
    EXPECT_EQ(api().cuEventRecord(ev, sa), CUDA_SUCCESS);
    EXPECT_EQ(api().cuEventSynchronize(ev), CUDA_SUCCESS);
    EXPECT_EQ(api().cuStreamSynchronize(sa), CUDA_SUCCESS);
    for (uint32_t v : h) ASSERT_EQ(v, 1u); // only the launch on A's stream ran
    // B is healthy: nothing refused became a fault.
    EXPECT_EQ(api().cuCtxSynchronize(), CUDA_SUCCESS);
    EXPECT_EQ(api().cuStreamDestroy_v2(sb), CUDA_SUCCESS);
    EXPECT_EQ(api().cuCtxDestroy_v2(b), CUDA_SUCCESS);
    // A current again: its own null stream takes its function and event.
    EXPECT_EQ(api().cuLaunchKernel(add, 1, 1, 1, 64, 1, 1, 0, nullptr, params, nullptr), CUDA_SUCCESS);
    EXPECT_EQ(api().cuEventRecord(ev, nullptr), CUDA_SUCCESS);
    EXPECT_EQ(api().cuCtxSynchronize(), CUDA_SUCCESS);
    EXPECT_EQ(api().cuStreamDestroy_v2(sa), CUDA_SUCCESS);
    EXPECT_EQ(api().cuEventDestroy_v2(ev), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemFree_v2(d), CUDA_SUCCESS);
}

} // namespace
} // namespace d4r::runtime::cpu_test
