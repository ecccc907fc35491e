// `.hsaco` native kernels through HIP (docs/runtime.md, "Native-kernel overrides", issue 5), tested with a stand-in HIP
// runtime (fake_hip/) that behaves as HIP does under ZLUDA: its streams and device pointers are the CUDA backend's. The
// override layer runs over the cpu backend with a `.hsaco` kernel set; the stand-in code objects are PTX
// (kernels/hip_standin.cu) that the fake runs on ptxsim. What this proves: the layer loads code objects with
// hipModuleLoadData, reads the d4r_* symbols with hipModuleGetGlobal, launches every phase with hipModuleLaunchKernel
// on the application's stream with its parameters (kernelParams as given, `extra` rewritten to HIP's keys), writes
// d4r_prep_slot with hipMemsetD32Async in stream order, and falls back to PTX (with a log line) when HIP refuses. What
// it cannot prove without an AMD GPU: that ROCm's real HIP accepts the same calls.
#include <gtest/gtest.h>

#include <dlfcn.h>

#include <array>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "core/env.h"
#include "fake_hip/fake_hip.h"
#include "ptx/module_index.h"
#include "runtime/backend.h"
#include "runtime/module_registry.h"
#include "runtime/native/hip_runtime.h"
#include "runtime/native/native_target.h"
#include "runtime/native/override_layer.h"
#include "runtime_fixture.h"
#include "test_support.h"

using namespace d4r;
using namespace d4r::runtime;
namespace fs = std::filesystem;

namespace {

const fs::path kFakeRocm = D4R_TEST_FAKE_ROCM_DIR;

std::string program_ptx(const char* name) {
    return d4r::test::read_file_text(d4r::test::source_dir() / "tests/runtime/programs/kernels" / name);
}

void write_text(const fs::path& p, const std::string& text) {
    std::ofstream f(p, std::ios::binary);
    f << text;
}

// The fake's own entry points, from the library the runtime loaded.
struct Fake {
    PFN_fake_hip_bind bind = nullptr;
    PFN_fake_hip_launch_count launch_count = nullptr;
    PFN_fake_hip_launch launch = nullptr;
    PFN_fake_hip_memset_count memset_count = nullptr;
    PFN_fake_hip_memset memset = nullptr;
    PFN_fake_hip_load_count load_count = nullptr;
    PFN_fake_hip_global_u32 global_u32 = nullptr;
    PFN_fake_hip_reset reset = nullptr;
};

template <typename T>
void resolve(void* handle, T& slot, const char* name) {
    slot = reinterpret_cast<T>(dlsym(handle, name));
    ASSERT_NE(slot, nullptr) << name;
}

class HipOverrides : public ::testing::Test {
protected:
    void SetUp() override {
        auto b = make_cpu_backend();
        ASSERT_TRUE(b) << b.error().text();
        m_backend = std::move(*b);
        auto hip = load_hip_runtime(MapEnvironment{{"D4R_ROCM_DIR", kFakeRocm.string()}});
        ASSERT_TRUE(hip) << hip.error().text();
        m_hip = *hip;
        EXPECT_EQ(m_hip->source, "D4R_ROCM_DIR");
        EXPECT_EQ(fs::canonical(m_hip->library), fs::canonical(kFakeRocm / "lib/libamdhip64.so"));
        void* h = dlopen(m_hip->library.c_str(), RTLD_NOW | RTLD_NOLOAD);
        ASSERT_NE(h, nullptr);
        resolve(h, m_fake.bind, "fake_hip_bind");
        resolve(h, m_fake.launch_count, "fake_hip_launch_count");
        resolve(h, m_fake.launch, "fake_hip_launch");
        resolve(h, m_fake.memset_count, "fake_hip_memset_count");
        resolve(h, m_fake.memset, "fake_hip_memset");
        resolve(h, m_fake.load_count, "fake_hip_load_count");
        resolve(h, m_fake.global_u32, "fake_hip_global_u32");
        resolve(h, m_fake.reset, "fake_hip_reset");
        // HIP under ZLUDA shares the backend's memory and streams: bind the fake to the backend itself.
        const ApiTable& t = m_backend->table();
        FakeHipCuda cuda{t.cuModuleLoadData, t.cuModuleUnload,  t.cuModuleGetFunction, t.cuModuleGetGlobal_v2,
                         t.cuLaunchKernel,   t.cuMemcpyDtoH_v2, t.cuMemsetD32Async};
        m_fake.bind(&cuda);
        m_fake.reset();
        m_ptx = program_ptx("vector_ops.ptx");
    }

    void make_layer(const MapEnvironment& env) {
        auto set = load_native_set(env, "hsaco", "gfx1101");
        ASSERT_TRUE(set) << set.error().text();
        ASSERT_TRUE(set->active());
        m_runtime = rt_test::install_fresh_runtime();
        m_registry = make_module_registry_table(*m_runtime, m_backend->table());
        m_table = make_override_table(*m_runtime, m_registry, std::move(*set), m_hip);
        ASSERT_EQ(m_table.cuInit(0), CUDA_SUCCESS);
        CUdevice dev;
        ASSERT_EQ(m_table.cuDeviceGet(&dev, 0), CUDA_SUCCESS);
        ASSERT_EQ(m_table.cuDevicePrimaryCtxRetain(&m_ctx, dev), CUDA_SUCCESS);
        ASSERT_EQ(m_table.cuCtxSetCurrent(m_ctx), CUDA_SUCCESS);
        ASSERT_EQ(m_table.cuModuleLoadData(&m_module, m_ptx.c_str()), CUDA_SUCCESS);
        ASSERT_EQ(m_table.cuModuleGetFunction(&m_saxpy, m_module, "saxpy"), CUDA_SUCCESS);
        ASSERT_EQ(m_table.cuStreamCreate(&m_stream, 0), CUDA_SUCCESS);
        ASSERT_EQ(m_table.cuMemAlloc_v2(&m_x, kCount * 4), CUDA_SUCCESS);
        ASSERT_EQ(m_table.cuMemAlloc_v2(&m_y, kCount * 4), CUDA_SUCCESS);
        for (int i = 0; i < kCount; ++i) {
            m_host_x[i] = static_cast<float>(i % 17) - 3.0f;
            m_host_y[i] = static_cast<float>(i) * 0.5f;
        }
        ASSERT_EQ(m_table.cuMemcpyHtoD_v2(m_x, m_host_x.data(), kCount * 4), CUDA_SUCCESS);
        ASSERT_EQ(m_table.cuMemcpyHtoD_v2(m_y, m_host_y.data(), kCount * 4), CUDA_SUCCESS);
    }

    void TearDown() override {
        if (m_x) m_table.cuMemFree_v2(m_x);
        if (m_y) m_table.cuMemFree_v2(m_y);
        if (m_stream) m_table.cuStreamDestroy_v2(m_stream);
        if (m_module) m_table.cuModuleUnload(m_module);
        if (m_ctx) m_table.cuDevicePrimaryCtxRelease_v2(0);
    }

    // A developer set holding saxpy.hsaco = TEXT.
    void write_developer_set(const std::string& text) { write_text(m_dir.path() / "saxpy.hsaco", text); }
    std::string standin() { return FAKE_HSACO_MAGIC + program_ptx("hip_standin.ptx"); }

    // saxpy(n, 2, x, y) on m_stream, with kernelParams or (USE_EXTRA) a CUDA `extra` buffer, and on the
    // host the same arithmetic (the stand-in computes what the PTX kernel does). Native launches use a
    // shape the code object's symbols rewrite (grid 5x3, block 32x2x4); PTX launches one thread per
    // element, as vector_ops.cu's saxpy expects.
    void launch(long long n, bool use_extra, bool native) {
        std::array<unsigned, 6> s =
            native ? std::array<unsigned, 6>{5, 3, 1, 32, 2, 4} : std::array<unsigned, 6>{10, 1, 1, 32, 1, 1};
        float a = 2.0f;
        if (use_extra) {
            struct {
                long long n;
                float a;
                float pad;
                CUdeviceptr x, y;
            } block{n, a, 0.0f, m_x, m_y};
            size_t bytes = sizeof block;
            void* extra[] = {D4R_CU_LAUNCH_PARAM_BUFFER_POINTER, &block, D4R_CU_LAUNCH_PARAM_BUFFER_SIZE, &bytes,
                             D4R_CU_LAUNCH_PARAM_END};
            ASSERT_EQ(m_table.cuLaunchKernel(m_saxpy, s[0], s[1], s[2], s[3], s[4], s[5], 0, m_stream, nullptr, extra),
                      CUDA_SUCCESS);
            ASSERT_EQ(m_table.cuStreamSynchronize(m_stream), CUDA_SUCCESS); // `block` dies here
        } else {
            CUdeviceptr x = m_x, y = m_y;
            void* params[] = {&n, &a, &x, &y};
            ASSERT_EQ(m_table.cuLaunchKernel(m_saxpy, s[0], s[1], s[2], s[3], s[4], s[5], 0, m_stream, params, nullptr),
                      CUDA_SUCCESS);
        }
        for (long long i = 0; i < n; ++i) m_host_y[i] = std::fma(a, m_host_x[i], m_host_y[i]);
    }

    void expect_results() {
        ASSERT_EQ(m_table.cuStreamSynchronize(m_stream), CUDA_SUCCESS);
        std::vector<float> y(kCount);
        ASSERT_EQ(m_table.cuMemcpyDtoH_v2(y.data(), m_y, kCount * 4), CUDA_SUCCESS);
        for (int i = 0; i < kCount; ++i) ASSERT_EQ(y[i], m_host_y[i]) << i;
    }

    std::vector<std::string> launched_names() {
        std::vector<std::string> names;
        for (int i = 0; i < m_fake.launch_count(); ++i) names.push_back(m_fake.launch(i)->name);
        return names;
    }

    static constexpr int kCount = 300;
    d4r::test::TempDir m_dir;
    std::unique_ptr<Backend> m_backend;
    std::unique_ptr<Runtime> m_runtime; // holds the layers' state
    const HipRuntime* m_hip = nullptr;
    Fake m_fake;
    ApiTable m_registry; // the module registry over the backend, below the layer
    ApiTable m_table;
    std::string m_ptx;
    CUcontext m_ctx = nullptr;
    CUmodule m_module = nullptr;
    CUfunction m_saxpy = nullptr;
    CUstream m_stream = nullptr;
    CUdeviceptr m_x = 0, m_y = 0;
    std::vector<float> m_host_x = std::vector<float>(kCount), m_host_y = std::vector<float>(kCount);
};

} // namespace

TEST_F(HipOverrides, EveryPhaseRunsThroughHipOnTheApplicationsStream) {
    write_developer_set(standin());
    make_layer(MapEnvironment{{"D4R_NATIVE_KERNEL_DIR", m_dir.path().string()}});
    ASSERT_TRUE(is_native_function(m_saxpy));
    for (long long n : {256, 256, 100, 7}) launch(n, false, true);
    expect_results();
    // Keys 256 and 100 take slots 0 and 1 (prepared once each); 7 overflows into slot 2 (prepared).
    std::vector<std::string> expected = {"saxpy_prep",  "saxpy",      "saxpy_post1", "saxpy",
                                         "saxpy_post1", "saxpy_prep", "saxpy",       "saxpy_post1",
                                         "saxpy_prep",  "saxpy",      "saxpy_post1"};
    EXPECT_EQ(launched_names(), expected);
    for (int i = 0; i < m_fake.launch_count(); ++i) {
        const FakeHipLaunch* l = m_fake.launch(i);
        EXPECT_EQ(l->stream, static_cast<void*>(m_stream)) << i;
        EXPECT_EQ(l->used_extra, 0) << i;
        std::vector<unsigned> shape{l->grid[0], l->grid[1], l->grid[2], l->block[0], l->block[1], l->block[2]};
        // prep: d4r_prep_blocks x 128. main: d4r_grid_x = 4 replaces the grid, d4r_block_z = 1 the block's
        // z. post1: its own grid x and block x, the caller's grid y.
        std::map<std::string, std::vector<unsigned>> expected_shape{
            {"saxpy_prep", {2, 1, 1, 128, 1, 1}}, {"saxpy", {4, 1, 1, 32, 2, 1}}, {"saxpy_post1", {1, 3, 1, 64, 1, 1}}};
        EXPECT_EQ(shape, expected_shape[l->name]) << l->name;
    }
    // The slot went to d4r_prep_slot before every launch, in stream order.
    ASSERT_EQ(m_fake.memset_count(), 4);
    std::vector<int> slots;
    for (int i = 0; i < 4; ++i) {
        slots.push_back(m_fake.memset(i)->value);
        EXPECT_EQ(m_fake.memset(i)->stream, static_cast<void*>(m_stream));
        EXPECT_EQ(m_fake.memset(i)->count, 1u);
        EXPECT_EQ(m_fake.memset(i)->address, m_fake.memset(0)->address);
    }
    EXPECT_EQ(slots, (std::vector<int>{0, 0, 1, 2}));
    // The prep kernel read the slot on the device: one run in each of the three slots.
    for (unsigned s = 0; s < 3; ++s) {
        unsigned runs = 99;
        ASSERT_EQ(m_fake.global_u32("prep_runs", s, &runs), 0);
        EXPECT_EQ(runs, 1u) << "slot " << s;
    }
    unsigned post_runs = 0;
    ASSERT_EQ(m_fake.global_u32("post_runs", 0, &post_runs), 0);
    EXPECT_EQ(post_runs, 4u);
    EXPECT_EQ(m_fake.load_count(), 1);
    EXPECT_EQ(override_stats().native_launches, 4u);
    EXPECT_EQ(override_stats().prep_launches, 3u);
    EXPECT_EQ(override_stats().post_launches, 4u);
}

TEST_F(HipOverrides, ExtraIsRewrittenWithHipKeys) {
    write_developer_set(standin());
    make_layer(MapEnvironment{{"D4R_NATIVE_KERNEL_DIR", m_dir.path().string()}});
    launch(300, true, true);
    launch(64, true, true);
    expect_results();
    ASSERT_EQ(m_fake.launch_count(), 6); // prep+main+post for each key
    for (int i = 0; i < m_fake.launch_count(); ++i) EXPECT_EQ(m_fake.launch(i)->used_extra, 1) << i;
}

TEST_F(HipOverrides, ReleaseSetServesOnlyTheManifestsHash) {
    write_developer_set(standin());
    auto mods =
        ptx::index_ptx_modules(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(m_ptx.data()), m_ptx.size()));
    ASSERT_TRUE(mods) << mods.error().text();
    uint64_t hash = 0;
    for (const auto& m : *mods)
        if (m.index.find_entry("saxpy")) hash = m.hash;
    write_text(m_dir.path() / "d4r-kernels.txt", fmt::format("saxpy {:016x}\n", hash ^ 1));
    make_layer(MapEnvironment{{"D4R_NATIVE_KERNEL_DIR", m_dir.path().string()}});
    EXPECT_FALSE(is_native_function(m_saxpy));
    launch(300, false, false); // from PTX on ptxsim
    expect_results();
    EXPECT_EQ(m_fake.load_count(), 0);
    EXPECT_EQ(m_fake.launch_count(), 0);
    EXPECT_EQ(override_stats().refused_functions, 1u);
}

TEST_F(HipOverrides, ACodeObjectHipRefusesRunsFromPtx) {
    write_developer_set(program_ptx("hip_standin.ptx")); // PTX is not a code object HIP loads
    make_layer(MapEnvironment{{"D4R_NATIVE_KERNEL_DIR", m_dir.path().string()}});
    EXPECT_FALSE(is_native_function(m_saxpy));
    launch(300, false, false);
    expect_results();
    EXPECT_EQ(m_fake.load_count(), 1);
    EXPECT_EQ(m_fake.launch_count(), 0);
    EXPECT_EQ(override_stats().served_functions, 0u);
}

TEST(HipRuntime, AMissingRocmFolderIsNamedInTheError) {
    d4r::test::TempDir empty;
    auto hip = find_hip_runtime(MapEnvironment{{"D4R_ROCM_DIR", (empty.path() / "rocm").string()}});
    if (hip) {
        // A HIP runtime was already in the process (an earlier test's stand-in) or on the search path.
        EXPECT_NE(hip->source, "D4R_ROCM_DIR");
    } else {
        EXPECT_NE(hip.error().text().find((empty.path() / "rocm/lib/libamdhip64.so").string() + " does not exist"),
                  std::string::npos)
            << hip.error().text();
        EXPECT_NE(hip.error().text().find("libamdhip64.so"), std::string::npos);
    }
}

TEST(HipRuntime, ALibraryWithoutHipsEntryPointsIsRefused) {
    d4r::test::TempDir rocm;
    fs::create_directories(rocm.path() / "lib");
    // libd4rcuda is a real shared library without any hip* entry point.
    fs::copy_file(fs::path(D4R_TEST_LIB_DIR) / "libd4rcuda.so", rocm.path() / "lib/libamdhip64.so");
    auto hip = find_hip_runtime(MapEnvironment{{"D4R_ROCM_DIR", rocm.path().string()}});
    if (!hip) {
        EXPECT_NE(hip.error().text().find("lacks hipModuleLoadData"), std::string::npos) << hip.error().text();
    } else {
        EXPECT_EQ(hip->source, "already loaded by the process"); // an earlier test's stand-in
    }
}

namespace {

class NamedBackend final : public Backend {
public:
    NamedBackend(std::string name, const ApiTable& table) : m_name(std::move(name)), m_table(table) {}
    const std::string& name() const override { return m_name; }
    const ApiTable& table() const override { return m_table; }

private:
    std::string m_name;
    ApiTable m_table;
};

} // namespace

TEST(NativeTarget, ZludaIsRecognisedByItsPathOrD4rZludaDir) {
    MapEnvironment none;
    EXPECT_TRUE(is_zluda_backend("driver:/opt/ZLUDA/libcuda.so", none));
    EXPECT_TRUE(is_zluda_backend("driver:/home/u/.local/share/zluda-4/libcuda.so.1", none));
    EXPECT_FALSE(is_zluda_backend("driver:/usr/lib/x86_64-linux-gnu/libcuda.so.1", none));
    EXPECT_FALSE(is_zluda_backend("cpu", none));
    MapEnvironment with_dir{{"D4R_ZLUDA_DIR", "/opt/runtime/cuda"}};
    EXPECT_TRUE(is_zluda_backend("driver:/opt/runtime/cuda/libcuda.so", with_dir));
    EXPECT_FALSE(is_zluda_backend("driver:/opt/runtime/cudax/libcuda.so", with_dir));
}

TEST(NativeTarget, ZludaRunsHsacoForTheKfdGpuOrD4rGpuArch) {
    auto cpu = make_cpu_backend();
    ASSERT_TRUE(cpu);
    NamedBackend zluda("driver:/opt/zluda/libcuda.so", (*cpu)->table());
    d4r::test::TempDir kfd;
    fs::create_directories(kfd.path() / "nodes/0");
    fs::create_directories(kfd.path() / "nodes/1");
    write_text(kfd.path() / "nodes/0/properties", "simd_count 0\ngfx_target_version 0\n");
    write_text(kfd.path() / "nodes/1/properties", "simd_count 120\ngfx_target_version 110001\n");
    NativeTarget t = native_target_for(zluda, MapEnvironment{}, kfd.path());
    EXPECT_EQ(t.extension, "hsaco");
    EXPECT_EQ(t.arch, "gfx1101");
    EXPECT_NE(t.why.find("KFD node 1"), std::string::npos) << t.why;
    t = native_target_for(zluda, MapEnvironment{{"D4R_GPU_ARCH", "gfx1201"}}, kfd.path());
    EXPECT_EQ(t.arch, "gfx1201");
    t = native_target_for(zluda, MapEnvironment{}, kfd.path() / "absent");
    EXPECT_EQ(t.extension, "hsaco");
    EXPECT_EQ(t.arch, "");
    EXPECT_NE(t.why.find("unknown"), std::string::npos) << t.why;
    t = native_target_for(**cpu, MapEnvironment{}, kfd.path());
    EXPECT_EQ(t.extension, "cpu");
    EXPECT_EQ(t.arch, "cpu");
}
