// cpu backend: a recursive device function runs, and recursion past the stack stops the launch with
// CUDA_ERROR_ILLEGAL_ADDRESS, as on the H200 with driver 580 (issue 14, item 18;
// tests/device/hostile_cases.c, case recursion_10). The stack is the context's CU_LIMIT_STACK_SIZE, 16 bytes
// per activation: on the H200 this kernel (whose .local array ptxas keeps in registers) runs L / 16 - 1 deep
// under a limit of L bytes (63 under 1 KiB, 15 under 256 bytes, 255 under 4 KiB) and faults one deeper.
#include "cpu_test_util.h"

namespace d4r::runtime::cpu_test {
namespace {

using CpuRecursionTest = CpuBackendTest;

// rec(out, n) writes down(n) = n + down(n - 1), down(0) = 0; every frame keeps n in its own 512-byte
// .local array across the recursive call.
const char* kRecursionPtx = R"PTX(
.version 8.0
.target sm_90
.address_size 64
.func (.param .b32 ret) down(.param .b32 n)
{
    .local .align 4 .b8 buf[512];
    .reg .pred %p<2>;
    .reg .b32 %r<6>;
    .reg .b64 %rd<3>;
    ld.param.b32 %r1, [n];
    mov.u64 %rd1, buf;
    st.local.u32 [%rd1], %r1;
    st.local.u32 [%rd1+508], %r1;
    setp.eq.s32 %p1, %r1, 0;
    mov.b32 %r5, 0;
    @%p1 bra DONE;
    sub.s32 %r2, %r1, 1;
    {
    .param .b32 a;
    st.param.b32 [a], %r2;
    .param .b32 r;
    call (r), down, (a);
    ld.param.b32 %r3, [r];
    }
    ld.local.u32 %r4, [%rd1+508];
    add.s32 %r5, %r3, %r4;
DONE:
    st.param.b32 [ret], %r5;
    ret;
}
.visible .entry rec(.param .u64 out, .param .u32 n)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r1, [n];
    {
    .param .b32 a;
    st.param.b32 [a], %r1;
    .param .b32 r;
    call (r), down, (a);
    ld.param.b32 %r2, [r];
    }
    st.global.u32 [%rd1], %r2;
    ret;
}
)PTX";

uint32_t run_rec(CUfunction f, CUdeviceptr out, uint32_t n, CUresult& sync) {
    uint32_t result = 0xdeadbeef;
    EXPECT_EQ(api().cuMemcpyHtoD_v2(out, &result, 4), CUDA_SUCCESS);
    void* params[] = {&out, &n};
    EXPECT_EQ(api().cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, nullptr, params, nullptr), CUDA_SUCCESS);
    sync = api().cuCtxSynchronize();
    if (sync == CUDA_SUCCESS) {
        EXPECT_EQ(api().cuMemcpyDtoH_v2(&result, out, 4), CUDA_SUCCESS);
    }
    return result;
}

TEST_F(CpuRecursionTest, DepthTenRunsUnderTheDefaultAndA64KiBStack) {
    CUmodule m = nullptr;
    ASSERT_EQ(api().cuModuleLoadData(&m, kRecursionPtx), CUDA_SUCCESS);
    CUfunction f = function(m, "rec");
    CUdeviceptr out = 0;
    ASSERT_EQ(api().cuMemAlloc_v2(&out, 4), CUDA_SUCCESS);
    CUresult sync = CUDA_ERROR_UNKNOWN;
    EXPECT_EQ(run_rec(f, out, 10, sync), 55u); // the default stack limit (1 KiB)
    EXPECT_EQ(sync, CUDA_SUCCESS);
    ASSERT_EQ(api().cuCtxSetLimit(CU_LIMIT_STACK_SIZE, 64 * 1024), CUDA_SUCCESS);
    EXPECT_EQ(run_rec(f, out, 10, sync), 55u);
    EXPECT_EQ(sync, CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemFree_v2(out), CUDA_SUCCESS);
}

TEST_F(CpuRecursionTest, SmallStackLimitStopsWhatALargerOneRuns) {
    size_t limit = 0;
    ASSERT_EQ(api().cuCtxGetLimit(&limit, CU_LIMIT_STACK_SIZE), CUDA_SUCCESS);
    EXPECT_EQ(limit, 1024u); // the H200's default
    CUmodule m = nullptr;
    ASSERT_EQ(api().cuModuleLoadData(&m, kRecursionPtx), CUDA_SUCCESS);
    CUfunction f = function(m, "rec");
    CUdeviceptr out = 0;
    ASSERT_EQ(api().cuMemAlloc_v2(&out, 4), CUDA_SUCCESS);
    CUresult sync = CUDA_ERROR_UNKNOWN;
    EXPECT_EQ(run_rec(f, out, 63, sync), 63u * 64 / 2); // 64 activations of 16 bytes: the whole default stack
    EXPECT_EQ(sync, CUDA_SUCCESS);
    ASSERT_EQ(api().cuCtxSetLimit(CU_LIMIT_STACK_SIZE, 4096), CUDA_SUCCESS);
    ASSERT_EQ(api().cuCtxGetLimit(&limit, CU_LIMIT_STACK_SIZE), CUDA_SUCCESS);
    EXPECT_EQ(limit, 4096u);
    EXPECT_EQ(run_rec(f, out, 255, sync), 255u * 256 / 2);
    EXPECT_EQ(sync, CUDA_SUCCESS);
    ASSERT_EQ(api().cuCtxSetLimit(CU_LIMIT_STACK_SIZE, 256), CUDA_SUCCESS);
    ASSERT_EQ(api().cuCtxGetLimit(&limit, CU_LIMIT_STACK_SIZE), CUDA_SUCCESS);
    EXPECT_EQ(limit, 256u);
    EXPECT_EQ(run_rec(f, out, 15, sync), 15u * 16 / 2);
    EXPECT_EQ(sync, CUDA_SUCCESS);
    run_rec(f, out, 16, sync); // one activation past 256 bytes
    EXPECT_EQ(sync, CUDA_ERROR_ILLEGAL_ADDRESS);
}

TEST_F(CpuRecursionTest, OneCallPastTheDefaultStackFaults) {
    CUmodule m = nullptr;
    ASSERT_EQ(api().cuModuleLoadData(&m, kRecursionPtx), CUDA_SUCCESS);
    CUfunction f = function(m, "rec");
    CUdeviceptr out = 0;
    ASSERT_EQ(api().cuMemAlloc_v2(&out, 4), CUDA_SUCCESS);
    CUresult sync = CUDA_SUCCESS;
    run_rec(f, out, 64, sync); // 65 activations: 1040 bytes of a 1024-byte stack
    EXPECT_EQ(sync, CUDA_ERROR_ILLEGAL_ADDRESS);
}

TEST_F(CpuRecursionTest, OverflowIsIllegalAddress) {
    CUmodule m = nullptr;
    ASSERT_EQ(api().cuModuleLoadData(&m, kRecursionPtx), CUDA_SUCCESS);
    CUfunction f = function(m, "rec");
    CUdeviceptr out = 0;
    ASSERT_EQ(api().cuMemAlloc_v2(&out, 4), CUDA_SUCCESS);
    CUresult sync = CUDA_SUCCESS;
    run_rec(f, out, 1u << 20, sync); // a million 512-byte frames: far past any stack
    EXPECT_EQ(sync, CUDA_ERROR_ILLEGAL_ADDRESS);
    // The fault is sticky, as after any kernel fault.
    CUdeviceptr p = 0;
    EXPECT_EQ(api().cuMemAlloc_v2(&p, 4), CUDA_ERROR_ILLEGAL_ADDRESS);
}

} // namespace
} // namespace d4r::runtime::cpu_test
