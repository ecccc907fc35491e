// The PTX JIT's half-precision lowering (src/jit/lower_half.cpp, and lower_compare.cpp's half compares) against
// ptxsim's interpreter: one-instruction kernels on .f16 .bf16 .f16x2 .bf16x2 edge values (zeros, subnormals, the
// smallest normal, the largest finite, infinities, NaNs) paired with random bits. Each kernel must compile, and every
// bit of every result must be the interpreter's. The corpus (f16_arith, f16x2_arith, bf16_arith) holds the H200's
// answers; this covers the modifiers, types and compares it lacks.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "jit_test_util.h"

using namespace d4r;
using namespace d4r::ptxsim;
using namespace d4r::ptxsim::test;

namespace {

// Packed pairs: the low halves from one seed's edge values, the high halves from another's.
std::vector<uint32_t> pairs(uint64_t seed) {
    const std::vector<uint16_t> lo = inputs<uint16_t>(seed), hi = inputs<uint16_t>(seed + 1000);
    std::vector<uint32_t> out;
    for (size_t i = 0; i < lo.size(); ++i) out.push_back(lo[i] | (uint32_t(hi[(i * 7) % hi.size()]) << 16));
    return out;
}

} // namespace

TEST(JitHalfLowering, ScalarArithmetic) {
    for (const std::string t : {"f16", "bf16"}) {
        for (const std::string op :
             {"add.rn", "add.rn.ftz", "add.rn.sat", "add.rn.ftz.sat", "sub.rn", "sub.rn.ftz", "mul.rn.ftz.sat",
              "mul.rn", "min", "min.NaN", "max.ftz", "max.xorsign.abs", "min.ftz.NaN.xorsign.abs"}) {
            if (t == "bf16" && (op.find("ftz") != std::string::npos || op.find("sat") != std::string::npos)) continue;
            expect_compiled_matches<uint16_t>(op + "." + t + " %d, %a, %b;", inputs<uint16_t>(1), inputs<uint16_t>(2));
        }
        for (const std::string op : {"fma.rn", "fma.rn.relu"})
            expect_compiled_matches<uint16_t>(op + "." + t + " %d, %a, %b, %c;", inputs<uint16_t>(3),
                                              inputs<uint16_t>(4), inputs<uint16_t>(5));
        for (const std::string op : {"neg", "abs"})
            expect_compiled_matches<uint16_t>(op + "." + t + " %d, %a;", inputs<uint16_t>(6));
    }
    expect_compiled_matches<uint16_t>("fma.rn.ftz.sat.f16 %d, %a, %b, %c;", inputs<uint16_t>(7), inputs<uint16_t>(8),
                                      inputs<uint16_t>(9));
    expect_compiled_matches<uint16_t>("neg.ftz.f16 %d, %a;", inputs<uint16_t>(10));
    expect_compiled_matches<uint16_t>("tanh.approx.f16 %d, %a;", inputs<uint16_t>(11));
    expect_compiled_matches<uint16_t>("ex2.approx.ftz.bf16 %d, %a;", inputs<uint16_t>(12));
}

TEST(JitHalfLowering, PackedArithmetic) {
    for (const std::string t : {"f16x2", "bf16x2"}) {
        for (const std::string op : {"add.rn", "sub.rn", "mul.rn", "min.NaN", "max.xorsign.abs"})
            expect_compiled_matches<uint32_t>(op + "." + t + " %d, %a, %b;", pairs(20), pairs(21));
        expect_compiled_matches<uint32_t>("fma.rn.relu." + t + " %d, %a, %b, %c;", pairs(22), pairs(23), pairs(24));
        expect_compiled_matches<uint32_t>("neg." + t + " %d, %a;", pairs(25));
        expect_compiled_matches<uint32_t>("abs." + t + " %d, %a;", pairs(26));
    }
    expect_compiled_matches<uint32_t>("fma.rn.ftz.sat.f16x2 %d, %a, %b, %c;", pairs(27), pairs(28), pairs(29));
    expect_compiled_matches<uint32_t>("abs.ftz.f16x2 %d, %a;", pairs(30));
    expect_compiled_matches<uint32_t>("ex2.approx.f16x2 %d, %a;", pairs(31));
}

TEST(JitHalfLowering, Compares) {
    for (const std::string cmp : {"eq", "ne", "lt", "ge", "equ", "neu", "gtu", "leu", "num", "nan"}) {
        expect_compiled_matches<uint32_t, uint16_t>("setp." + cmp + ".f16 %p1, %a, %b; selp.u32 %d, 1, 0, %p1;",
                                                    inputs<uint16_t>(40), inputs<uint16_t>(41));
        expect_compiled_matches<uint32_t, uint16_t>("setp." + cmp + ".bf16 %p1|%p2, %a, %b; selp.u32 %d, 1, 0, %p2;",
                                                    inputs<uint16_t>(42), inputs<uint16_t>(43));
    }
    expect_compiled_matches<uint32_t, uint16_t>("setp.lt.ftz.f16 %p1, %a, %b; selp.u32 %d, 1, 0, %p1;",
                                                inputs<uint16_t>(44), inputs<uint16_t>(45));
    for (const std::string t : {"f16x2", "bf16x2"}) {
        expect_compiled_matches<uint32_t>(
            "setp.gt." + t + " %p1|%p2, %a, %b; selp.u32 %d, 1, 2, %p1; @%p2 add.u32 %d, %d, 4;", pairs(46), pairs(47));
        expect_compiled_matches<uint32_t>("setp.num." + t + " %p3, %a, %a; setp.leu.or." + t +
                                              " %p1|%p2, %a, %b, %p3; selp.u32 %d, 1, 2, %p1; @%p2 add.u32 %d, %d, 4;",
                                          pairs(48), pairs(49));
    }
    for (const std::string dst : {"u32", "s32", "f16x2", "bf16x2"})
        expect_compiled_matches<uint32_t>("set.ltu." + dst + ".f16x2 %d, %a, %b;", pairs(50), pairs(51));
    for (const std::string dst : {"u16", "f16", "bf16"})
        expect_compiled_matches<uint16_t>("set.ge.ftz." + dst + ".f16 %d, %a, %b;", inputs<uint16_t>(52),
                                          inputs<uint16_t>(53));
    expect_compiled_matches<uint32_t, uint16_t>("setp.num.bf16 %p3, %a, %a; set.eq.xor.u32.bf16 %d, %a, %b, %p3;",
                                                inputs<uint16_t>(54), inputs<uint16_t>(55));
}
