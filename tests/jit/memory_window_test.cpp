// Generic loads and stores, and kernel parameter loads through registers, in compiled code (src/jit/lower_memory.cpp,
// lower_warp.cpp): a generic address inside the global range hit last is checked and accessed as a global one
// (generic_global), warp code reads parameters at per-lane addresses inside the parameter block at once, everything
// else goes through ptxsim's translate. Each kernel runs interpreted, as warp code and as a thread function; every
// output word (or the launch's error) must be the interpreter's.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "jit_test_util.h"

namespace d4r::ptxsim::test {
namespace {

// BODY reads %r5 (this thread's input word; %r1 is %tid.x, %r4 the global index; %rd2 the input, %rd4 this thread's
// input word, %rd5 its output word) and leaves %r6, stored to the thread's output word (prefilled with 0xdeadbeef)
// with a generic store. DECLARATIONS: module-scope variables.
std::string generic_kernel(const std::string& body, const std::string& declarations) {
    return ptx(declarations + R"(
.visible .entry k(.param .u64 out, .param .u64 in)
{
    .reg .pred %p<8>;
    .reg .b16 %h<8>;
    .reg .b32 %r<32>;
    .reg .b64 %rd<32>;
    .shared .align 16 .b8 sm[4096];
    ld.param.u64 %rd1, [out];
    ld.param.u64 %rd2, [in];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mad.lo.s32 %r4, %r2, %r3, %r1;
    mul.wide.u32 %rd3, %r4, 4;
    add.s64 %rd4, %rd2, %rd3;
    add.s64 %rd5, %rd1, %rd3;
    ld.u32 %r5, [%rd4];
    mov.u32 %r6, 0;
)" + body + R"(
    st.u32 [%rd5], %r6;
    ret;
}
)");
}

struct Runs {
    std::vector<uint32_t> out[3]; // interpreted, warp code, thread function
    std::string error[3];
    bool warp = false;
};

Runs run_all(const std::string& body, uint32_t threads, uint32_t blocks, const std::string& declarations) {
    Runs runs;
    auto m = load_ok(generic_kernel(body, declarations), "generic.ptx");
    if (!m) return runs;
    auto compiler = jit::KernelCompiler::instance();
    EXPECT_TRUE(compiler) << compiler.error().text();
    if (!compiler) return runs;
    auto warp = (*compiler)->compile(kernel_source(kernel_of(*m, "k")));
    auto thread = (*compiler)->compile(kernel_source(kernel_of(*m, "k")), false);
    EXPECT_TRUE(warp) << warp.error().text();
    EXPECT_TRUE(thread) << thread.error().text();
    if (!warp || !thread) return runs;
    runs.warp = (*warp)->warp;
    const size_t n = size_t(threads) * blocks;
    TestRng rng(11);
    std::vector<uint32_t> in(n);
    for (uint32_t& v : in) v = static_cast<uint32_t>(rng.next());
    for (int run = 0; run < 3; ++run) {
        Device dev;
        DevicePtr pin = upload(dev, in), pout = upload(dev, std::vector<uint32_t>(n, 0xdeadbeefu));
        Params p(kernel_of(*m, "k"));
        p.set(0, pout).set(1, pin);
        LaunchConfig cfg = config({blocks}, {threads});
        if (run) {
            cfg.compiled = run == 1 ? *warp : *thread;
            cfg.instruction_budget = 0;
        }
        auto r = launch(dev, kernel_of(*m, "k"), cfg, p.bytes());
        if (!r.ok()) {
            runs.error[run] = r.error().text();
            continue;
        }
        runs.out[run] = download<uint32_t>(dev, pout, n);
    }
    return runs;
}

// BODY gives the interpreter's words, or (FAULTS) its error, in both compiled forms.
void expect_generic_matches(const std::string& body, bool faults = false, uint32_t threads = 64, uint32_t blocks = 2,
                            const std::string& declarations = "") {
    SCOPED_TRACE(body);
    Runs r = run_all(body, threads, blocks, declarations);
    EXPECT_TRUE(r.warp);
    for (int run = 1; run < 3; ++run) {
        SCOPED_TRACE(run == 1 ? "warp code" : "thread function");
        if (faults) {
            EXPECT_NE(r.error[0], "");
        } else {
            EXPECT_EQ(r.error[0], "");
        }
        EXPECT_EQ(r.error[run], r.error[0]);
        ASSERT_EQ(r.out[run].size(), r.out[0].size());
        for (size_t i = 0; i < r.out[0].size(); ++i) ASSERT_EQ(r.out[run][i], r.out[0][i]) << "thread " << i;
    }
}

TEST(JitMemoryWindows, GathersRowsWordsAndTwoAllocations) {
    // Gathered words, halves and a v4 from the input, rows (each thread's own word) and one word for every lane,
    // alternating between the input and the output allocation (the range hit last and the one before it). A thread
    // reads no other thread's output (the thread function runs them one after the other).
    const char* body = R"(
    and.b32 %r7, %r5, 63;
    mul.wide.u32 %rd6, %r7, 4;
    add.s64 %rd7, %rd2, %rd6;
    ld.u32 %r6, [%rd7];
    ld.u16 %h1, [%rd7+2];
    cvt.u32.u16 %r8, %h1;
    add.u32 %r6, %r6, %r8;
    st.u32 [%rd5], %r6;
    ld.u32 %r9, [%rd5];
    ld.u32 %r10, [%rd4];
    add.u32 %r6, %r9, %r10;
    and.b32 %r11, %r7, 60;
    mul.wide.u32 %rd8, %r11, 4;
    add.s64 %rd9, %rd2, %rd8;
    ld.v4.u32 {%r12, %r13, %r14, %r15}, [%rd9];
    add.u32 %r6, %r6, %r12;
    xor.b32 %r6, %r6, %r15;
    ld.u32 %r16, [%rd2+8];
    add.u32 %r6, %r6, %r16;
    ld.v2.u32 {%r17, %r18}, [%rd2+16];
    xor.b32 %r6, %r6, %r18;
    st.u16 [%rd5], %h1;
    ld.u32 %r19, [%rd5];
    add.u32 %r6, %r6, %r19;
)";
    expect_generic_matches(body);
    expect_generic_matches(body, false, 31, 3); // partial warps
}

TEST(JitMemoryWindows, SharedAndGlobalAddressesInOneWarp) {
    // Generic addresses of shared memory (cvta.shared), alone and mixed lane by lane with global ones: translate().
    expect_generic_matches(R"(
    mov.u64 %rd6, sm;
    cvta.shared.u64 %rd7, %rd6;
    mul.wide.u32 %rd8, %r1, 4;
    add.s64 %rd9, %rd7, %rd8;
    st.u32 [%rd9], %r5;
    ld.u32 %r6, [%rd9];
    and.b32 %r7, %r1, 1;
    setp.eq.u32 %p1, %r7, 0;
    selp.b64 %rd10, %rd9, %rd4, %p1;
    ld.u32 %r8, [%rd10];
    add.u32 %r6, %r6, %r8;
    st.u32 [%rd10], %r6;
    ld.u32 %r9, [%rd4];
    xor.b32 %r6, %r6, %r9;
)");
}

TEST(JitMemoryWindows, ParameterLoadsThroughRegisters) {
    // A by-value struct's fields read through a register holding the parameter's address (nvcc's code for a struct
    // parameter), in a kernel whose branches diverge (so the address is a vector in warp code): the same address in
    // every lane, a different one per lane, a misaligned one (parameters have no alignment rule) and a byte.
    const char* body = R"(
    and.b32 %r24, %r5, 3;
    setp.eq.u32 %p7, %r24, 0;
    @%p7 bra SKIP;
    add.u32 %r6, %r6, 5;
SKIP:
    mov.b64 %rd20, out;
    and.b32 %r20, %r1, 1;
    mul.wide.u32 %rd21, %r20, 8;
    add.s64 %rd22, %rd20, %rd21;
    ld.param.u64 %rd23, [%rd22];
    setp.eq.u64 %p5, %rd23, %rd1;
    selp.u32 %r21, 100, 200, %p5;
    add.u32 %r6, %r6, %r21;
    ld.param.u64 %rd25, [%rd20+8];
    setp.eq.u64 %p6, %rd25, %rd2;
    selp.u32 %r22, 1000, 3000, %p6;
    add.u32 %r6, %r6, %r22;
    ld.param.u32 %r23, [%rd20+2];
    shr.u64 %rd26, %rd1, 16;
    cvt.u32.u64 %r25, %rd26;
    setp.eq.u32 %p4, %r23, %r25;
    selp.u32 %r26, 10000, 30000, %p4;
    add.u32 %r6, %r6, %r26;
    ld.param.v2.u32 {%r27, %r28}, [%rd22];
    cvt.u32.u64 %r29, %rd23;
    setp.eq.u32 %p3, %r27, %r29;
    selp.u32 %r30, 7, 9, %p3;
    add.u32 %r6, %r6, %r30;
    ld.param.u8 %h2, [%rd20+1];
    shr.u64 %rd27, %rd1, 8;
    cvt.u16.u64 %h3, %rd27;
    and.b16 %h3, %h3, 255;
    setp.eq.u16 %p2, %h2, %h3;
    selp.u32 %r31, 20, 40, %p2;
    add.u32 %r6, %r6, %r31;
)";
    expect_generic_matches(body);
    expect_generic_matches(body, false, 31, 3);
}

TEST(JitMemoryWindows, FaultsAsInterpreted) {
    // A misaligned lane, a lane outside every allocation (load and store), a parameter load past the parameter
    // block, a lane in the shared window past the block's shared memory: the error names the first faulting lane's
    // thread, as interpreted.
    for (const char* body : {R"(
    and.b32 %r7, %r1, 31;
    setp.eq.u32 %p1, %r7, 5;
    selp.b64 %rd6, 2, 0, %p1;
    add.s64 %rd7, %rd4, %rd6;
    ld.u32 %r6, [%rd7];
)",
                             R"(
    and.b32 %r7, %r1, 31;
    setp.eq.u32 %p1, %r7, 9;
    selp.b64 %rd6, 0x100000000000, 0, %p1;
    add.s64 %rd7, %rd4, %rd6;
    ld.v2.u32 {%r6, %r8}, [%rd7];
)",
                             R"(
    and.b32 %r7, %r1, 31;
    setp.eq.u32 %p1, %r7, 3;
    selp.b64 %rd6, 0x100000000000, 0, %p1;
    add.s64 %rd7, %rd5, %rd6;
    st.u32 [%rd7], %r5;
)",
                             R"(
    mov.b64 %rd20, in;
    and.b32 %r7, %r1, 31;
    setp.eq.u32 %p1, %r7, 6;
    selp.b64 %rd6, 12, 0, %p1;
    add.s64 %rd21, %rd20, %rd6;
    ld.param.u64 %rd22, [%rd21];
    cvt.u32.u64 %r6, %rd22;
)",
                             R"(
    mov.u64 %rd6, sm;
    cvta.shared.u64 %rd7, %rd6;
    and.b32 %r7, %r1, 31;
    setp.eq.u32 %p1, %r7, 7;
    selp.b64 %rd8, 0x1000000, 0, %p1;
    add.s64 %rd9, %rd7, %rd8;
    ld.u32 %r6, [%rd9];
)"})
        expect_generic_matches(body, true);
}

TEST(JitMemoryWindows, StoreToTheConstantSegmentFaults) {
    // A generic load of a .const variable puts the constant segment in the range cache; a generic store there must
    // still fault as translate<Generic> does (ops_memory.cpp's exec_st; a store to the output after it must work).
    const std::string declarations = ".const .align 4 .b32 cdata[4] = {1, 2, 3, 4};\n";
    expect_generic_matches(R"(
    mov.u64 %rd6, cdata;
    cvta.const.u64 %rd7, %rd6;
    ld.u32 %r6, [%rd7+4];
    st.u32 [%rd5], %r6;
    ld.u32 %r6, [%rd7+8];
)",
                           false, 64, 2, declarations);
    expect_generic_matches(R"(
    mov.u64 %rd6, cdata;
    cvta.const.u64 %rd7, %rd6;
    ld.u32 %r6, [%rd7+4];
    st.u32 [%rd7], %r5;
)",
                           true, 64, 2, declarations);
}

} // namespace
} // namespace d4r::ptxsim::test
