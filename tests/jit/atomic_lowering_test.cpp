// The JIT's atomics, cp.async, clock registers, trap, bar.red and isspacep (src/jit/lower_atomic.cpp, lower_memory.cpp,
// lower.cpp)
// against ptxsim's interpreter: each form runs in a small kernel interpreted and compiled, on edge values (integer
// limits, f32/f64/f16/bf16 subnormals, infinities and NaNs, compare-and-swap hits and misses) and must compile and
// write the interpreter's bits. Each thread works on its own slots, so the results do not depend on the order the
// threads run in (interpreted: a warp's lanes together; compiled: one thread after the other). Faults must be the
// interpreter's, and an atom inside a loop or a volatile or ordered load must be refused (a thread could spin there
// waiting for another).
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "../ptxsim/ptxsim_test_util.h"
#include "jit/kernel_compiler.h"

using namespace d4r;
using namespace d4r::ptxsim;
using namespace d4r::ptxsim::test;

namespace {

constexpr uint32_t kThreads = 128; // two blocks of 64
constexpr uint32_t kOut = 8;       // u64 words written per thread

// FORM in a kernel where each thread has: %addr, the global address of its 8-byte slot; %r5, the shared address of
// its 16 bytes (the slot, then its complement) and %gen their generic address; %b32/%b64, %c32/%c64, %h, %f, %d
// its operands (%rd4: their 16 bytes in global memory); results in %old64, %old32, %hold, %fold, %dold. FORM may use
// %r6 %r7, %rd13..%rd15, %p1..%p3. Each thread writes its results and then its slots.
std::string kernel(const std::string& form) {
    return test::ptx(R"(
.visible .entry op(.param .u64 pslots, .param .u64 pops, .param .u64 pout)
{
  .reg .pred %p<4>;
  .reg .b16 %h, %hold;
  .reg .b32 %r<8>, %b32, %c32, %old32;
  .reg .b64 %rd<16>, %b64, %c64, %old64, %addr, %gen;
  .reg .f32 %f, %fold;
  .reg .f64 %d, %dold;
  .shared .align 16 .b64 sh[128];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mad.lo.u32 %r4, %r2, %r3, %r1;
  cvt.u64.u32 %rd1, %r4;
  ld.param.u64 %rd2, [pslots];
  mad.lo.u64 %addr, %rd1, 8, %rd2;
  ld.param.u64 %rd3, [pops];
  mad.lo.u64 %rd4, %rd1, 16, %rd3;
  ld.global.u64 %b64, [%rd4];
  ld.global.u64 %c64, [%rd4+8];
  cvt.u32.u64 %b32, %b64;
  cvt.u32.u64 %c32, %c64;
  cvt.u16.u64 %h, %b64;
  mov.b32 %f, %b32;
  mov.b64 %d, %b64;
  mul.wide.u32 %rd5, %r1, 16;
  mov.u64 %rd6, sh;
  add.u64 %rd7, %rd6, %rd5;
  cvt.u32.u64 %r5, %rd7;
  ld.global.u64 %rd8, [%addr];
  st.shared.u64 [%r5], %rd8;
  not.b64 %rd8, %rd8;
  st.shared.u64 [%r5+8], %rd8;
  cvta.shared.u64 %gen, %rd7;
  mov.u64 %old64, 0;
  mov.u32 %old32, 0;
  mov.b16 %hold, 0;
  mov.f32 %fold, 0f00000000;
  mov.f64 %dold, 0d0000000000000000;
)" + form + R"(
  ld.param.u64 %rd9, [pout];
  mad.lo.u64 %rd10, %rd1, 64, %rd9;
  st.global.u64 [%rd10], %old64;
  st.global.u32 [%rd10+8], %old32;
  st.global.b16 [%rd10+12], %hold;
  st.global.f32 [%rd10+16], %fold;
  st.global.f64 [%rd10+24], %dold;
  ld.global.u64 %rd11, [%addr];
  st.global.u64 [%rd10+32], %rd11;
  ld.shared.v2.u64 {%rd11, %rd12}, [%r5];
  st.global.v2.u64 [%rd10+48], {%rd11, %rd12};
  ret;
}
)");
}

// Edge bits of every width the atomics read, paired with random bits.
std::vector<uint64_t> inputs(uint64_t seed) {
    static const uint64_t kEdges[] = {0,
                                      1,
                                      0xffffffffull,
                                      0x80000000ull,
                                      0x7fffffffull,
                                      0x100000000ull,
                                      ~0ull,
                                      0x8000000000000000ull,
                                      0x7fffffffffffffffull,
                                      0x007fffffull, // f32 subnormal
                                      0x80000001ull,
                                      0x7f800000ull,
                                      0xff800000ull,
                                      0x7fc00000ull,
                                      0x7f800001ull,
                                      0x3f800000ull,
                                      0x000fffffffffffffull, // f64 subnormal
                                      0x7ff0000000000001ull,
                                      0xfff8000000000000ull,
                                      0x3ff0000000000000ull,
                                      0x3c00ull, // f16 1.0
                                      0x7c01ull,
                                      0x0001ull,
                                      0x00010001ull,
                                      0x3c00bc00ull,
                                      0x7f807f80ull, // bf16 infinities
                                      0x00400040ull,
                                      0xfbfffbffull};
    TestRng rng(seed);
    std::vector<uint64_t> out;
    for (uint32_t i = 0; i < kThreads; ++i) {
        const size_t n = std::size(kEdges);
        out.push_back(i < n * 3 ? kEdges[(i * (seed + 1)) % n] : rng.next());
    }
    return out;
}

struct Runs {
    std::vector<uint64_t> out[2];
    std::string error[2];
};

// FORM run interpreted and compiled (as warp code where WARP and the kernel qualifies, else per thread): the kernel
// must compile; the results (or the launch errors) are returned.
Runs run_both(const std::string& form, bool warp) {
    Runs runs;
    auto m = load_ok(kernel(form), "atomic.ptx");
    if (!m) return runs;
    auto compiler = jit::KernelCompiler::instance();
    EXPECT_TRUE(compiler) << compiler.error().text();
    if (!compiler) return runs;
    auto compiled = (*compiler)->compile(kernel_source(kernel_of(*m, "op")), warp);
    EXPECT_TRUE(compiled) << compiled.error().text();
    if (!compiled) return runs;
    std::vector<uint64_t> slots = inputs(1), ops;
    const std::vector<uint64_t> b = inputs(2), c = inputs(3);
    for (uint32_t i = 0; i < kThreads; ++i) {
        // A quarter of the threads compare equal to their slot (cas hits, min/max ties).
        ops.push_back(i % 4 == 0 ? slots[i] : b[i]);
        ops.push_back(c[i]);
    }
    for (int jit = 0; jit < 2; ++jit) {
        Device dev;
        DevicePtr ps = upload(dev, slots), po = upload(dev, ops);
        DevicePtr pout = upload(dev, std::vector<uint64_t>(size_t(kThreads) * kOut));
        Params p(kernel_of(*m, "op"));
        p.set(0, ps).set(1, po).set(2, pout);
        LaunchConfig cfg = config({kThreads / 64}, {64});
        if (jit) {
            cfg.compiled = *compiled;
            cfg.instruction_budget = 0;
        }
        auto k = m->kernel("op");
        auto r = launch(dev, **k, cfg, p.bytes());
        if (!r.ok()) {
            runs.error[jit] = r.error().text();
            continue;
        }
        runs.out[jit] = download<uint64_t>(dev, pout, size_t(kThreads) * kOut);
    }
    return runs;
}

void expect_same(const std::string& form) {
    for (bool warp : {true, false}) {
        SCOPED_TRACE(form + (warp ? " (warp code)" : " (per thread)"));
        Runs r = run_both(form, warp);
        EXPECT_EQ(r.error[0], "");
        EXPECT_EQ(r.error[1], "");
        ASSERT_EQ(r.out[1].size(), r.out[0].size());
        for (size_t i = 0; i < r.out[0].size(); ++i)
            ASSERT_EQ(r.out[1][i], r.out[0][i]) << "thread " << i / kOut << " word " << i % kOut;
    }
}

void expect_same_fault(const std::string& form) {
    for (bool warp : {true, false}) {
        SCOPED_TRACE(form + (warp ? " (warp code)" : " (per thread)"));
        Runs r = run_both(form, warp);
        EXPECT_NE(r.error[0], "");
        EXPECT_EQ(r.error[1], r.error[0]);
    }
}

} // namespace

TEST(JitAtomicLowering, GlobalIntegerForms) {
    for (const char* f :
         {"atom.global.and.b32 %old32, [%addr], %b32;", "atom.global.or.b64 %old64, [%addr], %b64;",
          "atom.global.xor.b32 %old32, [%addr], %b32;", "atom.global.exch.b64 %old64, [%addr], %b64;",
          "atom.global.add.u32 %old32, [%addr], %b32;", "atom.global.add.u64 %old64, [%addr], %b64;",
          "atom.global.add.s32 %old32, [%addr], -7;", "atom.global.cas.b32 %old32, [%addr], %b32, %c32;",
          "atom.global.cas.b64 %old64, [%addr], %b64, %c64;", "atom.global.cas.b32 %old32, [%addr], 0, %c32;",
          "atom.global.inc.u32 %old32, [%addr], %b32;", "atom.global.dec.u32 %old32, [%addr], %b32;",
          "atom.global.min.u32 %old32, [%addr], %b32;", "atom.global.min.s32 %old32, [%addr], %b32;",
          "atom.global.max.u64 %old64, [%addr], %b64;", "atom.global.max.s64 %old64, [%addr], %b64;",
          "atom.global.min.s64 %old64, [%addr], %b64;", "atom.acq_rel.gpu.global.max.s32 %old32, [%addr], %b32;",
          "atom.relaxed.sys.global.add.u64 %old64, [%addr], %b64;"})
        expect_same(f);
}

TEST(JitAtomicLowering, FloatAndHalfForms) {
    for (const char* f :
         {"atom.global.add.f32 %fold, [%addr], %f;", "atom.global.add.f64 %dold, [%addr], %d;",
          "atom.global.add.f32 %fold, [%addr], 0f00000001;", "atom.shared.add.f32 %fold, [%r5], %f;",
          "atom.add.f32 %fold, [%addr], %f;", "atom.add.f32 %fold, [%gen], %f;",
          "atom.shared.add.f64 %dold, [%r5], %d;", "atom.global.add.noftz.f16 %hold, [%addr], %h;",
          "atom.global.add.noftz.bf16 %hold, [%addr], %h;", "atom.global.add.noftz.f16x2 %old32, [%addr], %b32;",
          "atom.shared.add.noftz.bf16x2 %old32, [%r5], %b32;", "atom.add.noftz.f16 %hold, [%gen], %h;"})
        expect_same(f);
}

TEST(JitAtomicLowering, SharedGenericAndRed) {
    for (const char* f :
         {"atom.shared.cas.b64 %old64, [%r5], %b64, %c64;", "atom.shared.inc.u32 %old32, [%r5], %b32;",
          "atom.shared.dec.u32 %old32, [%r5+4], %b32;", "atom.shared.min.s32 %old32, [%r5], %b32;",
          "atom.shared.exch.b64 %old64, [%r5+8], %b64;", "atom.cas.b32 %old32, [%gen], %b32, %c32;",
          "atom.max.s64 %old64, [%addr], %b64;", "red.add.u64 [%gen], %b64;", "red.global.add.f32 [%addr], %f;",
          "red.shared.min.s64 [%r5], %b64;", "red.global.xor.b32 [%addr], %b32;", "red.add.noftz.f16 [%gen], %h;",
          "red.global.add.noftz.bf16x2 [%addr], %b32;", "red.release.gpu.global.add.u32 [%addr], %b32;",
          // red in a loop: no thread can wait on it
          "mov.u32 %r6, 0;\nL1:\n red.global.add.u32 [%addr], %b32;\n add.u32 %r6, %r6, 1;\n"
          " setp.lt.u32 %p1, %r6, 3;\n @%p1 bra L1;",
          // an atom after a loop, and fences
          "mov.u32 %r6, 0;\nL1:\n add.u32 %r6, %r6, 1;\n setp.lt.u32 %p1, %r6, 3;\n @%p1 bra L1;\n"
          "membar.gl;\nfence.acq_rel.gpu;\natom.global.add.u32 %old32, [%addr], %r6;"})
        expect_same(f);
}

TEST(JitAtomicLowering, FaultsAreTheInterpreters) {
    expect_same_fault("atom.global.add.u32 %old32, [%addr+2], 1;");
    expect_same_fault("atom.shared.add.u32 %old32, [100000], 1;");
    expect_same_fault("red.global.add.u64 [%addr+4], %b64;");
    expect_same_fault("mov.u64 %rd13, 0;\ncvta.local.u64 %rd14, %rd13;\natom.add.u32 %old32, [%rd14], 1;");
    expect_same_fault("mov.u64 %rd13, 0;\ncvta.param.u64 %rd14, %rd13;\natom.exch.b32 %old32, [%rd14], 1;");
    expect_same_fault("atom.global.add.u64 %old64, [8], 1;");
    expect_same_fault("cp.async.ca.shared.global [%r5], [%rd4+4], 8;");
    expect_same_fault("cp.async.ca.shared.global [%r5], [16], 4;");
    expect_same_fault("cp.async.cg.shared.global [%r5+8], [%rd4], 16;");
    expect_same_fault("setp.eq.u32 %p1, %r1, 5;\n@%p1 trap;");
    expect_same_fault("brkpt;");
}

TEST(JitAtomicLowering, AsyncCopies) {
    for (const char* f : {"cp.async.ca.shared.global [%r5], [%rd4], 4;",
                          "rem.u32 %r6, %b32, 17;\ncp.async.ca.shared.global [%r5+8], [%rd4], 8, %r6;",
                          "rem.u32 %r6, %b32, 17;\ncp.async.cg.shared.global [%r5], [%rd4], 16, %r6;\n"
                          "cp.async.commit_group;\ncp.async.wait_group 0;",
                          "and.b32 %r6, %r1, 1;\nsetp.ne.u32 %p1, %r6, 0;\n"
                          "cp.async.cg.shared.global [%r5], [%rd4], 16, %p1;\ncp.async.wait_all;",
                          "cp.async.ca.shared.global [%r5+4], [%rd4+12], 4, 3;",
                          // across a barrier: the source register, read by nothing else, is kept
                          "bar.sync 0;\ncp.async.cg.shared.global [%r5], [%rd4], 16;\nbar.sync 0;"})
        expect_same(f);
}

TEST(JitAtomicLowering, BarrierReductionsAndIsspacep) {
    // bar.red's popc, and, or over the block's predicates (threads differ by their operands), in both blocks.
    expect_same("setp.ne.u32 %p1, %b32, 0;\nbar.red.popc.u32 %old32, 0, %p1;\nbar.red.and.pred %p2, 0, %p1;\n"
                "bar.red.or.pred %p3, 0, !%p1;\nselp.u64 %old64, 1, 0, %p2;\nselp.u64 %rd13, 2, 0, %p3;\n"
                "add.u64 %old64, %old64, %rd13;");
    expect_same("setp.eq.u32 %p1, %b32, 0;\nbar.red.and.pred %p2, 1, %p1;\nselp.u32 %old32, 7, 9, %p2;");
    // isspacep on generic addresses of every window and of global memory.
    expect_same("isspacep.shared %p1, %gen;\nisspacep.global %p2, %gen;\nisspacep.global %p3, %addr;\n"
                "selp.u32 %old32, 1, 0, %p1;\nselp.u64 %old64, 2, 0, %p2;\nselp.u64 %rd13, 4, 0, %p3;\n"
                "add.u64 %old64, %old64, %rd13;\nisspacep.local %p1, %addr;\nisspacep.param %p2, %gen;\n"
                "selp.u32 %r6, 8, 0, %p1;\nselp.u32 %r7, 16, 0, %p2;\nadd.u32 %old32, %old32, %r6;\n"
                "add.u32 %old32, %old32, %r7;");
}

TEST(JitAtomicLowering, ClockAndTimerRegisters) {
    // Each thread's %clock64 strictly increases, even read back to back; %clock and %clock_hi are %clock64's halves;
    // %gridid is 1. (A read in a loop stays interpreted: WaitsForOtherThreadsAreRefused.)
    const std::string form(
        "mov.u64 %rd13, %clock64;\nmov.u64 %rd14, %clock64;\nsetp.gt.u64 %p1, %rd14, %rd13;\n"
        "mov.u32 %r6, %clock_hi;\nmov.u64 %rd15, %clock64;\nshr.u64 %rd15, %rd15, 32;\n"
        "cvt.u32.u64 %r7, %rd15;\nsub.u32 %r7, %r7, %r6;\nsetp.le.u32 %p3, %r7, 1;\nand.pred %p1, %p1, %p3;\n"
        "mov.u32 %r6, %clock;\nmov.u64 %rd15, %globaltimer;\nmov.u32 %r7, %globaltimer_lo;\n"
        "selp.u32 %old32, 1, 0, %p1;\nmov.u64 %old64, %gridid;");
    expect_same(form);
    Runs r = run_both(form, true);
    ASSERT_EQ(r.out[1].size(), size_t(kThreads) * kOut);
    for (uint32_t i = 0; i < kThreads; ++i) {
        EXPECT_EQ(r.out[1][i * kOut] & 0xffffffffu, 1u) << "thread " << i << ": %gridid";
        EXPECT_EQ(r.out[1][i * kOut + 1] & 0xffffffffu, 1u) << "thread " << i << ": %clock64 or %clock_hi";
    }
}

// FORM's kernel is refused with a reason that contains WHY.
void expect_refused(const std::string& form, const std::string& why) {
    SCOPED_TRACE(form);
    auto m = load_ok(kernel(form), "spin.ptx");
    ASSERT_TRUE(m);
    auto compiler = jit::KernelCompiler::instance();
    ASSERT_TRUE(compiler) << compiler.error().text();
    auto compiled = (*compiler)->compile(kernel_source(kernel_of(*m, "op")));
    ASSERT_FALSE(compiled);
    EXPECT_EQ(compiled.error().code(), ErrorCode::Unsupported);
    EXPECT_NE(compiled.error().text().find(why), std::string::npos) << compiled.error().text();
}

TEST(JitAtomicLowering, WaitsForOtherThreadsAreRefused) {
    // A spin lock: the thread holding it may never run while another spins.
    expect_refused("L1:\n atom.global.cas.b32 %old32, [%addr], 0, 1;\n setp.ne.u32 %p1, %old32, 0;\n @%p1 bra L1;",
                   "atom inside a loop");
    expect_refused("L1:\n ld.volatile.shared.u32 %r6, [%r5];\n setp.eq.u32 %p1, %r6, 0;\n @%p1 bra L1;",
                   "'.volatile' memory");
    expect_refused("ld.relaxed.gpu.global.u32 %r6, [%addr];", "'.relaxed' memory");
    expect_refused("ld.acquire.gpu.global.u32 %r6, [%addr];", "'.acquire' memory");
    // A wait for time to pass: compiled threads would wait one after the other.
    expect_refused("mov.u64 %rd13, %clock64;\nL1:\n mov.u64 %rd15, %clock64;\n sub.u64 %rd15, %rd15, %rd13;\n"
                   " setp.lt.u64 %p2, %rd15, 2000;\n @%p2 bra L1;",
                   "a clock or timer read inside a loop");
}
