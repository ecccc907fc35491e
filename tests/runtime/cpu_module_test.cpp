// cpu backend: loading modules from PTX, fatbins and ELF files, load errors, globals, libraries and
// function attributes.
#include <cstring>

#include "core/files.h"
#include "cpu_test_util.h"
#include "test_support.h"

namespace d4r::runtime::cpu_test {
namespace {

using CpuModuleTest = CpuBackendTest;

std::vector<uint8_t> fixture(const char* name) {
    auto bytes = d4r::read_file(d4r::test::fixture_dir() / "ptx" / name);
    EXPECT_TRUE(bytes) << name;
    return bytes ? *bytes : std::vector<uint8_t>{};
}

// Runs the fixture kernel d4r_saxpy (tests/fixtures/ptx/src/kernels.cu): out[i] = alpha * x[i] *
// scale[i & 3] + y[i] with scale = {1, 2, 3, 4}, and checks every output.
void check_saxpy(CUmodule m) {
    CUfunction f = nullptr;
    ASSERT_EQ(api().cuModuleGetFunction(&f, m, "d4r_saxpy"), CUDA_SUCCESS);
    const int n = 100;
    std::vector<float> x(n), y(n), out(n);
    for (int i = 0; i < n; ++i) {
        x[i] = float(i);
        y[i] = float(1000 - i);
    }
    CUdeviceptr dx, dy, dout;
    ASSERT_EQ(api().cuMemAlloc_v2(&dx, n * 4), CUDA_SUCCESS);
    ASSERT_EQ(api().cuMemAlloc_v2(&dy, n * 4), CUDA_SUCCESS);
    ASSERT_EQ(api().cuMemAlloc_v2(&dout, n * 4), CUDA_SUCCESS);
    ASSERT_EQ(api().cuMemcpyHtoD_v2(dx, x.data(), n * 4), CUDA_SUCCESS);
    ASSERT_EQ(api().cuMemcpyHtoD_v2(dy, y.data(), n * 4), CUDA_SUCCESS);
    float alpha = 0.5f;
    int count = n;
    void* params[] = {&dout, &dx, &dy, &alpha, &count};
    ASSERT_EQ(api().cuLaunchKernel(f, 4, 1, 1, 32, 1, 1, 0, nullptr, params, nullptr), CUDA_SUCCESS);
    ASSERT_EQ(api().cuMemcpyDtoH_v2(out.data(), dout, n * 4), CUDA_SUCCESS);
    const float scale[4] = {1, 2, 3, 4};
    for (int i = 0; i < n; ++i) ASSERT_EQ(out[i], alpha * x[i] * scale[i & 3] + y[i]) << i;
    api().cuMemFree_v2(dx);
    api().cuMemFree_v2(dy);
    api().cuMemFree_v2(dout);
}

TEST_F(CpuModuleTest, PtxTextFunctionsAndGlobals) {
    CUmodule m = load_test_module();
    ASSERT_NE(m, nullptr);
    CUfunction f1 = nullptr, f2 = nullptr;
    EXPECT_EQ(api().cuModuleGetFunction(&f1, m, "add_one"), CUDA_SUCCESS);
    EXPECT_EQ(api().cuModuleGetFunction(&f2, m, "add_one"), CUDA_SUCCESS);
    EXPECT_EQ(f1, f2);
    EXPECT_EQ(api().cuModuleGetFunction(&f2, m, "no_such_kernel"), CUDA_ERROR_NOT_FOUND);
    EXPECT_EQ(api().cuModuleGetFunction(&f2, m, nullptr), CUDA_ERROR_INVALID_VALUE);
    const char* name = nullptr;
    EXPECT_EQ(api().cuFuncGetName(&name, f1), CUDA_SUCCESS);
    EXPECT_STREQ(name, "add_one");
    CUmodule owner = nullptr;
    EXPECT_EQ(api().cuFuncGetModule(&owner, f1), CUDA_SUCCESS);
    EXPECT_EQ(owner, m);

    // The .global variable: initial value 5, copy target, and kernels see host writes to it.
    CUdeviceptr g = 0;
    size_t bytes = 0;
    ASSERT_EQ(api().cuModuleGetGlobal_v2(&g, &bytes, m, "counter"), CUDA_SUCCESS);
    EXPECT_EQ(bytes, 4u);
    uint32_t v = 0;
    EXPECT_EQ(api().cuMemcpyDtoH_v2(&v, g, 4), CUDA_SUCCESS);
    EXPECT_EQ(v, 5u);
    v = 40;
    EXPECT_EQ(api().cuMemcpyHtoD_v2(g, &v, 4), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemcpyHtoD_v2(g, &v, 8), CUDA_ERROR_INVALID_VALUE);
    CUfunction bump = function(m, "bump_counter");
    EXPECT_EQ(api().cuLaunchKernel(bump, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemcpyDtoH_v2(&v, g, 4), CUDA_SUCCESS);
    EXPECT_EQ(v, 41u);
    EXPECT_EQ(api().cuModuleGetGlobal_v2(nullptr, &bytes, m, "table"), CUDA_SUCCESS);
    EXPECT_EQ(bytes, 64u);
    EXPECT_EQ(api().cuModuleGetGlobal_v2(&g, &bytes, m, "missing"), CUDA_ERROR_NOT_FOUND);

    EXPECT_EQ(api().cuModuleUnload(m), CUDA_SUCCESS);
    EXPECT_EQ(api().cuModuleUnload(m), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_EQ(api().cuModuleGetFunction(&f2, m, "add_one"), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_EQ(api().cuFuncGetName(&name, f1), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_EQ(api().cuLaunchKernel(f1, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_EQ(api().cuMemcpyDtoH_v2(&v, g, 4), CUDA_ERROR_INVALID_VALUE); // the variable went with it
}

// A `.attribute(.managed)` variable is managed memory (libNVVM's uvmlite sample): the pointer attributes
// say so and give the host pointer, through which host and kernel see each other's writes.
TEST_F(CpuModuleTest, ManagedModuleVariables) {
    const char* ptx = ".version 8.0\n.target sm_90\n.address_size 64\n"
                      ".global .attribute(.managed) .align 4 .u32 xxx = 10;\n"
                      ".global .align 4 .u32 plain = 7;\n"
                      ".visible .entry k()\n{\n    .reg .b32 %r<2>;\n"
                      "    ld.global.u32 %r1, [xxx];\n    add.s32 %r1, %r1, 20;\n    st.global.u32 [xxx], %r1;\n"
                      "    ret;\n}\n";
    CUmodule m = nullptr;
    ASSERT_EQ(api().cuModuleLoadData(&m, ptx), CUDA_SUCCESS);
    CUdeviceptr managed = 0, plain = 0;
    size_t bytes = 0;
    ASSERT_EQ(api().cuModuleGetGlobal_v2(&managed, &bytes, m, "xxx"), CUDA_SUCCESS);
    ASSERT_EQ(api().cuModuleGetGlobal_v2(&plain, &bytes, m, "plain"), CUDA_SUCCESS);
    unsigned is_managed = 7;
    EXPECT_EQ(api().cuPointerGetAttribute(&is_managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, managed), CUDA_SUCCESS);
    EXPECT_EQ(is_managed, 1u);
    EXPECT_EQ(api().cuPointerGetAttribute(&is_managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, plain), CUDA_SUCCESS);
    EXPECT_EQ(is_managed, 0u);
    void* host = nullptr;
    EXPECT_EQ(api().cuPointerGetAttribute(&host, CU_POINTER_ATTRIBUTE_HOST_POINTER, plain), CUDA_ERROR_INVALID_VALUE);
    ASSERT_EQ(api().cuPointerGetAttribute(&host, CU_POINTER_ATTRIBUTE_HOST_POINTER, managed), CUDA_SUCCESS);
    ASSERT_NE(host, nullptr);
    auto* p = static_cast<uint32_t*>(host);
    EXPECT_EQ(*p, 10u);
    *p += 1;
    ASSERT_EQ(api().cuLaunchKernel(function(m, "k"), 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr), CUDA_SUCCESS);
    ASSERT_EQ(api().cuCtxSynchronize(), CUDA_SUCCESS);
    EXPECT_EQ(*p, 31u);
    EXPECT_EQ(api().cuMemPrefetchAsync(managed, 4, CUdevice(-1) /* CU_DEVICE_CPU */, nullptr), CUDA_SUCCESS);
    EXPECT_EQ(api().cuModuleUnload(m), CUDA_SUCCESS);
}

// A PTX ISA newer than d4r knows is UNSUPPORTED_PTX_VERSION, as on NVIDIA's driver (H200, driver 580).
TEST_F(CpuModuleTest, NewerPtxIsaIsAnUnsupportedVersion) {
    CUmodule m = nullptr;
    EXPECT_EQ(
        api().cuModuleLoadData(&m, ".version 99.9\n.target sm_90\n.address_size 64\n.visible .entry k() { ret; }\n"),
        CUDA_ERROR_UNSUPPORTED_PTX_VERSION);
    EXPECT_EQ(m, nullptr);
    EXPECT_EQ(
        api().cuModuleLoadData(&m, ".version 9.0\n.target sm_90\n.address_size 64\n.visible .entry k() { ret; }\n"),
        CUDA_SUCCESS);
    EXPECT_EQ(api().cuModuleUnload(m), CUDA_SUCCESS);
}

TEST_F(CpuModuleTest, InvalidPtxFillsTheErrorLog) {
    const char* bad =
        ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n    frobnicate.b32 %r1;\n    ret;\n}\n";
    char error_log[512];
    std::memset(error_log, 'x', sizeof error_log);
    char info_log[64];
    CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, CU_JIT_INFO_LOG_BUFFER,
                              CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
    void* values[] = {error_log, reinterpret_cast<void*>(uintptr_t(sizeof error_log)), info_log,
                      reinterpret_cast<void*>(uintptr_t(sizeof info_log))};
    CUmodule m = nullptr;
    EXPECT_EQ(api().cuModuleLoadDataEx(&m, bad, 4, options, values), CUDA_ERROR_INVALID_PTX);
    std::string text(error_log);
    EXPECT_NE(text.find("frobnicate"), std::string::npos) << text;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(values[1]), text.size() + 1);
    // A tiny buffer receives a truncated, terminated message.
    char tiny[8];
    void* small_values[] = {tiny, reinterpret_cast<void*>(uintptr_t(sizeof tiny))};
    EXPECT_EQ(api().cuModuleLoadDataEx(&m, bad, 2, options, small_values), CUDA_ERROR_INVALID_PTX);
    EXPECT_EQ(std::strlen(tiny), 7u);
    EXPECT_EQ(api().cuModuleLoadData(&m, bad), CUDA_ERROR_INVALID_PTX);
    EXPECT_EQ(api().cuModuleLoadData(&m, nullptr), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuModuleLoadData(nullptr, bad), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuModuleLoadDataEx(&m, bad, 2, nullptr, values), CUDA_ERROR_INVALID_VALUE);
    // A successful load writes empty logs.
    values[1] = reinterpret_cast<void*>(uintptr_t(sizeof error_log));
    ASSERT_EQ(api().cuModuleLoadDataEx(&m, kTestPtx, 4, options, values), CUDA_SUCCESS);
    EXPECT_EQ(error_log[0], '\0');
    EXPECT_EQ(api().cuModuleUnload(m), CUDA_SUCCESS);
}

TEST_F(CpuModuleTest, FatbinsAndElf) {
    for (const char* name : {"kernels.plain.fatbin", "kernels.zstd.fatbin", "kernels.lz4.fatbin",
                             "kernels.multi.fatbin", "libkernels.so"}) {
        SCOPED_TRACE(name);
        std::vector<uint8_t> bytes = fixture(name);
        ASSERT_FALSE(bytes.empty());
        CUmodule m = nullptr;
        ASSERT_EQ(api().cuModuleLoadData(&m, bytes.data()), CUDA_SUCCESS);
        check_saxpy(m);
        // d4r_scale is the __constant__ {1, 2, 3, 4}.
        CUdeviceptr scale = 0;
        size_t size = 0;
        ASSERT_EQ(api().cuModuleGetGlobal_v2(&scale, &size, m, "d4r_scale"), CUDA_SUCCESS);
        EXPECT_EQ(size, 16u);
        float s[4] = {};
        EXPECT_EQ(api().cuMemcpyDtoH_v2(s, scale, 16), CUDA_SUCCESS);
        EXPECT_EQ(s[3], 4.0f);
        EXPECT_EQ(api().cuModuleUnload(m), CUDA_SUCCESS);
    }
    // cuModuleLoadFatBinary with the wrapper nvcc registers ({magic, version, data, filename}).
    std::vector<uint8_t> fatbin = fixture("kernels.plain.fatbin");
    struct {
        int magic;
        int version;
        const void* data;
        const void* unused;
    } wrapper{0x466243b1, 1, fatbin.data(), nullptr};
    CUmodule m = nullptr;
    ASSERT_EQ(api().cuModuleLoadFatBinary(&m, &wrapper), CUDA_SUCCESS);
    check_saxpy(m);
    EXPECT_EQ(api().cuModuleUnload(m), CUDA_SUCCESS);
}

TEST_F(CpuModuleTest, CubinOnlyAndGarbage) {
    // A fatbin (header: magic, version 1, header size 16, body size) with one ELF (cubin) entry for sm_90.
    std::vector<uint8_t> fb(16 + 64 + 64, 0);
    auto put32 = [&](size_t at, uint32_t v) { std::memcpy(&fb[at], &v, 4); };
    auto put64 = [&](size_t at, uint64_t v) { std::memcpy(&fb[at], &v, 8); };
    put32(0, 0xBA55ED50);
    fb[4] = 1;
    fb[6] = 16;
    put64(8, 64 + 64);
    fb[16] = 2; // kind: ELF
    fb[18] = 1;
    fb[19] = 1;
    put32(16 + 4, 64);      // entry header size
    put64(16 + 8, 64);      // payload size
    put32(16 + 0x1c, 90);   // arch
    put64(16 + 0x28, 0x11); // flags (64-bit, host linux)
    const uint8_t elf_magic[] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
    std::memcpy(&fb[80], elf_magic, sizeof elf_magic);
    CUmodule m = nullptr;
    EXPECT_EQ(api().cuModuleLoadData(&m, fb.data()), CUDA_ERROR_NO_BINARY_FOR_GPU);
    EXPECT_EQ(api().cuModuleLoadFatBinary(&m, fb.data()), CUDA_ERROR_NO_BINARY_FOR_GPU);
    std::vector<uint8_t> garbage(64, 0xee);
    garbage.back() = 0;
    EXPECT_EQ(api().cuModuleLoadData(&m, garbage.data()), CUDA_ERROR_INVALID_IMAGE);
    std::vector<uint8_t> broken = fixture("kernels.plain.fatbin");
    broken.resize(40); // header promises more than there is... the reader sees a truncated entry
    uint64_t huge = 1ull << 40;
    std::memcpy(&broken[8], &huge, 8);
    EXPECT_NE(api().cuModuleLoadData(&m, broken.data()), CUDA_SUCCESS);
}

TEST_F(CpuModuleTest, LoadFromFile) {
    CUmodule m = nullptr;
    std::string path = (d4r::test::fixture_dir() / "ptx" / "kernels.ptx").string();
    ASSERT_EQ(api().cuModuleLoad(&m, path.c_str()), CUDA_SUCCESS);
    check_saxpy(m);
    EXPECT_EQ(api().cuModuleUnload(m), CUDA_SUCCESS);
    EXPECT_EQ(api().cuModuleLoad(&m, "/nonexistent/d4r/kernels.ptx"), CUDA_ERROR_FILE_NOT_FOUND);
}

TEST_F(CpuModuleTest, Libraries) {
    CUlibrary lib = nullptr;
    ASSERT_EQ(api().cuLibraryLoadData(&lib, kTestPtx, nullptr, nullptr, 0, nullptr, nullptr, 0), CUDA_SUCCESS);
    CUkernel k = nullptr;
    ASSERT_EQ(api().cuLibraryGetKernel(&k, lib, "add_one"), CUDA_SUCCESS);
    EXPECT_EQ(api().cuLibraryGetKernel(&k, lib, "nope"), CUDA_ERROR_NOT_FOUND);
    ASSERT_EQ(api().cuLibraryGetKernel(&k, lib, "add_one"), CUDA_SUCCESS);
    CUfunction f = nullptr;
    ASSERT_EQ(api().cuKernelGetFunction(&f, k), CUDA_SUCCESS);
    CUmodule m = nullptr;
    EXPECT_EQ(api().cuLibraryGetModule(&m, lib), CUDA_SUCCESS);
    CUmodule fm = nullptr;
    EXPECT_EQ(api().cuFuncGetModule(&fm, f), CUDA_SUCCESS);
    EXPECT_EQ(fm, m);
    CUdeviceptr g = 0;
    size_t size = 0;
    EXPECT_EQ(api().cuLibraryGetGlobal(&g, &size, lib, "counter"), CUDA_SUCCESS);
    EXPECT_EQ(size, 4u);
    // Launch through the library's function: 3 x 64 elements incremented from 10.
    CUdeviceptr d = 0;
    std::vector<uint32_t> h(192, 10);
    ASSERT_EQ(api().cuMemAlloc_v2(&d, 192 * 4), CUDA_SUCCESS);
    ASSERT_EQ(api().cuMemcpyHtoD_v2(d, h.data(), 192 * 4), CUDA_SUCCESS);
    uint32_t n = 192;
    void* params[] = {&d, &n};
    ASSERT_EQ(api().cuLaunchKernel(f, 3, 1, 1, 64, 1, 1, 0, nullptr, params, nullptr), CUDA_SUCCESS);
    ASSERT_EQ(api().cuMemcpyDtoH_v2(h.data(), d, 192 * 4), CUDA_SUCCESS);
    for (uint32_t v : h) ASSERT_EQ(v, 11u);
    EXPECT_EQ(api().cuLibraryUnload(lib), CUDA_SUCCESS);
    EXPECT_EQ(api().cuLibraryUnload(lib), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_EQ(api().cuKernelGetFunction(&f, k), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_EQ(api().cuLibraryGetModule(&m, lib), CUDA_ERROR_INVALID_HANDLE);
    api().cuMemFree_v2(d);
}

TEST_F(CpuModuleTest, FunctionAttributes) {
    CUmodule m = load_test_module();
    CUfunction f = function(m, "uses_shared");
    auto attr = [&](CUfunction_attribute a) {
        int v = -1;
        EXPECT_EQ(api().cuFuncGetAttribute(&v, a, f), CUDA_SUCCESS) << a;
        return v;
    };
    EXPECT_EQ(attr(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK), 1024);
    EXPECT_EQ(attr(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES), 1024);
    EXPECT_EQ(attr(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES), 0);
    EXPECT_EQ(attr(CU_FUNC_ATTRIBUTE_NUM_REGS), 32);
    EXPECT_EQ(attr(CU_FUNC_ATTRIBUTE_PTX_VERSION), 90);
    EXPECT_EQ(attr(CU_FUNC_ATTRIBUTE_BINARY_VERSION), 90);
    EXPECT_EQ(attr(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES), 48 * 1024 - 1024);
    // The PTX version is the module's own .target (CUB checks it against the architectures it was built for
    // and refuses with cudaErrorInvalidDeviceFunction otherwise); the binary is the modelled sm_90.
    std::string sm80 = kTestPtx;
    sm80.replace(sm80.find(".target sm_90"), 13, ".target sm_80");
    CUmodule m80 = nullptr;
    ASSERT_EQ(api().cuModuleLoadData(&m80, sm80.c_str()), CUDA_SUCCESS);
    f = function(m80, "uses_shared");
    EXPECT_EQ(attr(CU_FUNC_ATTRIBUTE_PTX_VERSION), 80);
    EXPECT_EQ(attr(CU_FUNC_ATTRIBUTE_BINARY_VERSION), 90);
    EXPECT_EQ(api().cuModuleUnload(m80), CUDA_SUCCESS);
    f = function(m, "uses_shared");
    int v = 0;
    EXPECT_EQ(api().cuFuncGetAttribute(&v, static_cast<CUfunction_attribute>(20), f), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuFuncGetAttribute(nullptr, CU_FUNC_ATTRIBUTE_NUM_REGS, f), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_NUM_REGS, reinterpret_cast<CUfunction>(&v)),
              CUDA_ERROR_INVALID_HANDLE);

    // Dynamic shared memory: up to 47 KiB by default, up to 227 KiB - static once opted in.
    CUdeviceptr out = 0;
    ASSERT_EQ(api().cuMemAlloc_v2(&out, 4), CUDA_SUCCESS);
    void* params[] = {&out};
    EXPECT_EQ(api().cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 48 * 1024, nullptr, params, nullptr),
              CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 100 * 1024), CUDA_SUCCESS);
    EXPECT_EQ(attr(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES), 100 * 1024);
    EXPECT_EQ(api().cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 100 * 1024, nullptr, params, nullptr), CUDA_SUCCESS);
    uint32_t r = 0;
    EXPECT_EQ(api().cuMemcpyDtoH_v2(&r, out, 4), CUDA_SUCCESS);
    EXPECT_EQ(r, 7u);
    EXPECT_EQ(api().cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 227 * 1024),
              CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 226 * 1024), CUDA_SUCCESS);
    EXPECT_EQ(api().cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, 50), CUDA_SUCCESS);
    EXPECT_EQ(attr(CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT), 50);
    EXPECT_EQ(api().cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, 101),
              CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_NUM_REGS, 3), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuFuncSetCacheConfig(f, CU_FUNC_CACHE_PREFER_SHARED), CUDA_SUCCESS);
    EXPECT_EQ(api().cuFuncSetSharedMemConfig(f, CU_SHARED_MEM_CONFIG_DEFAULT_BANK_SIZE), CUDA_SUCCESS);
    api().cuMemFree_v2(out);
    api().cuModuleUnload(m);
}

} // namespace
} // namespace d4r::runtime::cpu_test
