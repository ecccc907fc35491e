// The PTX front end's cvt (ptx/instr_cvt.h): what each form means, and the forms it refuses with their codes.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "front_end_test_util.h"
#include "ptx/instr_cvt.h"

using namespace d4r;
using namespace d4r::ptx;

namespace {

Expected<Cvt> decode(const std::string& instruction) { return test::decode_one(instruction, decode_cvt); }

Cvt decoded(const std::string& instruction) { return test::decoded_by(instruction, decode_cvt); }

std::optional<ErrorCode> refusal(const std::string& instruction) { return test::refusal_of(instruction, decode_cvt); }

} // namespace

TEST(FrontEndCvt, ConvertsCarryTheirTypesAndRounding) {
    Cvt c = decoded("cvt.rzi.sat.s32.f32 %r, %f");
    EXPECT_EQ(c.form, Cvt::Form::Convert);
    EXPECT_EQ(c.dst, Type::S32);
    EXPECT_EQ(c.src, Type::F32);
    EXPECT_EQ(c.int_round, Round::Rz);
    EXPECT_FALSE(c.round);
    EXPECT_TRUE(c.sat);
    EXPECT_EQ(c.sources, 1u);

    c = decoded("cvt.rm.ftz.f16.f32 %h, %f");
    EXPECT_EQ(c.dst, Type::F16);
    EXPECT_EQ(c.round, Round::Rm);
    EXPECT_FALSE(c.int_round);
    EXPECT_TRUE(c.ftz);

    c = decoded("cvt.f64.f32 %fd, %f"); // widening: exact, no rounding
    EXPECT_FALSE(c.round);
    EXPECT_FALSE(c.int_round);

    c = decoded("cvt.u32.b16 %r, %rs"); // .bN converts like .uN
    EXPECT_EQ(c.dst, Type::U32);
    EXPECT_EQ(c.src, Type::U16);
}

TEST(FrontEndCvt, PackedTf32AndFp8FormsSayWhatTheyAre) {
    Cvt c = decoded("cvt.rz.relu.satfinite.bf16x2.f32 %r, %f1, %f2");
    EXPECT_EQ(c.form, Cvt::Form::Pack);
    EXPECT_EQ(c.dst, Type::BF16);
    EXPECT_EQ(c.round, Round::Rz);
    EXPECT_TRUE(c.relu);
    EXPECT_TRUE(c.satfinite);
    EXPECT_EQ(c.sources, 2u);

    c = decoded("cvt.rna.satfinite.tf32.f32 %r, %f");
    EXPECT_EQ(c.form, Cvt::Form::ToTf32);
    EXPECT_EQ(c.round, Round::Rna);

    c = decoded("cvt.rn.satfinite.relu.e5m2x2.f32 %rs, %f1, %f2");
    EXPECT_EQ(c.form, Cvt::Form::ToFp8);
    EXPECT_TRUE(c.e5m2);
    EXPECT_EQ(c.src, Type::F32);
    EXPECT_EQ(c.sources, 2u);

    c = decoded("cvt.rn.satfinite.e4m3x2.f16x2 %rs, %r");
    EXPECT_EQ(c.form, Cvt::Form::ToFp8);
    EXPECT_FALSE(c.e5m2);
    EXPECT_EQ(c.sources, 1u);

    c = decoded("cvt.rn.f16x2.e4m3x2 %r, %rs"); // the written order says the direction
    EXPECT_EQ(c.form, Cvt::Form::FromFp8);
    EXPECT_EQ(c.dst, Type::F16x2);
}

TEST(FrontEndCvt, RefusesWhatNoFormTakes) {
    EXPECT_EQ(refusal("cvt.s32.f32 %r, %f"), ErrorCode::Unsupported);              // float to integer needs .rni etc.
    EXPECT_EQ(refusal("cvt.f16.f32 %h, %f"), ErrorCode::Unsupported);              // narrowing needs a rounding
    EXPECT_EQ(refusal("cvt.rn.f32.f16 %f, %h"), ErrorCode::Unsupported);           // widening takes none
    EXPECT_EQ(refusal("cvt.rn.s32.u32 %r, %r2"), ErrorCode::Unsupported);          // integers take none
    EXPECT_EQ(refusal("cvt.rna.f16.f32 %h, %f"), ErrorCode::Unsupported);          // .rna is for .tf32
    EXPECT_EQ(refusal("cvt.rs.f16x2.f32 %r, %f, %f, %r"), ErrorCode::Unsupported); // not implemented yet
    EXPECT_EQ(refusal("cvt.rn.f32.s32.foo %f, %r"), ErrorCode::Unsupported);       // a modifier no form has
    EXPECT_EQ(refusal("cvt.rn.f32.pred %f, %p"), ErrorCode::Unsupported);          // not a convertible type
    EXPECT_EQ(refusal("cvt.rn.e4m3x2.f32 %rs, %f1, %f2"), ErrorCode::Unsupported); // FP8 needs .satfinite
    EXPECT_EQ(refusal("cvt.rn.f16.f32 %h, %f, %f"), ErrorCode::Invalid);           // operand counts no assembler takes
    EXPECT_EQ(refusal("cvt.rn.f16x2.f32 %r, %f"), ErrorCode::Invalid);
    auto e = decode("cvt.rn.f32.s32.foo %f, %r");
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().message(), "unsupported modifier '.foo' of 'cvt'");
}
