// The module registry layer (runtime/module_registry.h) over the cpu backend: every PTX module of an
// image indexed and hashed once at load, functions named with their module and entry, the PTX text kept
// only when asked, unloads forgetting modules and functions, library images (cuLibraryLoadData) indexed
// the same way for their CUkernels, the functions cuKernelGetFunction gives and their modules' functions.
#include <gtest/gtest.h>

#include <string>

#include "ptx/module_index.h"
#include "runtime/backend.h"
#include "runtime/module_registry.h"
#include "runtime_fixture.h"
#include "test_support.h"

using namespace d4r;
using namespace d4r::runtime;

namespace {

class Registry : public ::testing::Test {
protected:
    void make(RegistryOptions options) {
        auto b = make_cpu_backend();
        ASSERT_TRUE(b) << b.error().text();
        m_backend = std::move(*b);
        m_runtime = rt_test::install_fresh_runtime();
        m_table = make_module_registry_table(*m_runtime, m_backend->table(), options);
        ASSERT_EQ(m_table.cuInit(0), CUDA_SUCCESS);
        ASSERT_EQ(m_table.cuDevicePrimaryCtxRetain(&m_ctx, 0), CUDA_SUCCESS);
        ASSERT_EQ(m_table.cuCtxSetCurrent(m_ctx), CUDA_SUCCESS);
        m_ptx = d4r::test::read_file_text(d4r::test::source_dir() / "tests/runtime/programs/kernels/vector_ops.ptx");
    }
    void TearDown() override {
        if (m_ctx) m_table.cuDevicePrimaryCtxRelease_v2(0);
    }

    // The hash the PTX toolkit gives the module of m_ptx defining KERNEL (computed independently).
    uint64_t expected_hash(const std::string& kernel) {
        auto mods = ptx::index_ptx_modules(
            std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(m_ptx.data()), m_ptx.size()));
        EXPECT_TRUE(mods);
        for (const auto& m : *mods)
            if (m.index.find_entry(kernel)) return m.hash;
        return 0;
    }

    std::unique_ptr<Backend> m_backend;
    std::unique_ptr<Runtime> m_runtime; // holds the registry's state
    ApiTable m_table;
    CUcontext m_ctx = nullptr;
    std::string m_ptx;
};

} // namespace

TEST_F(Registry, FunctionsCarryTheirModuleEntryAndHash) {
    make({});
    CUmodule module;
    ASSERT_EQ(m_table.cuModuleLoadData(&module, m_ptx.c_str()), CUDA_SUCCESS);
    CUfunction saxpy;
    ASSERT_EQ(m_table.cuModuleGetFunction(&saxpy, module, "saxpy"), CUDA_SUCCESS);
    auto f = registered_function(saxpy);
    ASSERT_TRUE(f);
    EXPECT_EQ(f->name, "saxpy");
    EXPECT_EQ(f->module, module);
    ASSERT_TRUE(f->kernel);
    EXPECT_EQ(f->kernel->hashes, std::vector<uint64_t>{expected_hash("saxpy")});
    // saxpy(long long n, float a, const float* x, float* y): four parameters, 32 bytes.
    EXPECT_EQ(f->kernel->info.params.size(), 4u);
    EXPECT_FALSE(f->kernel->ptx); // not kept unless asked
    EXPECT_EQ(registered_kernel(module, "saxpy"), f->kernel);
    EXPECT_FALSE(registered_kernel(module, "no_such_kernel"));
    ASSERT_EQ(m_table.cuModuleUnload(module), CUDA_SUCCESS);
    EXPECT_FALSE(registered_kernel(module, "saxpy"));
    // The handle is dead: the backend cannot name it any more, and the registry says so.
    EXPECT_EQ(registered_function(saxpy)->name, "?");
}

TEST_F(Registry, KeepsThePtxTextForDumps) {
    make(RegistryOptions{true});
    CUmodule module;
    ASSERT_EQ(m_table.cuModuleLoadData(&module, m_ptx.c_str()), CUDA_SUCCESS);
    auto k = registered_kernel(module, "vector_add");
    ASSERT_TRUE(k);
    ASSERT_TRUE(k->ptx);
    EXPECT_NE(k->ptx->find(".entry vector_add"), std::string::npos);
    EXPECT_EQ(m_table.cuModuleUnload(module), CUDA_SUCCESS);
}

// cudart 12/13 loads its kernels with cuLibraryLoadData and launches the CUkernel handles as CUfunctions:
// the CUkernel, the function cuKernelGetFunction gives and the function of the library's module all carry
// the library's entry and hash; cuLibraryUnload forgets them.
TEST_F(Registry, LibraryKernelsCarryTheirLibraryEntryAndHash) {
    make(RegistryOptions{true});
    CUlibrary library;
    ASSERT_EQ(m_table.cuLibraryLoadData(&library, m_ptx.c_str(), nullptr, nullptr, 0, nullptr, nullptr, 0),
              CUDA_SUCCESS);
    CUkernel kernel;
    ASSERT_EQ(m_table.cuLibraryGetKernel(&kernel, library, "vector_add"), CUDA_SUCCESS);
    auto k = registered_function(reinterpret_cast<CUfunction>(kernel));
    ASSERT_TRUE(k);
    EXPECT_EQ(k->name, "vector_add");
    EXPECT_EQ(k->library, library);
    EXPECT_EQ(k->module, nullptr);
    ASSERT_TRUE(k->kernel);
    EXPECT_EQ(k->kernel->hashes, std::vector<uint64_t>{expected_hash("vector_add")});
    EXPECT_EQ(k->kernel->info.params.size(), 4u); // vector_add(a, b, c, n)
    ASSERT_TRUE(k->kernel->ptx);
    EXPECT_NE(k->kernel->ptx->find(".entry vector_add"), std::string::npos);

    CUfunction f;
    ASSERT_EQ(m_table.cuKernelGetFunction(&f, kernel), CUDA_SUCCESS);
    auto info = registered_function(f);
    ASSERT_TRUE(info);
    EXPECT_EQ(info->name, "vector_add");
    EXPECT_EQ(info->library, library);
    EXPECT_EQ(info->kernel, k->kernel);
    EXPECT_EQ(registered_function(f), info); // remembered, not asked again

    CUmodule module;
    ASSERT_EQ(m_table.cuLibraryGetModule(&module, library), CUDA_SUCCESS);
    CUfunction saxpy;
    ASSERT_EQ(m_table.cuModuleGetFunction(&saxpy, module, "saxpy"), CUDA_SUCCESS);
    auto s = registered_function(saxpy);
    ASSERT_TRUE(s && s->kernel);
    EXPECT_EQ(s->kernel->hashes, std::vector<uint64_t>{expected_hash("saxpy")});
    EXPECT_EQ(registered_kernel(module, "saxpy"), s->kernel);

    ASSERT_EQ(m_table.cuLibraryUnload(library), CUDA_SUCCESS);
    EXPECT_FALSE(registered_kernel(module, "saxpy"));
    // The handles are dead: the backend cannot name them any more, and the registry says so.
    EXPECT_EQ(registered_function(reinterpret_cast<CUfunction>(kernel))->name, "?");
    EXPECT_EQ(registered_function(f)->name, "?");
    EXPECT_EQ(registered_function(saxpy)->name, "?");
}

TEST_F(Registry, ARefusedImageRegistersNothing) {
    make({});
    CUmodule module;
    // Not PTX and not a container: the backend refuses it, and nothing is registered.
    EXPECT_NE(m_table.cuModuleLoadData(&module, "garbage"), CUDA_SUCCESS);
    ASSERT_EQ(m_table.cuModuleLoadData(&module, m_ptx.c_str()), CUDA_SUCCESS);
    EXPECT_TRUE(registered_kernel(module, "saxpy"));
    EXPECT_EQ(m_table.cuModuleUnload(module), CUDA_SUCCESS);
}
