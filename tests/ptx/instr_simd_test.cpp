// The PTX front end's packed integer instructions (ptx/instr_simd.h): what each form computes, and what it refuses.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "front_end_test_util.h"
#include "ptx/instr_simd.h"

using namespace d4r;
using namespace d4r::ptx;
using Op = PackedInt::Op;

namespace {

PackedInt decoded(const std::string& instruction) { return test::decoded_by(instruction, decode_simd); }

std::optional<ErrorCode> refusal(const std::string& instruction) { return test::refusal_of(instruction, decode_simd); }

} // namespace

TEST(FrontEndSimd, FormsSayWhatTheyCompute) {
    PackedInt p = decoded("dp4a.s32.u32 %r1, %r2, %r3, %r4");
    EXPECT_EQ(p.op, Op::Dot4);
    EXPECT_TRUE(p.a_signed);
    EXPECT_FALSE(p.b_signed);

    p = decoded("dp2a.hi.u32.s32 %r1, %r2, %r3, %r4");
    EXPECT_EQ(p.op, Op::Dot2);
    EXPECT_TRUE(p.high);
    EXPECT_TRUE(p.b_signed);

    EXPECT_EQ(decoded("vabsdiff4.u32.u32.u32.add %r1, %r2, %r3, %r4").op, Op::AbsDiff4Add);

    p = decoded("max.relu.s16x2 %r1, %r2, %r3");
    EXPECT_EQ(p.op, Op::Max);
    EXPECT_TRUE(p.halves_signed);
    EXPECT_TRUE(p.relu);
    EXPECT_EQ(p.sources, 2u);
}

TEST(FrontEndSimd, RefusesWhatNoFormTakes) {
    EXPECT_EQ(refusal("dp4a.u32 %r1, %r2, %r3, %r4"), ErrorCode::Unsupported);                  // two types
    EXPECT_EQ(refusal("dp2a.u32.u32 %r1, %r2, %r3, %r4"), ErrorCode::Unsupported);              // .lo or .hi
    EXPECT_EQ(refusal("vabsdiff4.u32.u32.u32.sat %r1, %r2, %r3, %r4"), ErrorCode::Unsupported); // per lane: no
    EXPECT_EQ(refusal("min.relu.u16x2 %r1, %r2, %r3"), ErrorCode::Unsupported);                 // .relu is signed
    EXPECT_EQ(refusal("dp4a.u32.u32 %r1, %r2, %r3"), ErrorCode::Invalid);                       // the addend
    EXPECT_EQ(refusal("max.s16x2 %r1, %r2"), ErrorCode::Invalid);
}
