// The PTX front end's integer family (ptx/instr_int.h): what each form means with its operand types, and what it
// refuses.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "front_end_test_util.h"
#include "ptx/instr_int.h"

using namespace d4r;
using namespace d4r::ptx;
using Op = IntArith::Op;
using Mode = IntArith::Mode;

namespace {

IntArith decoded(const std::string& instruction) { return test::decoded_by(instruction, decode_int); }

std::optional<ErrorCode> refusal(const std::string& instruction) { return test::refusal_of(instruction, decode_int); }

} // namespace

TEST(FrontEndInt, ArithmeticCarriesModesCarriesAndOperandTypes) {
    IntArith a = decoded("add.cc.u32 %r1, %r2, %r3");
    EXPECT_EQ(a.op, Op::Add);
    EXPECT_TRUE(a.cc);
    EXPECT_EQ(a.dst, Type::U32);
    EXPECT_EQ(a.sources, 2u);

    a = decoded("mul.wide.s32 %rd1, %r2, %r3"); // the result is twice as wide
    EXPECT_EQ(a.mode, Mode::Wide);
    EXPECT_EQ(a.dst, Type::S64);
    EXPECT_EQ(a.src[0], Type::S32);
    EXPECT_EQ(a.src[1], Type::S32);

    a = decoded("mad.wide.u16 %r1, %rs2, %rs3, %r4"); // the addend is wide too
    EXPECT_EQ(a.dst, Type::U32);
    EXPECT_EQ(a.src[2], Type::U32);
    EXPECT_EQ(a.sources, 3u);

    a = decoded("mad.hi.sat.s32 %r1, %r2, %r3, %r4");
    EXPECT_EQ(a.mode, Mode::Hi);
    EXPECT_TRUE(a.sat);

    a = decoded("madc.lo.cc.u64 %rd1, %rd2, %rd3, %rd4");
    EXPECT_EQ(a.op, Op::MadC);
    EXPECT_TRUE(a.cc);

    a = decoded("max.relu.s32 %r1, %r2, %r3");
    EXPECT_TRUE(a.relu);
}

TEST(FrontEndInt, BitOperationsCarryTheirShapes) {
    IntArith a = decoded("bfe.s64 %rd1, %rd2, %r3, %r4");
    EXPECT_EQ(a.dst, Type::S64);
    EXPECT_EQ(a.src[1], Type::U32);
    EXPECT_EQ(a.src[2], Type::U32);

    a = decoded("bfi.b32 %r1, %r2, %r3, %r4, %r5");
    EXPECT_EQ(a.sources, 4u);

    a = decoded("popc.b64 %r1, %rd2"); // the count is a .u32
    EXPECT_EQ(a.dst, Type::U32);
    EXPECT_EQ(a.src[0], Type::B64);

    a = decoded("shr.s16 %rs1, %rs2, %r3"); // the amount is a .u32
    EXPECT_EQ(a.op, Op::Shr);
    EXPECT_EQ(a.src[1], Type::U32);

    a = decoded("lop3.b32 %r1, %r2, %r3, %r4, 0x96");
    EXPECT_EQ(a.lut, 0x96);
    EXPECT_EQ(a.sources, 3u);

    a = decoded("prmt.b32.rc16 %r1, %r2, %r3, %r4");
    EXPECT_EQ(a.permute, 6);
    EXPECT_EQ(decoded("prmt.b32 %r1, %r2, %r3, %r4").permute, 0);

    a = decoded("shf.l.clamp.b32 %r1, %r2, %r3, %r4");
    EXPECT_TRUE(a.left);
    EXPECT_TRUE(a.clamp);

    a = decoded("bfind.shiftamt.u64 %r1, %rd2");
    EXPECT_TRUE(a.shift_amount);
    EXPECT_EQ(a.dst, Type::U32);

    a = decoded("fns.b32 %r1, %r2, %r3, %r4");
    EXPECT_EQ(a.src[2], Type::S32);
}

TEST(FrontEndInt, RefusesWhatNoFormTakes) {
    EXPECT_EQ(refusal("mul.s32 %r1, %r2, %r3"), ErrorCode::Unsupported);             // needs .lo/.hi/.wide
    EXPECT_EQ(refusal("mul.wide.s64 %rd1, %rd2, %rd3"), ErrorCode::Unsupported);     // 16 or 32 bits
    EXPECT_EQ(refusal("mul.lo.b32 %r1, %r2, %r3"), ErrorCode::Unsupported);          // signed or unsigned
    EXPECT_EQ(refusal("add.sat.u32 %r1, %r2, %r3"), ErrorCode::Unsupported);         // .sat is .s32 only
    EXPECT_EQ(refusal("add.cc.sat.s32 %r1, %r2, %r3"), ErrorCode::Unsupported);      // not both
    EXPECT_EQ(refusal("add.cc.u16 %rs1, %rs2, %rs3"), ErrorCode::Unsupported);       // carries are 32/64-bit
    EXPECT_EQ(refusal("mad.lo.sat.s32 %r1, %r2, %r3, %r4"), ErrorCode::Unsupported); // .sat needs .hi
    EXPECT_EQ(refusal("add.u8 %r1, %r2, %r3"), ErrorCode::Unsupported);              // no 8-bit arithmetic
    EXPECT_EQ(refusal("neg.u32 %r1, %r2"), ErrorCode::Unsupported);                  // signed only
    EXPECT_EQ(refusal("shl.u32 %r1, %r2, %r3"), ErrorCode::Unsupported);             // .bN only
    EXPECT_EQ(refusal("lop3.b32 %r1, %r2, %r3, %r4, 300"), ErrorCode::Unsupported);  // a table is 0..255
    EXPECT_EQ(refusal("lop3.b32 %r1, %r2, %r3, %r4, %r5"), ErrorCode::Unsupported);  // and a constant
    EXPECT_EQ(refusal("bmsk.b32 %r1, %r2, %r3"), ErrorCode::Unsupported);            // .clamp or .wrap
    EXPECT_EQ(refusal("add.s32.foo %r1, %r2, %r3"), ErrorCode::Unsupported);         // unknown modifier
    EXPECT_EQ(refusal("add.s32 %r1, %r2"), ErrorCode::Invalid);                      // operand counts
    EXPECT_EQ(refusal("bfi.b32 %r1, %r2, %r3, %r4"), ErrorCode::Invalid);
    EXPECT_EQ(refusal("lop3.b32 %r1, %r2, %r3, %r4"), ErrorCode::Invalid);
}
