// The PTX front end's half-precision family (ptx/instr_half.h): what each form means, and what it refuses.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "front_end_test_util.h"
#include "ptx/instr_half.h"

using namespace d4r;
using namespace d4r::ptx;
using Op = HalfArith::Op;

namespace {

HalfArith decoded(const std::string& instruction) { return test::decoded_by(instruction, decode_half); }

std::optional<ErrorCode> refusal(const std::string& instruction) { return test::refusal_of(instruction, decode_half); }

} // namespace

TEST(FrontEndHalf, FormsCarryTheirRegistersAndFlags) {
    HalfArith h = decoded("fma.rn.relu.bf16x2 %r1, %r2, %r3, %r4");
    EXPECT_EQ(h.op, Op::Fma);
    EXPECT_EQ(h.type, Type::BF16x2);
    EXPECT_EQ(h.reg, Type::B32); // packed pairs live in 32-bit registers
    EXPECT_EQ(h.round, Round::Rn);
    EXPECT_TRUE(h.relu);
    EXPECT_EQ(h.sources, 3u);

    h = decoded("add.ftz.sat.f16 %h1, %h2, %h3");
    EXPECT_EQ(h.reg, Type::B16);
    EXPECT_FALSE(h.round);
    EXPECT_TRUE(h.ftz);
    EXPECT_TRUE(h.sat);

    h = decoded("max.NaN.xorsign.abs.f16x2 %r1, %r2, %r3");
    EXPECT_EQ(h.op, Op::Max);
    EXPECT_TRUE(h.nan);
    EXPECT_TRUE(h.xorsign);

    h = decoded("ex2.approx.ftz.bf16 %h1, %h2");
    EXPECT_EQ(h.op, Op::Ex2);
    EXPECT_EQ(h.sources, 1u);
    EXPECT_EQ(decoded("tanh.approx.f16x2 %r1, %r2").op, Op::Tanh);
    EXPECT_EQ(decoded("neg.bf16 %h1, %h2").op, Op::Neg);
}

TEST(FrontEndHalf, RefusesWhatNoFormTakes) {
    EXPECT_EQ(refusal("add.ftz.bf16 %h1, %h2, %h3"), ErrorCode::Unsupported);             // bf16 has no .ftz
    EXPECT_EQ(refusal("add.rz.f16 %h1, %h2, %h3"), ErrorCode::Unsupported);               // .rn only
    EXPECT_EQ(refusal("fma.f16 %h1, %h2, %h3, %h4"), ErrorCode::Unsupported);             // fma needs .rn
    EXPECT_EQ(refusal("add.relu.f16 %h1, %h2, %h3"), ErrorCode::Unsupported);             // .relu is fma's
    EXPECT_EQ(refusal("fma.rn.sat.relu.f16 %h1, %h2, %h3, %h4"), ErrorCode::Unsupported); // not both
    EXPECT_EQ(refusal("ex2.approx.f16 %h1, %h2, %h3"), ErrorCode::Invalid);               // operand count
    EXPECT_EQ(refusal("ex2.f16 %h1, %h2"), ErrorCode::Unsupported);                       // needs .approx
    EXPECT_EQ(refusal("ex2.approx.bf16 %h1, %h2"), ErrorCode::Unsupported);               // bf16 needs .ftz
    EXPECT_EQ(refusal("sqrt.approx.f16 %h1, %h2"), ErrorCode::Unsupported);               // not a PTX form
    EXPECT_EQ(refusal("min.f16 %h1, %h2, %h3, %h4"), ErrorCode::Unsupported);             // three inputs: not yet
    EXPECT_EQ(refusal("neg.ftz.sat.f16 %h1, %h2"), ErrorCode::Unsupported);               // only .ftz
    EXPECT_EQ(refusal("add.f16 %h1, %h2"), ErrorCode::Invalid);
}
