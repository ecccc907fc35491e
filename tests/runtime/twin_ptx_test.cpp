// The twin-PTX layer (runtime/twin_ptx/twin_ptx_layer.h): a machine-code image with a registered PTX twin loads
// that PTX on the cpu backend, through every load entry point; anything else is untouched; the table is d4r's
// own and only a runtime whose backend runs PTX only hands it out.
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <vector>

#include "abi/d4r_twin_ptx.h"
#include "ptx/image_extent.h"
#include "runtime/export_tables/export_table_ids.h"
#include "runtime/runtime.h"
#include "runtime_fixture.h"

using namespace d4r::runtime;
using d4r::abi::D4rTwinPtxTable;
using d4r::abi::kD4rTwinPtxTableId;

namespace {

constexpr char kTwin[] = ".version 8.0\n.target sm_90\n.address_size 64\n"
                         ".visible .entry put42(.param .u64 p)\n{\n    .reg .b64 %rd<2>;\n    .reg .b32 %r<2>;\n"
                         "    ld.param.u64 %rd1, [p];\n    cvta.to.global.u64 %rd1, %rd1;\n"
                         "    mov.b32 %r1, 42;\n    st.global.u32 [%rd1], %r1;\n    ret;\n}\n";

// A 120-byte ELF64 with one program header and no sections: machine code as far as the cpu backend can tell
// (no PTX in it), its extent bounded by its headers. SEED varies the bytes after the header.
std::vector<uint8_t> machine_code_image(uint8_t seed) {
    std::vector<uint8_t> e(120, 0);
    const uint8_t ident[] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
    std::memcpy(e.data(), ident, sizeof ident);
    e[0x10] = 2;    // ET_EXEC
    e[0x12] = 190;  // EM_CUDA
    e[0x14] = 1;    // EV_CURRENT
    e[0x20] = 0x40; // e_phoff
    e[0x34] = 0x40; // e_ehsize
    e[0x36] = 0x38; // e_phentsize
    e[0x38] = 1;    // e_phnum
    for (size_t i = 0x40; i < e.size(); ++i) e[i] = static_cast<uint8_t>(seed + i);
    return e;
}

const D4rTwinPtxTable* twin_table(const ApiTable& api) {
    const void* t = nullptr;
    if (api.cuGetExportTable(&t, &kD4rTwinPtxTableId) != CUDA_SUCCESS) return nullptr;
    return static_cast<const D4rTwinPtxTable*>(t);
}

struct Context {
    explicit Context(const ApiTable& api) : api(api) {
        EXPECT_EQ(api.cuInit(0), CUDA_SUCCESS);
        EXPECT_EQ(api.cuCtxCreate_v2(&ctx, 0, 0), CUDA_SUCCESS);
    }
    ~Context() { api.cuCtxDestroy_v2(ctx); }
    const ApiTable& api;
    CUcontext ctx = nullptr;
};

// Runs put42 of MODULE and returns what it wrote.
uint32_t run_put42(const ApiTable& api, CUmodule module) {
    CUfunction f = nullptr;
    EXPECT_EQ(api.cuModuleGetFunction(&f, module, "put42"), CUDA_SUCCESS);
    CUdeviceptr p = 0;
    EXPECT_EQ(api.cuMemAlloc_v2(&p, 4), CUDA_SUCCESS);
    EXPECT_EQ(api.cuMemsetD32_v2(p, 0, 1), CUDA_SUCCESS);
    void* args[] = {&p};
    EXPECT_EQ(api.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, nullptr, args, nullptr), CUDA_SUCCESS);
    uint32_t v = 0;
    EXPECT_EQ(api.cuMemcpyDtoH_v2(&v, p, 4), CUDA_SUCCESS);
    api.cuMemFree_v2(p);
    return v;
}

} // namespace

TEST(TwinPtx, TheIdIsD4rsOwnAndKnownByName) {
    EXPECT_EQ(export_table_id(kD4rTwinPtxTableId), ExportTableId::D4rTwinPtx);
    EXPECT_STREQ(export_table_name(ExportTableId::D4rTwinPtx), "d4r-twin-ptx");
}

TEST(TwinPtx, AMachineCodeImageWithATwinLoadsItsPtxOnTheCpuBackend) {
    auto runtime = rt_test::install_fresh_runtime();
    const ApiTable& api = dispatch();
    const D4rTwinPtxTable* table = twin_table(api);
    ASSERT_NE(table, nullptr);
    EXPECT_EQ(table->size, sizeof(D4rTwinPtxTable));
    Context c(api);
    std::vector<uint8_t> image = machine_code_image(1);
    auto extent = d4r::ptx::image_extent(image.data());
    ASSERT_TRUE(extent) << extent.error().text();
    ASSERT_EQ(extent->size(), image.size());

    CUmodule m = nullptr;
    EXPECT_EQ(api.cuModuleLoadData(&m, image.data()), CUDA_ERROR_NO_BINARY_FOR_GPU); // no twin yet

    ASSERT_EQ(table->register_twin(image.data(), image.size(), kTwin, sizeof kTwin), CUDA_SUCCESS);
    ASSERT_EQ(api.cuModuleLoadData(&m, image.data()), CUDA_SUCCESS);
    EXPECT_EQ(run_put42(api, m), 42u);
    EXPECT_EQ(api.cuModuleUnload(m), CUDA_SUCCESS);

    // The other load entry points, and a copy of the bytes elsewhere in memory.
    std::vector<uint8_t> copy = image;
    ASSERT_EQ(api.cuModuleLoadDataEx(&m, copy.data(), 0, nullptr, nullptr), CUDA_SUCCESS);
    EXPECT_EQ(run_put42(api, m), 42u);
    api.cuModuleUnload(m);
    ASSERT_EQ(api.cuModuleLoadFatBinary(&m, copy.data()), CUDA_SUCCESS);
    api.cuModuleUnload(m);
    CUlibrary lib = nullptr;
    ASSERT_EQ(api.cuLibraryLoadData(&lib, copy.data(), nullptr, nullptr, 0, nullptr, nullptr, 0), CUDA_SUCCESS);
    EXPECT_EQ(api.cuLibraryUnload(lib), CUDA_SUCCESS);

    // cuLinkAddData of the image as a cubin links the twin.
    CUlinkState link = nullptr;
    ASSERT_EQ(api.cuLinkCreate_v2(0, nullptr, nullptr, &link), CUDA_SUCCESS);
    EXPECT_EQ(
        api.cuLinkAddData_v2(link, CU_JIT_INPUT_CUBIN, copy.data(), copy.size(), "twin.cubin", 0, nullptr, nullptr),
        CUDA_SUCCESS);
    void* linked = nullptr;
    size_t linked_size = 0;
    ASSERT_EQ(api.cuLinkComplete(link, &linked, &linked_size), CUDA_SUCCESS);
    ASSERT_EQ(api.cuModuleLoadData(&m, linked), CUDA_SUCCESS);
    EXPECT_EQ(run_put42(api, m), 42u);
    api.cuModuleUnload(m);
    api.cuLinkDestroy(link);
}

TEST(TwinPtx, OnlyTheRegisteredBytesAreReplaced) {
    auto runtime = rt_test::install_fresh_runtime();
    const ApiTable& api = dispatch();
    const D4rTwinPtxTable* table = twin_table(api);
    ASSERT_NE(table, nullptr);
    Context c(api);
    std::vector<uint8_t> image = machine_code_image(1), other = machine_code_image(2);
    ASSERT_EQ(table->register_twin(image.data(), image.size(), kTwin, sizeof kTwin), CUDA_SUCCESS);
    CUmodule m = nullptr;
    EXPECT_EQ(api.cuModuleLoadData(&m, other.data()), CUDA_ERROR_NO_BINARY_FOR_GPU); // same size, other bytes
    // PTX text itself is never looked up, and loads as it is.
    ASSERT_EQ(api.cuModuleLoadData(&m, kTwin), CUDA_SUCCESS);
    api.cuModuleUnload(m);
}

TEST(TwinPtx, RegisterRefusesWhatIsNotAnImageAndPtx) {
    auto runtime = rt_test::install_fresh_runtime();
    const D4rTwinPtxTable* table = twin_table(dispatch());
    ASSERT_NE(table, nullptr);
    std::vector<uint8_t> image = machine_code_image(3);
    EXPECT_EQ(table->register_twin(nullptr, 10, kTwin, sizeof kTwin), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(table->register_twin(image.data(), 0, kTwin, sizeof kTwin), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(table->register_twin(image.data(), image.size(), nullptr, 4), CUDA_ERROR_INVALID_VALUE);
    const char not_ptx[] = "int main() { return 0; }";
    EXPECT_EQ(table->register_twin(image.data(), image.size(), not_ptx, sizeof not_ptx), CUDA_ERROR_INVALID_VALUE);
}

TEST(TwinPtx, ARuntimeOverABackendThatRunsMachineCodeRefusesTheId) {
    auto cpu = rt_test::cpu_backend();
    Runtime rt(d4r::MapEnvironment(), std::make_unique<rt_test::BorrowedBackend>(
                                          cpu->table(), "driver:/usr/lib/x86_64-linux-gnu/libcuda.so.1"));
    rt.install();
    EXPECT_FALSE(rt.has_layer(LayerSlot::TwinPtx));
    const void* t = reinterpret_cast<const void*>(1);
    EXPECT_EQ(dispatch().cuGetExportTable(&t, &kD4rTwinPtxTableId), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(t, nullptr);
    rt.uninstall();
    auto fresh = rt_test::install_fresh_runtime();
    EXPECT_TRUE(fresh->has_layer(LayerSlot::TwinPtx));
}
