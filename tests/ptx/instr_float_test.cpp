// The PTX front end's f32/f64 arithmetic (ptx/instr_float.h): what each form means, and what it refuses.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "front_end_test_util.h"
#include "ptx/instr_float.h"

using namespace d4r;
using namespace d4r::ptx;
using Op = FloatArith::Op;

namespace {

FloatArith decoded(const std::string& instruction) { return test::decoded_by(instruction, decode_float); }

std::optional<ErrorCode> refusal(const std::string& instruction) { return test::refusal_of(instruction, decode_float); }

} // namespace

TEST(FrontEndFloat, ArithmeticCarriesItsRoundingAndFlags) {
    FloatArith f = decoded("add.rz.ftz.sat.f32 %f1, %f2, %f3");
    EXPECT_EQ(f.op, Op::Add);
    EXPECT_EQ(f.type, Type::F32);
    EXPECT_EQ(f.round, Round::Rz);
    EXPECT_TRUE(f.ftz);
    EXPECT_TRUE(f.sat);
    EXPECT_EQ(f.sources, 2u);

    f = decoded("mul.f64 %fd1, %fd2, %fd3"); // no rounding written: none recorded
    EXPECT_EQ(f.op, Op::Mul);
    EXPECT_EQ(f.type, Type::F64);
    EXPECT_FALSE(f.round);

    f = decoded("mad.f32 %f1, %f2, %f3, %f4"); // mad may omit the rounding
    EXPECT_EQ(f.op, Op::Fma);
    EXPECT_TRUE(f.mad);
    EXPECT_EQ(f.sources, 3u);

    f = decoded("div.approx.ftz.f32 %f1, %f2, %f3");
    EXPECT_EQ(f.op, Op::Div);
    EXPECT_TRUE(f.approx);
    EXPECT_FALSE(f.full);

    f = decoded("max.NaN.xorsign.abs.f32 %f1, %f2, %f3");
    EXPECT_EQ(f.op, Op::Max);
    EXPECT_TRUE(f.nan);
    EXPECT_TRUE(f.xorsign);
}

TEST(FrontEndFloat, FunctionsCopysignAndTestp) {
    FloatArith f = decoded("rcp.approx.ftz.f64 %fd1, %fd2"); // the one .approx f64 rcp, with .ftz
    EXPECT_EQ(f.op, Op::Rcp);
    EXPECT_TRUE(f.approx);
    EXPECT_TRUE(f.ftz);
    EXPECT_EQ(f.sources, 1u);

    EXPECT_EQ(decoded("sqrt.rn.f64 %fd1, %fd2").round, Round::Rn);
    EXPECT_EQ(decoded("ex2.approx.ftz.f32 %f1, %f2").op, Op::Ex2);
    EXPECT_EQ(decoded("tanh.approx.f32 %f1, %f2").op, Op::Tanh);
    EXPECT_EQ(decoded("neg.f64 %fd1, %fd2").op, Op::Neg);
    EXPECT_EQ(decoded("copysign.f32 %f1, %f2, %f3").op, Op::Copysign);

    f = decoded("testp.subnormal.f64 %p1, %fd1");
    EXPECT_EQ(f.op, Op::Testp);
    EXPECT_EQ(f.test, FloatArith::Test::Subnormal);
    EXPECT_EQ(f.type, Type::F64);
}

TEST(FrontEndFloat, RefusesWhatNoFormTakes) {
    EXPECT_EQ(refusal("fma.f32 %f1, %f2, %f3, %f4"), ErrorCode::Unsupported);    // fma needs a rounding
    EXPECT_EQ(refusal("add.ftz.f64 %fd1, %fd2, %fd3"), ErrorCode::Unsupported);  // .ftz is f32 only
    EXPECT_EQ(refusal("add.approx.f32 %f1, %f2, %f3"), ErrorCode::Unsupported);  // no .approx add
    EXPECT_EQ(refusal("div.f32 %f1, %f2, %f3"), ErrorCode::Unsupported);         // needs .approx/.full/.rn
    EXPECT_EQ(refusal("div.full.f64 %fd1, %fd2, %fd3"), ErrorCode::Unsupported); // f64 needs a rounding
    EXPECT_EQ(refusal("sqrt.f32 %f1, %f2"), ErrorCode::Unsupported);             // .approx or a rounding
    EXPECT_EQ(refusal("sqrt.approx.f64 %fd1, %fd2"), ErrorCode::Unsupported);    // not a PTX form
    EXPECT_EQ(refusal("sin.approx.f64 %fd1, %fd2"), ErrorCode::Unsupported);     // .f32 only
    EXPECT_EQ(refusal("tanh.approx.ftz.f32 %f1, %f2"), ErrorCode::Unsupported);  // no .ftz
    EXPECT_EQ(refusal("min.xorsign.f32 %f1, %f2, %f3"), ErrorCode::Unsupported); // .xorsign needs .abs
    EXPECT_EQ(refusal("min.f32 %f1, %f2, %f3, %f4"), ErrorCode::Unsupported);    // three inputs: not yet
    EXPECT_EQ(refusal("add.rn.f32.foo %f1, %f2, %f3"), ErrorCode::Unsupported);  // unknown modifier
    EXPECT_EQ(refusal("testp.f32 %p1, %f1"), ErrorCode::Unsupported);            // no test named
    EXPECT_EQ(refusal("add.rn.f32 %f1, %f2"), ErrorCode::Invalid);               // operand counts
    EXPECT_EQ(refusal("fma.rn.f32 %f1, %f2, %f3"), ErrorCode::Invalid);
    EXPECT_EQ(refusal("neg.f32 %f1, %f2, %f3"), ErrorCode::Invalid);
}
