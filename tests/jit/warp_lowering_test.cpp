// Warp code (jit/lower.h): kernels with divergent control flow, exits, guards, partial warps, faults and barriers run
// interpreted and as warp code; every output word (or the launch's error) must be the interpreter's. A kernel with a
// barrier that a divergent branch may skip is not warp code and still gives the interpreter's answer per thread.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "jit_test_util.h"

namespace d4r::ptxsim::test {
namespace {

// BODY reads %r5 (this thread's input word; %r1 is %tid.x, %r4 the global index) and leaves %r6, which is stored
// to the thread's output word (prefilled with 0xdeadbeef), then the thread exits.
std::string warp_kernel(const std::string& body) {
    return ptx(R"(
.visible .entry k(.param .u64 out, .param .u64 in)
{
    .reg .pred %p<8>;
    .reg .b32 %r<32>;
    .reg .b64 %rd<16>;
    .shared .align 4 .b8 sm[4096];
    ld.param.u64 %rd1, [out];
    ld.param.u64 %rd2, [in];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mad.lo.s32 %r4, %r2, %r3, %r1;
    mul.wide.u32 %rd3, %r4, 4;
    add.s64 %rd4, %rd2, %rd3;
    add.s64 %rd5, %rd1, %rd3;
    ld.global.u32 %r5, [%rd4];
    mov.u32 %r6, 0;
)" + body + R"(
    st.global.u32 [%rd5], %r6;
    ret;
}
)");
}

struct WarpRuns {
    std::vector<uint32_t> out[2];
    std::string error[2];
    bool warp = false;
    std::string why_not_warp;
};

WarpRuns run_both(const std::string& body, uint32_t threads, uint32_t blocks = 2) {
    WarpRuns runs;
    auto m = load_ok(warp_kernel(body), "warp.ptx");
    if (!m) return runs;
    auto compiler = jit::KernelCompiler::instance();
    EXPECT_TRUE(compiler) << compiler.error().text();
    if (!compiler) return runs;
    auto compiled = (*compiler)->compile(kernel_source(kernel_of(*m, "k")));
    EXPECT_TRUE(compiled) << compiled.error().text();
    if (!compiled) return runs;
    runs.warp = (*compiled)->warp;
    runs.why_not_warp = (*compiled)->why_not_warp;
    const size_t n = size_t(threads) * blocks;
    TestRng rng(7);
    std::vector<uint32_t> in(n);
    for (uint32_t& v : in) v = static_cast<uint32_t>(rng.next() % 2000);
    for (int jit = 0; jit < 2; ++jit) {
        Device dev;
        DevicePtr pin = upload(dev, in), pout = upload(dev, std::vector<uint32_t>(n, 0xdeadbeefu));
        Params p(kernel_of(*m, "k"));
        p.set(0, pout).set(1, pin);
        LaunchConfig cfg = config({blocks}, {threads});
        if (jit) {
            cfg.compiled = *compiled;
            cfg.instruction_budget = 0;
        }
        auto r = launch(dev, kernel_of(*m, "k"), cfg, p.bytes());
        if (!r.ok()) {
            runs.error[jit] = r.error().text();
            continue;
        }
        runs.out[jit] = download<uint32_t>(dev, pout, n);
    }
    return runs;
}

void expect_warp_matches(const std::string& body, uint32_t threads = 64, uint32_t blocks = 2) {
    SCOPED_TRACE(body);
    WarpRuns r = run_both(body, threads, blocks);
    EXPECT_TRUE(r.warp) << r.why_not_warp;
    EXPECT_EQ(r.error[0], "");
    EXPECT_EQ(r.error[1], "");
    ASSERT_EQ(r.out[1].size(), r.out[0].size());
    for (size_t i = 0; i < r.out[0].size(); ++i) ASSERT_EQ(r.out[1][i], r.out[0][i]) << "thread " << i;
}

const char* kIfElse = R"(
    setp.lt.u32 %p1, %r5, 1000;
    @%p1 bra ELSE;
    mul.lo.u32 %r6, %r5, 3;
    bra END;
ELSE:
    add.u32 %r6, %r5, 7;
END:
    add.u32 %r6, %r6, %r1;
)";

TEST(WarpLowering, DivergentIfElse) { expect_warp_matches(kIfElse); }

TEST(WarpLowering, NestedDivergence) {
    expect_warp_matches(R"(
    setp.lt.u32 %p1, %r5, 1000;
    @!%p1 bra OUTER_ELSE;
    and.b32 %r7, %r5, 3;
    setp.eq.u32 %p2, %r7, 0;
    @%p2 bra INNER_ELSE;
    mul.lo.u32 %r6, %r5, 5;
    bra INNER_END;
INNER_ELSE:
    sub.u32 %r6, 0, %r5;
INNER_END:
    add.u32 %r6, %r6, 1;
    bra OUTER_END;
OUTER_ELSE:
    setp.gt.u32 %p3, %r5, 1500;
    @%p3 bra OUTER_END;
    xor.b32 %r6, %r5, 0x5a5a;
OUTER_END:
    shl.b32 %r8, %r6, 1;
    add.u32 %r6, %r8, %r6;
)");
}

TEST(WarpLowering, DivergentLoop) {
    // Each lane loops (its input mod 37) times; some leave the loop early through a forward branch.
    expect_warp_matches(R"(
    rem.u32 %r7, %r5, 37;
    mov.u32 %r8, 0;
LOOP:
    setp.eq.u32 %p1, %r7, 0;
    @%p1 bra DONE;
    mad.lo.u32 %r6, %r6, 3, %r7;
    add.u32 %r8, %r8, 1;
    setp.eq.u32 %p2, %r8, 20;
    @%p2 bra BROKE;
    sub.u32 %r7, %r7, 1;
    bra LOOP;
BROKE:
    add.u32 %r6, %r6, 1000000;
DONE:
    add.u32 %r6, %r6, %r8;
)");
}

TEST(WarpLowering, DivergentLoopBackwardBranch) {
    // A loop closed by a conditional branch back: lanes leave it at different iterations and wait at its
    // fall-through, where a second loop starts.
    expect_warp_matches(R"(
    and.b32 %r7, %r5, 15;
    add.u32 %r7, %r7, 1;
L1:
    add.u32 %r6, %r6, %r7;
    sub.u32 %r7, %r7, 1;
    setp.gt.s32 %p1, %r7, 0;
    @%p1 bra L1;
    and.b32 %r9, %r5, 7;
L2:
    mul.lo.u32 %r6, %r6, 3;
    sub.u32 %r9, %r9, 1;
    setp.ne.s32 %p2, %r9, -1;
    @%p2 bra L2;
)");
}

TEST(WarpLowering, EarlyExit) {
    expect_warp_matches(R"(
    setp.lt.u32 %p1, %r5, 700;
    @%p1 exit;
    and.b32 %r7, %r5, 1;
    setp.eq.u32 %p2, %r7, 0;
    @%p2 bra EVEN;
    add.u32 %r6, %r5, 11;
    st.global.u32 [%rd5], %r6;
    exit;
EVEN:
    add.u32 %r6, %r5, 13;
)");
}

TEST(WarpLowering, GuardedStores) {
    expect_warp_matches(R"(
    setp.lt.u32 %p1, %r5, 1000;
    @%p1 st.global.u32 [%rd5], %r5;
    @%p1 exit;
    @!%p1 add.u32 %r6, %r5, 1;
    setp.lt.u32 %p2, %r5, 1500;
    @%p2 mov.u32 %r6, 77;
    selp.u32 %r7, 1, 2, %p2;
    add.u32 %r6, %r6, %r7;
)");
}

TEST(WarpLowering, ActiveMaskUnderDivergence) {
    expect_warp_matches(R"(
    setp.lt.u32 %p1, %r5, 1000;
    @%p1 bra ELSE;
    activemask.b32 %r6;
    bra END;
ELSE:
    and.b32 %r7, %r5, 1;
    setp.eq.u32 %p2, %r7, 0;
    @%p2 activemask.b32 %r6;
END:
    activemask.b32 %r8;
    xor.b32 %r6, %r6, %r8;
)",
                        40, 2);
}

TEST(WarpLowering, PartialWarp) {
    expect_warp_matches(kIfElse, 40, 3);
    expect_warp_matches(kIfElse, 17, 2);
}

TEST(WarpLowering, SharedMemoryAndVectorAccess) {
    // Every lane writes its word, the warp reads them back reversed (within the warp: no barrier needed in the
    // interpreter's lock-step order), and a v2 load of a pair.
    expect_warp_matches(R"(
    mov.u32 %r10, sm;
    shl.b32 %r11, %r1, 2;
    add.u32 %r12, %r10, %r11;
    st.shared.u32 [%r12], %r5;
    xor.b32 %r13, %r11, 124;
    add.u32 %r14, %r10, %r13;
    ld.shared.u32 %r6, [%r14];
    and.b32 %r15, %r11, 0xfffffff8;
    add.u32 %r16, %r10, %r15;
    ld.shared.v2.u32 {%r17, %r18}, [%r16];
    add.u32 %r6, %r6, %r17;
    xor.b32 %r6, %r6, %r18;
)");
}

TEST(WarpLowering, HalfWarpRowsAndWords) {
    // Both half-warps write the same 16 words (the upper half's stay), each half one word (lane 15's and lane 31's),
    // then read them back as rows and as words; a 64-bit row of global memory too; and the same with a lane missing.
    const char* body = R"(
    mov.u32 %r10, sm;
    and.b32 %r7, %r1, 15;
    shl.b32 %r11, %r7, 2;
    add.u32 %r12, %r10, %r11;
    st.shared.u32 [%r12+8], %r5;
    shr.u32 %r8, %r1, 4;
    shl.b32 %r13, %r8, 2;
    add.u32 %r14, %r10, %r13;
    st.shared.u32 [%r14+256], %r5;
    ld.shared.u32 %r6, [%r12+8];
    ld.shared.u32 %r15, [%r14+256];
    add.u32 %r6, %r6, %r15;
    and.b32 %r16, %r1, 0xfffffffe;
    mul.wide.u32 %rd6, %r16, 4;
    add.s64 %rd7, %rd2, %rd6;
    ld.global.u64 %rd8, [%rd7];
    cvt.u32.u64 %r17, %rd8;
    add.u32 %r6, %r6, %r17;
)";
    expect_warp_matches(body, 32, 4);
    expect_warp_matches(body, 31, 4);
}

// A straight run of shared accesses through one base register, as a tiled GEMM's unrolled loop has: rows (each
// half-warp's words one after the other) and words (one per half-warp), checked together at the first of them.
const char* kSharedRun = R"(
    mov.u32 %r10, sm;
    and.b32 %r7, %r1, 15;
    shl.b32 %r11, %r7, 2;
    add.u32 %r12, %r10, %r11;
    shr.u32 %r8, %r1, 4;
    shl.b32 %r13, %r8, 6;
    add.u32 %r14, %r10, %r13;
    st.shared.u32 [%r12], %r5;
    st.shared.u32 [%r12+64], %r1;
    st.shared.u32 [%r12+128], %r4;
    ld.shared.u32 %r6, [%r12+64];
    ld.shared.u32 %r15, [%r14+4];
    ld.shared.u32 %r16, [%r14+60];
    ld.shared.u32 %r17, [%r12];
    add.u32 %r6, %r6, %r15;
    add.u32 %r6, %r6, %r16;
    ld.shared.u32 %r15, [%r14+8];
    xor.b32 %r6, %r6, %r17;
    ld.shared.u32 %r18, [%r12+128];
    add.u32 %r6, %r6, %r18;
    add.u32 %r6, %r6, %r15;
)";

TEST(WarpLowering, SharedAccessRunsCheckedTogether) {
    expect_warp_matches(kSharedRun, 32, 4);
    expect_warp_matches(kSharedRun, 64, 2);
    expect_warp_matches(kSharedRun, 31, 4); // a partial warp: lane by lane
    // The run's base written in its middle (the run ends there), and a barrier in it (it ends there too).
    expect_warp_matches(R"(
    mov.u32 %r10, sm;
    and.b32 %r7, %r1, 15;
    shl.b32 %r11, %r7, 2;
    add.u32 %r12, %r10, %r11;
    st.shared.u32 [%r12], %r5;
    st.shared.u32 [%r12+64], %r1;
    add.u32 %r12, %r12, 64;
    ld.shared.u32 %r6, [%r12];
    ld.shared.u32 %r15, [%r12+-64];
    bar.sync 0;
    ld.shared.u32 %r16, [%r12+-64];
    ld.shared.u32 %r17, [%r12+4];
    add.u32 %r6, %r6, %r15;
    add.u32 %r6, %r6, %r16;
    add.u32 %r6, %r6, %r17;
)",
                        64, 2);
}

TEST(WarpLowering, SharedAccessRunFaultsWhereTheInterpreterDoes) {
    // A run whose last access (or only one lane's, or a misaligned one) is outside shared memory: the accesses before
    // it happen, and the fault is the interpreter's, at the same instruction and lane. Shared memory is 4096 bytes.
    for (const char* body : {R"(
    mov.u32 %r10, sm;
    and.b32 %r7, %r1, 15;
    shl.b32 %r11, %r7, 2;
    add.u32 %r12, %r10, %r11;
    st.shared.u32 [%r12], %r5;
    ld.shared.u32 %r6, [%r12+64];
    st.shared.u32 [%r12+4032], %r5;
    ld.shared.u32 %r15, [%r12+4036];
    add.u32 %r6, %r6, %r15;
)",
                             R"(
    mov.u32 %r10, sm;
    shr.u32 %r8, %r1, 4;
    shl.b32 %r13, %r8, 2;
    add.u32 %r14, %r10, %r13;
    ld.shared.u32 %r6, [%r14+4];
    st.shared.u32 [%r14+-4], %r5;
    ld.shared.u32 %r15, [%r14+8];
)",
                             R"(
    mov.u32 %r10, sm;
    and.b32 %r7, %r1, 15;
    shl.b32 %r11, %r7, 2;
    add.u32 %r12, %r10, %r11;
    ld.shared.u32 %r6, [%r12];
    ld.shared.u32 %r15, [%r12+6];
    ld.shared.u32 %r16, [%r12+8];
)",
                             R"(
    mov.u32 %r10, sm;
    and.b32 %r7, %r1, 15;
    shl.b32 %r11, %r7, 2;
    add.u32 %r12, %r10, %r11;
    ld.shared.u32 %r6, [%r12+-4];
    ld.shared.u32 %r16, [%r12+8];
)"}) {
        SCOPED_TRACE(body);
        WarpRuns r = run_both(body, 64);
        EXPECT_TRUE(r.warp) << r.why_not_warp;
        EXPECT_NE(r.error[0], "");
        EXPECT_EQ(r.error[1], r.error[0]);
    }
}

TEST(WarpLowering, RowsOfTwoArraysInTurn) {
    // Rows of the input and of the output read in turn, as a tiled GEMM copies its two tiles: each access misses the
    // global range hit last and hits the one before it (the two swap), and still reads a row; then a row past the
    // output's end in the last warp faults as interpreted.
    expect_warp_matches(R"(
    ld.global.u32 %r7, [%rd5];
    ld.global.u32 %r8, [%rd4];
    ld.global.u32 %r9, [%rd5];
    ld.global.u32 %r10, [%rd4];
    add.u32 %r6, %r7, %r8;
    xor.b32 %r6, %r6, %r9;
    add.u32 %r6, %r6, %r10;
)",
                        64, 2);
    WarpRuns r = run_both(R"(
    ld.global.u32 %r7, [%rd4];
    ld.global.u32 %r8, [%rd5+256];
    add.u32 %r6, %r7, %r8;
)",
                          64, 2);
    EXPECT_TRUE(r.warp) << r.why_not_warp;
    EXPECT_NE(r.error[0], "");
    EXPECT_EQ(r.error[1], r.error[0]);
}

TEST(WarpLowering, MemoryFaultInOneLane) {
    // Lane 5 of each warp (and lane 9 after it) reads far outside every allocation: the launch's error is the
    // interpreter's, naming the first faulting lane's thread.
    for (const char* body : {R"(
    and.b32 %r7, %r1, 31;
    setp.eq.u32 %p1, %r7, 5;
    setp.eq.u32 %p2, %r7, 9;
    or.pred %p3, %p1, %p2;
    selp.b64 %rd6, 0x100000000000, 0, %p3;
    add.s64 %rd7, %rd4, %rd6;
    ld.global.u32 %r6, [%rd7];
)",
                             R"(
    and.b32 %r7, %r1, 31;
    setp.eq.u32 %p1, %r7, 5;
    selp.b64 %rd6, 2, 0, %p1;
    add.s64 %rd7, %rd5, %rd6;
    st.global.u32 [%rd7], %r5;
)"}) {
        SCOPED_TRACE(body);
        WarpRuns r = run_both(body, 64);
        EXPECT_TRUE(r.warp) << r.why_not_warp;
        EXPECT_NE(r.error[0], "");
        EXPECT_EQ(r.error[1], r.error[0]);
    }
}

TEST(WarpLowering, BarrierWithEveryLane) {
    // Each thread writes its word to shared memory, the block meets at the barrier, each reads another warp's word.
    expect_warp_matches(R"(
    mov.u32 %r10, sm;
    shl.b32 %r11, %r1, 2;
    add.u32 %r12, %r10, %r11;
    st.shared.u32 [%r12], %r5;
    bar.sync 0;
    sub.u32 %r13, %r3, 1;
    sub.u32 %r14, %r13, %r1;
    shl.b32 %r15, %r14, 2;
    add.u32 %r16, %r10, %r15;
    ld.shared.u32 %r6, [%r16];
    bar.sync 0;
    st.shared.u32 [%r12], %r6;
    bar.sync 0;
    ld.shared.u32 %r17, [%r16];
    add.u32 %r6, %r6, %r17;
)",
                        96, 2);
}

TEST(WarpLowering, BarriersInAUniformLoop) {
    // A loop whose trip count is the block's (uniform), a barrier on each side of a shared-memory exchange; a partial
    // last warp too (48 threads: warp 1 has 16 lanes).
    const char* body = R"(
    mov.u32 %r10, sm;
    shl.b32 %r11, %r1, 2;
    add.u32 %r12, %r10, %r11;
    sub.u32 %r13, %r3, 1;
    sub.u32 %r14, %r13, %r1;
    shl.b32 %r15, %r14, 2;
    add.u32 %r16, %r10, %r15;
    mov.u32 %r6, %r5;
    mov.u32 %r20, 0;
    shr.u32 %r21, %r3, 3;
LOOP:
    st.shared.u32 [%r12], %r6;
    bar.sync 0;
    ld.shared.u32 %r17, [%r16];
    mad.lo.u32 %r6, %r6, 3, %r17;
    bar.sync 0;
    add.u32 %r20, %r20, 1;
    setp.lt.u32 %p1, %r20, %r21;
    @%p1 bra LOOP;
)";
    expect_warp_matches(body, 64, 2);
    expect_warp_matches(body, 48, 3);
}

TEST(WarpLowering, RegistersKeptAcrossBarriers) {
    // Registers live at both barriers: %r12 and %r21 are never written after one (a call that resumes the warp need
    // not save them again), %r16 is, under a uniform guard, and %r6 and %r20 on every trip.
    const char* body = R"(
    mov.u32 %r10, sm;
    shl.b32 %r11, %r1, 2;
    add.u32 %r12, %r10, %r11;
    sub.u32 %r13, %r3, 1;
    sub.u32 %r14, %r13, %r1;
    shl.b32 %r15, %r14, 2;
    add.u32 %r16, %r10, %r15;
    mov.u32 %r6, %r5;
    mov.u32 %r20, 0;
    shr.u32 %r21, %r3, 3;
LOOP:
    st.shared.u32 [%r12], %r6;
    bar.sync 0;
    ld.shared.u32 %r17, [%r16];
    mad.lo.u32 %r6, %r6, 3, %r17;
    setp.eq.u32 %p2, %r20, 2;
    @%p2 mov.u32 %r16, %r12;
    bar.sync 0;
    add.u32 %r20, %r20, 1;
    setp.lt.u32 %p1, %r20, %r21;
    @%p1 bra LOOP;
    add.u32 %r6, %r6, %r21;
)";
    expect_warp_matches(body, 64, 2);
    expect_warp_matches(body, 48, 3);
}

TEST(WarpLowering, BarrierAfterDivergentBranchesMeet) {
    // Divergent branches whose lanes meet again before each barrier (an if around the shared store, an early exit,
    // a divergent loop between the barriers): warp code.
    expect_warp_matches(R"(
    mov.u32 %r10, sm;
    shl.b32 %r11, %r1, 2;
    add.u32 %r12, %r10, %r11;
    setp.gt.u32 %p1, %r5, 1900;
    @%p1 exit;
    setp.lt.u32 %p2, %r5, 1000;
    mov.u32 %r7, 7;
    @%p2 bra SKIP;
    st.shared.u32 [%r12], %r5;
    add.u32 %r7, %r5, 3;
SKIP:
    bar.sync 0;
    xor.b32 %r13, %r11, 4;
    add.u32 %r14, %r10, %r13;
    ld.shared.u32 %r6, [%r14];
    and.b32 %r8, %r5, 7;
LOOP:
    add.u32 %r6, %r6, %r7;
    sub.u32 %r8, %r8, 1;
    setp.ne.u32 %p3, %r8, -1;
    @%p3 bra LOOP;
    bar.sync 0;
    st.shared.u32 [%r12], %r6;
    bar.sync 0;
    ld.shared.u32 %r15, [%r14];
    add.u32 %r6, %r6, %r15;
)",
                        64, 3);
}

TEST(WarpLowering, BarrierUnderDivergenceFallsBack) {
    // The lower half of each warp skips the barrier and exits; the barrier then completes with the others. Not warp
    // code (a divergent branch may skip the barrier), and the answer is the interpreter's.
    const char* body = R"(
    and.b32 %r7, %r1, 31;
    setp.lt.u32 %p1, %r7, 16;
    @%p1 bra SKIP;
    mov.u32 %r10, sm;
    shl.b32 %r11, %r1, 2;
    add.u32 %r12, %r10, %r11;
    st.shared.u32 [%r12], %r5;
    bar.sync 0;
    xor.b32 %r13, %r11, 4;
    add.u32 %r14, %r10, %r13;
    ld.shared.u32 %r6, [%r14];
SKIP:
    add.u32 %r6, %r6, 1;
)";
    WarpRuns r = run_both(body, 64);
    EXPECT_FALSE(r.warp);
    EXPECT_NE(r.why_not_warp.find("barrier under divergence"), std::string::npos) << r.why_not_warp;
    EXPECT_EQ(r.error[0], "");
    EXPECT_EQ(r.error[1], "");
    EXPECT_EQ(r.out[1], r.out[0]);
}

} // namespace
} // namespace d4r::ptxsim::test
