// The CUDA 1.0 execution-control layer (runtime/legacy_launch.h) over the cpu backend: block shape,
// parameters and launches give the kernel's results; a launch goes through the layers above it (a
// replay dump is written for it, as for cuLaunchKernel); bad values and handles are refused; a function's
// state is forgotten when its module is unloaded.
#include <gtest/gtest.h>

#include <filesystem>

#include "cpu_test_util.h"
#include "runtime/legacy_launch.h"
#include "runtime/module_registry.h"
#include "runtime/observe/observe_layer.h"
#include "runtime_fixture.h"
#include "test_support.h"

namespace d4r::runtime::cpu_test {
namespace {

namespace fs = std::filesystem;

size_t count_dumps(const fs::path& dir) {
    size_t n = 0;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().filename().string().rfind("replay-", 0) == 0) ++n;
    return n;
}

class LegacyLaunchTest : public CpuBackendTest {
protected:
    // The cpu backend under the module registry and a replay-dump layer, with the legacy layer on top
    // launching through the dump layer (as the runtime installs it under its trace).
    void SetUp() override {
        CpuBackendTest::SetUp();
        runtime = rt_test::install_runtime_over(api());
        registry = make_module_registry_table(*runtime, api(), RegistryOptions{.keep_ptx_text = true});
        ObserveConfig config;
        config.dump = LaunchSelector{"", 0, 1000};
        config.dump_dir = dumps.path().string();
        observed = make_observe_table(*runtime, registry, config);
        top = observed;
        install_legacy_launch(*runtime, top, api(), &observed);
    }

    d4r::test::TempDir dumps;
    std::unique_ptr<Runtime> runtime; // holds the layers' state
    ApiTable registry, observed, top;
};

TEST_F(LegacyLaunchTest, LaunchesRunTheKernelThroughTheLayersAbove) {
    CUmodule m = nullptr;
    ASSERT_EQ(top.cuModuleLoadData(&m, kTestPtx), CUDA_SUCCESS);
    CUfunction f = nullptr;
    ASSERT_EQ(top.cuModuleGetFunction(&f, m, "add_one"), CUDA_SUCCESS);
    CUdeviceptr p = 0;
    ASSERT_EQ(top.cuMemAlloc_v2(&p, 4 * 200), CUDA_SUCCESS);
    ASSERT_EQ(top.cuMemsetD32_v2(p, 9, 200), CUDA_SUCCESS);
    // add_one(.u64 p, .u32 n): p at 0, n at 8.
    EXPECT_EQ(top.cuParamSetv(f, 0, &p, sizeof p), CUDA_SUCCESS);
    EXPECT_EQ(top.cuParamSeti(f, 8, 150), CUDA_SUCCESS);
    EXPECT_EQ(top.cuParamSetSize(f, 12), CUDA_SUCCESS);
    EXPECT_EQ(top.cuFuncSetBlockShape(f, 64, 1, 1), CUDA_SUCCESS);
    EXPECT_EQ(top.cuFuncSetSharedSize(f, 0), CUDA_SUCCESS);
    EXPECT_EQ(count_dumps(dumps.path()), 0u);
    EXPECT_EQ(top.cuLaunchGrid(f, 3, 1), CUDA_SUCCESS);
    EXPECT_EQ(top.cuLaunchGridAsync(f, 3, 1, nullptr), CUDA_SUCCESS);
    ASSERT_EQ(top.cuCtxSynchronize(), CUDA_SUCCESS);
    // The dump layer saw both launches.
    EXPECT_EQ(count_dumps(dumps.path()), 2u);
    std::vector<uint32_t> out(200);
    ASSERT_EQ(top.cuMemcpyDtoH_v2(out.data(), p, 800), CUDA_SUCCESS);
    EXPECT_EQ(out[0], 11u);
    EXPECT_EQ(out[149], 11u);
    EXPECT_EQ(out[150], 9u);
    EXPECT_EQ(top.cuLaunch(f), CUDA_SUCCESS); // one block of 64
    ASSERT_EQ(top.cuMemcpyDtoH_v2(out.data(), p, 800), CUDA_SUCCESS);
    EXPECT_EQ(out[63], 12u);
    EXPECT_EQ(out[64], 11u);
    EXPECT_EQ(count_dumps(dumps.path()), 3u);
    top.cuMemFree_v2(p);
    EXPECT_EQ(top.cuModuleUnload(m), CUDA_SUCCESS);
}

TEST_F(LegacyLaunchTest, BadValuesAndHandlesAreRefused) {
    CUmodule m = nullptr;
    ASSERT_EQ(top.cuModuleLoadData(&m, kTestPtx), CUDA_SUCCESS);
    CUfunction f = nullptr;
    ASSERT_EQ(top.cuModuleGetFunction(&f, m, "add_one"), CUDA_SUCCESS);
    CUdeviceptr p = 0;
    EXPECT_EQ(top.cuFuncSetBlockShape(f, 0, 1, 1), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(top.cuFuncSetBlockShape(f, 1, -1, 1), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(top.cuParamSetv(f, -4, &p, sizeof p), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(top.cuParamSetv(f, 0, nullptr, 8), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(top.cuParamSetv(f, 32760, &p, sizeof p), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(top.cuParamSetSize(f, 40000), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(top.cuLaunchGrid(f, 0, 1), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(top.cuLaunchGridAsync(f, 1, -2, nullptr), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(top.cuParamSeti(reinterpret_cast<CUfunction>(0x10), 0, 1), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_EQ(top.cuLaunchGrid(nullptr, 1, 1), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_EQ(top.cuParamSetf(f, 8, 1.5f), CUDA_SUCCESS);
    EXPECT_EQ(count_dumps(dumps.path()), 0u);
    EXPECT_EQ(top.cuModuleUnload(m), CUDA_SUCCESS);
    // The handle died with its module.
    EXPECT_EQ(top.cuParamSeti(f, 0, 1), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_EQ(top.cuLaunch(f), CUDA_ERROR_INVALID_HANDLE);
}

TEST_F(LegacyLaunchTest, UnloadForgetsTheFunctionsState) {
    // A kernel whose handle may be reused by the next load must start from the defaults again: one
    // block of one thread. add_one(.u64 p, .u32 n) adds 1 to p[i] for every thread i < n.
    CUdeviceptr p = 0;
    ASSERT_EQ(top.cuMemAlloc_v2(&p, 4 * 64), CUDA_SUCCESS);
    ASSERT_EQ(top.cuMemsetD32_v2(p, 0, 64), CUDA_SUCCESS);
    for (int round = 0; round < 2; ++round) {
        CUmodule m = nullptr;
        ASSERT_EQ(top.cuModuleLoadData(&m, kTestPtx), CUDA_SUCCESS);
        CUfunction f = nullptr;
        ASSERT_EQ(top.cuModuleGetFunction(&f, m, "add_one"), CUDA_SUCCESS);
        EXPECT_EQ(top.cuParamSetv(f, 0, &p, sizeof p), CUDA_SUCCESS);
        EXPECT_EQ(top.cuParamSeti(f, 8, 64), CUDA_SUCCESS);
        EXPECT_EQ(top.cuParamSetSize(f, 12), CUDA_SUCCESS);
        if (round == 0) {
            EXPECT_EQ(top.cuFuncSetBlockShape(f, 64, 1, 1), CUDA_SUCCESS);
        }
        EXPECT_EQ(top.cuLaunch(f), CUDA_SUCCESS);
        ASSERT_EQ(top.cuCtxSynchronize(), CUDA_SUCCESS);
        EXPECT_EQ(top.cuModuleUnload(m), CUDA_SUCCESS);
    }
    std::vector<uint32_t> out(64);
    ASSERT_EQ(top.cuMemcpyDtoH_v2(out.data(), p, out.size() * 4), CUDA_SUCCESS);
    EXPECT_EQ(out[0], 2u); // both rounds
    EXPECT_EQ(out[1], 1u); // the first round's 64 threads only: the second ran one thread
    EXPECT_EQ(out[63], 1u);
    top.cuMemFree_v2(p);
}

} // namespace
} // namespace d4r::runtime::cpu_test
