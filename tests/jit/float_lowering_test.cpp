// The PTX JIT's floating-point and cvt lowering (src/jit/lower_float.cpp, lower_compare.cpp) against ptxsim's
// interpreter: one-instruction kernels (ptxsim_test_util.h's op_kernel) run interpreted and compiled on edge values
// (zeros, subnormals, the smallest normal, huge values, infinities, quiet, signalling and negative NaNs) paired with
// random bits. Each kernel must compile, and every bit of every result must be the interpreter's. The corpus
// (d4r_ptxsim_conformance_jit_tests) holds the H200's answers; this covers the forms and operand pairings it lacks.
#include <gtest/gtest.h>

#include <bit>
#include <string>
#include <vector>

#include "jit_test_util.h"
#include "numerics/fp.h"

using namespace d4r;
using namespace d4r::ptxsim;
using namespace d4r::ptxsim::test;

TEST(JitFloatLowering, F32ArithmeticWithDirectedRoundingFtzAndSat) {
    for (const char* body : {"add.rz.ftz.sat.f32 %d, %a, %b;", "add.rp.f32 %d, %a, %b;", "sub.rm.ftz.f32 %d, %a, %b;",
                             "mul.rp.ftz.f32 %d, %a, %b;", "mul.rz.sat.f32 %d, %a, %b;", "div.rz.ftz.f32 %d, %a, %b;",
                             "div.rm.f32 %d, %a, %b;", "div.approx.ftz.f32 %d, %a, %b;", "div.approx.f32 %d, %a, %b;",
                             "div.full.ftz.f32 %d, %a, %b;", "fma.rm.ftz.sat.f32 %d, %a, %b, %c;",
                             "fma.rp.f32 %d, %a, %b, %c;", "mad.rz.ftz.f32 %d, %a, %b, %c;"})
        expect_compiled_matches<float>(body, inputs<float>(1), inputs<float>(2), inputs<float>(3));
}

TEST(JitFloatLowering, F32FunctionsAndSignOperations) {
    for (const char* body :
         {"sqrt.rp.ftz.f32 %d, %a;", "sqrt.rz.f32 %d, %a;", "sqrt.approx.ftz.f32 %d, %a;", "rcp.rm.ftz.f32 %d, %a;",
          "rcp.approx.f32 %d, %a;", "rsqrt.approx.ftz.f32 %d, %a;", "sin.approx.ftz.f32 %d, %a;",
          "cos.approx.f32 %d, %a;", "lg2.approx.ftz.f32 %d, %a;", "ex2.approx.f32 %d, %a;", "tanh.approx.f32 %d, %a;",
          "copysign.f32 %d, %a, %b;", "min.xorsign.abs.f32 %d, %a, %b;", "max.NaN.xorsign.abs.f32 %d, %a, %b;",
          "max.ftz.NaN.f32 %d, %a, %b;"})
        expect_compiled_matches<float>(body, inputs<float>(4), inputs<float>(5));
}

TEST(JitFloatLowering, F64ArithmeticAndFunctions) {
    for (const char* body :
         {"add.rm.f64 %d, %a, %b;", "sub.rz.f64 %d, %a, %b;", "mul.rp.f64 %d, %a, %b;", "div.rp.f64 %d, %a, %b;",
          "fma.rz.f64 %d, %a, %b, %c;", "sqrt.rm.f64 %d, %a;", "rcp.rz.f64 %d, %a;", "rcp.approx.ftz.f64 %d, %a;",
          "rsqrt.approx.f64 %d, %a;", "rsqrt.approx.ftz.f64 %d, %a;", "copysign.f64 %d, %a, %b;"})
        expect_compiled_matches<double>(body, inputs<double>(6), inputs<double>(7), inputs<double>(8));
}

TEST(JitFloatLowering, Testp) {
    for (const char* test : {"finite", "infinite", "number", "notanumber", "normal", "subnormal"}) {
        const std::string t = test;
        expect_compiled_matches<uint32_t, float>("testp." + t + ".f32 %p1, %a; selp.u32 %d, 1, 0, %p1;",
                                                 inputs<float>(9));
        expect_compiled_matches<uint32_t, double>("testp." + t + ".f64 %p1, %a; selp.u32 %d, 1, 0, %p1;",
                                                  inputs<double>(10));
    }
}

TEST(JitFloatLowering, SetAndSlct) {
    expect_compiled_matches<uint32_t, float>("set.ltu.u32.f32 %d, %a, %b;", inputs<float>(11), inputs<float>(12));
    expect_compiled_matches<uint32_t, float>("setp.num.f32 %p1, %a, %a; set.ge.ftz.and.s32.f32 %d, %a, %b, %p1;",
                                             inputs<float>(13), inputs<float>(14));
    expect_compiled_matches<uint32_t, uint32_t>("set.hi.or.u32.u32 %d, %a, %b, %p0;", inputs<uint32_t>(15),
                                                inputs<uint32_t>(16));
    expect_compiled_matches<float, float>("set.neu.f32.f32 %d, %a, %b;", inputs<float>(17), inputs<float>(18));
    expect_compiled_matches<float, float, float, uint32_t>("slct.f32.s32 %d, %a, %b, %c;", inputs<float>(19),
                                                           inputs<float>(20), inputs<uint32_t>(21));
    expect_compiled_matches<float, float>("slct.ftz.f32.f32 %d, %a, %b, %c;", inputs<float>(22), inputs<float>(23),
                                          inputs<float>(24));
    expect_compiled_matches<uint64_t, uint64_t, uint64_t, float>("slct.b64.f32 %d, %a, %b, %c;", inputs<uint64_t>(25),
                                                                 inputs<uint64_t>(26), inputs<float>(27));
}

TEST(JitFloatLowering, CvtWithDirectedRounding) {
    expect_compiled_matches<float, uint32_t>("cvt.rz.f32.s32 %d, %a;", inputs<uint32_t>(30));
    expect_compiled_matches<float, uint32_t>("cvt.rp.f32.u32 %d, %a;", inputs<uint32_t>(31));
    expect_compiled_matches<float, uint64_t>("cvt.rm.f32.s64 %d, %a;", inputs<uint64_t>(32));
    expect_compiled_matches<double, uint64_t>("cvt.rz.f64.u64 %d, %a;", inputs<uint64_t>(33));
    expect_compiled_matches<float, double>("cvt.rz.f32.f64 %d, %a;", inputs<double>(34));
    expect_compiled_matches<float, double>("cvt.rp.ftz.sat.f32.f64 %d, %a;", inputs<double>(35));
    expect_compiled_matches<float, double>("cvt.rm.ftz.f32.f64 %d, %a;", inputs<double>(36));
    expect_compiled_matches<uint32_t, uint64_t>("cvt.sat.s32.s64 %d, %a;", inputs<uint64_t>(37));
    expect_compiled_matches<uint32_t, uint32_t>("cvt.sat.u16.s32 %d, %a;", inputs<uint32_t>(38));
}

TEST(JitFloatLowering, CvtHalfPrecision) {
    for (const char* body : {"cvt.rn.f16.f32 %d, %a;", "cvt.rz.bf16.f32 %d, %a;", "cvt.rm.f16.f32 %d, %a;",
                             "cvt.rn.relu.f16.f32 %d, %a;", "cvt.rn.satfinite.bf16.f32 %d, %a;"})
        expect_compiled_matches<uint16_t, float>(body, inputs<float>(40));
    for (const char* body : {"cvt.rn.f16.f64 %d, %a;", "cvt.rp.bf16.f64 %d, %a;"})
        expect_compiled_matches<uint16_t, double>(body, inputs<double>(41));
    expect_compiled_matches<uint16_t, uint32_t>("cvt.rm.f16.s32 %d, %a;", inputs<uint32_t>(42));
    expect_compiled_matches<float, uint16_t>("cvt.f32.f16 %d, %a;", inputs<uint16_t>(43));
    expect_compiled_matches<float, uint16_t>("cvt.f32.bf16 %d, %a;", inputs<uint16_t>(44));
    expect_compiled_matches<double, uint16_t>("cvt.f64.f16 %d, %a;", inputs<uint16_t>(45));
    expect_compiled_matches<uint32_t, uint16_t>("cvt.rzi.s32.f16 %d, %a;", inputs<uint16_t>(46));
}

TEST(JitFloatLowering, CvtF16AndF32InIrExhaustive) {
    // cvt.f32.f16 and cvt.rn.f16.f32 are spelled in IR (lower_cvt_half): every f16 encoding; and for each f16 value
    // its f32, the neighbours of it, the tie half an f16 step above and the neighbours of that tie (both parities of
    // the kept bit, the subnormal steps, the overflow to infinity at 65520), and the NaNs and infinities of f32.
    std::vector<uint16_t> every(65536);
    for (uint32_t h = 0; h < 65536; ++h) every[h] = static_cast<uint16_t>(h);
    expect_compiled_matches<float, uint16_t>("cvt.f32.f16 %d, %a;", every);
    std::vector<uint32_t> near;
    for (uint32_t h = 0; h < 0x7c00; ++h) {
        for (uint32_t sign : {0u, 0x80000000u}) {
            const float value = numerics::f16_to_float(h), next = numerics::f16_to_float(h + 1);
            const uint32_t f = std::bit_cast<uint32_t>(value) | sign;
            const uint32_t tie = std::bit_cast<uint32_t>(static_cast<float>((double(value) + double(next)) / 2)) | sign;
            for (uint32_t v : {f, f + 1, f - 1, tie, tie + 1, tie - 1}) near.push_back(v);
        }
    }
    for (uint32_t v : {0x7f800000u, 0xff800000u, 0x7fc00000u, 0xff812345u, 0x7f800001u, 0x7f7fffffu, 0x477ff000u,
                       0x477fefffu, 0x477ff001u, 0x47800000u, 0x00000001u, 0x33000000u, 0x33000001u, 0xb3000001u})
        near.push_back(v);
    std::vector<float> as_float;
    for (uint32_t v : near) as_float.push_back(std::bit_cast<float>(v));
    expect_compiled_matches<uint16_t, float>("cvt.rn.f16.f32 %d, %a;", as_float);
}

TEST(JitFloatLowering, CvtPackedTf32AndFp8) {
    expect_compiled_matches<uint32_t, float>("cvt.rn.f16x2.f32 %d, %a, %b;", inputs<float>(50), inputs<float>(51));
    expect_compiled_matches<uint32_t, float>("cvt.rz.relu.bf16x2.f32 %d, %a, %b;", inputs<float>(52),
                                             inputs<float>(53));
    // tf32 (in IR): the edge values, then ties and near-ties of every kind of magnitude (denormal, normal, the
    // largest finite, infinity) with both signs and each parity of the kept bits.
    std::vector<uint32_t> tf32 = inputs<uint32_t>(54);
    for (uint32_t high : {0x00000000u, 0x00002000u, 0x00800000u, 0x3f800000u, 0x3f802000u, 0x7f7fc000u, 0x7f7fe000u,
                          0x7f800000u, 0x7fc00000u})
        for (uint32_t low : {0x0000u, 0x0fffu, 0x1000u, 0x1001u, 0x1fffu})
            for (uint32_t sign : {0u, 0x80000000u}) tf32.push_back(sign | high | low);
    for (const char* body : {"cvt.rna.tf32.f32 %d, %a;", "cvt.rna.satfinite.tf32.f32 %d, %a;",
                             "cvt.rz.tf32.f32 %d, %a;", "cvt.rn.tf32.f32 %d, %a;"})
        expect_compiled_matches<uint32_t, uint32_t>(body, tf32);
    expect_compiled_matches<uint16_t, float>("cvt.rn.satfinite.e4m3x2.f32 %d, %a, %b;", inputs<float>(55),
                                             inputs<float>(56));
    expect_compiled_matches<uint16_t, float>("cvt.rn.satfinite.relu.e5m2x2.f32 %d, %a, %b;", inputs<float>(57),
                                             inputs<float>(58));
    expect_compiled_matches<uint16_t, uint32_t>("cvt.rn.satfinite.e4m3x2.f16x2 %d, %a;", inputs<uint32_t>(59));
    expect_compiled_matches<uint32_t, uint16_t>("cvt.rn.f16x2.e4m3x2 %d, %a;", inputs<uint16_t>(60));
    expect_compiled_matches<uint32_t, uint16_t>("cvt.rn.relu.f16x2.e5m2x2 %d, %a;", inputs<uint16_t>(61));
}

// A mul and an add/sub that ptxas fuses (ptx/contract.h) run as the fma the interpreter makes of them: negated
// product or addend for a sub, and the multiplicands as they were at the mul when one changes before the add.
TEST(JitFloatLowering, FusedMultiplyAddsAsTheInterpreterFusesThem) {
    for (const char* body : {"{ .reg .f32 t; mul.f32 t, %a, %b; add.f32 %d, t, %c; }",
                             "{ .reg .f32 t; mul.f32 t, %a, %b; sub.f32 %d, %c, t; }",
                             "{ .reg .f32 t; mul.f32 t, %a, %b; sub.f32 %d, t, %c; }",
                             "{ .reg .f32 t; mul.ftz.f32 t, %a, %b; add.ftz.sat.f32 %d, %c, t; }",
                             "{ .reg .f32 t; mul.f32 t, %a, %b; mov.f32 %a, %c; add.f32 %d, t, %a; }"})
        expect_compiled_matches<float>(body, inputs<float>(70), inputs<float>(71), inputs<float>(72));
    for (const char* body : {"{ .reg .f64 t; mul.f64 t, %a, %b; add.f64 %d, t, %c; }",
                             "{ .reg .f64 t; mul.f64 t, %a, %b; sub.f64 %d, %c, t; }"})
        expect_compiled_matches<double>(body, inputs<double>(73), inputs<double>(74), inputs<double>(75));
}

TEST(JitFloatLowering, NanBitsOfRegistersOnlyArithmeticReads) {
    // t (and u) are read only by f32 add, sub, mul and fma rounding to nearest, which make any NaN canonical: the JIT
    // leaves their own NaN results as the host computes them (find_nan_absorbed). Every result must still be the
    // interpreter's, with a register that something else reads (mov, a directed rounding, a compare) kept canonical.
    for (const char* body : {"{ .reg .f32 t, u; fma.rn.f32 t, %a, %b, %c; mul.f32 u, t, %b; add.f32 %d, u, %a; }",
                             "{ .reg .f32 t; add.f32 t, %a, %b; fma.rn.sat.f32 %d, t, %c, %a; }",
                             "{ .reg .f32 t; sub.ftz.f32 t, %a, %b; fma.rn.ftz.f32 %d, %c, t, t; }",
                             "{ .reg .f32 t; fma.rn.f32 t, %a, %b, %c; add.f32 %d, t, %c; mov.f32 %d, t; }",
                             "{ .reg .f32 t; mul.rn.f32 t, %a, %b; add.rz.f32 %d, t, %c; }",
                             "{ .reg .f32 t; add.f32 t, %a, %b; setp.nan.f32 %p1, t, t; selp.f32 %d, t, %c, %p1; }"})
        expect_compiled_matches<float>(body, inputs<float>(76), inputs<float>(77), inputs<float>(78));
}
