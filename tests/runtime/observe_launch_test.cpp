// The replay-dump layer in front of launches the backend refuses (issue 14, item 3): with dumping on, a
// NULL kernelParams entry, an `extra` with a NULL buffer pointer or size, both kernelParams and extra, or
// a buffer claiming 1 TiB are answered exactly as the bare cpu backend answers them, never a crash or an
// exception out of cuLaunchKernel; a refused launch leaves no dump behind.
#include <gtest/gtest.h>

#include <filesystem>

#include "cpu_test_util.h"
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

class ObserveLaunch : public CpuBackendTest {};

TEST_F(ObserveLaunch, InvalidArgumentsGetTheBackendsAnswerAndNoDump) {
    d4r::test::TempDir dir;
    auto runtime = rt_test::install_runtime_over(api());
    ApiTable registry = make_module_registry_table(*runtime, api(), RegistryOptions{.keep_ptx_text = true});
    ObserveConfig config;
    config.dump = LaunchSelector{"", 0, 1000};
    config.dump_dir = dir.path().string();
    ApiTable observed = make_observe_table(*runtime, registry, config);

    CUmodule module = nullptr;
    ASSERT_EQ(observed.cuModuleLoadData(&module, kTestPtx), CUDA_SUCCESS);
    CUfunction f = nullptr;
    ASSERT_EQ(observed.cuModuleGetFunction(&f, module, "params"), CUDA_SUCCESS);
    CUdeviceptr out = 0;
    ASSERT_EQ(api().cuMemAlloc_v2(&out, 64), CUDA_SUCCESS);
    uint8_t a = 1;
    uint64_t b = 2;
    float c = 3;
    uint8_t buffer[32] = {};

    // `params` takes (u64 out, u8 a, u64 b, f32 c): a 28-byte block.
    auto launch = [&](const ApiTable& t, void** params, void** extra) {
        return t.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, nullptr, params, extra);
    };
    void* null_entry[] = {&out, nullptr, &b, &c};
    void* good_params[] = {&out, &a, &b, &c};
    size_t size28 = 28, huge = size_t(1) << 40;
    void* null_buffer[] = {D4R_CU_LAUNCH_PARAM_BUFFER_POINTER, nullptr, D4R_CU_LAUNCH_PARAM_BUFFER_SIZE, &size28,
                           D4R_CU_LAUNCH_PARAM_END};
    void* null_size[] = {D4R_CU_LAUNCH_PARAM_BUFFER_POINTER, buffer, D4R_CU_LAUNCH_PARAM_BUFFER_SIZE, nullptr,
                         D4R_CU_LAUNCH_PARAM_END};
    void* no_size[] = {D4R_CU_LAUNCH_PARAM_BUFFER_POINTER, buffer, D4R_CU_LAUNCH_PARAM_END};
    size_t size8 = 8;
    void* too_small[] = {D4R_CU_LAUNCH_PARAM_BUFFER_POINTER, buffer, D4R_CU_LAUNCH_PARAM_BUFFER_SIZE, &size8,
                         D4R_CU_LAUNCH_PARAM_END};
    struct Case {
        const char* what;
        void** params;
        void** extra;
    };
    const Case refused[] = {
        {"a NULL kernelParams entry", null_entry, nullptr},
        {"a NULL buffer pointer", nullptr, null_buffer},
        {"a NULL buffer size", nullptr, null_size},
        {"no buffer size", nullptr, no_size},
        {"a buffer smaller than the block", nullptr, too_small},
        {"both kernelParams and extra", good_params, null_buffer},
        {"no parameters at all", nullptr, nullptr},
    };
    for (const Case& k : refused) {
        EXPECT_EQ(launch(api(), k.params, k.extra), CUDA_ERROR_INVALID_VALUE) << k.what;
        EXPECT_EQ(launch(observed, k.params, k.extra), CUDA_ERROR_INVALID_VALUE) << k.what;
        CUlaunchConfig lc{};
        lc.gridDimX = lc.gridDimY = lc.gridDimZ = lc.blockDimX = lc.blockDimY = lc.blockDimZ = 1;
        EXPECT_EQ(observed.cuLaunchKernelEx(&lc, f, k.params, k.extra), CUDA_ERROR_INVALID_VALUE) << k.what;
    }
    ASSERT_EQ(observed.cuCtxSynchronize(), CUDA_SUCCESS);
    EXPECT_EQ(count_dumps(dir.path()), 0u);

    // A buffer that claims 1 TiB: the kernel reads its 28-byte block, whatever the backend decides about
    // the claim, and the dump (if the launch runs) holds that block, not a terabyte.
    void* huge_size[] = {D4R_CU_LAUNCH_PARAM_BUFFER_POINTER, buffer, D4R_CU_LAUNCH_PARAM_BUFFER_SIZE, &huge,
                         D4R_CU_LAUNCH_PARAM_END};
    std::memcpy(buffer, &out, 8);
    CUresult bare = launch(api(), nullptr, huge_size);
    EXPECT_EQ(launch(observed, nullptr, huge_size), bare);
    ASSERT_EQ(observed.cuCtxSynchronize(), CUDA_SUCCESS);
    if (bare == CUDA_SUCCESS) {
        ASSERT_EQ(count_dumps(dir.path()), 1u);
        for (const auto& e : fs::directory_iterator(dir.path()))
            EXPECT_EQ(fs::file_size(e.path() / "args.bin"), 28u) << e.path();
    }

    // And a valid launch is still dumped.
    EXPECT_EQ(launch(observed, good_params, nullptr), CUDA_SUCCESS);
    ASSERT_EQ(observed.cuCtxSynchronize(), CUDA_SUCCESS);
    EXPECT_EQ(count_dumps(dir.path()), bare == CUDA_SUCCESS ? 2u : 1u);
    EXPECT_EQ(api().cuMemFree_v2(out), CUDA_SUCCESS);
    EXPECT_EQ(observed.cuModuleUnload(module), CUDA_SUCCESS);
}

} // namespace
} // namespace d4r::runtime::cpu_test
