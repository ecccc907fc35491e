// Recursive device functions (recursion.h): self, divergent, mutual and indirect recursion, each frame
// keeping its own registers, predicates, .local array and parameters, and a stack overflow.
#include "ptxsim_test_util.h"

namespace d4r::ptxsim::test {
namespace {

// down(n) = n + down(n - 1), down(0) = 0, keeping n in its own 512-byte .local array across the call
// (tests/device/hostile_cases.c, case recursion_10). rec(out, n) writes down(n); lanes(out) writes
// down(tid % 7) for every thread, so the lanes of a warp recurse to different depths.
const char* kDown = R"(
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
.visible .entry lanes(.param .u64 out)
{
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mov.u32 %r5, %ctaid.x;
    mov.u32 %r6, %ntid.x;
    mad.lo.s32 %r7, %r5, %r6, %r1;
    rem.u32 %r2, %r7, 7;
    {
    .param .b32 a;
    st.param.b32 [a], %r2;
    .param .b32 r;
    call (r), down, (a);
    ld.param.b32 %r3, [r];
    }
    mul.wide.u32 %rd2, %r7, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r3;
    ret;
}
)";

uint32_t down(uint32_t n) { return n * (n + 1) / 2; }

Expected<LaunchResult> run_rec(Device& dev, const Module& m, DevicePtr out, uint32_t n, LaunchFault* fault = nullptr) {
    Params p(kernel_of(m, "rec"));
    p.set(0, out).set(1, n);
    return launch(dev, kernel_of(m, "rec"), config({1}, {1}), p.bytes(), fault);
}

TEST(PtxsimRecursion, EachFrameKeepsItsLocalArray) {
    auto m = load_ok(ptx(kDown));
    ASSERT_TRUE(m);
    Device dev;
    DevicePtr out = upload(dev, std::vector<uint32_t>(1, 0));
    for (uint32_t n : {0u, 1u, 10u, 600u}) { // 600 frames of ~580 bytes stay within the 512 KiB stack
        auto r = run_rec(dev, *m, out, n);
        ASSERT_TRUE(r.ok()) << r.error().text();
        EXPECT_EQ(download<uint32_t>(dev, out, 1)[0], down(n)) << n;
    }
}

TEST(PtxsimRecursion, LanesRecurseToDifferentDepths) {
    auto m = load_ok(ptx(kDown));
    ASSERT_TRUE(m);
    Device dev;
    const uint32_t blocks = 3, threads = 80; // a partial last warp
    DevicePtr out = upload(dev, std::vector<uint32_t>(blocks * threads, 0xffffffffu));
    Params p(kernel_of(*m, "lanes"));
    p.set(0, out);
    for (unsigned workers : {1u, 2u}) {
        run_ok(dev, *m, "lanes", config({blocks}, {threads}, workers), p);
        auto got = download<uint32_t>(dev, out, blocks * threads);
        for (uint32_t t = 0; t < blocks * threads; ++t) ASSERT_EQ(got[t], down(t % 7)) << t << " workers " << workers;
    }
}

TEST(PtxsimRecursion, OverflowIsAnIllegalAddress) {
    auto m = load_ok(ptx(kDown));
    ASSERT_TRUE(m);
    Device dev;
    DevicePtr out = upload(dev, std::vector<uint32_t>(1, 0));
    LaunchFault fault;
    auto r = run_rec(dev, *m, out, 1u << 20, &fault);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(fault.kind, FaultKind::IllegalAddress);
    EXPECT_NE(r.error().text().find("stack overflow"), std::string::npos) << r.error().text();
    // The module stays usable.
    ASSERT_TRUE(run_rec(dev, *m, out, 10).ok());
    EXPECT_EQ(download<uint32_t>(dev, out, 1)[0], 55u);
}

// Mutual recursion with predicates and 64-bit registers live across the calls:
//   a(n) = n == 0 ? 1 : n + 3 * b(n - 1)      b(n) = n == 0 ? 2 : a(n - 1) - n   (mod 2^32)
// and a factorial whose multiplication waits for the recursive call.
const char* kMutual = R"(
.func (.param .b32 r) b(.param .b32 n);
.func (.param .b32 r) a(.param .b32 n)
{
  .reg .pred %p<3>;
  .reg .b32 %r<6>;
  .reg .b64 %rd<3>;
  ld.param.u32 %r1, [n];
  cvt.u64.u32 %rd1, %r1;
  setp.eq.u32 %p1, %r1, 0;
  setp.ne.u32 %p2, %r1, 0;
  mov.u32 %r5, 1;
  @%p1 bra DONE;
  { .param .b32 x; .param .b32 y;
    sub.u32 %r2, %r1, 1;
    st.param.b32 [x], %r2;
    call.uni (y), b, (x);
    ld.param.b32 %r3, [y];
  }
  mul.lo.u32 %r3, %r3, 3;
  cvt.u32.u64 %r4, %rd1;
  @%p2 add.u32 %r5, %r3, %r4;
DONE:
  st.param.b32 [r], %r5;
  ret;
}
.func (.param .b32 r) b(.param .b32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<5>;
  ld.param.u32 %r1, [n];
  setp.eq.u32 %p1, %r1, 0;
  mov.u32 %r4, 2;
  @%p1 bra DONE;
  { .param .b32 x; .param .b32 y;
    sub.u32 %r2, %r1, 1;
    st.param.b32 [x], %r2;
    call.uni (y), a, (x);
    ld.param.b32 %r3, [y];
  }
  sub.u32 %r4, %r3, %r1;
DONE:
  st.param.b32 [r], %r4;
  ret;
}
.func (.param .b32 r) fact(.param .b32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  ld.param.u32 %r1, [n];
  setp.le.u32 %p1, %r1, 1;
  mov.u32 %r5, 1;
  @%p1 bra DONE;
  sub.u32 %r2, %r1, 1;
  { .param .b32 x; .param .b32 y;
    st.param.b32 [x], %r2;
    call.uni (y), fact, (x);
    ld.param.b32 %r3, [y];
  }
  mul.lo.u32 %r5, %r3, %r1;
DONE:
  st.param.b32 [r], %r5;
  ret;
}
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<6>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  { .param .b32 x; .param .b32 y;
    st.param.b32 [x], %r1;
    call.uni (y), a, (x);
    ld.param.b32 %r2, [y];
  }
  and.b32 %r4, %r1, 7;
  { .param .b32 x; .param .b32 y;
    st.param.b32 [x], %r4;
    call.uni (y), fact, (x);
    ld.param.b32 %r3, [y];
  }
  mul.wide.u32 %rd2, %r1, 8;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
  st.global.u32 [%rd3+4], %r3;
  ret;
}
)";

uint32_t mutual_a(uint32_t n);
uint32_t mutual_b(uint32_t n) { return n == 0 ? 2 : mutual_a(n - 1) - n; }
uint32_t mutual_a(uint32_t n) { return n == 0 ? 1 : n + 3 * mutual_b(n - 1); }

TEST(PtxsimRecursion, MutualRecursionAndFactorial) {
    auto m = load_ok(ptx(kMutual));
    ASSERT_TRUE(m);
    Device dev;
    const uint32_t n = 40;
    DevicePtr out = upload(dev, std::vector<uint32_t>(n * 2, 0));
    Params p(kernel_of(*m, "k"));
    p.set(0, out);
    run_ok(dev, *m, "k", config({1}, {n}), p);
    auto got = download<uint32_t>(dev, out, n * 2);
    for (uint32_t t = 0; t < n; ++t) {
        EXPECT_EQ(got[2 * t], mutual_a(t)) << t;
        uint32_t f = 1;
        for (uint32_t i = 2; i <= (t & 7); ++i) f *= i;
        EXPECT_EQ(got[2 * t + 1], f) << t;
    }
}

// Recursion through a function pointer: twice(n) = n == 0 ? 0 : 2 * n + twice(n - 1), called through
// its own address (an indirect call may reach any address-taken function of its prototype).
const char* kIndirect = R"(
.func (.param .b32 r) twice(.param .b32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .b64 %rd<2>;
  ld.param.u32 %r1, [n];
  setp.eq.u32 %p1, %r1, 0;
  mov.u32 %r5, 0;
  @%p1 bra DONE;
  mov.u64 %rd1, twice;
  { .param .b32 x; .param .b32 y;
    sub.u32 %r2, %r1, 1;
    st.param.b32 [x], %r2;
    proto : .callprototype (.param .b32 _) _ (.param .b32 _);
    call (y), %rd1, (x), proto;
    ld.param.b32 %r3, [y];
  }
  shl.b32 %r4, %r1, 1;
  add.u32 %r5, %r3, %r4;
DONE:
  st.param.b32 [r], %r5;
  ret;
}
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  rem.u32 %r2, %r1, 11;
  { .param .b32 x; .param .b32 y;
    st.param.b32 [x], %r2;
    call.uni (y), twice, (x);
    ld.param.b32 %r3, [y];
  }
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  ret;
}
)";

TEST(PtxsimRecursion, ThroughAFunctionPointer) {
    auto m = load_ok(ptx(kIndirect));
    ASSERT_TRUE(m);
    Device dev;
    const uint32_t n = 64;
    DevicePtr out = upload(dev, std::vector<uint32_t>(n, 0));
    Params p(kernel_of(*m, "k"));
    p.set(0, out);
    run_ok(dev, *m, "k", config({1}, {n}), p);
    auto got = download<uint32_t>(dev, out, n);
    for (uint32_t t = 0; t < n; ++t) EXPECT_EQ(got[t], (t % 11) * (t % 11 + 1)) << t;
}

} // namespace
} // namespace d4r::ptxsim::test
