// cpu backend: the JIT linker (cuLink*) on PTX inputs, including a call across inputs, its logs and refusals.
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "core/files.h"
#include "cpu_test_util.h"
#include "test_support.h"

namespace d4r::runtime::cpu_test {
namespace {

using CpuLinkTest = CpuBackendTest;

// Calls `twice`, which it only declares.
const char* kCallerPtx = R"PTX(
.version 8.0
.target sm_90
.address_size 64

.extern .func (.param .b32 func_retval0) twice(.param .b32 twice_param_0);

.visible .entry use_twice(.param .u64 out, .param .u32 v)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r1, [v];
    {
    .param .b32 param0;
    st.param.b32 [param0], %r1;
    .param .b32 retval0;
    call.uni (retval0), twice, (param0);
    ld.param.b32 %r2, [retval0];
    }
    st.global.u32 [%rd1], %r2;
    ret;
}
)PTX";

// Defines it.
const char* kLibraryPtx = R"PTX(
.version 8.1
.target sm_90
.address_size 64

.visible .func (.param .b32 func_retval0) twice(.param .b32 twice_param_0)
{
    .reg .b32 %r<3>;
    ld.param.b32 %r1, [twice_param_0];
    add.s32 %r2, %r1, %r1;
    st.param.b32 [func_retval0], %r2;
    ret;
}
)PTX";

struct Logs {
    char info[1024] = "unset";
    char error[1024] = "unset";
    float wall = -1;
    CUjit_option options[5] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_ERROR_LOG_BUFFER,
                               CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, CU_JIT_WALL_TIME};
    void* values[5] = {info, reinterpret_cast<void*>(uintptr_t(sizeof info)), error,
                       reinterpret_cast<void*>(uintptr_t(sizeof error)), &wall};
};

TEST_F(CpuLinkTest, TwoPtxInputsCallAcrossInputs) {
    Logs logs;
    CUlinkState link = nullptr;
    ASSERT_EQ(api().cuLinkCreate_v2(5, logs.options, logs.values, &link), CUDA_SUCCESS);
    ASSERT_EQ(api().cuLinkAddData_v2(link, CU_JIT_INPUT_PTX, const_cast<char*>(kCallerPtx), strlen(kCallerPtx) + 1,
                                     "caller.ptx", 0, nullptr, nullptr),
              CUDA_SUCCESS);
    // The library comes from a file.
    std::string path = ::testing::TempDir() + "d4r_link_library.ptx";
    std::ofstream(path) << kLibraryPtx;
    ASSERT_EQ(api().cuLinkAddFile_v2(link, CU_JIT_INPUT_PTX, path.c_str(), 0, nullptr, nullptr), CUDA_SUCCESS);
    std::remove(path.c_str());
    void* image = nullptr;
    size_t size = 0;
    ASSERT_EQ(api().cuLinkComplete(link, &image, &size), CUDA_SUCCESS) << logs.error;
    ASSERT_NE(image, nullptr);
    EXPECT_EQ(size, strlen(static_cast<const char*>(image)) + 1);
    EXPECT_NE(std::string(logs.info).find("2 PTX inputs"), std::string::npos) << logs.info;
    EXPECT_NE(std::string(logs.info).find("use_twice"), std::string::npos) << logs.info;
    EXPECT_EQ(std::string(logs.error), "");
    EXPECT_GE(logs.wall, 0.0f);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(logs.values[1]), strlen(logs.info) + 1); // bytes written, as the driver
    // The header is the highest .version of the inputs, once.
    std::string text(static_cast<const char*>(image));
    EXPECT_NE(text.find(".version 8.1"), std::string::npos);
    EXPECT_EQ(text.find(".version 8.0"), std::string::npos);

    CUmodule m = nullptr;
    ASSERT_EQ(api().cuModuleLoadData(&m, image), CUDA_SUCCESS);
    ASSERT_EQ(api().cuLinkDestroy(link), CUDA_SUCCESS);
    CUfunction f = function(m, "use_twice");
    CUdeviceptr out = 0;
    ASSERT_EQ(api().cuMemAlloc_v2(&out, 4), CUDA_SUCCESS);
    uint32_t v = 21;
    void* args[] = {&out, &v};
    ASSERT_EQ(api().cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, nullptr, args, nullptr), CUDA_SUCCESS);
    uint32_t result = 0;
    ASSERT_EQ(api().cuMemcpyDtoH_v2(&result, out, 4), CUDA_SUCCESS);
    EXPECT_EQ(result, 42u);
    EXPECT_EQ(api().cuMemFree_v2(out), CUDA_SUCCESS);
    EXPECT_EQ(api().cuModuleUnload(m), CUDA_SUCCESS);
}

TEST_F(CpuLinkTest, UnresolvedAndRefusedInputs) {
    Logs logs;
    CUlinkState link = nullptr;
    EXPECT_EQ(api().cuLinkCreate_v2(0, nullptr, nullptr, nullptr), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuLinkCreate_v2(2, nullptr, nullptr, &link), CUDA_ERROR_INVALID_VALUE);
    ASSERT_EQ(api().cuLinkCreate_v2(5, logs.options, logs.values, &link), CUDA_SUCCESS);
    void* image = reinterpret_cast<void*>(1);
    EXPECT_EQ(api().cuLinkComplete(link, &image, nullptr), CUDA_ERROR_INVALID_VALUE); // nothing added
    EXPECT_EQ(image, nullptr);

    // Machine code and NVVM IR are refused with a reason in the error log.
    char cubin[64] = "\x7f"
                     "ELF";
    EXPECT_EQ(api().cuLinkAddData_v2(link, CU_JIT_INPUT_CUBIN, cubin, sizeof cubin, "k.cubin", 0, nullptr, nullptr),
              CUDA_ERROR_NO_BINARY_FOR_GPU);
    EXPECT_NE(std::string(logs.error).find("cubin"), std::string::npos) << logs.error;
    EXPECT_EQ(api().cuLinkAddData_v2(link, CU_JIT_INPUT_NVVM, cubin, sizeof cubin, "k.ltoir", 0, nullptr, nullptr),
              CUDA_ERROR_NOT_SUPPORTED);
    EXPECT_EQ(api().cuLinkAddData_v2(link, static_cast<CUjitInputType>(17), cubin, sizeof cubin, nullptr, 0, nullptr,
                                     nullptr),
              CUDA_ERROR_INVALID_VALUE);
    const char* broken = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k() { frobnicate; }\n";
    EXPECT_EQ(api().cuLinkAddData_v2(link, CU_JIT_INPUT_PTX, const_cast<char*>(broken), strlen(broken) + 1, "broken", 0,
                                     nullptr, nullptr),
              CUDA_ERROR_INVALID_PTX);
    EXPECT_NE(std::string(logs.error), "");
    EXPECT_EQ(api().cuLinkAddData_v2(link, CU_JIT_INPUT_PTX, nullptr, 10, nullptr, 0, nullptr, nullptr),
              CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuLinkAddFile_v2(link, CU_JIT_INPUT_PTX, "/nonexistent/d4r.ptx", 0, nullptr, nullptr),
              CUDA_ERROR_FILE_NOT_FOUND);

    // A call nobody defines.
    ASSERT_EQ(api().cuLinkAddData_v2(link, CU_JIT_INPUT_PTX, const_cast<char*>(kCallerPtx), strlen(kCallerPtx) + 1,
                                     "caller.ptx", 0, nullptr, nullptr),
              CUDA_SUCCESS);
    EXPECT_EQ(api().cuLinkComplete(link, &image, nullptr), CUDA_ERROR_INVALID_PTX);
    EXPECT_NE(std::string(logs.error).find("twice"), std::string::npos) << logs.error;
    EXPECT_EQ(api().cuLinkDestroy(link), CUDA_SUCCESS);
    EXPECT_EQ(api().cuLinkDestroy(link), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_EQ(
        api().cuLinkAddData_v2(link, CU_JIT_INPUT_PTX, const_cast<char*>(kCallerPtx), 10, nullptr, 0, nullptr, nullptr),
        CUDA_ERROR_INVALID_HANDLE);

    // The unversioned names of CUDA 5.5 are the same functions.
    ASSERT_EQ(api().cuLinkCreate(0, nullptr, nullptr, &link), CUDA_SUCCESS);
    ASSERT_EQ(api().cuLinkAddData(link, CU_JIT_INPUT_PTX, const_cast<char*>(kTestPtx), strlen(kTestPtx) + 1, nullptr, 0,
                                  nullptr, nullptr),
              CUDA_SUCCESS);
    size_t size = 0;
    ASSERT_EQ(api().cuLinkComplete(link, &image, &size), CUDA_SUCCESS);
    CUmodule m = nullptr;
    EXPECT_EQ(api().cuModuleLoadData(&m, image), CUDA_SUCCESS);
    EXPECT_EQ(api().cuLinkDestroy(link), CUDA_SUCCESS);
    function(m, "add_one");
}

TEST_F(CpuLinkTest, FatbinInputsGiveTheirPtx) {
    // nvcc's fatbins of tests/fixtures/ptx/src/kernels.cu, plain and zstd-compressed.
    for (const char* name : {"kernels.plain.fatbin", "kernels.zstd.fatbin"}) {
        SCOPED_TRACE(name);
        auto bytes = d4r::read_file(d4r::test::fixture_dir() / "ptx" / name);
        ASSERT_TRUE(bytes);
        CUlinkState link = nullptr;
        ASSERT_EQ(api().cuLinkCreate_v2(0, nullptr, nullptr, &link), CUDA_SUCCESS);
        ASSERT_EQ(api().cuLinkAddData_v2(link, CU_JIT_INPUT_FATBINARY, bytes->data(), bytes->size(), name, 0, nullptr,
                                         nullptr),
                  CUDA_SUCCESS);
        void* image = nullptr;
        ASSERT_EQ(api().cuLinkComplete(link, &image, nullptr), CUDA_SUCCESS);
        EXPECT_NE(std::string(static_cast<const char*>(image)).find(".entry"), std::string::npos);
        CUmodule m = nullptr;
        ASSERT_EQ(api().cuModuleLoadData(&m, image), CUDA_SUCCESS);
        CUfunction f = nullptr;
        EXPECT_EQ(api().cuModuleGetFunction(&f, m, "d4r_saxpy"), CUDA_SUCCESS);
        EXPECT_EQ(api().cuLinkDestroy(link), CUDA_SUCCESS);
        EXPECT_EQ(api().cuModuleUnload(m), CUDA_SUCCESS);
    }
}

} // namespace
} // namespace d4r::runtime::cpu_test
