// The largest warp code goes through LLVM's fast code generator (jit/kernel_compiler.cpp, kFastCodegenInstructions):
// a kernel of many memory accesses compiled that way computes the interpreter's bits, and neither a small one nor a
// large one of floating-point arithmetic (kFastCodegenFloatShare) goes that way.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "jit_test_util.h"
#include "test_support.h"

namespace d4r::ptxsim::test {
namespace {

// out[t] = a running mix of in[t + k] for k < STEPS, each step a load, arithmetic and a store of the partial result;
// FLOATS: the arithmetic an f32 fma on the words as floats (a fifth of the instructions) instead of integer steps.
std::string long_kernel(int steps, bool floats = false) {
    std::string body;
    for (int k = 0; k < steps; ++k) {
        const std::string off = std::to_string(4 * k);
        body += "    ld.global.u32 %r5, [%rd4+" + off + "];\n";
        if (floats) {
            body += "    mov.b32 %f5, %r5;\n";
            body += "    fma.rn.f32 %f6, %f6, 0f3F400000, %f5;\n";
            body += "    mov.b32 %r6, %f6;\n";
        } else {
            body += "    mad.lo.u32 %r6, %r6, 31, %r5;\n";
            body += "    xor.b32 %r6, %r6, " + std::to_string(k * 2654435761u % 65536) + ";\n";
        }
        body += "    st.global.u32 [%rd5], %r6;\n";
    }
    return ptx(R"(
.visible .entry k(.param .u64 out, .param .u64 in)
{
    .reg .b32 %r<8>;
    .reg .f32 %f<8>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [out];
    ld.param.u64 %rd2, [in];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd2, %rd3;
    add.s64 %rd5, %rd1, %rd3;
    mov.u32 %r6, 7;
    mov.f32 %f6, 0f00000000;
)" + body + R"(
    ret;
}
)");
}

struct Outcome {
    bool warp = false;
    uint64_t fast = 0;
    std::vector<uint32_t> interpreted, compiled;
};

Outcome run_long(int steps, bool floats = false) {
    Outcome o;
    auto m = load_ok(long_kernel(steps, floats), "long.ptx");
    if (!m) return o;
    d4r::test::TempDir dir;
    auto compiler = jit::KernelCompiler::create(jit::CacheSettings{dir.path(), 1 << 24});
    EXPECT_TRUE(compiler) << compiler.error().text();
    if (!compiler) return o;
    auto compiled = (*compiler)->compile(kernel_source(kernel_of(*m, "k")));
    EXPECT_TRUE(compiled) << compiled.error().text();
    if (!compiled) return o;
    o.warp = (*compiled)->warp;
    o.fast = (*compiler)->counters().fast_codegen;
    const uint32_t n = 64;
    std::vector<uint32_t> in(n + size_t(steps));
    TestRng rng(3);
    for (uint32_t& v : in) v = static_cast<uint32_t>(rng.next());
    for (int jit = 0; jit < 2; ++jit) {
        Device dev;
        DevicePtr pin = upload(dev, in), pout = upload(dev, std::vector<uint32_t>(n, 0));
        Params p(kernel_of(*m, "k"));
        p.set(0, pout).set(1, pin);
        LaunchConfig cfg = config({1}, {n});
        if (jit) {
            cfg.compiled = *compiled;
            cfg.instruction_budget = 0;
        }
        run_ok(dev, *m, "k", cfg, p);
        (jit ? o.compiled : o.interpreted) = download<uint32_t>(dev, pout, n);
    }
    return o;
}

TEST(FastCodegen, TheLargestWarpCodeGoesThroughTheFastCodeGeneratorAndComputesTheSameBits) {
    const Outcome large = run_long(160);
    EXPECT_TRUE(large.warp);
    EXPECT_EQ(large.fast, 1u);
    ASSERT_EQ(large.compiled.size(), 64u);
    EXPECT_EQ(large.compiled, large.interpreted);
    const Outcome small = run_long(4);
    EXPECT_TRUE(small.warp);
    EXPECT_EQ(small.fast, 0u);
    EXPECT_EQ(small.compiled, small.interpreted);
}

TEST(FastCodegen, LargeWarpCodeOfFloatingPointArithmeticIsOptimised) {
    const Outcome large = run_long(160, true);
    EXPECT_TRUE(large.warp);
    EXPECT_EQ(large.fast, 0u);
    ASSERT_EQ(large.compiled.size(), 64u);
    EXPECT_EQ(large.compiled, large.interpreted);
}

} // namespace
} // namespace d4r::ptxsim::test
