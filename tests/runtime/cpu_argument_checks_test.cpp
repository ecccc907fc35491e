// cpu backend: arguments NVIDIA's driver refuses or accepts where d4r answered otherwise (issue 14,
// item 19): a 1 TiB stack limit, an empty page-locked allocation, a copy to an array that starts inside an
// element, a cluster that does not divide the grid.
#include <cstdint>
#include <cstring>
#include <vector>

#include "cpu_test_util.h"

namespace d4r::runtime::cpu_test {
namespace {

using CpuArgumentChecksTest = CpuBackendTest;

TEST_F(CpuArgumentChecksTest, StackLimitIsBoundedHeapLimitIsNot) {
    EXPECT_EQ(api().cuCtxSetLimit(CU_LIMIT_STACK_SIZE, size_t(1) << 40), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuCtxSetLimit(CU_LIMIT_STACK_SIZE, SIZE_MAX), CUDA_ERROR_INVALID_VALUE);
    size_t v = 0;
    EXPECT_EQ(api().cuCtxGetLimit(&v, CU_LIMIT_STACK_SIZE), CUDA_SUCCESS);
    EXPECT_EQ(v, 1024u); // unchanged
    EXPECT_EQ(api().cuCtxSetLimit(CU_LIMIT_STACK_SIZE, 64 * 1024), CUDA_SUCCESS);
    EXPECT_EQ(api().cuCtxGetLimit(&v, CU_LIMIT_STACK_SIZE), CUDA_SUCCESS);
    EXPECT_EQ(v, 64u * 1024);
    EXPECT_EQ(api().cuCtxSetLimit(CU_LIMIT_MALLOC_HEAP_SIZE, SIZE_MAX), CUDA_SUCCESS);
    EXPECT_EQ(api().cuCtxGetLimit(&v, CU_LIMIT_MALLOC_HEAP_SIZE), CUDA_SUCCESS);
    EXPECT_EQ(v, SIZE_MAX);
}

TEST_F(CpuArgumentChecksTest, EmptyHostAllocationSucceeds) {
    void* p = reinterpret_cast<void*>(0x1);
    EXPECT_EQ(api().cuMemAllocHost_v2(&p, 0), CUDA_SUCCESS);
    EXPECT_EQ(p, nullptr);
    p = reinterpret_cast<void*>(0x1);
    EXPECT_EQ(api().cuMemHostAlloc(&p, 0, CU_MEMHOSTALLOC_PORTABLE), CUDA_SUCCESS);
    EXPECT_EQ(p, nullptr);
    EXPECT_EQ(api().cuMemAllocHost_v2(nullptr, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuMemHostAlloc(&p, 0, 0x80), CUDA_ERROR_INVALID_VALUE); // unknown flag
}

// NVIDIA's driver accepts a copy to or from an array at a byte offset inside an element (H200, driver 580:
// tests/device/hostile.sh, memcpy2d_array_unaligned); the bytes land at that offset.
TEST_F(CpuArgumentChecksTest, ArrayCopiesAtAByteOffsetInsideAnElement) {
    CUDA_ARRAY_DESCRIPTOR d{};
    d.Width = 16;
    d.Height = 4;
    d.Format = CU_AD_FORMAT_FLOAT;
    d.NumChannels = 1;
    CUarray a = nullptr;
    ASSERT_EQ(api().cuArrayCreate_v2(&a, &d), CUDA_SUCCESS);
    std::vector<uint8_t> zeros(64, 0), src(8);
    for (size_t i = 0; i < src.size(); ++i) src[i] = uint8_t(0xa0 + i);
    CUDA_MEMCPY2D c{};
    c.srcMemoryType = CU_MEMORYTYPE_HOST;
    c.srcHost = zeros.data();
    c.srcPitch = 64;
    c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    c.dstArray = a;
    c.WidthInBytes = 64;
    c.Height = 1;
    ASSERT_EQ(api().cuMemcpy2D_v2(&c), CUDA_SUCCESS);
    c.srcHost = src.data();
    c.srcPitch = 8;
    c.dstXInBytes = 2;
    c.WidthInBytes = 8;
    EXPECT_EQ(api().cuMemcpy2D_v2(&c), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemcpy2DUnaligned_v2(&c), CUDA_SUCCESS);
    std::vector<uint8_t> row(64, 0xff);
    CUDA_MEMCPY2D back{};
    back.srcMemoryType = CU_MEMORYTYPE_ARRAY;
    back.srcArray = a;
    back.dstMemoryType = CU_MEMORYTYPE_HOST;
    back.dstHost = row.data();
    back.dstPitch = 64;
    back.WidthInBytes = 64;
    back.Height = 1;
    ASSERT_EQ(api().cuMemcpy2D_v2(&back), CUDA_SUCCESS);
    for (size_t i = 0; i < 64; ++i) EXPECT_EQ(row[i], i >= 2 && i < 10 ? src[i - 2] : 0) << i;
    // Past the row is still refused.
    c.dstXInBytes = 60;
    EXPECT_EQ(api().cuMemcpy2D_v2(&c), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuArrayDestroy(a), CUDA_SUCCESS);
}

// CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION's value: { unsigned x, y, z } at the start of the union.
CUlaunchAttribute cluster(unsigned x, unsigned y, unsigned z) {
    CUlaunchAttribute a{};
    a.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    const unsigned dim[3] = {x, y, z};
    std::memcpy(&a.value, dim, sizeof dim);
    return a;
}

TEST_F(CpuArgumentChecksTest, ClusterMustDivideTheGrid) {
    CUmodule m = load_test_module();
    CUfunction f = function(m, "add_one");
    CUdeviceptr d = 0;
    ASSERT_EQ(api().cuMemAlloc_v2(&d, 6 * 32 * 4), CUDA_SUCCESS);
    uint32_t n = 6 * 32;
    void* params[] = {&d, &n};
    CUlaunchConfig config{};
    config.gridDimX = 6;
    config.gridDimY = 1;
    config.gridDimZ = 1;
    config.blockDimX = 32;
    config.blockDimY = 1;
    config.blockDimZ = 1;
    for (CUlaunchAttribute bad : {cluster(4, 1, 1), cluster(1, 2, 1), cluster(0, 1, 1), cluster(5, 1, 1)}) {
        config.attrs = &bad;
        config.numAttrs = 1;
        EXPECT_EQ(api().cuLaunchKernelEx(&config, f, params, nullptr), CUDA_ERROR_INVALID_CLUSTER_SIZE);
    }
    CUlaunchAttribute good = cluster(2, 1, 1);
    config.attrs = &good;
    config.numAttrs = 1;
    EXPECT_EQ(api().cuLaunchKernelEx(&config, f, params, nullptr), CUDA_SUCCESS);
    good = cluster(3, 1, 1);
    EXPECT_EQ(api().cuLaunchKernelEx(&config, f, params, nullptr), CUDA_SUCCESS);
    EXPECT_EQ(api().cuCtxSynchronize(), CUDA_SUCCESS);
    std::vector<uint32_t> h(n);
    ASSERT_EQ(api().cuMemcpyDtoH_v2(h.data(), d, n * 4), CUDA_SUCCESS);
    for (uint32_t v : h) ASSERT_EQ(v, 2u); // the two accepted launches ran, the refused ones did not
    EXPECT_EQ(api().cuMemFree_v2(d), CUDA_SUCCESS);
}

} // namespace
} // namespace d4r::runtime::cpu_test
