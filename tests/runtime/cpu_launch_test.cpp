// cpu backend: launches (parameters, extra buffers, validation), sticky faults, occupancy.
#include <cstring>
#include <thread>

#include "cpu_test_util.h"

namespace d4r::runtime::cpu_test {
namespace {

using CpuLaunchTest = CpuBackendTest;

TEST_F(CpuLaunchTest, KernelParamsAndExtraBuffer) {
    CUmodule m = load_test_module();
    CUfunction f = function(m, "params");
    CUdeviceptr out = 0;
    ASSERT_EQ(api().cuMemAlloc_v2(&out, 24), CUDA_SUCCESS);
    uint8_t a = 200;
    uint64_t b = 0x0123456789abcdefull;
    float c = -2.5f;
    void* params[] = {&out, &a, &b, &c};
    ASSERT_EQ(api().cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, nullptr, params, nullptr), CUDA_SUCCESS);
    uint64_t got[3] = {};
    ASSERT_EQ(api().cuMemcpyDtoH_v2(got, out, 24), CUDA_SUCCESS);
    uint32_t cbits;
    std::memcpy(&cbits, &c, 4);
    EXPECT_EQ(got[0], 200u);
    EXPECT_EQ(got[1], b);
    EXPECT_EQ(got[2], cbits);

    // The same through CU_LAUNCH_PARAM_BUFFER_*: the PTX ABI puts the parameters at 0, 8, 16 and 24.
    uint8_t buffer[28] = {};
    uint8_t a2 = 17;
    uint64_t b2 = 99;
    float c2 = 1.0f;
    std::memcpy(buffer + 0, &out, 8);
    std::memcpy(buffer + 8, &a2, 1);
    std::memcpy(buffer + 16, &b2, 8);
    std::memcpy(buffer + 24, &c2, 4);
    size_t size = sizeof buffer;
    void* extra[] = {D4R_CU_LAUNCH_PARAM_BUFFER_POINTER, buffer, D4R_CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
                     D4R_CU_LAUNCH_PARAM_END};
    ASSERT_EQ(api().cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, extra), CUDA_SUCCESS);
    ASSERT_EQ(api().cuMemcpyDtoH_v2(got, out, 24), CUDA_SUCCESS);
    EXPECT_EQ(got[0], 17u);
    EXPECT_EQ(got[1], 99u);
    EXPECT_EQ(got[2], 0x3f800000u);

    size_t short_size = 20;
    void* short_extra[] = {D4R_CU_LAUNCH_PARAM_BUFFER_POINTER, buffer, D4R_CU_LAUNCH_PARAM_BUFFER_SIZE, &short_size,
                           D4R_CU_LAUNCH_PARAM_END};
    EXPECT_EQ(api().cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, short_extra), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, nullptr, params, extra), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr), CUDA_ERROR_INVALID_VALUE);

    // cuLaunchKernelEx.
    CUlaunchConfig cfg{};
    cfg.gridDimX = cfg.gridDimY = cfg.gridDimZ = 1;
    cfg.blockDimX = cfg.blockDimY = cfg.blockDimZ = 1;
    a = 5;
    ASSERT_EQ(api().cuLaunchKernelEx(&cfg, f, params, nullptr), CUDA_SUCCESS);
    ASSERT_EQ(api().cuMemcpyDtoH_v2(got, out, 8), CUDA_SUCCESS);
    EXPECT_EQ(got[0], 5u);
    EXPECT_EQ(api().cuLaunchKernelEx(nullptr, f, params, nullptr), CUDA_ERROR_INVALID_VALUE);
    api().cuMemFree_v2(out);
    api().cuModuleUnload(m);
}

TEST_F(CpuLaunchTest, ShapeValidation) {
    CUmodule m = load_test_module();
    CUfunction f = function(m, "add_one");
    CUdeviceptr d = 0;
    ASSERT_EQ(api().cuMemAlloc_v2(&d, 4096 * 4), CUDA_SUCCESS);
    uint32_t n = 4096;
    void* p[] = {&d, &n};
    auto launch = [&](unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz) {
        return api().cuLaunchKernel(f, gx, gy, gz, bx, by, bz, 0, nullptr, p, nullptr);
    };
    EXPECT_EQ(launch(1, 1, 1, 1025, 1, 1), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(launch(1, 1, 1, 32, 32, 2), CUDA_ERROR_INVALID_VALUE); // 2048 threads
    EXPECT_EQ(launch(1, 1, 1, 1, 1, 65), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(launch(0, 1, 1, 32, 1, 1), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(launch(1, 1, 1, 32, 0, 1), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(launch(1, 65536, 1, 32, 1, 1), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(launch(1, 1, 65536, 32, 1, 1), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuLaunchKernel(nullptr, 1, 1, 1, 1, 1, 1, 0, nullptr, p, nullptr), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_EQ(api().cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, reinterpret_cast<CUstream>(&n), p, nullptr),
              CUDA_ERROR_INVALID_HANDLE);
    // None of the refused launches ran, and the context is healthy.
    ASSERT_EQ(launch(4, 1, 1, 1024, 1, 1), CUDA_SUCCESS);
    std::vector<uint32_t> h(4096);
    ASSERT_EQ(api().cuMemcpyDtoH_v2(h.data(), d, 4096 * 4), CUDA_SUCCESS);
    for (uint32_t v : h) ASSERT_EQ(v, 1u);
    api().cuMemFree_v2(d);
    api().cuModuleUnload(m);
}

struct FaultCase {
    const char* kernel;
    uint64_t offset; // added to a valid allocation; ~0 = an address nothing owns
    CUresult expected;
};

TEST_F(CpuLaunchTest, FaultsAreStickyAndPerContext) {
    const FaultCase cases[] = {{"store_at", ~0ull, CUDA_ERROR_ILLEGAL_ADDRESS},
                               {"store_at", 2, CUDA_ERROR_MISALIGNED_ADDRESS},
                               {"trapper", 0, CUDA_ERROR_ILLEGAL_INSTRUCTION}};
    for (const FaultCase& c : cases) {
        SCOPED_TRACE(c.kernel);
        CUcontext ctx = nullptr;
        ASSERT_EQ(api().cuCtxCreate_v2(&ctx, 0, 0), CUDA_SUCCESS);
        CUmodule m = load_test_module();
        CUfunction f = function(m, c.kernel);
        CUdeviceptr buf = 0;
        ASSERT_EQ(api().cuMemAlloc_v2(&buf, 64), CUDA_SUCCESS);
        uint64_t target = c.offset == ~0ull ? 0x10 : buf + c.offset;
        uint32_t value = 1;
        void* params[] = {&target, &value};
        CUstream s = nullptr;
        ASSERT_EQ(api().cuStreamCreate(&s, 0), CUDA_SUCCESS);
        // The launch itself succeeds; the fault is reported by what synchronises afterwards.
        ASSERT_EQ(api().cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, s, std::strcmp(c.kernel, "trapper") ? params : nullptr,
                                       nullptr),
                  CUDA_SUCCESS);
        EXPECT_EQ(api().cuStreamSynchronize(s), c.expected);
        EXPECT_EQ(api().cuCtxSynchronize(), c.expected);
        uint32_t h = 0;
        EXPECT_EQ(api().cuMemcpyDtoH_v2(&h, buf, 4), c.expected);
        EXPECT_EQ(api().cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, nullptr, params, nullptr), c.expected);
        EXPECT_EQ(api().cuStreamQuery(s), c.expected);
        // Another context is unaffected.
        CUcontext popped = nullptr;
        ASSERT_EQ(api().cuCtxPopCurrent_v2(&popped), CUDA_SUCCESS);
        ASSERT_EQ(popped, ctx);
        CUdeviceptr ok = 0;
        EXPECT_EQ(api().cuMemAlloc_v2(&ok, 4), CUDA_SUCCESS);
        EXPECT_EQ(api().cuMemcpyHtoD_v2(ok, &value, 4), CUDA_SUCCESS);
        EXPECT_EQ(api().cuCtxSynchronize(), CUDA_SUCCESS);
        EXPECT_EQ(api().cuMemFree_v2(ok), CUDA_SUCCESS);
        EXPECT_EQ(api().cuCtxDestroy_v2(ctx), CUDA_SUCCESS);
    }
}

TEST_F(CpuLaunchTest, Occupancy) {
    CUmodule m = load_test_module();
    CUfunction add = function(m, "add_one");
    CUfunction shared = function(m, "uses_shared");
    int blocks = 0;
    // 256 threads = 8 warps of the SM's 64; 32 registers x 256 threads of 65536: 8 blocks.
    EXPECT_EQ(api().cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, add, 256, 0), CUDA_SUCCESS);
    EXPECT_EQ(blocks, 8);
    // 32 threads: limited by the 32 blocks an SM holds.
    EXPECT_EQ(api().cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, add, 32, 0), CUDA_SUCCESS);
    EXPECT_EQ(blocks, 32);
    // Shared memory: 1 KiB static + 100 KiB dynamic + 1 KiB reserved of 228 KiB: 2 blocks.
    ASSERT_EQ(api().cuFuncSetAttribute(shared, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 100 * 1024),
              CUDA_SUCCESS);
    EXPECT_EQ(api().cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&blocks, shared, 256, 100 * 1024, 0),
              CUDA_SUCCESS);
    EXPECT_EQ(blocks, 2);
    EXPECT_EQ(api().cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, add, 2048, 0), CUDA_SUCCESS);
    EXPECT_EQ(blocks, 0);
    int min_grid = 0, block = 0;
    EXPECT_EQ(api().cuOccupancyMaxPotentialBlockSize(&min_grid, &block, add, nullptr, 0, 0), CUDA_SUCCESS);
    EXPECT_EQ(block, 1024); // 2 x 1024 fills an SM's 2048 threads; no smaller size does better
    EXPECT_EQ(min_grid, 2 * static_cast<int>(std::thread::hardware_concurrency()));
    EXPECT_EQ(api().cuOccupancyMaxPotentialBlockSize(&min_grid, &block, add, nullptr, 0, 96), CUDA_SUCCESS);
    EXPECT_EQ(block, 64); // 32 blocks x 64 = 2048 threads beats 21 x 96 = 2016
    size_t avail = 0;
    EXPECT_EQ(api().cuOccupancyAvailableDynamicSMemPerBlock(&avail, shared, 2, 256), CUDA_SUCCESS);
    // Half of 228 KiB less reserved and static shared is 112 KiB, above the function's 100 KiB setting.
    EXPECT_EQ(avail, size_t(100 * 1024));
    EXPECT_EQ(api().cuOccupancyAvailableDynamicSMemPerBlock(&avail, shared, 4, 256), CUDA_SUCCESS);
    EXPECT_EQ(avail, size_t(228 * 1024 / 4 - 1024 - 1024));
    EXPECT_EQ(api().cuOccupancyMaxActiveBlocksPerMultiprocessor(nullptr, add, 256, 0), CUDA_ERROR_INVALID_VALUE);
    api().cuModuleUnload(m);
}

} // namespace
} // namespace d4r::runtime::cpu_test
