// End-to-end through the layered table, per configuration (as Dawn runs its end-to-end tests per toggle set):
// each test builds a fresh Runtime over the cpu backend with one option set, installs it, and makes its calls
// through dispatch(), the table every exported entry point calls. The configurations: plain (no optional
// layer), trace (D4R_CUDA_TRACE), observe (profile and replay dumps) and overrides with a native set that
// serves none of these kernels. Every test asserts the same results in every configuration, and that the
// configuration's layer was really there and saw the calls.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/env.h"
#include "core/files.h"
#include "core/log.h"
#include "cpu_test_util.h"
#include "runtime/export_tables/export_table_ids.h"
#include "runtime/native/override_layer.h"
#include "runtime/runtime.h"
#include "runtime_fixture.h"
#include "test_support.h"

namespace d4r::runtime {
namespace {

namespace fs = std::filesystem;
using cpu_test::kTestPtx;

enum class Config { Plain, Trace, Observe, Overrides };

std::string config_name(const ::testing::TestParamInfo<Config>& info) {
    switch (info.param) {
    case Config::Plain:
        return "plain";
    case Config::Trace:
        return "trace";
    case Config::Observe:
        return "observe";
    case Config::Overrides:
        return "overrides";
    }
    return "unknown";
}

constexpr uint32_t kCount = 200;

class RuntimeStack : public ::testing::TestWithParam<Config> {
protected:
    void SetUp() override {
        MapEnvironment env;
        switch (GetParam()) {
        case Config::Plain:
            break;
        case Config::Trace:
            env.set("D4R_CUDA_TRACE", "1");
            break;
        case Config::Observe:
            fs::create_directories(m_dir.path() / "dumps");
            env.set("D4R_CUDA_KERNEL_PROFILE", "1");
            env.set("D4R_CUDA_REPLAY_DUMP_DIR", (m_dir.path() / "dumps").string());
            break;
        case Config::Overrides:
            std::ofstream(m_dir.path() / "unrelated_kernel.cpu") << "1\n";
            env.set("D4R_NATIVE_KERNEL_DIR", m_dir.path().string());
            break;
        }
        // The trace and the profile write to the log: into a file the test reads, not onto the test's output.
        if (GetParam() == Config::Trace || GetParam() == Config::Observe) {
            m_log = (m_dir.path() / "d4r.log").string();
            ASSERT_TRUE(log::set_file(m_log));
        }
        m_runtime = rt_test::install_fresh_runtime(env);
        ASSERT_EQ(api().cuInit(0), CUDA_SUCCESS);
        ASSERT_EQ(api().cuCtxCreate_v2(&m_ctx, 0, 0), CUDA_SUCCESS);
        ASSERT_EQ(api().cuModuleLoadData(&m_module, kTestPtx), CUDA_SUCCESS);
        ASSERT_EQ(api().cuModuleGetFunction(&m_add_one, m_module, "add_one"), CUDA_SUCCESS);
        ASSERT_EQ(api().cuMemAlloc_v2(&m_data, kCount * 4), CUDA_SUCCESS);
        ASSERT_EQ(api().cuMemsetD32_v2(m_data, 9, kCount), CUDA_SUCCESS);
    }

    void TearDown() override {
        if (m_data) {
            EXPECT_EQ(api().cuMemFree_v2(m_data), CUDA_SUCCESS);
        }
        if (m_module) {
            EXPECT_EQ(api().cuModuleUnload(m_module), CUDA_SUCCESS);
        }
        if (m_ctx) {
            EXPECT_EQ(api().cuCtxDestroy_v2(m_ctx), CUDA_SUCCESS);
        }
        m_runtime.reset();
        if (!m_log.empty()) log::set_stderr();
    }

    static const ApiTable& api() { return dispatch(); }

    // The first N elements are 10, the rest still 9.
    void expect_added_one(uint32_t n) {
        std::vector<uint32_t> out(kCount);
        ASSERT_EQ(api().cuMemcpyDtoH_v2(out.data(), m_data, kCount * 4), CUDA_SUCCESS);
        for (uint32_t i = 0; i < kCount; ++i) ASSERT_EQ(out[i], i < n ? 10u : 9u) << "element " << i;
    }

    std::string log_text() const {
        auto text = read_text_file(m_log);
        return text ? *text : std::string();
    }

    // What the configuration's layer shows after ONE launch of add_one.
    void expect_the_layer_saw_one_launch() {
        switch (GetParam()) {
        case Config::Plain:
            EXPECT_FALSE(m_runtime->has_layer(LayerSlot::Registry));
            break;
        case Config::Trace:
            EXPECT_NE(log_text().find("CUDA_TRACE cuLaunchKernel(f="), std::string::npos) << log_text();
            break;
        case Config::Observe: {
            EXPECT_NE(log_text().find("KERNEL_PROFILE launch=1 eligible=0"), std::string::npos) << log_text();
            size_t dumps = 0;
            for (const auto& e : fs::directory_iterator(m_dir.path() / "dumps"))
                dumps += e.path().filename().string().rfind("replay-", 0) == 0;
            EXPECT_EQ(dumps, 1u);
            break;
        }
        case Config::Overrides:
            EXPECT_TRUE(m_runtime->has_layer(LayerSlot::Overrides));
            EXPECT_FALSE(is_native_function(m_add_one));
            EXPECT_EQ(override_stats().native_launches, 0u);
            break;
        }
    }

    d4r::test::TempDir m_dir;
    std::string m_log;
    std::unique_ptr<Runtime> m_runtime;
    CUcontext m_ctx = nullptr;
    CUmodule m_module = nullptr;
    CUfunction m_add_one = nullptr;
    CUdeviceptr m_data = 0;
};

TEST_P(RuntimeStack, LaunchWithKernelParams) {
    uint32_t n = 150;
    void* params[] = {&m_data, &n};
    ASSERT_EQ(api().cuLaunchKernel(m_add_one, 3, 1, 1, 64, 1, 1, 0, nullptr, params, nullptr), CUDA_SUCCESS);
    ASSERT_EQ(api().cuCtxSynchronize(), CUDA_SUCCESS);
    expect_added_one(150);
    expect_the_layer_saw_one_launch();
}

TEST_P(RuntimeStack, LaunchWithAParameterBuffer) {
    struct {
        CUdeviceptr p;
        uint32_t n;
    } block{m_data, 77};
    size_t size = 12; // add_one(.u64 p, .u32 n): p at 0, n at 8
    void* extra[] = {D4R_CU_LAUNCH_PARAM_BUFFER_POINTER, &block, D4R_CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
                     D4R_CU_LAUNCH_PARAM_END};
    CUstream stream = nullptr;
    ASSERT_EQ(api().cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    ASSERT_EQ(api().cuLaunchKernel(m_add_one, 2, 1, 1, 64, 1, 1, 0, stream, nullptr, extra), CUDA_SUCCESS);
    ASSERT_EQ(api().cuStreamSynchronize(stream), CUDA_SUCCESS);
    EXPECT_EQ(api().cuStreamDestroy_v2(stream), CUDA_SUCCESS);
    expect_added_one(77);
    expect_the_layer_saw_one_launch();
}

// The CUDA 1.0 calls become one cuLaunchKernel of the finished table: every layer sees it as a launch.
TEST_P(RuntimeStack, LegacyLaunch) {
    EXPECT_EQ(api().cuParamSetv(m_add_one, 0, &m_data, sizeof m_data), CUDA_SUCCESS);
    EXPECT_EQ(api().cuParamSeti(m_add_one, 8, 130), CUDA_SUCCESS);
    EXPECT_EQ(api().cuParamSetSize(m_add_one, 12), CUDA_SUCCESS);
    EXPECT_EQ(api().cuFuncSetBlockShape(m_add_one, 64, 1, 1), CUDA_SUCCESS);
    ASSERT_EQ(api().cuLaunchGrid(m_add_one, 3, 1), CUDA_SUCCESS);
    ASSERT_EQ(api().cuCtxSynchronize(), CUDA_SUCCESS);
    expect_added_one(130);
    expect_the_layer_saw_one_launch();
}

// Refusals are the backend's, whatever is layered above it.
TEST_P(RuntimeStack, RefusedCallsAnswerAsTheBackendDoes) {
    const ApiTable& backend = cpu_test::api();
    uint32_t n = 1;
    void* params[] = {&m_data, &n};
    CUfunction bogus = reinterpret_cast<CUfunction>(uintptr_t{0x1234});
    CUresult want = backend.cuLaunchKernel(bogus, 1, 1, 1, 1, 1, 1, 0, nullptr, params, nullptr);
    EXPECT_NE(want, CUDA_SUCCESS);
    EXPECT_EQ(api().cuLaunchKernel(bogus, 1, 1, 1, 1, 1, 1, 0, nullptr, params, nullptr), want);
    EXPECT_EQ(api().cuLaunchKernel(m_add_one, 0, 1, 1, 1, 1, 1, 0, nullptr, params, nullptr),
              backend.cuLaunchKernel(m_add_one, 0, 1, 1, 1, 1, 1, 0, nullptr, params, nullptr));
    CUmodule module = nullptr;
    EXPECT_EQ(api().cuModuleLoadData(&module, "not PTX"), backend.cuModuleLoadData(&module, "not PTX"));
    EXPECT_EQ(module, nullptr);
    CUfunction f = nullptr;
    EXPECT_EQ(api().cuModuleGetFunction(&f, m_module, "no_such_kernel"), CUDA_ERROR_NOT_FOUND);
    expect_added_one(0);
}

// cuGetProcAddress hands out the installed runtime's entries, which behave as dispatch()'s.
TEST_P(RuntimeStack, GetProcAddressHandsOutTheInstalledTable) {
    void* fn = nullptr;
    CUdriverProcAddressQueryResult status{};
    ASSERT_EQ(api().cuGetProcAddress_v2("cuLaunchKernel", &fn, 12000, 0, &status), CUDA_SUCCESS);
    EXPECT_EQ(status, CU_GET_PROC_ADDRESS_SUCCESS);
    EXPECT_EQ(fn, reinterpret_cast<void*>(m_runtime->table().cuLaunchKernel));
    EXPECT_EQ(api().cuGetProcAddress("cuNoSuchFunction", &fn, 12000, 0), CUDA_ERROR_NOT_FOUND);
    EXPECT_EQ(fn, nullptr);
    ASSERT_EQ(api().cuGetProcAddress("cuLaunchKernel", &fn, 12000, 0), CUDA_SUCCESS);
    uint32_t n = 40;
    void* params[] = {&m_data, &n};
    auto launch = reinterpret_cast<decltype(ApiTable::cuLaunchKernel)>(fn);
    ASSERT_EQ(launch(m_add_one, 1, 1, 1, 64, 1, 1, 0, nullptr, params, nullptr), CUDA_SUCCESS);
    ASSERT_EQ(api().cuCtxSynchronize(), CUDA_SUCCESS);
    expect_added_one(40);
    expect_the_layer_saw_one_launch();
}

int g_destroyed = 0;
void count_destruction(CUcontext, void*, void*) { ++g_destroyed; }

// d4r's own export tables keep their state in the runtime: context-local storage dies with its context.
TEST_P(RuntimeStack, ContextLocalStorageDiesWithItsContext) {
    CUuuid id = export_table_uuid(ExportTableId::ContextLocalStorage);
    const void* table = nullptr;
    ASSERT_EQ(api().cuGetExportTable(&table, &id), CUDA_SUCCESS);
    ASSERT_NE(table, nullptr);
    using Destructor = void (*)(CUcontext, void*, void*);
    auto slots = static_cast<const void* const*>(table);
    auto put = reinterpret_cast<CUresult (*)(CUcontext, void*, void*, Destructor)>(const_cast<void*>(slots[0]));
    auto get = reinterpret_cast<CUresult (*)(void**, CUcontext, void*)>(const_cast<void*>(slots[2]));
    CUcontext ctx = nullptr;
    ASSERT_EQ(api().cuCtxCreate_v2(&ctx, 0, 0), CUDA_SUCCESS);
    int key = 0, value = 0;
    g_destroyed = 0;
    ASSERT_EQ(put(ctx, &key, &value, &count_destruction), CUDA_SUCCESS);
    void* got = nullptr;
    ASSERT_EQ(get(&got, ctx, &key), CUDA_SUCCESS);
    EXPECT_EQ(got, &value);
    ASSERT_EQ(api().cuCtxDestroy_v2(ctx), CUDA_SUCCESS);
    EXPECT_EQ(g_destroyed, 1);
    ASSERT_EQ(api().cuCtxSetCurrent(m_ctx), CUDA_SUCCESS);
}

INSTANTIATE_TEST_SUITE_P(Configs, RuntimeStack,
                         ::testing::Values(Config::Plain, Config::Trace, Config::Observe, Config::Overrides),
                         config_name);

} // namespace
} // namespace d4r::runtime
