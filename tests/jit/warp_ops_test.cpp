// Warp code's warp-wide instructions (jit/lower.h): shfl, vote, match, redux and bar.warp.sync with one member mask
// and with a partitioned warp, lanes that exited, mma.sync, ldmatrix, every wmma shape and type (random bits:
// infinities, NaNs and denormals included) in global, shared and generic memory, brx.idx and the clock registers.
// Each kernel must compile to warp code, and every output word (or the launch's error) must be the interpreter's.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <fmt/format.h>

#include "../ptxsim/wgmma_kernel.h"
#include "jit_test_util.h"

namespace d4r::ptxsim::test {
namespace {

struct Runs {
    std::vector<std::vector<uint32_t>> out[2]; // interpreted, warp code: every buffer after the launch
    std::string error[2];
};

// Kernel "k" of TEXT, its parameters the device addresses of BUFFERS in order, run interpreted and as warp code.
Runs run_both(const std::string& text, const std::vector<std::vector<uint32_t>>& buffers, Dim3 grid, Dim3 block,
              uint32_t dynamic_shared = 0) {
    Runs runs;
    auto m = load_ok(ptx(text), "warp_ops.ptx");
    if (!m) return runs;
    auto compiler = jit::KernelCompiler::instance();
    EXPECT_TRUE(compiler) << compiler.error().text();
    if (!compiler) return runs;
    auto compiled = (*compiler)->compile(kernel_source(kernel_of(*m, "k")));
    EXPECT_TRUE(compiled) << compiled.error().text();
    if (!compiled) return runs;
    EXPECT_TRUE((*compiled)->warp) << (*compiled)->why_not_warp;
    for (int jit = 0; jit < 2; ++jit) {
        Device dev;
        std::vector<DevicePtr> ptrs;
        Params p(kernel_of(*m, "k"));
        for (size_t i = 0; i < buffers.size(); ++i) {
            ptrs.push_back(upload(dev, buffers[i]));
            p.set(i, ptrs.back());
        }
        LaunchConfig cfg = config(grid, block);
        cfg.dynamic_shared_bytes = dynamic_shared;
        if (jit) {
            cfg.compiled = *compiled;
            cfg.instruction_budget = 0;
        }
        auto r = launch(dev, kernel_of(*m, "k"), cfg, p.bytes());
        if (!r.ok()) runs.error[jit] = r.error().text();
        for (size_t i = 0; i < buffers.size(); ++i)
            runs.out[jit].push_back(download<uint32_t>(dev, ptrs[i], buffers[i].size()));
    }
    return runs;
}

// Kernel "k" of M compiled by the process's compiler (warp code or not); null after a failed expectation.
std::shared_ptr<const CompiledKernel> compile_k(const Module& m) {
    auto compiler = jit::KernelCompiler::instance();
    EXPECT_TRUE(compiler) << compiler.error().text();
    if (!compiler) return nullptr;
    auto compiled = (*compiler)->compile(kernel_source(kernel_of(m, "k")));
    EXPECT_TRUE(compiled) << compiled.error().text();
    return compiled ? *compiled : nullptr;
}

void expect_same(const Runs& r, bool expect_error = false) {
    EXPECT_EQ(r.error[1], r.error[0]);
    EXPECT_EQ(!r.error[0].empty(), expect_error) << r.error[0];
    ASSERT_EQ(r.out[1].size(), r.out[0].size());
    for (size_t b = 0; b < r.out[0].size(); ++b)
        for (size_t i = 0; i < r.out[0][b].size(); ++i)
            ASSERT_EQ(r.out[1][b][i], r.out[0][b][i]) << "buffer " << b << " word " << i;
}

std::vector<uint32_t> random_words(size_t n, uint64_t seed) {
    TestRng rng(seed);
    std::vector<uint32_t> v(n);
    for (uint32_t& x : v) x = static_cast<uint32_t>(rng.next());
    return v;
}

// The common prologue: %r1 tid.x, %r2 the global thread index, %r3 the lane, %rd1 this thread's 16 input words,
// %rd2 its 32 output words; %r5..%r8 its first four input words.
const char* kPrologue = R"(
    .reg .pred %p<16>;
    .reg .b32 %r<96>;
    .reg .b64 %rd<32>;
    ld.param.u64 %rd10, [out];
    ld.param.u64 %rd11, [in];
    mov.u32 %r1, %tid.x;
    mov.u32 %r4, %ctaid.x;
    mov.u32 %r9, %ntid.x;
    mad.lo.s32 %r2, %r4, %r9, %r1;
    mov.u32 %r3, %laneid;
    mul.wide.u32 %rd12, %r2, 64;
    add.s64 %rd1, %rd11, %rd12;
    mul.wide.u32 %rd13, %r2, 128;
    add.s64 %rd2, %rd10, %rd13;
    ld.global.v4.u32 {%r5, %r6, %r7, %r8}, [%rd1];
)";

std::string collective_kernel(const std::string& body) {
    return std::string(".visible .entry k(.param .u64 out, .param .u64 in)\n{\n") + kPrologue + body +
           "\n    ret;\n}\n";
}

void expect_collectives_match(const std::string& body, uint32_t threads = 64, uint64_t seed = 1) {
    SCOPED_TRACE(body);
    const uint32_t blocks = 2;
    const size_t n = size_t(threads) * blocks;
    Runs r = run_both(collective_kernel(body), {std::vector<uint32_t>(n * 32, 0xdeadbeefu), random_words(n * 16, seed)},
                      {blocks}, {threads});
    expect_same(r);
}

// A member mask per half-warp (a partitioned warp: %r11) and per quarter (%r12).
const char* kPartitions = R"(
    and.b32 %r10, %r3, 16;
    shl.b32 %r11, 65535, %r10;
    and.b32 %r10, %r3, 24;
    shl.b32 %r12, 255, %r10;
)";

TEST(WarpOps, ShuffleEveryModeOneMask) {
    // Random source lanes, clamps and segment masks (b and c from the inputs), with and without the predicate.
    expect_collectives_match(R"(
    shfl.sync.up.b32 %r20|%p1, %r5, %r6, %r7, -1;
    shfl.sync.down.b32 %r21|%p2, %r5, %r6, %r7, -1;
    shfl.sync.bfly.b32 %r22|%p3, %r5, %r6, %r7, -1;
    shfl.sync.idx.b32 %r23|%p4, %r5, %r6, %r7, -1;
    shfl.sync.down.b32 %r24, %r5, 3, 31, -1;
    shfl.sync.bfly.b32 %r25, %r5, 1, 0x1f, 0xffffffff;
    shfl.sync.idx.b32 %r26, 77, %r3, 0x101f, -1;
    selp.u32 %r30, 1, 0, %p1;
    selp.u32 %r31, 2, 0, %p2;
    selp.u32 %r32, 4, 0, %p3;
    selp.u32 %r33, 8, 0, %p4;
    or.b32 %r30, %r30, %r31;
    or.b32 %r30, %r30, %r32;
    or.b32 %r30, %r30, %r33;
    st.global.v4.u32 [%rd2], {%r20, %r21, %r22, %r23};
    st.global.v4.u32 [%rd2+16], {%r24, %r25, %r26, %r30};
)");
}

TEST(WarpOps, ShuffleWithAMaskLoadedFromMemory) {
    // The same member mask in every lane, but not known at compile time: the inline path after a check.
    expect_collectives_match(R"(
    ld.global.u32 %r13, [%rd11];
    or.b32 %r13, %r13, -1;
    shfl.sync.bfly.b32 %r20, %r5, 2, 31, %r13;
    st.global.u32 [%rd2], %r20;
)");
}

TEST(WarpOps, ShufflePartitionedWarp) {
    // Each half-warp its own collective: sources outside a half read as the interpreter reads them (the register of
    // a lane of the last group, 0 for the earlier groups).
    expect_collectives_match(std::string(kPartitions) + R"(
    shfl.sync.idx.b32 %r20|%p1, %r5, %r6, %r7, %r11;
    shfl.sync.down.b32 %r21|%p2, %r5, %r6, 0x0f1f, %r11;
    shfl.sync.bfly.b32 %r22, %r5, %r6, 0x181f, %r12;
    mov.u32 %r23, %r7;
    shfl.sync.up.b32 %r23, %r23, %r6, %r8, %r12;
    selp.u32 %r30, 1, 0, %p1;
    selp.u32 %r31, 2, 0, %p2;
    or.b32 %r30, %r30, %r31;
    st.global.v4.u32 [%rd2], {%r20, %r21, %r22, %r30};
    st.global.u32 [%rd2+16], %r23;
)");
}

TEST(WarpOps, ShuffleReadsLanesThatExited) {
    // Lanes whose input is odd leave first; the others shuffle a register the leavers wrote before they left (their
    // last value), and one written only after they left (zero in their lanes).
    expect_collectives_match(R"(
    mul.lo.u32 %r20, %r5, 3;
    and.b32 %r13, %r8, 1;
    setp.ne.u32 %p1, %r13, 0;
    @%p1 bra DONE;
    add.u32 %r21, %r5, 11;
    shfl.sync.bfly.b32 %r22, %r20, 1, 31, -1;
    shfl.sync.down.b32 %r23, %r21, 1, 31, -1;
    shfl.sync.idx.b32 %r24, %r20, %r6, 31, -1;
    st.global.v4.u32 [%rd2], {%r22, %r23, %r24, %r20};
DONE:
    ret;
)");
}

TEST(WarpOps, VoteEveryMode) {
    expect_collectives_match(std::string(kPartitions) + R"(
    and.b32 %r13, %r5, 1;
    setp.ne.u32 %p1, %r13, 0;
    setp.lt.u32 %p2, %r5, 0xf0000000;
    vote.sync.all.pred %p3, %p2, -1;
    vote.sync.any.pred %p4, %p1, -1;
    vote.sync.uni.pred %p5, %p1, -1;
    vote.sync.ballot.b32 %r20, %p1, -1;
    vote.sync.ballot.b32 %r21, !%p1, %r11;
    vote.sync.all.pred %p6, !%p2, %r12;
    vote.sync.uni.pred %p7, %p1, %r11;
    vote.sync.ballot.b32 %r22, %p1, 0x0f0f0f0f;
    selp.u32 %r30, 1, 0, %p3;
    selp.u32 %r31, 2, 0, %p4;
    selp.u32 %r32, 4, 0, %p5;
    selp.u32 %r33, 8, 0, %p6;
    selp.u32 %r34, 16, 0, %p7;
    or.b32 %r30, %r30, %r31;
    or.b32 %r30, %r30, %r32;
    or.b32 %r30, %r30, %r33;
    or.b32 %r30, %r30, %r34;
    st.global.v4.u32 [%rd2], {%r20, %r21, %r22, %r30};
)");
}

TEST(WarpOps, MatchAnyAndAll) {
    expect_collectives_match(std::string(kPartitions) + R"(
    .reg .b64 %rx<4>;
    and.b32 %r13, %r5, 3;
    match.any.sync.b32 %r20, %r13, -1;
    match.any.sync.b32 %r21, %r13, %r11;
    and.b32 %r14, %r5, 0x80000000;
    match.all.sync.b32 %r22|%p1, %r14, -1;
    shr.u32 %r15, %r3, 4;
    match.all.sync.b32 %r23|%p2, %r15, %r11;
    cvt.u64.u32 %rx1, %r13;
    shl.b64 %rx1, %rx1, 40;
    match.any.sync.b64 %r24, %rx1, %r12;
    selp.u32 %r30, 1, 0, %p1;
    selp.u32 %r31, 2, 0, %p2;
    or.b32 %r30, %r30, %r31;
    st.global.v4.u32 [%rd2], {%r20, %r21, %r22, %r23};
    st.global.v2.u32 [%rd2+16], {%r24, %r30};
)");
}

TEST(WarpOps, ReduxEveryOperation) {
    expect_collectives_match(std::string(kPartitions) + R"(
    redux.sync.add.u32 %r20, %r5, -1;
    redux.sync.min.u32 %r21, %r5, %r11;
    redux.sync.max.u32 %r22, %r5, -1;
    redux.sync.min.s32 %r23, %r5, %r12;
    redux.sync.max.s32 %r24, %r5, -1;
    redux.sync.and.b32 %r25, %r6, %r11;
    redux.sync.or.b32 %r26, %r6, -1;
    redux.sync.xor.b32 %r27, %r6, %r12;
    redux.sync.min.u32 %r28, %r5, 0;
    st.global.v4.u32 [%rd2], {%r20, %r21, %r22, %r23};
    st.global.v4.u32 [%rd2+16], {%r24, %r25, %r26, %r27};
    st.global.u32 [%rd2+32], %r28;
)");
}

TEST(WarpOps, WarpSyncThenShuffle) {
    expect_collectives_match(std::string(kPartitions) + R"(
    bar.warp.sync -1;
    bar.warp.sync %r11;
    shfl.sync.down.b32 %r20, %r5, 1, 31, -1;
    st.global.u32 [%rd2], %r20;
)");
}

TEST(WarpOps, PartialWarps) {
    // 48 threads: the second warp has 16 lanes.
    expect_collectives_match(R"(
    shfl.sync.bfly.b32 %r20, %r5, 8, 31, -1;
    setp.ne.u32 %p1, %r6, 0;
    vote.sync.ballot.b32 %r21, %p1, -1;
    redux.sync.add.u32 %r22, %r5, -1;
    st.global.v4.u32 [%rd2], {%r20, %r21, %r22, %r5};
)",
                             48);
}

TEST(WarpOps, CollectiveUnderDivergenceStaysPerThread) {
    // Lanes of the other half wait at a later label while this half's shfl runs: the interpreter lets them join it,
    // warp code does not follow; the kernel compiles one thread at a time (and still matches).
    auto m = load_ok(ptx(collective_kernel(R"(
    setp.lt.u32 %p1, %r3, 16;
    @%p1 bra LOW;
    shfl.sync.bfly.b32 %r20, %r5, 1, 31, -1;
    bra END;
LOW:
    shfl.sync.bfly.b32 %r20, %r6, 1, 31, -1;
END:
    st.global.u32 [%rd2], %r20;
)")));
    ASSERT_TRUE(m);
    const std::shared_ptr<const CompiledKernel> compiled = compile_k(*m);
    ASSERT_TRUE(compiled);
    EXPECT_FALSE(compiled->warp);
    EXPECT_NE(compiled->why_not_warp.find("a warp collective under divergence"), std::string::npos)
        << compiled->why_not_warp;
}

// Collectives behind a branch on the thread index (jit/uniformity.h, WHOLE_WARPS): warp code for blocks whose x
// dimension is whole warps, where `tid.x < 32` is the same in every lane of a warp; such a kernel launched with
// another block shape runs interpreted (the same bytes either way).
const char* kFirstWarpShuffles = R"(
    setp.ge.u32 %p1, %r1, 32;
    @%p1 bra SKIP;
    shfl.sync.bfly.b32 %r20, %r5, 1, 31, -1;
    vote.sync.ballot.b32 %r21, %p1, -1;
    st.global.v2.u32 [%rd2], {%r20, %r21};
SKIP:
    shr.u32 %r22, %r1, 5;
    st.global.u32 [%rd2+8], %r22;
)";

TEST(WarpOps, CollectivesOfTheFirstWarpAreWarpCodeForWholeWarps) {
    auto m = load_ok(ptx(collective_kernel(kFirstWarpShuffles)));
    ASSERT_TRUE(m);
    const std::shared_ptr<const CompiledKernel> compiled = compile_k(*m);
    ASSERT_TRUE(compiled);
    EXPECT_TRUE(compiled->warp);
    EXPECT_TRUE(compiled->whole_warps_in_x);
    for (uint32_t threads : {64u, 96u, 48u}) { // 48: not whole warps, interpreted
        SCOPED_TRACE(threads);
        const size_t n = size_t(threads) * 2;
        expect_same(run_both(collective_kernel(kFirstWarpShuffles),
                             {std::vector<uint32_t>(n * 32, 0xdeadbeefu), random_words(n * 16, threads)}, {2},
                             {threads}));
    }
}

TEST(WarpOps, ABranchInsideAWarpKeepsItsCollectivesPerThread) {
    // tid.x < 20 splits the first warp: its ballot (lanes 0-19) is under divergence for any block shape (the other
    // lanes wait at a label with work after it).
    auto m = load_ok(ptx(collective_kernel(R"(
    setp.ge.u32 %p1, %r1, 20;
    @%p1 bra SKIP;
    setp.ne.u32 %p2, %r5, 0;
    vote.sync.ballot.b32 %r21, %p2, 1048575;
    st.global.u32 [%rd2], %r21;
SKIP:
    st.global.u32 [%rd2+4], %r1;
)")));
    ASSERT_TRUE(m);
    const std::shared_ptr<const CompiledKernel> compiled = compile_k(*m);
    ASSERT_TRUE(compiled);
    EXPECT_FALSE(compiled->warp);
    EXPECT_NE(compiled->why_not_warp.find("under divergence"), std::string::npos) << compiled->why_not_warp;
}

TEST(WarpOps, ARegisterReadBeforeItIsWrittenKeepsWhatItIsComputedFrom) {
    // %r30 starts as the zero every register starts with and becomes tid.x in a loop that reads it first: the branch
    // on it splits warps whatever the block's shape, so the vote behind it stays per thread.
    const std::string body = R"(
LOOP:
    xor.b32 %r30, %r30, %r1;
    add.u32 %r31, %r31, 1;
    setp.lt.u32 %p2, %r31, 1;
    @%p2 bra LOOP;
    setp.lt.u32 %p1, %r30, 5;
    @%p1 bra SKIP;
    activemask.b32 %r40;
    setp.ne.u32 %p3, %r5, 0;
    vote.sync.ballot.b32 %r20, %p3, %r40;
    st.global.u32 [%rd2], %r20;
SKIP:
    st.global.u32 [%rd2+4], %r30;
)";
    auto m = load_ok(ptx(collective_kernel(body)));
    ASSERT_TRUE(m);
    const std::shared_ptr<const CompiledKernel> compiled = compile_k(*m);
    ASSERT_TRUE(compiled);
    EXPECT_FALSE(compiled->warp);
    EXPECT_NE(compiled->why_not_warp.find("for blocks of whole warps in x: a warp collective under divergence"),
              std::string::npos)
        << compiled->why_not_warp;
}

TEST(WarpOps, ABallotOfTheFirstTwoWarpsOfATwoLayerBlockIsWarpCode) {
    // nvcc's spelling of threadIdx.z * blockDim.x + threadIdx.x < 64 in a (64, 1, 2) block (the network's fused
    // block finds its window's tokens so): the first layer's two warps vote, the second layer's skip.
    const std::string text = R"(
.visible .entry k(.param .u64 out, .param .u64 in)
{
    .reg .pred %p<4>;
    .reg .b32 %r<32>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [out];
    ld.param.u64 %rd2, [in];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %tid.z;
    mov.u32 %r3, %ntid.x;
    mad.lo.s32 %r4, %r2, %r3, %r1;
    mul.wide.u32 %rd3, %r4, 4;
    add.s64 %rd4, %rd2, %rd3;
    add.s64 %rd5, %rd1, %rd3;
    ld.global.u32 %r5, [%rd4];
    setp.gt.u32 %p1, %r4, 63;
    @%p1 bra DONE;
    and.b32 %r6, %r5, 1;
    setp.ne.u32 %p2, %r6, 0;
    vote.sync.ballot.b32 %r7, %p2, -1;
    st.global.u32 [%rd5], %r7;
DONE:
    st.global.u32 [%rd4], %r4;
    ret;
}
)";
    auto m = load_ok(ptx(text));
    ASSERT_TRUE(m);
    const std::shared_ptr<const CompiledKernel> compiled = compile_k(*m);
    ASSERT_TRUE(compiled);
    EXPECT_TRUE(compiled->warp) << compiled->why_not_warp;
    EXPECT_TRUE(compiled->whole_warps_in_x);
    const Runs r = run_both(text, {std::vector<uint32_t>(128, 0xdeadbeefu), random_words(128, 31)}, {1}, {64, 1, 2});
    expect_same(r);
}

// --- the tensor-core instructions ---

std::string regs(const std::string& prefix, unsigned first, unsigned n) {
    std::string s = "{";
    for (unsigned i = 0; i < n; ++i) s += (i ? ", " : "") + prefix + std::to_string(first + i);
    return s + "}";
}

// mma.sync OPCODE on fragments read from each lane's input words; D stored.
void expect_mma_matches(const std::string& opcode, unsigned na, unsigned nb, unsigned nc, uint64_t seed) {
    std::string body;
    for (unsigned k = 0; k < na + nb + nc; ++k)
        body += fmt::format("    ld.global.u32 %r{}, [%rd1+{}];\n", 40 + k, 4 * k);
    body += fmt::format("    {} {}, {}, {}, {};\n", opcode, regs("%r", 60, nc), regs("%r", 40, na),
                        regs("%r", 40 + na, nb), regs("%r", 40 + na + nb, nc));
    for (unsigned k = 0; k < nc; ++k) body += fmt::format("    st.global.u32 [%rd2+{}], %r{};\n", 4 * k, 60 + k);
    expect_collectives_match(body, 64, seed);
}

TEST(WarpOps, MmaSyncEveryForm) {
    // Random bits: NaNs, infinities and denormals in every fragment.
    expect_mma_matches("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", 4, 2, 4, 3);
    expect_mma_matches("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16", 4, 2, 2, 4);
    expect_mma_matches("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", 4, 2, 4, 5);
    expect_mma_matches("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32", 2, 1, 4, 6);
    expect_mma_matches("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32", 4, 2, 4, 7);
    expect_mma_matches("mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e4m3.f32", 4, 2, 4, 8);
}

TEST(WarpOps, MmaSyncWithoutTheWholeWarpFaultsAsInterpreted) {
    const size_t n = 48;
    Runs r = run_both(collective_kernel(R"(
    mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%r60, %r61, %r62, %r63}, {%r5, %r6}, {%r7}, {%r5, %r6, %r7, %r8};
    st.global.u32 [%rd2], %r60;
)"),
                      {std::vector<uint32_t>(n * 32), random_words(n * 16, 9)}, {1}, {48});
    expect_same(r, true);
    EXPECT_NE(r.error[1].find("without all 32 lanes"), std::string::npos) << r.error[1];
}

// An mma in a loop whose start and bound the analysis cannot prove the same in every lane (each lane starts at its
// own K offset, as a linear's loop over its fragment columns does; and a forward branch round the loop on a lane's
// value): warp code, because mma needs the whole warp in both executors (jit/uniformity.h). BOUND 32: every lane
// loops twice, so the results are the interpreter's; BOUND 20: lanes 4..7 of every eight leave after one step, and
// the second step faults as interpreted, naming the lanes that reached it (memory after the fault may differ: the
// interpreter lets the lanes that left store first; a faulted launch's memory is undefined on the GPU too).
std::string mma_loop_kernel(unsigned bound) {
    return collective_kernel(fmt::format(R"(
    and.b32 %r30, %r3, 6;
    mov.u32 %r60, 0;
    mov.u32 %r61, 0;
    setp.ge.u32 %p1, %r30, 8;
    @%p1 bra SKIP;
LOOP:
    mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {{%r60, %r61}}, {{%r5, %r6, %r7, %r8}}, {{%r5, %r30}}, {{%r60, %r61}};
    add.u32 %r30, %r30, 16;
    setp.lt.u32 %p2, %r30, {};
    @%p2 bra LOOP;
SKIP:
    st.global.v2.u32 [%rd2], {{%r60, %r61}};
)",
                                         bound));
}

TEST(WarpOps, MmaInALoopOfLaneDependentBoundsIsWarpCode) {
    const size_t n = 64;
    Runs r = run_both(mma_loop_kernel(32), {std::vector<uint32_t>(n * 32), random_words(n * 16, 21)}, {2}, {32});
    expect_same(r);
}

TEST(WarpOps, MmaReachedByPartOfTheWarpInALoopFaultsAsInterpreted) {
    const size_t n = 64;
    Runs r = run_both(mma_loop_kernel(20), {std::vector<uint32_t>(n * 32), random_words(n * 16, 22)}, {2}, {32});
    EXPECT_EQ(r.error[1], r.error[0]);
    EXPECT_NE(r.error[1].find("without all 32 lanes (lanes 0x0f0f0f0f)"), std::string::npos) << r.error[1];
}

TEST(WarpOps, LoadMatrixEveryForm) {
    // Each lane writes 16 bytes of a 512-byte shared tile (random words), then ldmatrix reads rows of it: every
    // count, transposed or not, through .shared and generic addresses.
    for (const char* form : {"x1", "x2", "x4", "x1.trans", "x2.trans", "x4.trans"}) {
        const unsigned count = form[1] - '0';
        for (bool generic : {false, true}) {
            SCOPED_TRACE(fmt::format("{} {}", form, generic ? "generic" : "shared"));
            std::string body = R"(
    .shared .align 16 .b8 tile[512];
    mov.u32 %r40, tile;
    shl.b32 %r41, %r3, 4;
    add.u32 %r42, %r40, %r41;
    st.shared.v4.u32 [%r42], {%r5, %r6, %r7, %r8};
    bar.warp.sync -1;
    and.b32 %r43, %r6, 31;
    shl.b32 %r43, %r43, 4;
    add.u32 %r44, %r40, %r43;
)";
            if (generic)
                body += fmt::format("    cvt.u64.u32 %rd19, %r44;\n    cvta.shared.u64 %rd20, %rd19;\n"
                                    "    ldmatrix.sync.aligned.m8n8.{}.b16 {}, [%rd20];\n",
                                    form, regs("%r", 60, count));
            else
                body += fmt::format("    ldmatrix.sync.aligned.m8n8.{}.shared.b16 {}, [%r44];\n", form,
                                    regs("%r", 60, count));
            for (unsigned k = 0; k < count; ++k)
                body += fmt::format("    st.global.u32 [%rd2+{}], %r{};\n", 4 * k, 60 + k);
            expect_collectives_match(body, 64, 10 + count);
        }
    }
}

TEST(WarpOps, LoadMatrixOutsideSharedMemoryFaultsAsInterpreted) {
    const size_t n = 64;
    Runs r = run_both(collective_kernel(R"(
    .shared .align 16 .b8 tile[256];
    mov.u32 %r40, tile;
    shl.b32 %r41, %r3, 4;
    add.u32 %r44, %r40, %r41;
    ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r60, %r61, %r62, %r63}, [%r44];
    st.global.u32 [%rd2], %r60;
)"),
                      {std::vector<uint32_t>(n * 32), random_words(n * 16, 11)}, {2}, {32});
    expect_same(r, true);
}

// --- wgmma ---

// Every form of wgmma.mma_async on random bits (NaNs, infinities, denormals): warp code's helper against the
// interpreter, N = 256 with f32 accumulators among them (128 D registers: warp_matrix's widest list).
TEST(WarpOps, WgmmaEveryForm) {
    unsigned seed = 40;
    for (const WgmmaForm& f :
         {WgmmaForm{.n = 256}, WgmmaForm{.n = 64, .acc16 = true, .a_registers = true},
          WgmmaForm{.n = 24, .bf16 = true, .scale_d = false, .scale_d_constant = true},
          WgmmaForm{.n = 8, .negate_a = true, .scale_d_constant = true}, WgmmaForm{.n = 16, .scale_d = false}}) {
        SCOPED_TRACE(fmt::format("n {} acc16 {} bf16 {} a_registers {}", f.n, f.acc16, f.bf16, f.a_registers));
        std::string text = wgmma_kernel(f).substr(ptx("").size());
        text.replace(text.find(".entry wg("), 10, ".entry k(");
        const unsigned nd = f.acc16 ? f.n / 4 : f.n / 2;
        Runs r = run_both(text,
                          {random_words(512, ++seed), random_words(f.n * 8, ++seed), random_words(128 * nd, ++seed),
                           random_words(128 * 4, ++seed), std::vector<uint32_t>{f.scale_d ? 1u : 0u}},
                          {1}, {128});
        expect_same(r);
    }
}

// --- wmma ---

struct WmmaCase {
    const char* shape;
    unsigned m, n, k;
    const char* ab;  // input type
    const char* acc; // C and D type
    bool a_col, b_col, c_col, d_col;
};

unsigned type_bits(const std::string& t) {
    if (t == "f16" || t == "bf16") return 16;
    if (t == "s8" || t == "u8") return 8;
    if (t == "f64") return 64;
    return 32;
}

unsigned frag_regs(char frag, const WmmaCase& c, const std::string& t) {
    if (frag != 'c' && t == "f16") return 8;
    const unsigned rows = frag == 'a' ? c.m : frag == 'b' ? c.k : c.m;
    const unsigned cols = frag == 'a' ? c.k : c.n;
    return rows * cols / 32 / (t == "f64" ? 1 : 32 / type_bits(t));
}

// One warp per block, each block its own 4 KiB of every buffer: A, B and C loaded (from global memory with
// immediate strides of the row length + 3; or, SHARED, copied to shared memory and loaded through generic addresses
// with the stride in a register), D = A B + C, D stored (through shared memory and copied out, for SHARED).
std::string wmma_kernel(const WmmaCase& c, bool shared) {
    const std::string ab = c.ab, acc = c.acc, sh = c.shape;
    const std::string rp = ab == "f64" ? "%fd" : "%r";
    const unsigned na = frag_regs('a', c, ab), nb = frag_regs('b', c, ab), nc = frag_regs('c', c, acc);
    auto stride = [](bool col, unsigned rows, unsigned cols) { return (col ? rows : cols) + 3; };
    auto layout = [](bool col) { return col ? "col" : "row"; };
    const std::string types = ab == "f16" ? "." + acc + "." + acc : "." + acc + "." + ab + "." + ab + "." + acc;
    std::string t = ".visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)\n{\n";
    t += "  .reg .b32 %r<100>;\n  .reg .b64 %rd<32>;\n  .reg .f64 %fd<100>;\n";
    t += "  .shared .align 16 .b8 sm[16384];\n";
    t +=
        "  ld.param.u64 %rd1, [pa];\n  ld.param.u64 %rd2, [pb];\n  ld.param.u64 %rd3, [pc];\n  ld.param.u64 %rd4, [pd];\n";
    t += "  mov.u32 %r1, %ctaid.x;\n  mul.wide.u32 %rd5, %r1, 4096;\n";
    for (int b = 1; b <= 4; ++b) t += fmt::format("  add.s64 %rd{0}, %rd{0}, %rd5;\n", b);
    // Where the fragments come from: [%rd21..%rd24] (A, B, C, D) and the strides.
    std::string sa = std::to_string(stride(c.a_col, c.m, c.k)), sb = std::to_string(stride(c.b_col, c.k, c.n));
    std::string sc = std::to_string(stride(c.c_col, c.m, c.n)), sd = std::to_string(stride(c.d_col, c.m, c.n));
    std::string space = ".global";
    if (shared) {
        // Each lane copies 128 bytes of A, B and C to shared memory (at 0, 4096, 8192); D goes to 12288.
        t += "  mov.u32 %r2, %tid.x;\n  mul.wide.u32 %rd6, %r2, 128;\n  mov.u32 %r3, sm;\n  cvt.u64.u32 %rd7, %r3;\n";
        t += "  cvta.shared.u64 %rd8, %rd7;\n";
        for (int m = 0; m < 3; ++m) {
            t +=
                fmt::format("  add.s64 %rd9, %rd{}, %rd6;\n  add.s64 %rd10, %rd7, {};\n  add.s64 %rd10, %rd10, %rd6;\n",
                            1 + m, 4096 * m);
            for (int q = 0; q < 8; ++q)
                t += fmt::format("  ld.global.v4.u32 {{%r4, %r5, %r6, %r7}}, [%rd9+{0}];\n"
                                 "  st.shared.v4.u32 [%rd10+{0}], {{%r4, %r5, %r6, %r7}};\n",
                                 16 * q);
        }
        t += "  bar.warp.sync -1;\n";
        for (int m = 0; m < 4; ++m) t += fmt::format("  add.s64 %rd{}, %rd8, {};\n", 21 + m, 4096 * m);
        t += fmt::format("  mov.u32 %r90, {};\n  mov.u32 %r91, {};\n  mov.u32 %r92, {};\n  mov.u32 %r93, {};\n", sa, sb,
                         sc, sd);
        sa = "%r90", sb = "%r91", sc = "%r92", sd = "%r93";
        space = "";
    } else {
        for (int m = 0; m < 4; ++m) t += fmt::format("  mov.u64 %rd{}, %rd{};\n", 21 + m, 1 + m);
    }
    t += fmt::format("  wmma.load.a.sync.aligned.{}.{}{}.{} {}, [%rd21], {};\n", layout(c.a_col), sh, space, ab,
                     regs(rp, 10, na), sa);
    t += fmt::format("  wmma.load.b.sync.aligned.{}.{}{}.{} {}, [%rd22], {};\n", layout(c.b_col), sh, space, ab,
                     regs(rp, 30, nb), sb);
    t += fmt::format("  wmma.load.c.sync.aligned.{}.{}{}.{} {}, [%rd23], {};\n", layout(c.c_col), sh, space, acc,
                     regs(rp, 50, nc), sc);
    t += fmt::format("  wmma.mma.sync.aligned.{}.{}.{}{}{} {}, {}, {}, {};\n", layout(c.a_col), layout(c.b_col), sh,
                     ab == "f64" ? ".rn" : "", types, regs(rp, 70, nc), regs(rp, 10, na), regs(rp, 30, nb),
                     regs(rp, 50, nc));
    t += fmt::format("  wmma.store.d.sync.aligned.{}.{}{}.{} [%rd24], {}, {};\n", layout(c.d_col), sh, space, acc,
                     regs(rp, 70, nc), sd);
    if (shared) {
        t +=
            "  bar.warp.sync -1;\n  add.s64 %rd9, %rd4, %rd6;\n  add.s64 %rd10, %rd7, 12288;\n  add.s64 %rd10, %rd10, %rd6;\n";
        for (int q = 0; q < 8; ++q)
            t += fmt::format("  ld.shared.v4.u32 {{%r4, %r5, %r6, %r7}}, [%rd10+{0}];\n"
                             "  st.global.v4.u32 [%rd9+{0}], {{%r4, %r5, %r6, %r7}};\n",
                             16 * q);
    }
    t += "  ret;\n}\n";
    return t;
}

// BYTES of elements of type T at OFFSET of BUF: random bits (MODE 0), finite values of moderate exponents (1), or
// tiny values and denormals (2).
void fill(std::vector<uint32_t>& buf, size_t offset, size_t bytes, const std::string& t, int mode, TestRng& rng) {
    auto* p = reinterpret_cast<uint8_t*>(buf.data()) + offset;
    const unsigned esize = type_bits(t) / 8;
    for (size_t e = 0; e + esize <= bytes; e += esize) {
        uint64_t r = rng.next();
        if (mode != 0) {
            uint64_t exp = 0, shift = 0, lo = 0, span = 0;
            if (t == "f16") shift = 10, lo = mode == 1 ? 10 : 0, span = mode == 1 ? 10 : 3;
            if (t == "bf16") shift = 7, lo = mode == 1 ? 110 : 0, span = mode == 1 ? 30 : 3;
            if (t == "f32" || t == "tf32") shift = 23, lo = mode == 1 ? 110 : 0, span = mode == 1 ? 30 : 3;
            if (t == "f64") shift = 52, lo = mode == 1 ? 1000 : 0, span = mode == 1 ? 40 : 3;
            if (shift) {
                const uint64_t width = esize * 8;
                const uint64_t sign = (r >> 63) << (width - 1);
                exp = lo + (r >> 40) % (span + 1);
                r = sign | (exp << shift) | (r & ((uint64_t(1) << shift) - 1));
            }
        }
        std::memcpy(p + e, &r, esize);
    }
}

void expect_wmma_matches(const WmmaCase& c, bool shared) {
    SCOPED_TRACE(fmt::format("{} {} -> {} a{} b{} c{} d{} {}", c.shape, c.ab, c.acc, c.a_col, c.b_col, c.c_col, c.d_col,
                             shared ? "shared" : "global"));
    const uint32_t blocks = 3;
    std::vector<uint32_t> a(blocks * 1024), b(blocks * 1024), cc(blocks * 1024);
    TestRng rng(c.m * 7 + c.k + type_bits(c.ab) + (shared ? 1 : 0));
    for (uint32_t blk = 0; blk < blocks; ++blk) {
        fill(a, blk * 4096, 4096, c.ab, static_cast<int>(blk), rng);
        fill(b, blk * 4096, 4096, c.ab, static_cast<int>(blk), rng);
        fill(cc, blk * 4096, 4096, c.acc, static_cast<int>(blk), rng);
    }
    Runs r =
        run_both(wmma_kernel(c, shared), {a, b, cc, std::vector<uint32_t>(blocks * 1024, 0xdeadbeefu)}, {blocks}, {32});
    expect_same(r);
}

TEST(WarpOps, WmmaEveryShapeAndType) {
    const WmmaCase cases[] = {
        {"m16n16k16", 16, 16, 16, "f16", "f32", false, true, false, false},
        {"m16n16k16", 16, 16, 16, "f16", "f32", true, false, true, true},
        {"m16n16k16", 16, 16, 16, "f16", "f16", false, false, false, true},
        {"m32n8k16", 32, 8, 16, "f16", "f32", false, true, true, false},
        {"m8n32k16", 8, 32, 16, "f16", "f16", true, true, false, false},
        {"m16n16k16", 16, 16, 16, "bf16", "f32", false, true, false, false},
        {"m32n8k16", 32, 8, 16, "bf16", "f32", true, false, false, true},
        {"m16n16k8", 16, 16, 8, "tf32", "f32", false, true, false, false},
        {"m16n16k8", 16, 16, 8, "tf32", "f32", true, false, true, true},
        {"m8n8k4", 8, 8, 4, "f64", "f64", false, true, false, false},
        {"m8n8k4", 8, 8, 4, "f64", "f64", true, false, true, true},
        {"m16n16k16", 16, 16, 16, "s8", "s32", false, true, false, false},
        {"m8n32k16", 8, 32, 16, "u8", "s32", true, false, false, true},
    };
    for (const WmmaCase& c : cases)
        for (bool shared : {false, true}) expect_wmma_matches(c, shared);
}

TEST(WarpOps, WmmaFaultsAsInterpreted) {
    // A misaligned fragment, and one that runs past the end of its allocation: the same fault, lane and line.
    for (const char* address : {"[%rd1+2]", "[%rd1+4000]"}) {
        SCOPED_TRACE(address);
        const std::string text = std::string(R"(
.visible .entry k(.param .u64 pa, .param .u64 pd)
{
    .reg .b32 %r<40>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [pa];
    ld.param.u64 %rd2, [pd];
    wmma.load.a.sync.aligned.row.m16n16k8.global.tf32 {%r1, %r2, %r3, %r4}, )") +
                                 address + R"(, 16;
    st.global.u32 [%rd2], %r1;
    ret;
}
)";
        Runs r = run_both(text, {random_words(1024, 12), std::vector<uint32_t>(32)}, {1}, {32});
        expect_same(r, true);
    }
}

TEST(WarpOps, WmmaMovesLaneByLaneWhereLanesDiffer) {
    // The moves where the lanes do not share one address (odd lanes 128 bytes on), where a store's stride is shorter
    // than its rows (elements overlap: the later ones stay, as interpreted), and where half the warp has exited: the
    // same registers and bytes as interpreted.
    const std::string text = R"(
.visible .entry k(.param .u64 pa, .param .u64 pd)
{
    .reg .pred %p<4>;
    .reg .b32 %r<40>;
    .reg .b64 %rd<16>;
    ld.param.u64 %rd1, [pa];
    ld.param.u64 %rd2, [pd];
    mov.u32 %r30, %laneid;
    and.b32 %r31, %r30, 1;
    mul.wide.u32 %rd3, %r31, 128;
    add.s64 %rd4, %rd1, %rd3;
    wmma.load.c.sync.aligned.row.m16n16k8.global.f32 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%rd4], 20;
    mul.wide.u32 %rd5, %r30, 32;
    add.s64 %rd6, %rd2, %rd5;
    st.global.v4.u32 [%rd6], {%r1, %r2, %r3, %r4};
    st.global.v4.u32 [%rd6+16], {%r5, %r6, %r7, %r8};
    add.s64 %rd7, %rd2, 2048;
    wmma.store.d.sync.aligned.row.m16n16k8.global.f32 [%rd7], {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, 4;
    setp.ge.u32 %p1, %r30, 16;
    @%p1 exit;
    wmma.load.c.sync.aligned.col.m16n16k8.global.f32 {%r11, %r12, %r13, %r14, %r15, %r16, %r17, %r18}, [%rd1+64], 16;
    st.global.v4.u32 [%rd6+4096], {%r11, %r12, %r13, %r14};
    st.global.v4.u32 [%rd6+4112], {%r15, %r16, %r17, %r18};
    ret;
}
)";
    Runs r = run_both(text, {random_words(1024, 31), std::vector<uint32_t>(2048, 0xdeadbeefu)}, {2}, {32});
    expect_same(r);
}

TEST(WarpOps, CpAsyncFromTwoArraysInTurn) {
    // Whole-warp copies from two allocations in turn (each the other's range hit before), and one whose source runs
    // past its allocation's end for the last lane (the fault as interpreted).
    for (const char* last : {"0", "4080"}) {
        SCOPED_TRACE(last);
        const std::string text = std::string(R"(
.visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pd)
{
    .reg .pred %p<4>;
    .reg .b32 %r<40>;
    .reg .b64 %rd<16>;
    .shared .align 16 .b8 stage[2048];
    ld.param.u64 %rd1, [pa];
    ld.param.u64 %rd2, [pb];
    ld.param.u64 %rd3, [pd];
    mov.u32 %r1, %laneid;
    mul.wide.u32 %rd4, %r1, 16;
    add.s64 %rd5, %rd1, %rd4;
    add.s64 %rd6, %rd2, %rd4;
    mov.u32 %r2, stage;
    shl.b32 %r3, %r1, 4;
    add.u32 %r4, %r2, %r3;
    cp.async.cg.shared.global [%r4], [%rd5], 16;
    cp.async.cg.shared.global [%r4+512], [%rd6], 16;
    cp.async.cg.shared.global [%r4+1024], [%rd5+512], 16;
    setp.eq.u32 %p1, %r1, 31;
    selp.u64 %rd7, )") + last + R"(, 0, %p1;
    add.s64 %rd8, %rd6, %rd7;
    cp.async.cg.shared.global [%r4+1536], [%rd8+512], 16;
    cp.async.wait_all;
    bar.warp.sync -1;
    add.s64 %rd9, %rd3, %rd4;
    ld.shared.v4.u32 {%r10, %r11, %r12, %r13}, [%r4];
    st.global.v4.u32 [%rd9], {%r10, %r11, %r12, %r13};
    ld.shared.v4.u32 {%r10, %r11, %r12, %r13}, [%r4+512];
    st.global.v4.u32 [%rd9+512], {%r10, %r11, %r12, %r13};
    ld.shared.v4.u32 {%r10, %r11, %r12, %r13}, [%r4+1024];
    st.global.v4.u32 [%rd9+1024], {%r10, %r11, %r12, %r13};
    ld.shared.v4.u32 {%r10, %r11, %r12, %r13}, [%r4+1536];
    st.global.v4.u32 [%rd9+1536], {%r10, %r11, %r12, %r13};
    ret;
}
)";
        Runs r = run_both(
            text, {random_words(1024, 41), random_words(1024, 42), std::vector<uint32_t>(512, 0xdeadbeefu)}, {2}, {32});
        expect_same(r, std::string(last) != "0");
    }
}

TEST(WarpOps, CpAsyncGuardedAndNot) {
    // Each lane copies 16 bytes of its input to shared memory (odd lanes under a guard, one lane with a source size
    // of 4: the rest zero-filled), waits, and stores what its neighbour copied.
    expect_collectives_match(R"(
    .shared .align 16 .b8 stage[1024];
    mov.u32 %r40, stage;
    shl.b32 %r41, %r3, 4;
    add.u32 %r42, %r40, %r41;
    and.b32 %r43, %r3, 1;
    setp.ne.u32 %p1, %r43, 0;
    setp.eq.u32 %p2, %r3, 6;
    selp.u32 %r44, 4, 16, %p2;
    @%p1 cp.async.ca.shared.global [%r42], [%rd1], 16;
    @!%p1 cp.async.cg.shared.global [%r42], [%rd1], 16, %r44;
    cp.async.commit_group;
    cp.async.wait_all;
    bar.warp.sync -1;
    xor.b32 %r45, %r41, 16;
    add.u32 %r46, %r40, %r45;
    ld.shared.v4.u32 {%r20, %r21, %r22, %r23}, [%r46];
    st.global.v4.u32 [%rd2], {%r20, %r21, %r22, %r23};
)");
}

// --- brx.idx and the clocks ---

TEST(WarpOps, BranchTableForwardAndBack) {
    // Each lane picks a target from its input: forward to one of three labels, or back to the loop's head (at most
    // four times), or (index 4) outside the table in the second launch.
    expect_collectives_match(R"(
    mov.u32 %r20, 0;
    mov.u32 %r21, %r5;
HEAD:
    add.u32 %r20, %r20, 1;
    rem.u32 %r22, %r21, 4;
    shr.u32 %r21, %r21, 2;
    setp.ge.u32 %p1, %r20, 5;
    @%p1 mov.u32 %r22, 1;
    ts: .branchtargets HEAD, A, B, C;
    brx.idx %r22, ts;
A:
    add.u32 %r23, %r20, 100;
    bra END;
B:
    add.u32 %r23, %r20, 200;
C:
    add.u32 %r23, %r23, 7;
END:
    st.global.v2.u32 [%rd2], {%r20, %r23};
)");
}

TEST(WarpOps, BranchTableIndexOutsideFaultsAsInterpreted) {
    const size_t n = 64;
    std::vector<uint32_t> in(n * 16);
    for (size_t i = 0; i < n; ++i) in[i * 16] = i == 37 ? 9 : uint32_t(i % 2);
    Runs r = run_both(collective_kernel(R"(
    ts: .branchtargets A, B;
    brx.idx %r5, ts;
A:
    st.global.u32 [%rd2], 1;
    bra END;
B:
    st.global.u32 [%rd2], 2;
END:
)"),
                      {std::vector<uint32_t>(n * 32), in}, {2}, {32});
    expect_same(r, true);
    EXPECT_NE(r.error[1].find("outside its 2-entry table"), std::string::npos) << r.error[1];
}

TEST(WarpOps, ClockReadsAreTheWarpsAndIncrease) {
    // Not bits to compare (time passes): warp code reads each counter once for the warp, as the interpreter does,
    // and %clock64 strictly increases within a warp.
    auto m = load_ok(ptx(collective_kernel(R"(
    mov.u64 %rd20, %clock64;
    mov.u32 %r20, %clock;
    mov.u64 %rd21, %clock64;
    mov.u64 %rd22, %globaltimer;
    st.global.v2.u64 [%rd2], {%rd20, %rd21};
    st.global.u64 [%rd2+16], %rd22;
    st.global.u32 [%rd2+24], %r20;
)")));
    ASSERT_TRUE(m);
    const std::shared_ptr<const CompiledKernel> compiled = compile_k(*m);
    ASSERT_TRUE(compiled);
    ASSERT_TRUE(compiled->warp) << compiled->why_not_warp;
    Device dev;
    const size_t n = 128;
    DevicePtr out = upload(dev, std::vector<uint32_t>(n * 32)), in = upload(dev, std::vector<uint32_t>(n * 16));
    Params p(kernel_of(*m, "k"));
    p.set(0, out).set(1, in);
    LaunchConfig cfg = config({2}, {64});
    cfg.compiled = compiled;
    cfg.instruction_budget = 0;
    run_ok(dev, *m, "k", cfg, p);
    const std::vector<uint64_t> words = download<uint64_t>(dev, out, n * 16);
    for (size_t t = 0; t < n; ++t) {
        const uint64_t* w = &words[t * 16];
        const uint64_t* lane0 = &words[(t / 32 * 32) * 16];
        EXPECT_GT(w[1], w[0]) << "thread " << t;
        EXPECT_EQ(w[0], lane0[0]) << "thread " << t;
        EXPECT_EQ(w[1], lane0[1]) << "thread " << t;
        EXPECT_EQ(w[2], lane0[2]) << "thread " << t;
        EXPECT_GT(w[2], 0u);
    }
}

} // namespace
} // namespace d4r::ptxsim::test
