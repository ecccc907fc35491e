// Control flow: divergent branches and loops with per-lane trip counts, reconvergence, early exit,
// calls to .func (parameters, struct returns, nesting, calls from divergent lanes, indirect calls,
// recursion: recursion_test.cpp), brx.idx jump tables, block barriers (with counts) and deadlock detection.
#include <gtest/gtest.h>

#include "ptxsim_test_util.h"

namespace d4r::ptxsim::test {
namespace {

TEST(PtxsimControl, DivergentLoopsEarlyExitAndReconvergence) {
    // Lane t loops (t % 7) + t / 5 times; odd iterations add, even ones xor; lanes with t % 11 == 3 exit
    // before the loop. After the loop every remaining lane must be active together.
    auto m = load_ok(ptx(R"(
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 8;
  add.s64 %rd3, %rd1, %rd2;
  rem.u32 %r2, %r1, 11;
  setp.eq.u32 %p1, %r2, 3;
  @%p1 exit;
  rem.u32 %r3, %r1, 7;
  div.u32 %r4, %r1, 5;
  add.u32 %r5, %r3, %r4;
  mov.u32 %r6, 0;
  mov.u32 %r7, 1;
  setp.eq.u32 %p2, %r5, 0;
  @%p2 bra DONE;
LOOP:
  and.b32 %r8, %r6, 1;
  setp.eq.u32 %p3, %r8, 1;
  @%p3 bra ODD;
  xor.b32 %r7, %r7, %r6;
  bra.uni NEXT;
ODD:
  add.u32 %r7, %r7, %r1;
NEXT:
  add.u32 %r6, %r6, 1;
  setp.lt.u32 %p2, %r6, %r5;
  @%p2 bra LOOP;
DONE:
  activemask.b32 %r9;
  st.global.v2.u32 [%rd3], {%r7, %r9};
  ret;
}
)"));
    ASSERT_TRUE(m);
    Device dev;
    const uint32_t n = 96;
    DevicePtr out = upload(dev, std::vector<uint32_t>(n * 2, 0xdeadbeef));
    Params p(kernel_of(*m, "k"));
    p.set(0, out);
    auto r = run_ok(dev, *m, "k", config({1}, {n}), p);
    auto got = download<uint32_t>(dev, out, n * 2);
    for (uint32_t w = 0; w < n / 32; ++w) {
        uint32_t alive = 0;
        for (uint32_t l = 0; l < 32; ++l)
            if ((w * 32 + l) % 11 != 3) alive |= 1u << l;
        for (uint32_t l = 0; l < 32; ++l) {
            uint32_t t = w * 32 + l;
            if (t % 11 == 3) {
                EXPECT_EQ(got[t * 2], 0xdeadbeefu) << t; // exited: nothing stored
                continue;
            }
            uint32_t v = 1, trips = t % 7 + t / 5;
            for (uint32_t i = 0; i < trips; ++i) v = (i & 1) ? v + t : v ^ i;
            EXPECT_EQ(got[t * 2], v) << t;
            EXPECT_EQ(got[t * 2 + 1], alive) << t; // reconverged: all remaining lanes together
        }
    }
    EXPECT_GT(r.lane_instructions, 0u);
    EXPECT_LT(r.lane_instructions, r.warp_instructions * 32); // divergence leaves lanes idle
}

const char* kCalls = R"(
.func (.param .align 4 .b8 ret[8]) pair(.param .b32 x, .param .b32 y)
{
  .reg .b32 %r<6>;
  ld.param.u32 %r1, [x];
  ld.param.u32 %r2, [y];
  { .param .b32 sq_arg; .param .b32 sq_ret;
    st.param.b32 [sq_arg], %r1;
    call.uni (sq_ret), square, (sq_arg);
    ld.param.b32 %r3, [sq_ret];
  }
  add.s32 %r4, %r3, %r2;
  sub.s32 %r5, %r1, %r2;
  st.param.b32 [ret], %r4;
  st.param.b32 [ret+4], %r5;
  ret;
}
.func (.param .b32 r) square(.param .b32 v)
{
  .local .align 4 .b8 scratch[8];
  .reg .b32 %r<4>;
  ld.param.u32 %r1, [v];
  st.local.u32 [scratch+4], %r1;
  ld.local.u32 %r2, [scratch+4];
  mul.lo.s32 %r3, %r2, %r2;
  st.param.b32 [r], %r3;
  ret;
}
.func (.param .b32 r) plus_one(.param .b32 v)
{
  .reg .b32 %r<3>;
  ld.param.u32 %r1, [v];
  add.s32 %r2, %r1, 1;
  st.param.b32 [r], %r2;
  ret;
}
.global .align 8 .u64 table[2] = {square, plus_one};
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 1;
  setp.eq.u32 %p1, %r2, 0;
  @%p1 bra EVEN;
  { .param .b32 a0; .param .b32 a1; .param .align 4 .b8 rv[8];
    st.param.b32 [a0], %r1;
    st.param.b32 [a1], 100;
    call.uni (rv), pair, (a0, a1);
    ld.param.v2.b32 {%r3, %r4}, [rv];
  }
  bra.uni JOIN;
EVEN:
  { .param .b32 a0; .param .b32 a1; .param .align 4 .b8 rv[8];
    add.s32 %r5, %r1, 3;
    st.param.b32 [a0], %r5;
    st.param.b32 [a1], %r1;
    call.uni (rv), pair, (a0, a1);
    ld.param.b32 %r3, [rv];
    ld.param.b32 %r4, [rv+4];
  }
JOIN:
  shr.u32 %r6, %r1, 1;
  and.b32 %r6, %r6, 1;
  mul.wide.u32 %rd2, %r6, 8;
  mov.u64 %rd3, table;
  add.s64 %rd4, %rd3, %rd2;
  ld.global.u64 %rd5, [%rd4];
  { .param .b32 a; .param .b32 rv;
    st.param.b32 [a], %r1;
    prototype_0 : .callprototype (.param .b32 _) _ (.param .b32 _);
    call (rv), %rd5, (a), prototype_0;
    ld.param.b32 %r7, [rv];
  }
  mul.wide.u32 %rd6, %r1, 12;
  add.s64 %rd7, %rd1, %rd6;
  st.global.u32 [%rd7], %r3;
  st.global.u32 [%rd7+4], %r4;
  st.global.u32 [%rd7+8], %r7;
  ret;
}
)";

TEST(PtxsimControl, CallsWithParametersStructReturnsNestingAndPointers) {
    auto m = load_ok(ptx(kCalls));
    ASSERT_TRUE(m);
    Device dev;
    const uint32_t n = 64;
    DevicePtr out = upload(dev, std::vector<uint32_t>(n * 3, 0));
    Params p(kernel_of(*m, "k"));
    p.set(0, out);
    run_ok(dev, *m, "k", config({1}, {n}), p);
    auto got = download<uint32_t>(dev, out, n * 3);
    for (uint32_t t = 0; t < n; ++t) {
        int32_t x = t % 2 ? int32_t(t) : int32_t(t + 3), y = t % 2 ? 100 : int32_t(t);
        EXPECT_EQ(int32_t(got[t * 3]), x * x + y) << t;
        EXPECT_EQ(int32_t(got[t * 3 + 1]), x - y) << t;
        uint32_t via_pointer = (t >> 1) & 1 ? t + 1 : t * t;
        EXPECT_EQ(got[t * 3 + 2], via_pointer) << t;
    }
}

TEST(PtxsimControl, JumpTable) {
    std::vector<uint32_t> idx = {0, 1, 2, 3, 2, 1, 0, 3};
    std::vector<uint32_t> v = {10, 20, 30, 40, 50, 60, 70, 80};
    auto got = run_op<uint32_t, uint32_t, uint32_t>(R"(
  tab: .branchtargets L0, L1, L2, L3;
  brx.idx %a, tab;
L0: mul.lo.u32 %d, %b, 3;
  bra.uni END;
L1: xor.b32 %d, %b, 0x1234;
  bra.uni END;
L2: shr.u32 %d, %b, 1;
  bra.uni END;
L3: add.u32 %d, %b, 99;
END:)",
                                                    idx, v);
    for (size_t i = 0; i < idx.size(); ++i) {
        uint32_t e = idx[i] == 0 ? v[i] * 3 : idx[i] == 1 ? v[i] ^ 0x1234 : idx[i] == 2 ? v[i] >> 1 : v[i] + 99;
        EXPECT_EQ(got[i], e) << i;
    }
}

TEST(PtxsimControl, SharedMemoryTreeReductionAcrossWarps) {
    // 256 threads (8 warps) sum their values through shared memory with bar.sync between the levels.
    auto m = load_ok(ptx(R"(
.shared .align 4 .b32 buf[256];
.visible .entry reduce(.param .u64 in, .param .u64 out)
{
  .reg .pred %p<3>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mad.lo.u32 %r3, %r2, 256, %r1;
  mul.wide.u32 %rd3, %r3, 4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.u32 %r4, [%rd4];
  shl.b32 %r5, %r1, 2;
  mov.u32 %r6, buf;
  add.s32 %r7, %r6, %r5;
  st.shared.u32 [%r7], %r4;
  barrier.sync 0;
  mov.u32 %r8, 128;
LEVEL:
  setp.ge.u32 %p1, %r1, %r8;
  @%p1 bra SKIP;
  shl.b32 %r9, %r8, 2;
  add.s32 %r10, %r7, %r9;
  ld.shared.u32 %r11, [%r10];
  ld.shared.u32 %r12, [%r7];
  add.s32 %r12, %r12, %r11;
  st.shared.u32 [%r7], %r12;
SKIP:
  bar.sync 0;
  shr.u32 %r8, %r8, 1;
  setp.ne.u32 %p2, %r8, 0;
  @%p2 bra LEVEL;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 ret;
  ld.shared.u32 %r13, [buf];
  mul.wide.u32 %rd5, %r2, 4;
  add.s64 %rd6, %rd2, %rd5;
  st.global.u32 [%rd6], %r13;
  ret;
}
)"));
    ASSERT_TRUE(m);
    Device dev;
    const uint32_t blocks = 6;
    std::vector<uint32_t> in(blocks * 256);
    TestRng rng(2);
    for (auto& v : in) v = uint32_t(rng.next() & 0xffff);
    DevicePtr pin = upload(dev, in), pout = upload(dev, std::vector<uint32_t>(blocks, 0));
    for (unsigned workers : {1u, 4u}) {
        Params p(kernel_of(*m, "reduce"));
        p.set(0, pin).set(1, pout);
        run_ok(dev, *m, "reduce", config({blocks}, {256}, workers), p);
        auto got = download<uint32_t>(dev, pout, blocks);
        for (uint32_t b = 0; b < blocks; ++b) {
            uint32_t sum = 0;
            for (uint32_t i = 0; i < 256; ++i) sum += in[b * 256 + i];
            EXPECT_EQ(got[b], sum) << "block " << b << " workers " << workers;
        }
    }
}

TEST(PtxsimControl, NamedBarrierWithThreadCount) {
    // Warps 0 and 1 hand a value over through shared memory with barrier 1 (64 threads) while warps 2
    // and 3 never touch it; all four meet at barrier 0 at the end.
    auto m = load_ok(ptx(R"(
.shared .align 4 .b32 slot[32];
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<3>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  shr.u32 %r2, %r1, 5;
  and.b32 %r3, %r1, 31;
  shl.b32 %r4, %r3, 2;
  mov.u32 %r5, slot;
  add.s32 %r6, %r5, %r4;
  mov.u32 %r7, 0;
  setp.ge.u32 %p1, %r2, 2;
  @%p1 bra OTHERS;
  setp.eq.u32 %p2, %r2, 0;
  @!%p2 bra CONSUMER;
  mul.lo.u32 %r8, %r3, 7;
  st.shared.u32 [%r6], %r8;
  bar.sync 1, 64;
  bra.uni END;
CONSUMER:
  bar.sync 1, 64;
  ld.shared.u32 %r7, [%r6];
  bra.uni END;
OTHERS:
  add.u32 %r7, %r1, 1000;
END:
  bar.sync 0;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r7;
  ret;
}
)"));
    ASSERT_TRUE(m);
    Device dev;
    DevicePtr out = upload(dev, std::vector<uint32_t>(128, 0));
    Params p(kernel_of(*m, "k"));
    p.set(0, out);
    run_ok(dev, *m, "k", config({1}, {128}), p);
    auto got = download<uint32_t>(dev, out, 128);
    for (uint32_t t = 0; t < 128; ++t) {
        uint32_t e = t < 32 ? 0 : t < 64 ? (t - 32) * 7 : t + 1000;
        EXPECT_EQ(got[t], e) << t;
    }
}

TEST(PtxsimControl, BarrierThatCannotCompleteIsReported) {
    // Warp 1 waits at barrier 0 that warp 0 never reaches (it spins at barrier 1 instead).
    auto m = load_ok(ptx(R"(
.visible .entry k()
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 32;
  @%p1 bra A;
  bar.sync 0;
  ret;
A:
  bar.sync 1;
  ret;
}
)"));
    ASSERT_TRUE(m);
    Device dev;
    LaunchFault fault;
    auto r = launch(dev, kernel_of(*m, "k"), config({1}, {64}), {}, &fault);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(fault.kind, FaultKind::IllegalInstruction);
    EXPECT_NE(r.error().text().find("can never complete"), std::string::npos) << r.error().text();
}

TEST(PtxsimControl, BarrierAfterSomeThreadsExited) {
    // Threads that exit no longer count: the remaining ones pass __syncthreads().
    auto m = load_ok(ptx(R"(
.shared .align 4 .b32 s[64];
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  setp.ge.u32 %p1, %r1, 40;
  @%p1 exit;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, s;
  add.s32 %r4, %r3, %r2;
  st.shared.u32 [%r4], %r1;
  bar.sync 0;
  sub.u32 %r5, 39, %r1;
  shl.b32 %r5, %r5, 2;
  add.s32 %r5, %r3, %r5;
  ld.shared.u32 %r6, [%r5];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r6;
  ret;
}
)"));
    ASSERT_TRUE(m);
    Device dev;
    DevicePtr out = upload(dev, std::vector<uint32_t>(64, 0));
    Params p(kernel_of(*m, "k"));
    p.set(0, out);
    run_ok(dev, *m, "k", config({1}, {64}), p);
    auto got = download<uint32_t>(dev, out, 64);
    for (uint32_t t = 0; t < 40; ++t) EXPECT_EQ(got[t], 39 - t);
}

TEST(PtxsimControl, BarrierReductions) {
    // __syncthreads_count / _and / _or: bar.red over every thread of a 96-thread block.
    auto m = load_ok(ptx(R"(
.visible .entry k(.param .u64 in, .param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.u32 %r2, [%rd4];
  setp.ne.u32 %p1, %r2, 0;
  bar.red.popc.u32 %r3, 0, %p1;
  barrier.red.and.pred %p2, 1, %p1;
  bar.red.or.pred %p3, 2, !%p1;
  selp.b32 %r4, 1, 0, %p2;
  selp.b32 %r5, 2, 0, %p3;
  or.b32 %r4, %r4, %r5;
  shl.b32 %r6, %r3, 8;
  or.b32 %r4, %r4, %r6;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd5, %rd2, %rd3;
  st.global.u32 [%rd5], %r4;
  ret;
}
)"));
    ASSERT_TRUE(m);
    Device dev;
    for (int variant = 0; variant < 3; ++variant) {
        std::vector<uint32_t> in(96);
        for (uint32_t t = 0; t < 96; ++t) in[t] = variant == 0 ? (t % 3 == 0) : variant == 1 ? 1 : (t == 70 ? 0 : 1);
        DevicePtr pin = upload(dev, in), out = upload(dev, std::vector<uint32_t>(96, 0));
        Params p(kernel_of(*m, "k"));
        p.set(0, pin).set(1, out);
        run_ok(dev, *m, "k", config({1}, {96}), p);
        auto got = download<uint32_t>(dev, out, 96);
        uint32_t count = 0;
        for (uint32_t v : in) count += v != 0;
        uint32_t expect = (count << 8) | (count == 96 ? 1u : 0u) | (count < 96 ? 2u : 0u);
        for (uint32_t t = 0; t < 96; ++t) EXPECT_EQ(got[t], expect) << variant << " " << t;
    }
}

} // namespace
} // namespace d4r::ptxsim::test
