// Helpers for the cpu backend tests: the backend's table, a per-test context and hand-written PTX kernels.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runtime/backend.h"

namespace d4r::runtime::cpu_test {

using namespace d4r::abi;

inline const ApiTable& api() {
    static std::unique_ptr<Backend> backend = [] {
        auto b = make_cpu_backend();
        return b ? std::move(*b) : nullptr;
    }();
    return backend->table();
}

// In a process of its own (a death test's child, where a variable the backend reads once has just been set): the
// primary context made current and kernel NAME of module PTX, or nullptr when any step fails.
inline CUfunction fresh_process_kernel(const char* ptx, const char* name) {
    CUdevice dev = 0;
    CUcontext ctx = nullptr;
    CUmodule m = nullptr;
    CUfunction f = nullptr;
    if (api().cuInit(0) || api().cuDeviceGet(&dev, 0) || api().cuDevicePrimaryCtxRetain(&ctx, dev) ||
        api().cuCtxSetCurrent(ctx) || api().cuModuleLoadData(&m, ptx) || api().cuModuleGetFunction(&f, m, name))
        return nullptr;
    return f;
}

// Kernels written for these tests (PTX ISA 8.0). Parameter layouts follow the PTX ABI: each parameter at
// the next multiple of its alignment.
inline const char* kTestPtx = R"PTX(
.version 8.0
.target sm_90
.address_size 64

.global .align 4 .u32 counter = 5;
.global .align 8 .b8 table[64];

// p[i] += 1 for i < n
.visible .entry add_one(.param .u64 p, .param .u32 n)
{
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [p];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.u32 %p1, %r5, %r1;
    @%p1 bra DONE;
    mul.wide.u32 %rd3, %r5, 4;
    add.s64 %rd2, %rd1, %rd3;
    ld.global.u32 %r6, [%rd2];
    add.s32 %r6, %r6, 1;
    st.global.u32 [%rd2], %r6;
DONE:
    ret;
}

// out[0] = a, out[1] = b, out[2] = bits of c (parameters at offsets 0, 8, 16, 24; block of 28 bytes)
.visible .entry params(.param .u64 out, .param .u8 a, .param .u64 b, .param .f32 c)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<6>;
    .reg .f32 %f<2>;
    ld.param.u64 %rd1, [out];
    ld.param.u8 %r1, [a];
    cvt.u64.u32 %rd2, %r1;
    ld.param.u64 %rd3, [b];
    ld.param.f32 %f1, [c];
    mov.b32 %r2, %f1;
    cvt.u64.u32 %rd4, %r2;
    st.global.u64 [%rd1], %rd2;
    st.global.u64 [%rd1+8], %rd3;
    st.global.u64 [%rd1+16], %rd4;
    ret;
}

// *p = v (faults on a bad or misaligned p)
.visible .entry store_at(.param .u64 p, .param .u32 v)
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [p];
    ld.param.u32 %r1, [v];
    st.global.u32 [%rd1], %r1;
    ret;
}

.visible .entry trapper()
{
    trap;
    ret;
}

// *p = 0 + 1 + ... + (n - 1) (mod 2^32), computed by a loop: a kernel that takes time
.visible .entry spin(.param .u64 p, .param .u32 n)
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [p];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, 0;
    mov.u32 %r3, 0;
LOOP:
    setp.ge.u32 %p1, %r2, %r1;
    @%p1 bra END;
    add.u32 %r3, %r3, %r2;
    add.u32 %r2, %r2, 1;
    bra LOOP;
END:
    st.global.u32 [%rd1], %r3;
    ret;
}

// 1024 bytes of static shared memory; *p = 7 through it
.visible .entry uses_shared(.param .u64 p)
{
    .shared .align 4 .b8 buf[1024];
    .reg .b32 %r<3>;
    .reg .b64 %rd<2>;
    mov.u32 %r1, 7;
    st.shared.u32 [buf], %r1;
    ld.shared.u32 %r2, [buf];
    ld.param.u64 %rd1, [p];
    st.global.u32 [%rd1], %r2;
    ret;
}

// counter += 1 (the module variable)
.visible .entry bump_counter()
{
    .reg .b32 %r<2>;
    ld.global.u32 %r1, [counter];
    add.u32 %r1, %r1, 1;
    st.global.u32 [counter], %r1;
    ret;
}
)PTX";

inline uint32_t spin_result(uint32_t n) {
    uint32_t sum = 0;
    for (uint32_t i = 0; i < n; ++i) sum += i;
    return sum;
}

// Every test runs with a fresh ordinary context current on the test thread.
class CpuBackendTest : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_EQ(api().cuInit(0), CUDA_SUCCESS);
        ASSERT_EQ(api().cuCtxCreate_v2(&m_ctx, 0, 0), CUDA_SUCCESS);
    }
    void TearDown() override {
        if (m_ctx) {
            EXPECT_EQ(api().cuCtxDestroy_v2(m_ctx), CUDA_SUCCESS);
        }
        CUcontext c = nullptr;
        while (api().cuCtxPopCurrent_v2(&c) == CUDA_SUCCESS) {
        }
    }
    CUmodule load_test_module() {
        CUmodule m = nullptr;
        EXPECT_EQ(api().cuModuleLoadData(&m, kTestPtx), CUDA_SUCCESS);
        return m;
    }
    CUfunction function(CUmodule m, const char* name) {
        CUfunction f = nullptr;
        EXPECT_EQ(api().cuModuleGetFunction(&f, m, name), CUDA_SUCCESS) << name;
        return f;
    }

    CUcontext m_ctx = nullptr;
};

} // namespace d4r::runtime::cpu_test
