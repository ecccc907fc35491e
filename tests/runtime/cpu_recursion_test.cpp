// cpu backend: a recursive device function runs, and recursion past the stack stops the launch with
// CUDA_ERROR_ILLEGAL_ADDRESS, as on the H200 with driver 580 (issue 14, item 18;
// tests/device/hostile_cases.c, case recursion_10).
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
    if (sync == CUDA_SUCCESS) EXPECT_EQ(api().cuMemcpyDtoH_v2(&result, out, 4), CUDA_SUCCESS);
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
