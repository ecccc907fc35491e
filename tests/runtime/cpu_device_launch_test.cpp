// cpu backend: kernels that launch kernels (CUDA dynamic parallelism) through the device runtime calls
// nvcc and libNVVM emit, their error answers, the nesting limit, a fault in a child, and the linker
// accepting CUDA's device runtime library. tests/cudart/programs/rt_cdp.cu covers what nvcc builds.
#include <cstring>
#include <string>

#include "cpu_test_util.h"

namespace d4r::runtime::cpu_test {
namespace {

using CpuDeviceLaunchTest = CpuBackendTest;

// The declarations, as nvcc writes them for CUDA 12+ (__cudaCDP2*) and libNVVM for its IR (cudaX).
const std::string kHeader = R"PTX(
.version 8.0
.target sm_90
.address_size 64
.extern .func (.param .b64 func_retval0) __cudaCDP2GetParameterBufferV2(.param .b64 f, .param .align 4 .b8 g[12], .param .align 4 .b8 b[12], .param .b32 s);
.extern .func (.param .b32 func_retval0) __cudaCDP2LaunchDeviceV2(.param .b64 p, .param .b64 s);
.extern .func (.param .b64 func_retval0) cudaGetParameterBuffer(.param .b64 a, .param .b64 n);
.extern .func (.param .b32 func_retval0) cudaLaunchDevice(.param .b64 f, .param .b64 p, .param .align 4 .b8 g[12], .param .align 4 .b8 b[12], .param .b32 s, .param .b64 st);

// *p = v
.visible .entry child_store(.param .u64 p, .param .u32 v)
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [p];
    ld.param.u32 %r1, [v];
    st.global.u32 [%rd1], %r1;
    ret;
}
)PTX";

// %rdBUF = __cudaCDP2GetParameterBufferV2(FUNC, (GX,1,1), (1,1,1), 0)
std::string get_buffer(const std::string& buf, const std::string& func, int gx = 1) {
    return "    {\n    .param .b64 a0;\n    st.param.b64 [a0], " + func +
           ";\n    .param .align 4 .b8 a1[12];\n    st.param.b32 [a1], " + std::to_string(gx) +
           ";\n    st.param.b32 [a1+4], 1;\n    st.param.b32 [a1+8], 1;\n"
           "    .param .align 4 .b8 a2[12];\n    st.param.b32 [a2], 1;\n    st.param.b32 [a2+4], 1;\n"
           "    st.param.b32 [a2+8], 1;\n    .param .b32 a3;\n    st.param.b32 [a3], 0;\n"
           "    .param .b64 r;\n    call.uni (r), __cudaCDP2GetParameterBufferV2, (a0, a1, a2, a3);\n"
           "    ld.param.b64 " +
           buf + ", [r];\n    }\n";
}

// %rERR = __cudaCDP2LaunchDeviceV2(BUF, 0)
std::string launch(const std::string& err, const std::string& buf) {
    return "    {\n    .param .b64 a0;\n    st.param.b64 [a0], " + buf +
           ";\n    .param .b64 a1;\n    st.param.b64 [a1], 0;\n    .param .b32 r;\n"
           "    call.uni (r), __cudaCDP2LaunchDeviceV2, (a0, a1);\n    ld.param.b32 " +
           err + ", [r];\n    }\n";
}

CUmodule load(const std::string& ptx) {
    CUmodule m = nullptr;
    EXPECT_EQ(api().cuModuleLoadData(&m, ptx.c_str()), CUDA_SUCCESS) << ptx;
    return m;
}

CUdeviceptr zeroed(size_t bytes) {
    CUdeviceptr p = 0;
    EXPECT_EQ(api().cuMemAlloc_v2(&p, bytes), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemsetD8_v2(p, 0, bytes), CUDA_SUCCESS);
    return p;
}

std::vector<uint32_t> words(CUdeviceptr p, size_t n) {
    std::vector<uint32_t> v(n);
    EXPECT_EQ(api().cuMemcpyDtoH_v2(v.data(), p, n * 4), CUDA_SUCCESS);
    return v;
}

TEST_F(CpuDeviceLaunchTest, ChildrenRunAfterTheGridWithTheirArguments) {
    // Each of 4 blocks launches child_store(out + 4 * block, 1000 + block) with a grid of 1.
    std::string ptx = kHeader + R"PTX(
.visible .entry parent(.param .u64 out)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %ctaid.x;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    add.s32 %r2, %r1, 1000;
    mov.u64 %rd4, child_store;
)PTX" + get_buffer("%rd5", "%rd4") +
                      R"PTX(
    st.u64 [%rd5], %rd3;
    st.u32 [%rd5+8], %r2;
)PTX" + launch("%r3", "%rd5") +
                      R"PTX(
    ret;
}
)PTX";
    CUmodule m = load(ptx);
    CUdeviceptr out = zeroed(16);
    void* params[] = {&out};
    ASSERT_EQ(api().cuLaunchKernel(function(m, "parent"), 4, 1, 1, 1, 1, 1, 0, nullptr, params, nullptr), CUDA_SUCCESS);
    ASSERT_EQ(api().cuCtxSynchronize(), CUDA_SUCCESS);
    EXPECT_EQ(words(out, 4), (std::vector<uint32_t>{1000, 1001, 1002, 1003}));
    api().cuMemFree_v2(out);
    api().cuModuleUnload(m);
}

TEST_F(CpuDeviceLaunchTest, BadBuffersAndFunctionsAreRefusedWithCudaErrors) {
    // out[0]: launch of a buffer never handed out; out[1], out[2]: the same buffer launched twice;
    // out[3]: the buffer for a function address that is no kernel (NULL expected).
    std::string ptx = kHeader + R"PTX(
.visible .entry bad(.param .u64 out)
{
    .reg .b32 %r<8>;
    .reg .b64 %rd<10>;
    ld.param.u64 %rd1, [out];
    mov.u64 %rd2, 4660;
)PTX" + launch("%r1", "%rd2") +
                      R"PTX(
    st.global.u32 [%rd1], %r1;
    mov.u64 %rd4, child_store;
)PTX" + get_buffer("%rd5", "%rd4") +
                      R"PTX(
    add.s64 %rd6, %rd1, 16;
    st.u64 [%rd5], %rd6;
    mov.u32 %r7, 77;
    st.u32 [%rd5+8], %r7;
)PTX" + launch("%r2", "%rd5") +
                      launch("%r3", "%rd5") + R"PTX(
    st.global.u32 [%rd1+4], %r2;
    st.global.u32 [%rd1+8], %r3;
    mov.u64 %rd7, 12345;
)PTX" + get_buffer("%rd8", "%rd7") +
                      R"PTX(
    setp.eq.u64 %p1, %rd8, 0;
    selp.u32 %r4, 1, 0, %p1;
    st.global.u32 [%rd1+12], %r4;
    ret;
}
)PTX";
    ptx.replace(ptx.find(".reg .b32 %r<8>;"), 0, ".reg .pred %p<2>;\n    ");
    CUmodule m = load(ptx);
    CUdeviceptr out = zeroed(20);
    void* params[] = {&out};
    ASSERT_EQ(api().cuLaunchKernel(function(m, "bad"), 1, 1, 1, 1, 1, 1, 0, nullptr, params, nullptr), CUDA_SUCCESS);
    ASSERT_EQ(api().cuCtxSynchronize(), CUDA_SUCCESS);
    // cudaErrorInvalidValue (1) for the unknown and the reused buffer; the one good launch ran (77).
    EXPECT_EQ(words(out, 5), (std::vector<uint32_t>{1, 0, 1, 1, 77}));
    api().cuMemFree_v2(out);
    api().cuModuleUnload(m);
}

TEST_F(CpuDeviceLaunchTest, NestingStopsAtCudasDepthLimit) {
    // deep(out, d): out[d] = 1, then launches deep(out, d + 1) for as long as it gets a buffer.
    std::string ptx = kHeader + R"PTX(
.visible .entry deep(.param .u64 out, .param .u32 d)
{
    .reg .pred %p<2>;
    .reg .b32 %r<5>;
    .reg .b64 %rd<7>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r1, [d];
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    mov.u32 %r2, 1;
    st.global.u32 [%rd3], %r2;
    mov.u64 %rd4, deep;
)PTX" + get_buffer("%rd5", "%rd4") +
                      R"PTX(
    setp.eq.u64 %p1, %rd5, 0;
    @%p1 bra DONE;
    add.s32 %r3, %r1, 1;
    st.u64 [%rd5], %rd1;
    st.u32 [%rd5+8], %r3;
)PTX" + launch("%r4", "%rd5") +
                      R"PTX(
DONE:
    ret;
}
)PTX";
    CUmodule m = load(ptx);
    CUdeviceptr out = zeroed(40 * 4);
    uint32_t d = 0;
    void* params[] = {&out, &d};
    ASSERT_EQ(api().cuLaunchKernel(function(m, "deep"), 1, 1, 1, 1, 1, 1, 0, nullptr, params, nullptr), CUDA_SUCCESS);
    ASSERT_EQ(api().cuCtxSynchronize(), CUDA_SUCCESS);
    std::vector<uint32_t> v = words(out, 40);
    for (int i = 0; i < 40; ++i) EXPECT_EQ(v[i], i < 24 ? 1u : 0u) << "depth " << i; // 24 levels, as CUDA
    api().cuMemFree_v2(out);
    api().cuModuleUnload(m);
}

TEST_F(CpuDeviceLaunchTest, OlderEntryPointsAndAFaultingChild) {
    // cudaGetParameterBuffer(64, 16) + cudaLaunchDevice(child_store, buffer, (2,1,1), (1,1,1), 0, 0):
    // child_store(P, 5) twice (its grid has 2 blocks).
    std::string ptx = kHeader + R"PTX(
.visible .entry old(.param .u64 p)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<5>;
    ld.param.u64 %rd1, [p];
    {
    .param .b64 a0;
    st.param.b64 [a0], 64;
    .param .b64 a1;
    st.param.b64 [a1], 16;
    .param .b64 r;
    call.uni (r), cudaGetParameterBuffer, (a0, a1);
    ld.param.b64 %rd2, [r];
    }
    st.u64 [%rd2], %rd1;
    mov.u32 %r1, 5;
    st.u32 [%rd2+8], %r1;
    mov.u64 %rd3, child_store;
    {
    .param .b64 a0;
    st.param.b64 [a0], %rd3;
    .param .b64 a1;
    st.param.b64 [a1], %rd2;
    .param .align 4 .b8 a2[12];
    st.param.b32 [a2], 2;
    st.param.b32 [a2+4], 1;
    st.param.b32 [a2+8], 1;
    .param .align 4 .b8 a3[12];
    st.param.b32 [a3], 1;
    st.param.b32 [a3+4], 1;
    st.param.b32 [a3+8], 1;
    .param .b32 a4;
    st.param.b32 [a4], 0;
    .param .b64 a5;
    st.param.b64 [a5], 0;
    .param .b32 r;
    call.uni (r), cudaLaunchDevice, (a0, a1, a2, a3, a4, a5);
    ld.param.b32 %r2, [r];
    }
    ret;
}
)PTX";
    CUmodule m = load(ptx);
    CUdeviceptr out = zeroed(4);
    void* params[] = {&out};
    ASSERT_EQ(api().cuLaunchKernel(function(m, "old"), 1, 1, 1, 1, 1, 1, 0, nullptr, params, nullptr), CUDA_SUCCESS);
    ASSERT_EQ(api().cuCtxSynchronize(), CUDA_SUCCESS);
    EXPECT_EQ(words(out, 1)[0], 5u);

    // The child stores to an address that is no allocation: the parent's launch fails as the child does.
    CUdeviceptr wild = 0x10;
    void* wild_params[] = {&wild};
    ASSERT_EQ(api().cuLaunchKernel(function(m, "old"), 1, 1, 1, 1, 1, 1, 0, nullptr, wild_params, nullptr),
              CUDA_SUCCESS);
    EXPECT_EQ(api().cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
}

// An ar archive like CUDA's libcudadevrt.a (its one member is cuda_device_runtime.o).
std::string fake_device_runtime() {
    std::string a = "!<arch>\n";
    std::string name = "cuda_device_runtime.o/";
    a += "//                                              " + std::to_string(name.size() + 1);
    a.resize(8 + 58, ' ');
    a += "`\n" + name + "\n";
    return a;
}

TEST_F(CpuDeviceLaunchTest, TheLinkerAcceptsCudasDeviceRuntimeOnly) {
    CUlinkState link = nullptr;
    ASSERT_EQ(api().cuLinkCreate_v2(0, nullptr, nullptr, &link), CUDA_SUCCESS);
    std::string devrt = fake_device_runtime();
    EXPECT_EQ(api().cuLinkAddData_v2(link, CU_JIT_INPUT_LIBRARY, devrt.data(), devrt.size(), "libcudadevrt.a", 0,
                                     nullptr, nullptr),
              CUDA_SUCCESS);
    std::string other = "!<arch>\n/               0           0     0     0       4         `\nabcd";
    EXPECT_EQ(api().cuLinkAddData_v2(link, CU_JIT_INPUT_LIBRARY, other.data(), other.size(), "libother.a", 0, nullptr,
                                     nullptr),
              CUDA_ERROR_NO_BINARY_FOR_GPU);
    // The program's PTX links with it, and its launches run.
    std::string ptx = kHeader +
                      ".visible .entry one(.param .u64 p)\n{\n    .reg .b64 %rd<4>;\n"
                      "    .reg .b32 %r<2>;\n    ld.param.u64 %rd1, [p];\n    mov.u64 %rd2, child_store;\n" +
                      get_buffer("%rd3", "%rd2") +
                      "    st.u64 [%rd3], %rd1;\n    mov.u32 %r1, 9;\n"
                      "    st.u32 [%rd3+8], %r1;\n" +
                      launch("%r1", "%rd3") + "    ret;\n}\n";
    ASSERT_EQ(
        api().cuLinkAddData_v2(link, CU_JIT_INPUT_PTX, ptx.data(), ptx.size() + 1, "one.ptx", 0, nullptr, nullptr),
        CUDA_SUCCESS);
    void* image = nullptr;
    size_t size = 0;
    ASSERT_EQ(api().cuLinkComplete(link, &image, &size), CUDA_SUCCESS);
    CUmodule m = nullptr;
    ASSERT_EQ(api().cuModuleLoadData(&m, image), CUDA_SUCCESS);
    EXPECT_EQ(api().cuLinkDestroy(link), CUDA_SUCCESS);
    CUdeviceptr out = zeroed(4);
    void* params[] = {&out};
    ASSERT_EQ(api().cuLaunchKernel(function(m, "one"), 1, 1, 1, 1, 1, 1, 0, nullptr, params, nullptr), CUDA_SUCCESS);
    ASSERT_EQ(api().cuCtxSynchronize(), CUDA_SUCCESS);
    EXPECT_EQ(words(out, 1)[0], 9u);
    api().cuMemFree_v2(out);
    api().cuModuleUnload(m);
}

} // namespace
} // namespace d4r::runtime::cpu_test
