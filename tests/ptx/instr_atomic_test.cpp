// The PTX front end's atomics (ptx/instr_atomic.h): what each form does, and what it refuses.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "front_end_test_util.h"
#include "ptx/instr_atomic.h"

using namespace d4r;
using namespace d4r::ptx;
using Op = Atomic::Op;

namespace {

Atomic decoded(const std::string& instruction) { return test::decoded_by(instruction, decode_atomic); }

std::optional<ErrorCode> refusal(const std::string& instruction) {
    return test::refusal_of(instruction, decode_atomic);
}

} // namespace

TEST(FrontEndAtomic, FormsSayWhatTheyDo) {
    Atomic a = decoded("atom.relaxed.gpu.global.cas.b64 %rd1, [%rd2], %rd3, %rd4");
    EXPECT_EQ(a.op, Op::Cas);
    EXPECT_TRUE(a.result);
    EXPECT_EQ(a.space, StateSpace::Global);
    EXPECT_EQ(a.value, Type::B64);
    EXPECT_EQ(a.values, 2u);
    EXPECT_EQ(a.address_operand, 1u);

    a = decoded("red.shared.add.f32 [%r1], %f1");
    EXPECT_FALSE(a.result);
    EXPECT_EQ(a.address_operand, 0u);
    EXPECT_EQ(a.value, Type::F32);

    a = decoded("atom.min.s64 %rd1, [%rd2], %rd3");
    EXPECT_TRUE(a.signed_compare);
    EXPECT_EQ(a.space, StateSpace::Generic);

    a = decoded("atom.global.add.noftz.bf16x2 %r1, [%rd1], %r2");
    EXPECT_TRUE(a.half);
    EXPECT_EQ(a.value, Type::B32);

    a = decoded("atom.global.add.L2::cache_hint.u32 %r1, [%rd1], %r2, %rd3");
    EXPECT_TRUE(a.cache_policy);
}

TEST(FrontEndAtomic, RefusesWhatNoFormTakes) {
    EXPECT_EQ(refusal("atom.global.b32 %r1, [%rd1], %r2"), ErrorCode::Unsupported);             // no operation
    EXPECT_EQ(refusal("atom.shared::cluster.add.u32 %r1, [%r2], %r3"), ErrorCode::Unsupported); // not supported
    EXPECT_EQ(refusal("atom.global.v2.add.f32 %r1, [%rd1], %r2"), ErrorCode::Unsupported);      // vectors: not yet
    EXPECT_EQ(refusal("atom.global.max.f32 %f1, [%rd1], %f2"), ErrorCode::Unsupported);         // floats: add only
    EXPECT_EQ(refusal("atom.global.inc.u64 %rd1, [%rd2], %rd3"), ErrorCode::Unsupported);       // .inc is .u32
    EXPECT_EQ(refusal("atom.global.add.b32 %r1, [%rd1], %r2"), ErrorCode::Unsupported);         // add needs s/u
    EXPECT_EQ(refusal("atom.global.add.f16 %h1, [%rd1], %h2"), ErrorCode::Unsupported);         // needs .noftz
    EXPECT_EQ(refusal("atom.global.add.u16 %rs1, [%rd1], %rs2"), ErrorCode::Unsupported);       // 32/64 bits
    EXPECT_EQ(refusal("atom.global.cas.b32 %r1, [%rd1], %r2"), ErrorCode::Invalid);             // cas takes two
    EXPECT_EQ(refusal("red.global.add.u32 [%rd1]"), ErrorCode::Invalid);
}
