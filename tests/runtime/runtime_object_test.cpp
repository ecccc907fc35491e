// The Runtime object (runtime/runtime_object.h): it owns the backend, the layers its environment asks for and
// their state; at most one is installed, dispatch() follows the installed one, a destroyed runtime uninstalls
// itself and the process runtime comes back; two runtimes in one process keep their own layer state. Under
// AddressSanitizer (the asan preset) the install/uninstall cycles here must leak nothing.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <vector>

#include "core/env.h"
#include "cpu_test_util.h"
#include "runtime/module_registry.h"
#include "runtime/native/override_layer.h"
#include "runtime/runtime.h"
#include "runtime_fixture.h"
#include "test_support.h"

namespace d4r::runtime {
namespace {

namespace fs = std::filesystem;
using cpu_test::kTestPtx;
using rt_test::cpu_backend;
using rt_test::install_fresh_runtime;

bool has_layer(const Runtime& rt, LayerSlot slot) { return rt.has_layer(slot); }

TEST(RuntimeObject, InstallingMakesItsTableTheDispatchTable) {
    auto backend = make_cpu_backend();
    ASSERT_TRUE(backend) << backend.error().text();
    Runtime rt(MapEnvironment(), std::move(*backend));
    EXPECT_FALSE(rt.installed());
    EXPECT_EQ(rt.backend_name(), "cpu");
    ASSERT_NE(rt.backend(), nullptr);
    rt.install();
    EXPECT_TRUE(rt.installed());
    EXPECT_EQ(Runtime::current(), &rt);
    EXPECT_EQ(&dispatch(), &rt.table());
    EXPECT_EQ(backend_name(), "cpu");
    rt.uninstall();
    EXPECT_FALSE(rt.installed());
    EXPECT_NE(Runtime::current(), &rt);
    // Uninstalling a runtime that is not installed leaves the installed one alone.
    Runtime other(MapEnvironment(), cpu_backend());
    other.install();
    rt.uninstall();
    EXPECT_EQ(Runtime::current(), &other);
}

TEST(RuntimeObject, ADestroyedRuntimeUninstallsItselfAndTheProcessRuntimeReturns) {
    const ApiTable* process = &dispatch(); // the process runtime (built at the first call of the process)
    Runtime* process_runtime = Runtime::current();
    ASSERT_NE(process_runtime, nullptr);
    {
        auto rt = install_fresh_runtime();
        EXPECT_EQ(&dispatch(), &rt->table());
        EXPECT_NE(&dispatch(), process);
    }
    EXPECT_EQ(Runtime::current(), nullptr);
    EXPECT_EQ(&dispatch(), process); // installed again, not built again
    EXPECT_EQ(Runtime::current(), process_runtime);
}

TEST(RuntimeObject, BuildsTheLayersItsEnvironmentAsksFor) {
    d4r::test::TempDir dir;
    std::ofstream(dir.path() / "unrelated_kernel.cpu") << "1\n"; // a developer set that serves nothing here
    fs::create_directories(dir.path() / "dumps");
    struct Case {
        const char* name;
        MapEnvironment env;
        std::vector<LayerSlot> present, absent;
    };
    const std::vector<Case> cases = {
        {"plain",
         {},
         {LayerSlot::ExportTables, LayerSlot::OwnTables, LayerSlot::LegacyLaunch},
         {LayerSlot::Registry, LayerSlot::Overrides, LayerSlot::Observe, LayerSlot::Trace}},
        {"trace", {{"D4R_CUDA_TRACE", "1"}}, {LayerSlot::Trace}, {LayerSlot::Registry, LayerSlot::Observe}},
        {"observe",
         {{"D4R_CUDA_KERNEL_PROFILE", "1"}, {"D4R_CUDA_REPLAY_DUMP_DIR", (dir.path() / "dumps").string()}},
         {LayerSlot::Registry, LayerSlot::Observe},
         {LayerSlot::Overrides, LayerSlot::Trace}},
        {"overrides",
         {{"D4R_NATIVE_KERNEL_DIR", dir.path().string()}},
         {LayerSlot::Registry, LayerSlot::Overrides},
         {LayerSlot::Observe, LayerSlot::Trace}},
    };
    for (const Case& c : cases) {
        Runtime rt(c.env, cpu_backend());
        for (LayerSlot s : c.present) EXPECT_TRUE(has_layer(rt, s)) << c.name << " slot " << int(s);
        for (LayerSlot s : c.absent) EXPECT_FALSE(has_layer(rt, s)) << c.name << " slot " << int(s);
    }
}

TEST(RuntimeObject, WithoutABackendEveryCallFailsAndTheReasonIsItsName) {
    Runtime rt(MapEnvironment{{"D4R_CUDA_BACKEND", "driver:/nonexistent/libcuda.so.1"}});
    EXPECT_EQ(rt.backend(), nullptr);
    EXPECT_EQ(rt.backend_name().rfind("none: ", 0), 0u) << rt.backend_name();
    EXPECT_NE(rt.backend_name().find("/nonexistent/libcuda.so.1"), std::string::npos) << rt.backend_name();
    rt.install();
    EXPECT_EQ(dispatch().cuInit(0), CUDA_ERROR_NO_DEVICE);
    CUdeviceptr p = 0;
    EXPECT_EQ(dispatch().cuMemAlloc_v2(&p, 16), CUDA_ERROR_NOT_INITIALIZED);
    const char* name = nullptr;
    EXPECT_EQ(dispatch().cuGetErrorName(CUDA_ERROR_NO_DEVICE, &name), CUDA_SUCCESS);
    EXPECT_STREQ(name, "CUDA_ERROR_NO_DEVICE");
    void* fn = nullptr;
    EXPECT_EQ(dispatch().cuGetProcAddress("cuInit", &fn, 12000, 0), CUDA_SUCCESS);
    EXPECT_EQ(fn, reinterpret_cast<void*>(rt.table().cuInit));
}

// The registry's answers come from the installed runtime: a function registered by one runtime is unknown
// while another runtime (without a registry) is installed, and known again when the first one is back.
TEST(RuntimeObject, TwoRuntimesKeepTheirOwnLayerState) {
    d4r::test::TempDir dir;
    std::ofstream(dir.path() / "unrelated_kernel.cpu") << "1\n";
    auto with_registry =
        std::make_unique<Runtime>(MapEnvironment{{"D4R_NATIVE_KERNEL_DIR", dir.path().string()}}, cpu_backend());
    auto plain = std::make_unique<Runtime>(MapEnvironment(), cpu_backend());
    with_registry->install();
    const ApiTable& t = dispatch();
    ASSERT_EQ(t.cuInit(0), CUDA_SUCCESS);
    CUcontext ctx = nullptr;
    ASSERT_EQ(t.cuCtxCreate_v2(&ctx, 0, 0), CUDA_SUCCESS);
    CUmodule module = nullptr;
    ASSERT_EQ(t.cuModuleLoadData(&module, kTestPtx), CUDA_SUCCESS);
    CUfunction f = nullptr;
    ASSERT_EQ(t.cuModuleGetFunction(&f, module, "add_one"), CUDA_SUCCESS);
    ASSERT_TRUE(registry_active());
    ASSERT_NE(registered_kernel(module, "add_one"), nullptr);

    plain->install();
    EXPECT_FALSE(registry_active());
    EXPECT_EQ(registered_function(f), nullptr);
    EXPECT_EQ(override_stats().served_functions, 0u);

    with_registry->install();
    auto info = registered_function(f);
    ASSERT_NE(info, nullptr);
    EXPECT_EQ(info->name, "add_one");
    EXPECT_EQ(info->module, module);
    EXPECT_EQ(dispatch().cuModuleUnload(module), CUDA_SUCCESS);
    EXPECT_EQ(dispatch().cuCtxDestroy_v2(ctx), CUDA_SUCCESS);
    plain.reset(); // not installed: the installed runtime stays
    EXPECT_EQ(Runtime::current(), with_registry.get());
}

// Fresh runtimes of every configuration, built, installed, used and destroyed again and again in one process:
// each cycle works as the first did (the asan preset checks that none leaks).
TEST(RuntimeObject, InstallAndUninstallCyclesWorkEveryTime) {
    d4r::test::TempDir dir;
    std::ofstream(dir.path() / "unrelated_kernel.cpu") << "1\n";
    fs::create_directories(dir.path() / "dumps");
    const std::vector<MapEnvironment> envs = {
        {},
        {{"D4R_CUDA_KERNEL_PROFILE", "1"}, {"D4R_CUDA_KERNEL_PROFILE_LIMIT", "0"}},
        {{"D4R_CUDA_REPLAY_DUMP_DIR", (dir.path() / "dumps").string()}, {"D4R_CUDA_REPLAY_DUMP_LIMIT", "0"}},
        {{"D4R_NATIVE_KERNEL_DIR", dir.path().string()}},
    };
    for (int cycle = 0; cycle < 3; ++cycle) {
        for (const MapEnvironment& env : envs) {
            auto rt = install_fresh_runtime(env);
            const ApiTable& t = dispatch();
            ASSERT_EQ(t.cuInit(0), CUDA_SUCCESS);
            CUcontext ctx = nullptr;
            ASSERT_EQ(t.cuCtxCreate_v2(&ctx, 0, 0), CUDA_SUCCESS);
            CUmodule module = nullptr;
            ASSERT_EQ(t.cuModuleLoadData(&module, kTestPtx), CUDA_SUCCESS);
            CUfunction f = nullptr;
            ASSERT_EQ(t.cuModuleGetFunction(&f, module, "add_one"), CUDA_SUCCESS);
            CUdeviceptr p = 0;
            ASSERT_EQ(t.cuMemAlloc_v2(&p, 64 * 4), CUDA_SUCCESS);
            ASSERT_EQ(t.cuMemsetD32_v2(p, 41, 64), CUDA_SUCCESS);
            uint32_t n = 64;
            void* params[] = {&p, &n};
            ASSERT_EQ(t.cuLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, nullptr, params, nullptr), CUDA_SUCCESS);
            std::vector<uint32_t> out(64);
            ASSERT_EQ(t.cuMemcpyDtoH_v2(out.data(), p, 64 * 4), CUDA_SUCCESS);
            EXPECT_EQ(out, std::vector<uint32_t>(64, 42)) << "cycle " << cycle;
            EXPECT_EQ(t.cuMemFree_v2(p), CUDA_SUCCESS);
            EXPECT_EQ(t.cuModuleUnload(module), CUDA_SUCCESS);
            EXPECT_EQ(t.cuCtxDestroy_v2(ctx), CUDA_SUCCESS);
        }
    }
    EXPECT_EQ(Runtime::current(), nullptr);
}

} // namespace
} // namespace d4r::runtime
