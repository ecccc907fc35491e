// cpu backend: the unversioned and legacy entry points (device properties, PCI ids, context attach,
// 32-bit memory calls, array copies; the CUDA 1.0 execution-control API is a layer: legacy_launch_test).
#include <climits>
#include <cstring>
#include <numeric>

#include "cpu_test_util.h"

namespace d4r::runtime::cpu_test {
namespace {

using CpuLegacyTest = CpuBackendTest;

TEST_F(CpuLegacyTest, DevicePropertiesAndPciIds) {
    CUdevprop prop{};
    EXPECT_EQ(api().cuDeviceGetProperties(nullptr, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuDeviceGetProperties(&prop, 1), CUDA_ERROR_INVALID_DEVICE);
    ASSERT_EQ(api().cuDeviceGetProperties(&prop, 0), CUDA_SUCCESS);
    int v = 0;
    api().cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 0);
    EXPECT_EQ(prop.maxThreadsPerBlock, v);
    api().cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, 0);
    EXPECT_EQ(prop.maxGridSize[1], v);
    EXPECT_EQ(prop.SIMDWidth, 32);
    EXPECT_EQ(prop.maxThreadsDim[2], 64);
    EXPECT_GT(prop.clockRate, 0);

    char bus[32] = {};
    ASSERT_EQ(api().cuDeviceGetPCIBusId(bus, sizeof bus, 0), CUDA_SUCCESS);
    EXPECT_STREQ(bus, "0000:00:00.0");
    EXPECT_EQ(api().cuDeviceGetPCIBusId(bus, 0, 0), CUDA_ERROR_INVALID_VALUE);
    CUdevice dev = -1;
    EXPECT_EQ(api().cuDeviceGetByPCIBusId(&dev, bus), CUDA_SUCCESS);
    EXPECT_EQ(dev, 0);
    EXPECT_EQ(api().cuDeviceGetByPCIBusId(&dev, "00:00.0"), CUDA_SUCCESS);
    EXPECT_EQ(api().cuDeviceGetByPCIBusId(&dev, "0000:17:00.0"), CUDA_ERROR_INVALID_DEVICE);
    EXPECT_EQ(api().cuDeviceGetByPCIBusId(&dev, "bus zero"), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuDeviceGetByPCIBusId(nullptr, bus), CUDA_ERROR_INVALID_VALUE);
}

TEST_F(CpuLegacyTest, ContextNamesAttachAndDetach) {
    CUcontext c = nullptr;
    ASSERT_EQ(api().cuCtxAttach(&c, 0), CUDA_SUCCESS);
    EXPECT_EQ(c, m_ctx);
    CUcontext refused = m_ctx;
    EXPECT_EQ(api().cuCtxAttach(&refused, 1), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(refused, nullptr);                   // out-parameters are cleared first
    EXPECT_EQ(api().cuCtxDetach(c), CUDA_SUCCESS); // the attach reference
    CUsharedconfig config = CU_SHARED_MEM_CONFIG_DEFAULT_BANK_SIZE;
    EXPECT_EQ(api().cuCtxGetSharedMemConfig(&config), CUDA_SUCCESS);
    EXPECT_EQ(static_cast<int>(config), 1);
    EXPECT_EQ(api().cuCtxSetSharedMemConfig(static_cast<CUsharedconfig>(2)), CUDA_SUCCESS);
    EXPECT_EQ(api().cuCtxSetSharedMemConfig(static_cast<CUsharedconfig>(7)), CUDA_ERROR_INVALID_VALUE);
    // The unversioned push/pop/destroy are the versioned functions.
    CUcontext popped = nullptr;
    ASSERT_EQ(api().cuCtxPopCurrent(&popped), CUDA_SUCCESS);
    EXPECT_EQ(popped, m_ctx);
    EXPECT_EQ(api().cuCtxDetach(m_ctx), CUDA_ERROR_INVALID_CONTEXT); // must be current
    ASSERT_EQ(api().cuCtxPushCurrent(m_ctx), CUDA_SUCCESS);
    EXPECT_EQ(api().cuCtxDetach(m_ctx), CUDA_SUCCESS); // the creator's reference: destroyed
    m_ctx = nullptr;
    CUdevice current = -1;
    EXPECT_EQ(api().cuCtxGetDevice(&current), CUDA_ERROR_INVALID_CONTEXT);
    ASSERT_EQ(api().cuCtxCreate(&m_ctx, 0, 0), CUDA_SUCCESS);
    CUstream s = nullptr;
    ASSERT_EQ(api().cuStreamCreate(&s, 0), CUDA_SUCCESS);
    EXPECT_EQ(api().cuStreamDestroy(s), CUDA_SUCCESS);
    CUevent e = nullptr;
    ASSERT_EQ(api().cuEventCreate(&e, 0), CUDA_SUCCESS);
    EXPECT_EQ(api().cuEventDestroy(e), CUDA_SUCCESS);
}

TEST_F(CpuLegacyTest, ThirtyTwoBitMemoryCalls) {
    unsigned free_bytes = 0, total = 0;
    ASSERT_EQ(api().cuMemGetInfo(&free_bytes, &total), CUDA_SUCCESS);
    EXPECT_GT(total, 0u);
    EXPECT_LE(free_bytes, total);
    EXPECT_EQ(api().cuMemGetInfo(nullptr, &total), CUDA_ERROR_INVALID_VALUE);
    CUdeviceptr_v1 p = 0;
    EXPECT_EQ(api().cuMemAlloc(nullptr, 16), CUDA_ERROR_INVALID_VALUE);
    CUresult r = api().cuMemAlloc(&p, 64);
    if (r == CUDA_SUCCESS) { // only when the allocation happens to lie below 4 GiB
        uint32_t in[16], out[16] = {};
        std::iota(in, in + 16, 5u);
        EXPECT_EQ(api().cuMemcpyHtoD(p, in, sizeof in), CUDA_SUCCESS);
        EXPECT_EQ(api().cuMemcpyDtoH(out, p, sizeof out), CUDA_SUCCESS);
        EXPECT_EQ(std::memcmp(in, out, sizeof in), 0);
        EXPECT_EQ(api().cuMemFree(p), CUDA_SUCCESS);
    } else {
        EXPECT_EQ(r, CUDA_ERROR_OUT_OF_MEMORY);
        EXPECT_EQ(p, 0u);
    }
    EXPECT_EQ(api().cuMemFree(0x1000), CUDA_ERROR_INVALID_VALUE);
}

TEST_F(CpuLegacyTest, ArrayCopiesAndPeerCopy) {
    CUDA_ARRAY_DESCRIPTOR desc{64, 0, CU_AD_FORMAT_UNSIGNED_INT32, 1};
    CUarray a = nullptr, b = nullptr;
    ASSERT_EQ(api().cuArrayCreate_v2(&a, &desc), CUDA_SUCCESS);
    ASSERT_EQ(api().cuArrayCreate_v2(&b, &desc), CUDA_SUCCESS);
    CUdeviceptr d = 0, e = 0;
    ASSERT_EQ(api().cuMemAlloc_v2(&d, 256), CUDA_SUCCESS);
    ASSERT_EQ(api().cuMemAlloc_v2(&e, 256), CUDA_SUCCESS);
    std::vector<uint32_t> in(64), out(64, 0);
    std::iota(in.begin(), in.end(), 100u);
    ASSERT_EQ(api().cuMemcpyHtoD_v2(d, in.data(), 256), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemcpyDtoA_v2(a, 0, d, 256), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemcpyAtoA_v2(b, 16, a, 0, 240), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemcpyAtoD_v2(e, b, 0, 256), CUDA_SUCCESS);
    ASSERT_EQ(api().cuMemcpyDtoH_v2(out.data(), e, 256), CUDA_SUCCESS);
    EXPECT_EQ(out[4], 100u);
    EXPECT_EQ(out[63], 159u);
    EXPECT_EQ(api().cuMemcpyDtoA_v2(a, 8, d, 256), CUDA_ERROR_INVALID_VALUE); // past the array
    std::vector<uint32_t> host(64, 0);
    EXPECT_EQ(api().cuMemcpyAtoHAsync_v2(host.data(), a, 4, 8, nullptr), CUDA_SUCCESS);
    EXPECT_EQ(api().cuCtxSynchronize(), CUDA_SUCCESS);
    EXPECT_EQ(host[0], 101u);
    EXPECT_EQ(host[1], 102u);
    EXPECT_EQ(api().cuMemcpyHtoAAsync_v2(a, 0, in.data() + 10, 4, nullptr), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemcpyAtoH_v2(host.data(), a, 0, 4), CUDA_SUCCESS);
    EXPECT_EQ(host[0], 110u);

    EXPECT_EQ(api().cuMemcpyPeer(e, m_ctx, d, m_ctx, 256), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemcpyPeer(e, nullptr, d, m_ctx, 256), CUDA_ERROR_INVALID_CONTEXT);
    EXPECT_EQ(api().cuArrayDestroy(a), CUDA_SUCCESS);
    EXPECT_EQ(api().cuArrayDestroy(b), CUDA_SUCCESS);
    api().cuMemFree_v2(d);
    api().cuMemFree_v2(e);
}

TEST_F(CpuLegacyTest, TextureReferencesAreNotSupported) {
    CUtexref t = nullptr;
    EXPECT_EQ(api().cuTexRefCreate(&t), CUDA_ERROR_NOT_SUPPORTED);
    CUipcMemHandle h{};
    EXPECT_EQ(api().cuIpcGetMemHandle(&h, 0), CUDA_ERROR_NOT_SUPPORTED);
}

} // namespace
} // namespace d4r::runtime::cpu_test
