// The PTX front end's moves (ptx/instr_move.h): mov's forms, cvta and isspacep with their operand types, and what
// the family refuses.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "front_end_test_util.h"
#include "ptx/instr_move.h"

using namespace d4r;
using namespace d4r::ptx;
using Op = Move::Op;
using Form = Move::Form;
using Sreg = Move::Sreg;
using Space = StateSpace;

namespace {

Move decoded(const std::string& instruction) { return test::decoded_by(instruction, decode_move); }

std::optional<ErrorCode> refusal(const std::string& instruction) { return test::refusal_of(instruction, decode_move); }

} // namespace

TEST(FrontEndMove, MovSaysWhatItMoves) {
    Move m = decoded("mov.u32 %r1, %r2");
    EXPECT_EQ(m.op, Op::Mov);
    EXPECT_EQ(m.form, Form::Name);
    EXPECT_EQ(m.type, Type::U32);
    EXPECT_EQ(m.dst, Type::U32);
    EXPECT_EQ(m.src, Type::U32);

    EXPECT_EQ(decoded("mov.u64 %rd1, shared_array").form, Form::Name); // an address: the symbols tell
    EXPECT_EQ(decoded("mov.f32 %f1, 0f3F800000").form, Form::Immediate);
    EXPECT_EQ(decoded("mov.b64 %rd1, -1").form, Form::Immediate);

    m = decoded("mov.u32 %r1, %tid.x");
    EXPECT_EQ(m.form, Form::Special);
    EXPECT_EQ(m.sreg, Sreg::Other);
    EXPECT_EQ(decoded("mov.u32 %r1, %lanemask_lt").form, Form::Special);
    EXPECT_EQ(decoded("mov.u32 %r1, %envreg31").form, Form::Special);
    EXPECT_EQ(decoded("mov.u32 %r1, WARP_SZ").form, Form::Special);
    EXPECT_EQ(decoded("mov.u32 %r1, %cluster_ctaid.z").form, Form::Special);
    EXPECT_EQ(decoded("mov.u64 %rd1, %pm3_64").form, Form::Special);
    EXPECT_EQ(decoded("mov.u32 %r1, %envreg32").form, Form::Name); // not PTX's
    EXPECT_EQ(decoded("mov.u32 %r1, %tid.w").form, Form::Name);
    EXPECT_EQ(decoded("mov.u32 %r1, %laneid2").form, Form::Name);

    m = decoded("mov.u64 %rd1, %clock64");
    EXPECT_EQ(m.form, Form::Special);
    EXPECT_EQ(m.sreg, Sreg::Clock64);
    EXPECT_EQ(decoded("mov.u32 %r1, %clock").sreg, Sreg::Clock);
    EXPECT_EQ(decoded("mov.u32 %r1, %clock_hi").sreg, Sreg::ClockHi);
    EXPECT_EQ(decoded("mov.u64 %rd1, %globaltimer").sreg, Sreg::GlobalTimer);
    EXPECT_EQ(decoded("mov.u32 %r1, %globaltimer_lo").sreg, Sreg::GlobalTimerLo);
    EXPECT_EQ(decoded("mov.u32 %r1, %globaltimer_hi").sreg, Sreg::GlobalTimerHi);
    EXPECT_EQ(decoded("mov.u64 %rd1, %gridid").sreg, Sreg::GridId);

    m = decoded("mov.pred %p1, !%p2");
    EXPECT_EQ(m.form, Form::Name);
    EXPECT_EQ(m.dst, Type::Pred);
    EXPECT_EQ(decoded("mov.pred %p1, 1").form, Form::Immediate);
}

TEST(FrontEndMove, PackAndUnpackSplitTheType) {
    Move m = decoded("mov.b64 %rd1, {%r1, %r2}");
    EXPECT_EQ(m.form, Form::Pack);
    EXPECT_EQ(m.elements, 2u);
    EXPECT_EQ(m.dst, Type::B64);
    EXPECT_EQ(m.src, Type::B32);

    m = decoded("mov.b32 {%rs1, %rs2, %rs3, %rs4}, %r1");
    EXPECT_EQ(m.form, Form::Unpack);
    EXPECT_EQ(m.elements, 4u);
    EXPECT_EQ(m.dst, Type::B8);
    EXPECT_EQ(m.src, Type::B32);

    m = decoded("mov.b32 {%rs1, %rs2}, %r1");
    EXPECT_EQ(m.dst, Type::B16);
    EXPECT_EQ(decoded("mov.b16 %rs1, {%rs2, %rs3}").src, Type::B8);
}

TEST(FrontEndMove, CvtaAndIsspacepCarryTheirSpace) {
    Move m = decoded("cvta.to.global.u64 %rd1, %rd2");
    EXPECT_EQ(m.op, Op::Cvta);
    EXPECT_TRUE(m.to_space);
    EXPECT_EQ(m.space, Space::Global);
    EXPECT_EQ(m.type, Type::U64);
    EXPECT_EQ(m.dst, Type::U64);
    EXPECT_EQ(m.src, Type::U64);

    m = decoded("cvta.shared.u32 %r1, %r2");
    EXPECT_FALSE(m.to_space);
    EXPECT_EQ(m.space, Space::Shared);
    EXPECT_EQ(m.type, Type::U32);
    EXPECT_EQ(decoded("cvta.local.u64 %rd1, %rd2").space, Space::Local);
    EXPECT_EQ(decoded("cvta.const.u64 %rd1, %rd2").space, Space::Const);
    EXPECT_EQ(decoded("cvta.to.param.u64 %rd1, %rd2").space, Space::Param);

    // .shared::cta is the CTA's own shared memory: without clusters, the .shared window (PTX ISA 7.8 and later).
    EXPECT_EQ(decoded("cvta.to.shared::cta.u32 %r1, %rd2").space, Space::Shared);
    EXPECT_EQ(decoded("isspacep.shared::cta %p1, %rd1").space, Space::Shared);

    m = decoded("isspacep.local %p1, %rd1");
    EXPECT_EQ(m.op, Op::Isspacep);
    EXPECT_EQ(m.space, Space::Local);
    EXPECT_EQ(m.dst, Type::Pred);
    EXPECT_EQ(m.src, Type::U64);
}

TEST(FrontEndMove, RefusesWhatNoFormTakes) {
    EXPECT_EQ(refusal("mov %r1, %r2"), ErrorCode::Unsupported);                           // needs a type
    EXPECT_EQ(refusal("mov.u32.foo %r1, %r2"), ErrorCode::Unsupported);                   // unknown modifier
    EXPECT_EQ(refusal("mov.b128 %q1, %q2"), ErrorCode::Unsupported);                      // not yet
    EXPECT_EQ(refusal("mov.b128 %q1, {%rd1, %rd2}"), ErrorCode::Unsupported);             //
    EXPECT_EQ(refusal("mov.b64 %rd1, {%r1, %r2, %r3}"), ErrorCode::Unsupported);          // 2 or 4 elements
    EXPECT_EQ(refusal("mov.b16 {%rs1, %rs2, %rs3, %rs4}, %rs5"), ErrorCode::Unsupported); // 4-bit elements
    EXPECT_EQ(refusal("mov.u32 %r1, %clock64"), ErrorCode::Unsupported);                  // the counters' widths
    EXPECT_EQ(refusal("mov.u64 %rd1, %clock"), ErrorCode::Unsupported);
    EXPECT_EQ(refusal("mov.u32 %r1, %globaltimer"), ErrorCode::Unsupported);
    EXPECT_EQ(refusal("mov.u32 %r1, %gridid"), ErrorCode::Unsupported);
    EXPECT_EQ(refusal("mov.u64 %rd1, %globaltimer_lo"), ErrorCode::Unsupported);
    EXPECT_EQ(refusal("mov.u32 %r1, !%r2"), ErrorCode::Unsupported);                   // only predicates negate
    EXPECT_EQ(refusal("mov.u32 %r1, [%rd1]"), ErrorCode::Unsupported);                 // no address operand
    EXPECT_EQ(refusal("mov.pred %p1, 1.0"), ErrorCode::Unsupported);                   // a predicate or an integer
    EXPECT_EQ(refusal("cvta.u64 %rd1, %rd2"), ErrorCode::Unsupported);                 // needs a space
    EXPECT_EQ(refusal("cvta.global.s64 %rd1, %rd2"), ErrorCode::Unsupported);          // .u32 or .u64
    EXPECT_EQ(refusal("cvta.shared::cluster.u64 %rd1, %rd2"), ErrorCode::Unsupported); // no clusters
    EXPECT_EQ(refusal("isspacep %p1, %rd1"), ErrorCode::Unsupported);                  // needs a space
    EXPECT_EQ(refusal("isspacep.global.u64 %p1, %rd1"), ErrorCode::Unsupported);       // takes no type
    EXPECT_EQ(refusal("mov.u32 %r1"), ErrorCode::Invalid);                             // operand counts
    EXPECT_EQ(refusal("mov.u32 %r1, %r2, %r3"), ErrorCode::Invalid);
    EXPECT_EQ(refusal("cvta.global.u64 %rd1"), ErrorCode::Invalid);
    EXPECT_EQ(refusal("isspacep.shared %p1, %rd1, %rd2"), ErrorCode::Invalid);
}

TEST(FrontEndMove, KeepsPtxsimsMessages) {
    auto m = test::decode_one("mov.u32 %r1, %clock64", decode_move);
    ASSERT_FALSE(m);
    EXPECT_EQ(m.error().message(), "width of the clock register does not match"); // no location
    m = test::decode_one("mov.u32 %r1, %globaltimer", decode_move);
    ASSERT_FALSE(m);
    EXPECT_EQ(m.error().message(), "%globaltimer is a 64-bit register");
}
