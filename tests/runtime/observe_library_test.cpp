// Replay dumps and profiles of kernels loaded with cuLibraryLoadData, as cudart 12/13 loads them: a
// launch of the CUkernel handle (cudart's way) and of the function cuKernelGetFunction gives each leave a
// dump holding the kernel's PTX module, as a kernel loaded with cuModuleLoadData does; a launch into a
// stream being captured into a graph (rt_graphs does that) is not dumped and leaves the capture valid.
#include <gtest/gtest.h>

#include <filesystem>
#include <vector>

#include "cpu_test_util.h"
#include "runtime/module_registry.h"
#include "runtime/observe/observe_layer.h"
#include "runtime_fixture.h"
#include "test_support.h"

namespace d4r::runtime::cpu_test {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> dumps_in(const fs::path& dir) {
    std::vector<fs::path> found;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().filename().string().rfind("replay-", 0) == 0) found.push_back(e.path());
    return found;
}

class ObserveLibrary : public CpuBackendTest {};

TEST_F(ObserveLibrary, LaunchesOfLibraryKernelsAreDumped) {
    d4r::test::TempDir dir;
    auto runtime = rt_test::install_runtime_over(api());
    ApiTable registry = make_module_registry_table(*runtime, api(), RegistryOptions{.keep_ptx_text = true});
    ObserveConfig config;
    config.dump = LaunchSelector{"", 0, 1000};
    config.dump_dir = dir.path().string();
    ApiTable observed = make_observe_table(*runtime, registry, config);

    CUlibrary library = nullptr;
    ASSERT_EQ(observed.cuLibraryLoadData(&library, kTestPtx, nullptr, nullptr, 0, nullptr, nullptr, 0), CUDA_SUCCESS);
    CUkernel kernel = nullptr;
    ASSERT_EQ(observed.cuLibraryGetKernel(&kernel, library, "add_one"), CUDA_SUCCESS);
    CUfunction f = nullptr;
    ASSERT_EQ(observed.cuKernelGetFunction(&f, kernel), CUDA_SUCCESS);

    CUdeviceptr p = 0;
    ASSERT_EQ(api().cuMemAlloc_v2(&p, 64 * 4), CUDA_SUCCESS);
    ASSERT_EQ(api().cuMemsetD32_v2(p, 7, 64), CUDA_SUCCESS);
    unsigned n = 64;
    void* params[] = {&p, &n};
    ASSERT_EQ(
        observed.cuLaunchKernel(reinterpret_cast<CUfunction>(kernel), 2, 1, 1, 32, 1, 1, 0, nullptr, params, nullptr),
        CUDA_SUCCESS);
    ASSERT_EQ(observed.cuCtxSynchronize(), CUDA_SUCCESS);
    ASSERT_EQ(dumps_in(dir.path()).size(), 1u) << "the CUkernel launch was not dumped";
    CUlaunchConfig lc{};
    lc.gridDimX = 2;
    lc.gridDimY = lc.gridDimZ = 1;
    lc.blockDimX = 32;
    lc.blockDimY = lc.blockDimZ = 1;
    ASSERT_EQ(observed.cuLaunchKernelEx(&lc, f, params, nullptr), CUDA_SUCCESS);
    ASSERT_EQ(observed.cuCtxSynchronize(), CUDA_SUCCESS);

    auto dumps = dumps_in(dir.path());
    ASSERT_EQ(dumps.size(), 2u) << "the launch of cuKernelGetFunction's function was not dumped";
    for (const fs::path& d : dumps) {
        std::string manifest = d4r::test::read_file_text(d / "manifest.txt");
        EXPECT_NE(manifest.find("kernel add_one\n"), std::string::npos) << manifest;
        EXPECT_NE(manifest.find("launch 2 1 1 32 1 1 0\n"), std::string::npos) << manifest;
        EXPECT_NE(d4r::test::read_file_text(d / "module.ptx").find(".entry add_one"), std::string::npos) << d;
        EXPECT_EQ(fs::file_size(d / "args.bin"), 12u) << d; // (u64 p, u32 n)
    }
    // Both launches ran: every element is 7 + 2.
    std::vector<uint32_t> host(64);
    ASSERT_EQ(api().cuMemcpyDtoH_v2(host.data(), p, 64 * 4), CUDA_SUCCESS);
    for (uint32_t v : host) EXPECT_EQ(v, 9u);
    EXPECT_EQ(api().cuMemFree_v2(p), CUDA_SUCCESS);
    EXPECT_EQ(observed.cuLibraryUnload(library), CUDA_SUCCESS);
}

// A launch into a stream being captured into a graph is recorded, not run: it is neither dumped nor timed
// by the profile, and the capture survives (the synchronisation a dump or a profile needs would invalidate it
// on NVIDIA's driver, seen with rt_graphs on the H200). The next launch is dumped.
TEST_F(ObserveLibrary, ALaunchIntoACapturingStreamIsNotDumped) {
    d4r::test::TempDir dir;
    auto runtime = rt_test::install_runtime_over(api());
    ApiTable registry = make_module_registry_table(*runtime, api(), RegistryOptions{.keep_ptx_text = true});
    ObserveConfig config;
    config.profile = LaunchSelector{"", 0, 1000};
    config.dump = LaunchSelector{"", 0, 1000};
    config.dump_dir = dir.path().string();
    ApiTable observed = make_observe_table(*runtime, registry, config);

    CUlibrary library = nullptr;
    ASSERT_EQ(observed.cuLibraryLoadData(&library, kTestPtx, nullptr, nullptr, 0, nullptr, nullptr, 0), CUDA_SUCCESS);
    CUkernel kernel = nullptr;
    ASSERT_EQ(observed.cuLibraryGetKernel(&kernel, library, "add_one"), CUDA_SUCCESS);
    CUdeviceptr p = 0;
    ASSERT_EQ(api().cuMemAlloc_v2(&p, 64 * 4), CUDA_SUCCESS);
    ASSERT_EQ(api().cuMemsetD32_v2(p, 1, 64), CUDA_SUCCESS);
    CUstream s = nullptr;
    ASSERT_EQ(api().cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    unsigned n = 64;
    void* params[] = {&p, &n};
    auto f = reinterpret_cast<CUfunction>(kernel);

    ASSERT_EQ(observed.cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_SUCCESS);
    ASSERT_EQ(observed.cuLaunchKernel(f, 2, 1, 1, 32, 1, 1, 0, s, params, nullptr), CUDA_SUCCESS);
    CUgraph graph = nullptr;
    ASSERT_EQ(observed.cuStreamEndCapture(s, &graph), CUDA_SUCCESS);
    ASSERT_NE(graph, nullptr);
    EXPECT_TRUE(dumps_in(dir.path()).empty());

    ASSERT_EQ(observed.cuLaunchKernel(f, 2, 1, 1, 32, 1, 1, 0, s, params, nullptr), CUDA_SUCCESS);
    ASSERT_EQ(observed.cuStreamSynchronize(s), CUDA_SUCCESS);
    EXPECT_EQ(dumps_in(dir.path()).size(), 1u);
    std::vector<uint32_t> host(64);
    ASSERT_EQ(api().cuMemcpyDtoH_v2(host.data(), p, 64 * 4), CUDA_SUCCESS);
    EXPECT_EQ(host[0], 2u); // the captured launch did not run, the second did
    EXPECT_EQ(observed.cuGraphDestroy(graph), CUDA_SUCCESS);
    EXPECT_EQ(api().cuStreamDestroy_v2(s), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemFree_v2(p), CUDA_SUCCESS);
    EXPECT_EQ(observed.cuLibraryUnload(library), CUDA_SUCCESS);
}

} // namespace
} // namespace d4r::runtime::cpu_test
