// The PTX front end's comparisons and selects (ptx/instr_compare.h): setp, set, selp, slct and predicate logic, with
// their operand types, and what the family refuses.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "front_end_test_util.h"
#include "ptx/instr_compare.h"

using namespace d4r;
using namespace d4r::ptx;
using Op = Compare::Op;
using Cmp = Compare::Cmp;
using Combine = Compare::Combine;
using Dst = Compare::Dst;

namespace {

Compare decoded(const std::string& instruction) { return test::decoded_by(instruction, decode_compare); }

std::optional<ErrorCode> refusal(const std::string& instruction) {
    return test::refusal_of(instruction, decode_compare);
}

} // namespace

TEST(FrontEndCompare, SetpCarriesTheComparisonTheCombineAndTheDestinations) {
    Compare c = decoded("setp.lt.s32 %p1, %r1, %r2");
    EXPECT_EQ(c.op, Op::Setp);
    EXPECT_EQ(c.cmp, Cmp::Lt);
    EXPECT_EQ(c.combine, Combine::None);
    EXPECT_EQ(c.type, Type::S32);
    EXPECT_FALSE(c.ftz);
    EXPECT_EQ(c.dst_kind, Dst::Pred);
    EXPECT_EQ(c.dst, Type::Pred);
    EXPECT_EQ(c.sources, 2u);
    EXPECT_EQ(c.src[0], Type::S32);
    EXPECT_EQ(c.src[1], Type::S32);

    c = decoded("setp.ltu.and.ftz.f32 %p1|%p2, %f1, %f2, !%p3"); // a pair, combined with a predicate
    EXPECT_EQ(c.cmp, Cmp::Ltu);
    EXPECT_EQ(c.combine, Combine::And);
    EXPECT_TRUE(c.ftz);
    EXPECT_EQ(c.dst_kind, Dst::PredPair);
    EXPECT_EQ(c.sources, 3u);
    EXPECT_EQ(c.src[2], Type::Pred);

    c = decoded("setp.hs.b64 %p1, %rd1, %rd2"); // bit types take the unsigned comparisons
    EXPECT_EQ(c.cmp, Cmp::Hs);
    EXPECT_EQ(c.type, Type::B64);

    c = decoded("setp.nan.xor.f64 %p1, %fd1, %fd2, %p2");
    EXPECT_EQ(c.cmp, Cmp::Nan);
    EXPECT_EQ(c.combine, Combine::Xor);

    c = decoded("setp.geu.or.ftz.f16x2 %p1|%p2, %r1, %r2, %p3"); // packed halves compare per half
    EXPECT_EQ(c.cmp, Cmp::Geu);
    EXPECT_EQ(c.combine, Combine::Or);
    EXPECT_EQ(c.type, Type::F16x2);
    EXPECT_EQ(c.src[0], Type::F16x2);
    EXPECT_EQ(c.dst_kind, Dst::PredPair);

    // Every operator by name, in the ISA's order.
    const char* names[] = {"eq", "ne",  "lt",  "le",  "gt",  "ge",  "lo",  "ls",  "hi",
                           "hs", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};
    for (int i = 0; i < 18; ++i) {
        const bool unsigned_only = i >= 6 && i <= 9;
        const std::string type = unsigned_only ? "u32" : "f32";
        EXPECT_EQ(decoded(std::string("setp.") + names[i] + "." + type + " %p1, %r1, %r2").cmp, static_cast<Cmp>(i))
            << names[i];
    }
}

TEST(FrontEndCompare, SetCarriesItsDestinationType) {
    Compare c = decoded("set.gt.and.u32.s64 %r1, %rd1, %rd2, %p1");
    EXPECT_EQ(c.op, Op::Set);
    EXPECT_EQ(c.cmp, Cmp::Gt);
    EXPECT_EQ(c.combine, Combine::And);
    EXPECT_EQ(c.type, Type::S64);
    EXPECT_EQ(c.dst_kind, Dst::Value);
    EXPECT_EQ(c.dst, Type::U32);
    EXPECT_EQ(c.src[0], Type::S64);
    EXPECT_EQ(c.src[2], Type::Pred);
    EXPECT_EQ(c.sources, 3u);

    c = decoded("set.equ.ftz.f32.f32 %f1, %f2, %f3");
    EXPECT_EQ(c.dst, Type::F32);
    EXPECT_TRUE(c.ftz);
    EXPECT_EQ(c.sources, 2u);

    c = decoded("set.lt.bf16.bf16 %rs1, %rs2, %rs3"); // a half source may write its own format
    EXPECT_EQ(c.dst, Type::BF16);
    EXPECT_EQ(c.type, Type::BF16);
    EXPECT_EQ(decoded("set.ne.f16x2.f16x2 %r1, %r2, %r3").dst, Type::F16x2);
    EXPECT_EQ(decoded("set.ne.u32.bf16x2 %r1, %r2, %r3").dst, Type::U32);
    EXPECT_EQ(decoded("set.le.s16.f16 %rs1, %rs2, %rs3").dst, Type::S16);
}

TEST(FrontEndCompare, SelectsCarryTheirDataAndSelectorTypes) {
    Compare c = decoded("selp.f64 %fd1, %fd2, %fd3, !%p1");
    EXPECT_EQ(c.op, Op::Selp);
    EXPECT_EQ(c.type, Type::F64);
    EXPECT_EQ(c.dst_kind, Dst::Value);
    EXPECT_EQ(c.dst, Type::F64);
    EXPECT_EQ(c.sources, 3u);
    EXPECT_EQ(c.src[0], Type::F64);
    EXPECT_EQ(c.src[2], Type::Pred);

    c = decoded("slct.ftz.u64.f32 %rd1, %rd2, %rd3, %f1");
    EXPECT_EQ(c.op, Op::Slct);
    EXPECT_TRUE(c.ftz);
    EXPECT_EQ(c.type, Type::U64);
    EXPECT_EQ(c.dst, Type::U64);
    EXPECT_EQ(c.src[1], Type::U64);
    EXPECT_EQ(c.src[2], Type::F32);

    c = decoded("slct.b32.s32 %r1, %r2, %r3, %r4");
    EXPECT_FALSE(c.ftz);
    EXPECT_EQ(c.src[2], Type::S32);
}

TEST(FrontEndCompare, PredicateLogic) {
    Compare c = decoded("and.pred %p1, %p2, !%p3");
    EXPECT_EQ(c.op, Op::And);
    EXPECT_EQ(c.type, Type::Pred);
    EXPECT_EQ(c.dst_kind, Dst::Pred);
    EXPECT_EQ(c.dst, Type::Pred);
    EXPECT_EQ(c.sources, 2u);
    EXPECT_EQ(c.src[1], Type::Pred);

    EXPECT_EQ(decoded("or.pred %p1, %p2, %p3").op, Op::Or);
    EXPECT_EQ(decoded("xor.pred %p1, %p2, -1").op, Op::Xor); // a constant source is the consumer's to fold
    c = decoded("not.pred %p1, %p2");
    EXPECT_EQ(c.op, Op::Not);
    EXPECT_EQ(c.sources, 1u);
}

TEST(FrontEndCompare, RefusesWhatNoFormTakes) {
    EXPECT_EQ(refusal("setp.s32 %p1, %r1, %r2"), ErrorCode::Unsupported);              // no operator
    EXPECT_EQ(refusal("setp.equ.s32 %p1, %r1, %r2"), ErrorCode::Unsupported);          // unordered: floats
    EXPECT_EQ(refusal("setp.lo.f32 %p1, %f1, %f2"), ErrorCode::Unsupported);           // lo: integers
    EXPECT_EQ(refusal("setp.lt.b32 %p1, %r1, %r2"), ErrorCode::Unsupported);           // .bN: eq ne lo ls hi hs
    EXPECT_EQ(refusal("setp.eq.ftz.f64 %p1, %fd1, %fd2"), ErrorCode::Unsupported);     // .ftz: f32 f16 f16x2
    EXPECT_EQ(refusal("setp.eq.ftz.bf16 %p1, %rs1, %rs2"), ErrorCode::Unsupported);    // (not bf16)
    EXPECT_EQ(refusal("setp.eq.u8 %p1, %r1, %r2"), ErrorCode::Unsupported);            // no 8-bit compares
    EXPECT_EQ(refusal("setp.eq.s32.foo %p1, %r1, %r2"), ErrorCode::Unsupported);       // unknown modifier
    EXPECT_EQ(refusal("set.eq.f16.f16x2 %rs1, %r1, %r2"), ErrorCode::Unsupported);     // packed writes 32 bits
    EXPECT_EQ(refusal("set.eq.f16x2.f16 %r1, %rs1, %rs2"), ErrorCode::Unsupported);    // and only packed
    EXPECT_EQ(refusal("set.eq.s16.s32 %rs1, %r1, %r2"), ErrorCode::Unsupported);       // .u32 .s32 .f32
    EXPECT_EQ(refusal("set.eq.u32.u8 %r1, %r2, %r3"), ErrorCode::Unsupported);         // the source's type
    EXPECT_EQ(refusal("selp.pred %p1, %p2, %p3, %p4"), ErrorCode::Unsupported);        // 16 to 64 bits
    EXPECT_EQ(refusal("selp.b128 %q1, %q2, %q3, %p4"), ErrorCode::Unsupported);        //
    EXPECT_EQ(refusal("slct.u32.u32 %r1, %r2, %r3, %r4"), ErrorCode::Unsupported);     // .s32/.f32 selector
    EXPECT_EQ(refusal("slct.ftz.u32.s32 %r1, %r2, %r3, %r4"), ErrorCode::Unsupported); // .ftz: f32 selector
    EXPECT_EQ(refusal("slct.pred.s32 %p1, %p2, %p3, %r4"), ErrorCode::Unsupported);    // values, not predicates
    EXPECT_EQ(refusal("and.b32 %r1, %r2, %r3"), ErrorCode::Unsupported);               // the integer family's
    EXPECT_EQ(refusal("cnot.pred %p1, %p2"), ErrorCode::Unsupported);                  // no cnot.pred in PTX
    EXPECT_EQ(refusal("setp.eq.s32 %p1, %r1"), ErrorCode::Invalid);                    // operand counts
    EXPECT_EQ(refusal("setp.eq.and.s32 %p1, %r1, %r2"), ErrorCode::Invalid);           // the combining predicate
    EXPECT_EQ(refusal("set.eq.u32.u32 %r1, %r2, %r3, %p1"), ErrorCode::Invalid);       // none to combine
    EXPECT_EQ(refusal("selp.u32 %r1, %r2, %r3"), ErrorCode::Invalid);
    EXPECT_EQ(refusal("not.pred %p1, %p2, %p3"), ErrorCode::Invalid);
    EXPECT_EQ(refusal("and.pred %p1, %p2"), ErrorCode::Invalid);
}

TEST(FrontEndCompare, KeepsPtxsimsMessages) {
    auto c = test::decode_one("setp.lo.f32 %p1, %f1, %f2", decode_compare);
    ASSERT_FALSE(c);
    EXPECT_EQ(c.error().message(), "lo/ls/hi/hs compare integers"); // no location: the consumer adds it
    c = test::decode_one("set.eq.f16.f16x2 %rs1, %r1, %r2", decode_compare);
    ASSERT_FALSE(c);
    EXPECT_EQ(c.error().message(), "set.f16.f16x2 is not a PTX form");
}
