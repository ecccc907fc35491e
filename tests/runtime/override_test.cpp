// Native-kernel overrides (docs/kernel-sets.md and docs/runtime.md) over the cpu backend: served on a hash match or
// from a developer set, refused on a mismatch with the PTX path still correct, prep once per key, slots and overflow,
// d4r_block_z / d4r_grid_x / d4r_dynamic_shared, post phases, accuracy mode never serving fast kernels; kernels loaded
// with cuLibraryLoadData (as cudart 12/13 loads them) served through their CUkernel and cuKernelGetFunction.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <vector>

#include "core/env.h"
#include "ptx/module_index.h"
#include "runtime/backend.h"
#include "runtime/module_registry.h"
#include "runtime/native/cpu_registry.h"
#include "runtime/native/override_layer.h"
#include "runtime_fixture.h"
#include "test_support.h"

using namespace d4r;
using namespace d4r::runtime;
namespace fs = std::filesystem;

namespace {

std::string kernels_ptx() {
    return d4r::test::read_file_text(d4r::test::source_dir() / "tests/runtime/programs/kernels/vector_ops.ptx");
}

uint64_t ptx_hash_of(const std::string& text, const std::string& kernel) {
    auto mods =
        ptx::index_ptx_modules(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
    EXPECT_TRUE(mods) << mods.error().text();
    for (const auto& m : *mods)
        if (m.index.find_entry(kernel)) return m.hash;
    ADD_FAILURE() << "no module defines " << kernel;
    return 0;
}

void write_text(const fs::path& p, const std::string& text) {
    std::ofstream f(p, std::ios::binary);
    f << text;
}

// What the registered CPU kernels saw.
struct Seen {
    std::mutex mutex;
    std::vector<std::string> calls; // "main", "prep", "post1", ...
    std::vector<uint32_t> slots;    // slot of every prep/main call
    std::vector<std::array<uint32_t, 6>> shapes;
    std::vector<size_t> shared; // dynamic shared memory bytes of every call
    void add(const std::string& what, const CpuLaunch& l) {
        std::lock_guard lock(mutex);
        calls.push_back(what);
        slots.push_back(l.slot);
        shared.push_back(l.shared_bytes);
        shapes.push_back({l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1], l.block[2]});
    }
    void clear() {
        std::lock_guard lock(mutex);
        calls.clear();
        slots.clear();
        shapes.clear();
        shared.clear();
    }
};
Seen g_seen;

// vector_add(a, b, c, n): the native version adds like the PTX kernel.
void native_vector_add(const CpuLaunch& l) {
    g_seen.add("main", l);
    uint64_t a, b, c;
    int32_t n;
    std::memcpy(&a, l.params.data(), 8);
    std::memcpy(&b, l.params.data() + 8, 8);
    std::memcpy(&c, l.params.data() + 16, 8);
    std::memcpy(&n, l.params.data() + 24, 4);
    for (int32_t i = 0; i < n; ++i)
        reinterpret_cast<float*>(c)[i] = reinterpret_cast<const float*>(a)[i] + reinterpret_cast<const float*>(b)[i];
}

// saxpy(long long n, float a, x, y) with a prep keyed on n (offset 0) and post phases.
void native_saxpy(const CpuLaunch& l) {
    g_seen.add("main", l);
    int64_t n;
    float a;
    uint64_t x, y;
    std::memcpy(&n, l.params.data(), 8);
    std::memcpy(&a, l.params.data() + 8, 4);
    std::memcpy(&x, l.params.data() + 16, 8);
    std::memcpy(&y, l.params.data() + 24, 8);
    for (int64_t i = 0; i < n; ++i)
        reinterpret_cast<float*>(y)[i] = a * reinterpret_cast<const float*>(x)[i] + reinterpret_cast<float*>(y)[i];
}

void register_test_kernels(uint32_t slots) {
    register_cpu_kernel(CpuNativeKernel{"vector_add", &native_vector_add, {}, {}, {}});
    CpuNativeKernel saxpy{"saxpy", &native_saxpy, [](const CpuLaunch& l) { g_seen.add("prep", l); }, {}, {}};
    saxpy.posts.push_back([](const CpuLaunch& l) { g_seen.add("post1", l); });
    saxpy.posts.push_back([](const CpuLaunch& l) { g_seen.add("post2", l); });
    saxpy.symbols.prep_blocks = 7;
    saxpy.symbols.prep_key_at = 1; // the u64 at offset 0
    if (slots) saxpy.symbols.prep_key_slots = slots;
    saxpy.symbols.block_z = 1;
    saxpy.symbols.grid_x = 3;
    saxpy.symbols.dynamic_shared = 4096;
    saxpy.symbols.posts[1].grid_x = 5;
    saxpy.symbols.posts[1].block_x = 64;
    register_cpu_kernel(std::move(saxpy));
}

class Overrides : public ::testing::Test {
protected:
    void SetUp() override {
        g_seen.clear();
        auto b = make_cpu_backend();
        ASSERT_TRUE(b) << b.error().text();
        m_backend = std::move(*b);
        m_ptx = kernels_ptx();
    }

    // Builds the layer over the cpu backend with the native set ENV describes, and a context.
    void make_layer(const MapEnvironment& env, const char* extension = "cpu") {
        auto set = load_native_set(env, extension, "cpu");
        ASSERT_TRUE(set) << set.error().text();
        m_set_active = set->active();
        m_runtime = rt_test::install_fresh_runtime();
        m_registry = make_module_registry_table(*m_runtime, m_backend->table());
        m_table = make_override_table(*m_runtime, m_registry, std::move(*set));
        ASSERT_EQ(m_table.cuInit(0), CUDA_SUCCESS);
        CUdevice dev;
        ASSERT_EQ(m_table.cuDeviceGet(&dev, 0), CUDA_SUCCESS);
        ASSERT_EQ(m_table.cuDevicePrimaryCtxRetain(&m_ctx, dev), CUDA_SUCCESS);
        ASSERT_EQ(m_table.cuCtxSetCurrent(m_ctx), CUDA_SUCCESS);
        ASSERT_EQ(m_table.cuModuleLoadData(&m_module, m_ptx.c_str()), CUDA_SUCCESS);
    }

    void TearDown() override {
        if (m_module) m_table.cuModuleUnload(m_module);
        if (m_ctx) m_table.cuDevicePrimaryCtxRelease_v2(0);
    }

    // Runs vector_add over 300 elements and checks the sums.
    void run_vector_add() {
        CUfunction f;
        ASSERT_EQ(m_table.cuModuleGetFunction(&f, m_module, "vector_add"), CUDA_SUCCESS);
        run_vector_add(f);
    }
    // The same with F, a vector_add however obtained.
    void run_vector_add(CUfunction f) {
        constexpr int n = 300;
        std::vector<float> a(n), b(n), c(n, -1.0f);
        for (int i = 0; i < n; ++i) {
            a[i] = static_cast<float>(i) * 1.5f - 7.0f;
            b[i] = static_cast<float>((i * 37) % 101) + 0.25f;
        }
        CUdeviceptr da, db, dc;
        ASSERT_EQ(m_table.cuMemAlloc_v2(&da, n * 4), CUDA_SUCCESS);
        ASSERT_EQ(m_table.cuMemAlloc_v2(&db, n * 4), CUDA_SUCCESS);
        ASSERT_EQ(m_table.cuMemAlloc_v2(&dc, n * 4), CUDA_SUCCESS);
        m_table.cuMemcpyHtoD_v2(da, a.data(), n * 4);
        m_table.cuMemcpyHtoD_v2(db, b.data(), n * 4);
        int nn = n;
        void* params[] = {&da, &db, &dc, &nn};
        ASSERT_EQ(m_table.cuLaunchKernel(f, 3, 1, 1, 128, 1, 1, 0, nullptr, params, nullptr), CUDA_SUCCESS);
        ASSERT_EQ(m_table.cuCtxSynchronize(), CUDA_SUCCESS);
        ASSERT_EQ(m_table.cuMemcpyDtoH_v2(c.data(), dc, n * 4), CUDA_SUCCESS);
        for (int i = 0; i < n; ++i) ASSERT_EQ(c[i], a[i] + b[i]) << i;
        m_table.cuMemFree_v2(da);
        m_table.cuMemFree_v2(db);
        m_table.cuMemFree_v2(dc);
    }

    // Launches saxpy with N as its first parameter (the prep key).
    void launch_saxpy(CUfunction f, long long n, CUdeviceptr x, CUdeviceptr y) {
        float a = 2.0f;
        void* params[] = {&n, &a, &x, &y};
        ASSERT_EQ(m_table.cuLaunchKernel(f, 9, 2, 1, 32, 2, 4, 16, nullptr, params, nullptr), CUDA_SUCCESS);
    }

    d4r::test::TempDir m_dir;
    std::unique_ptr<Backend> m_backend;
    std::unique_ptr<Runtime> m_runtime; // holds the layers' state
    ApiTable m_registry;                // the module registry over the backend, below the layer
    ApiTable m_table;
    std::string m_ptx;
    bool m_set_active = false;
    CUcontext m_ctx = nullptr;
    CUmodule m_module = nullptr;
};

} // namespace

TEST_F(Overrides, DeveloperSetServesWithoutHashCheck) {
    register_test_kernels(0);
    write_text(m_dir.path() / "vector_add.cpu", "1\n");
    make_layer(MapEnvironment{{"D4R_NATIVE_KERNEL_DIR", m_dir.path().string()}});
    ASSERT_TRUE(m_set_active);
    run_vector_add();
    EXPECT_EQ(g_seen.calls, std::vector<std::string>{"main"});
    EXPECT_EQ(override_stats().native_launches, 1u);
    EXPECT_EQ(override_stats().served_functions, 1u);
}

// The former name of the kernel root still works (warned), and D4R_GPU_ARCH, a GPU's architecture, does not
// redirect the cpu backend's set (native_target_for decides the architecture; it applies only to GPUs).
TEST_F(Overrides, DeprecatedRootNameWorksAndGpuArchLeavesTheCpuSetAlone) {
    register_test_kernels(0);
    write_text(m_dir.path() / "vector_add.cpu", "1\n");
    make_layer(MapEnvironment{{"D4R_ZLUDA_NATIVE_DIR", m_dir.path().string()}, {"D4R_GPU_ARCH", "gfx1101"}});
    ASSERT_TRUE(m_set_active);
    run_vector_add();
    EXPECT_EQ(override_stats().native_launches, 1u);
}

TEST_F(Overrides, ReleaseSetServesOnHashMatch) {
    register_test_kernels(0);
    write_text(m_dir.path() / "vector_add.cpu", "1\n");
    write_text(m_dir.path() / "d4r-kernels.txt", fmt::format("vector_add {:016x}\n", ptx_hash_of(m_ptx, "vector_add")));
    make_layer(MapEnvironment{{"D4R_NATIVE_KERNEL_DIR", m_dir.path().string()}});
    run_vector_add();
    EXPECT_EQ(g_seen.calls, std::vector<std::string>{"main"});
    EXPECT_EQ(override_stats().refused_functions, 0u);
}

TEST_F(Overrides, ReleaseSetRefusesOnHashMismatchAndThePtxPathStaysCorrect) {
    register_test_kernels(0);
    write_text(m_dir.path() / "vector_add.cpu", "1\n");
    write_text(m_dir.path() / "d4r-kernels.txt",
               fmt::format("vector_add {:016x}\n", ptx_hash_of(m_ptx, "vector_add") ^ 1));
    make_layer(MapEnvironment{{"D4R_NATIVE_KERNEL_DIR", m_dir.path().string()}});
    run_vector_add(); // computed by ptxsim from the PTX
    EXPECT_TRUE(g_seen.calls.empty());
    EXPECT_EQ(override_stats().refused_functions, 1u);
    EXPECT_EQ(override_stats().native_launches, 0u);
}

TEST_F(Overrides, AccuracyModeNeverServesFastKernels) {
    register_test_kernels(0);
    write_text(m_dir.path() / "vector_add.cpu", "1\n");
    make_layer(MapEnvironment{{"D4R_NATIVE_KERNEL_DIR", m_dir.path().string()}, {"D4R_PREFER_ACCURACY", "1"}});
    EXPECT_FALSE(m_set_active);
    run_vector_add();
    EXPECT_TRUE(g_seen.calls.empty());
}

TEST_F(Overrides, PrepRunsOncePerKeyAndShapesFollowTheSymbols) {
    register_test_kernels(0);
    write_text(m_dir.path() / "saxpy.cpu", "1\n");
    make_layer(MapEnvironment{{"D4R_NATIVE_KERNEL_DIR", m_dir.path().string()}});
    CUfunction f;
    ASSERT_EQ(m_table.cuModuleGetFunction(&f, m_module, "saxpy"), CUDA_SUCCESS);
    std::vector<float> x(64, 1.0f), y(64, 0.5f);
    CUdeviceptr dx, dy;
    ASSERT_EQ(m_table.cuMemAlloc_v2(&dx, 256), CUDA_SUCCESS);
    ASSERT_EQ(m_table.cuMemAlloc_v2(&dy, 256), CUDA_SUCCESS);
    m_table.cuMemcpyHtoD_v2(dx, x.data(), 256);
    m_table.cuMemcpyHtoD_v2(dy, y.data(), 256);
    launch_saxpy(f, 64, dx, dy);
    launch_saxpy(f, 64, dx, dy); // same key: no prep
    launch_saxpy(f, 32, dx, dy); // new key: prep
    ASSERT_EQ(m_table.cuCtxSynchronize(), CUDA_SUCCESS);
    std::vector<std::string> expected = {"prep",  "main", "post1", "post2", "main", "post1",
                                         "post2", "prep", "main",  "post1", "post2"};
    EXPECT_EQ(g_seen.calls, expected);
    // prep: d4r_prep_blocks x 128; main: grid_x replaces the grid, block_z the block's z;
    // post1: main's grid x/y, 32x1x1; post2: its own grid_x and block_x.
    EXPECT_EQ(g_seen.shapes[0], (std::array<uint32_t, 6>{7, 1, 1, 128, 1, 1}));
    EXPECT_EQ(g_seen.shapes[1], (std::array<uint32_t, 6>{3, 1, 1, 32, 2, 1}));
    EXPECT_EQ(g_seen.shapes[2], (std::array<uint32_t, 6>{9, 2, 1, 32, 1, 1}));
    EXPECT_EQ(g_seen.shapes[3], (std::array<uint32_t, 6>{5, 2, 1, 64, 1, 1}));
    // d4r_dynamic_shared: the main kernel's, instead of the caller's 16 bytes; the other phases keep the caller's.
    EXPECT_EQ(g_seen.shared[0], 16u);
    EXPECT_EQ(g_seen.shared[1], 4096u);
    EXPECT_EQ(g_seen.shared[2], 16u);
    // y = 2x + y three times over the first 64 / 64 / 32 elements.
    ASSERT_EQ(m_table.cuMemcpyDtoH_v2(y.data(), dy, 256), CUDA_SUCCESS);
    EXPECT_EQ(y[0], 6.5f);
    EXPECT_EQ(y[40], 4.5f);
    EXPECT_EQ(override_stats().prep_launches, 2u);
    EXPECT_EQ(override_stats().post_launches, 6u);
    m_table.cuMemFree_v2(dx);
    m_table.cuMemFree_v2(dy);
}

TEST_F(Overrides, PrepSlotsKeepOneImagePerKeyAndShareAnOverflowSlot) {
    register_test_kernels(2);
    write_text(m_dir.path() / "saxpy.cpu", "1\n");
    make_layer(MapEnvironment{{"D4R_NATIVE_KERNEL_DIR", m_dir.path().string()}});
    CUfunction f;
    ASSERT_EQ(m_table.cuModuleGetFunction(&f, m_module, "saxpy"), CUDA_SUCCESS);
    CUdeviceptr dx, dy;
    ASSERT_EQ(m_table.cuMemAlloc_v2(&dx, 256), CUDA_SUCCESS);
    ASSERT_EQ(m_table.cuMemAlloc_v2(&dy, 256), CUDA_SUCCESS);
    m_table.cuMemsetD32_v2(dx, 0, 64);
    m_table.cuMemsetD32_v2(dy, 0, 64);
    for (long long key : {10, 20, 10, 20, 30, 30, 10}) launch_saxpy(f, key, dx, dy);
    ASSERT_EQ(m_table.cuCtxSynchronize(), CUDA_SUCCESS);
    std::vector<uint32_t> prep_slots, main_slots;
    for (size_t i = 0; i < g_seen.calls.size(); ++i) {
        if (g_seen.calls[i] == "prep") prep_slots.push_back(g_seen.slots[i]);
        if (g_seen.calls[i] == "main") main_slots.push_back(g_seen.slots[i]);
    }
    // Keys 10 and 20 take slots 0 and 1 and are prepared once; 30 uses the overflow slot 2 and is
    // prepared at every launch.
    EXPECT_EQ(prep_slots, (std::vector<uint32_t>{0, 1, 2, 2}));
    EXPECT_EQ(main_slots, (std::vector<uint32_t>{0, 1, 0, 1, 2, 2, 0}));
    m_table.cuMemFree_v2(dx);
    m_table.cuMemFree_v2(dy);
}

TEST_F(Overrides, KernelsWithoutACodeObjectRunFromPtx) {
    register_test_kernels(0);
    write_text(m_dir.path() / "saxpy.cpu", "1\n"); // only saxpy has one
    make_layer(MapEnvironment{{"D4R_NATIVE_KERNEL_DIR", m_dir.path().string()}});
    run_vector_add();
    EXPECT_TRUE(g_seen.calls.empty());
    EXPECT_EQ(override_stats().served_functions, 0u);
}

// A vector_add code object of the backend's own kind (PTX text in a .cubin file, which the cpu backend loads like a
// cubin) that needs BYTES of dynamic shared memory (d4r_dynamic_shared): each sum passes through the last 512 of
// them, and a launch with any other amount traps.
std::string vector_add_needing_shared(uint32_t bytes) {
    return fmt::format(R"(.version 7.8
.target sm_80
.address_size 64
.visible .global .align 4 .u32 d4r_dynamic_shared = {0};
.extern .shared .align 16 .b8 dyn[];
.visible .entry vector_add(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u32 pn)
{{
    .reg .pred %p<3>;
    .reg .f32 %f<5>;
    .reg .b32 %r<9>;
    .reg .b64 %rd<12>;
    mov.u32 %r6, %dynamic_smem_size;
    setp.ne.u32 %p2, %r6, {0};
    @%p2 trap;
    ld.param.u64 %rd1, [pa];
    ld.param.u64 %rd2, [pb];
    ld.param.u64 %rd3, [pc];
    ld.param.u32 %r2, [pn];
    mov.u32 %r3, %ctaid.x;
    mov.u32 %r4, %ntid.x;
    mov.u32 %r5, %tid.x;
    mad.lo.s32 %r1, %r3, %r4, %r5;
    setp.ge.s32 %p1, %r1, %r2;
    @%p1 bra DONE;
    mul.wide.s32 %rd5, %r1, 4;
    add.s64 %rd6, %rd1, %rd5;
    add.s64 %rd7, %rd2, %rd5;
    ld.global.f32 %f1, [%rd6];
    ld.global.f32 %f2, [%rd7];
    add.f32 %f3, %f1, %f2;
    mov.u64 %rd8, dyn;
    mul.wide.u32 %rd9, %r5, 4;
    add.s64 %rd10, %rd8, %rd9;
    st.shared.f32 [%rd10+{1}], %f3;
    ld.shared.f32 %f4, [%rd10+{1}];
    add.s64 %rd11, %rd3, %rd5;
    st.global.f32 [%rd11], %f4;
DONE:
    ret;
}}
)",
                       bytes, bytes - 512);
}

// d4r_dynamic_shared beyond NVIDIA's default 48 KB: the layer raises the function's limit and launches with it.
TEST_F(Overrides, ACodeObjectGetsTheDynamicSharedMemoryItAsksFor) {
    write_text(m_dir.path() / "vector_add.cubin", vector_add_needing_shared(64 * 1024));
    make_layer(MapEnvironment{{"D4R_NATIVE_KERNEL_DIR", m_dir.path().string()}}, "cubin");
    run_vector_add(); // the caller asks for no shared memory
    EXPECT_EQ(override_stats().native_launches, 1u);
}

// More than the device has: the code object is refused and the PTX kernel runs.
TEST_F(Overrides, ACodeObjectAskingForMoreSharedMemoryThanTheDeviceHasIsRefused) {
    write_text(m_dir.path() / "vector_add.cubin", vector_add_needing_shared(1024 * 1024));
    make_layer(MapEnvironment{{"D4R_NATIVE_KERNEL_DIR", m_dir.path().string()}}, "cubin");
    run_vector_add();
    EXPECT_EQ(override_stats().native_launches, 0u);
}

// cudart 12/13 loads its kernels with cuLibraryLoadData and launches the CUkernel handles as CUfunctions.
class LibraryOverrides : public Overrides {
protected:
    // A release set serving vector_add on the hash of the library's PTX, the library loaded.
    void make_release_layer(uint64_t hash_xor = 0) {
        register_test_kernels(0);
        write_text(m_dir.path() / "vector_add.cpu", "1\n");
        write_text(m_dir.path() / "d4r-kernels.txt",
                   fmt::format("vector_add {:016x}\n", ptx_hash_of(m_ptx, "vector_add") ^ hash_xor));
        make_layer(MapEnvironment{{"D4R_NATIVE_KERNEL_DIR", m_dir.path().string()}});
        ASSERT_EQ(m_table.cuLibraryLoadData(&m_library, m_ptx.c_str(), nullptr, nullptr, 0, nullptr, nullptr, 0),
                  CUDA_SUCCESS);
    }
    void TearDown() override {
        if (m_library) m_table.cuLibraryUnload(m_library);
        Overrides::TearDown();
    }
    CUlibrary m_library = nullptr;
};

TEST_F(LibraryOverrides, ReleaseSetServesTheCUkernelLaunchedAsAFunction) {
    make_release_layer();
    CUkernel kernel;
    ASSERT_EQ(m_table.cuLibraryGetKernel(&kernel, m_library, "vector_add"), CUDA_SUCCESS);
    EXPECT_TRUE(is_native_function(reinterpret_cast<CUfunction>(kernel)));
    run_vector_add(reinterpret_cast<CUfunction>(kernel));
    EXPECT_EQ(g_seen.calls, std::vector<std::string>{"main"});
    EXPECT_EQ(override_stats().native_launches, 1u);
    EXPECT_EQ(override_stats().served_functions, 1u);
    EXPECT_EQ(override_stats().refused_functions, 0u);
}

TEST_F(LibraryOverrides, ReleaseSetServesTheFunctionOfCuKernelGetFunction) {
    make_release_layer();
    CUkernel kernel;
    ASSERT_EQ(m_table.cuLibraryGetKernel(&kernel, m_library, "vector_add"), CUDA_SUCCESS);
    CUfunction f;
    ASSERT_EQ(m_table.cuKernelGetFunction(&f, kernel), CUDA_SUCCESS);
    ASSERT_NE(f, reinterpret_cast<CUfunction>(kernel)); // a function of the library's module, not the handle
    run_vector_add(f);
    EXPECT_EQ(g_seen.calls, std::vector<std::string>{"main"});
    EXPECT_EQ(override_stats().native_launches, 1u);
}

TEST_F(LibraryOverrides, TheLibrarysModuleFunctionsAreServedToo) {
    make_release_layer();
    CUmodule module;
    ASSERT_EQ(m_table.cuLibraryGetModule(&module, m_library), CUDA_SUCCESS);
    CUfunction f;
    ASSERT_EQ(m_table.cuModuleGetFunction(&f, module, "vector_add"), CUDA_SUCCESS);
    run_vector_add(f);
    EXPECT_EQ(g_seen.calls, std::vector<std::string>{"main"});
}

TEST_F(LibraryOverrides, AHashMismatchRunsThePtx) {
    make_release_layer(1);
    CUkernel kernel;
    ASSERT_EQ(m_table.cuLibraryGetKernel(&kernel, m_library, "vector_add"), CUDA_SUCCESS);
    EXPECT_FALSE(is_native_function(reinterpret_cast<CUfunction>(kernel)));
    run_vector_add(reinterpret_cast<CUfunction>(kernel)); // computed by ptxsim from the PTX
    EXPECT_TRUE(g_seen.calls.empty());
    EXPECT_EQ(override_stats().refused_functions, 1u);
}

TEST_F(LibraryOverrides, UnloadingTheLibraryDropsItsServedKernels) {
    make_release_layer();
    CUkernel kernel;
    ASSERT_EQ(m_table.cuLibraryGetKernel(&kernel, m_library, "vector_add"), CUDA_SUCCESS);
    CUfunction f;
    ASSERT_EQ(m_table.cuKernelGetFunction(&f, kernel), CUDA_SUCCESS);
    EXPECT_TRUE(is_native_function(reinterpret_cast<CUfunction>(kernel)));
    EXPECT_TRUE(is_native_function(f));
    ASSERT_EQ(m_table.cuLibraryUnload(m_library), CUDA_SUCCESS);
    m_library = nullptr;
    EXPECT_FALSE(is_native_function(reinterpret_cast<CUfunction>(kernel)));
    EXPECT_FALSE(is_native_function(f));
}
