// The PTX front end's memory family (ptx/instr_memory.h): what each access is, and what it refuses.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "front_end_test_util.h"
#include "ptx/instr_memory.h"

using namespace d4r;
using namespace d4r::ptx;
using Op = MemoryAccess::Op;

namespace {

MemoryAccess decoded(const std::string& instruction) { return test::decoded_by(instruction, decode_memory); }

std::optional<ErrorCode> refusal(const std::string& instruction) {
    return test::refusal_of(instruction, decode_memory);
}

} // namespace

TEST(FrontEndMemory, AccessesCarryTheirSpaceTypeAndWidth) {
    MemoryAccess a = decoded("ld.global.nc.L1::evict_last.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1+16]");
    EXPECT_EQ(a.op, Op::Load);
    EXPECT_EQ(a.space, StateSpace::Global); // the hints change nothing
    EXPECT_EQ(a.type, Type::F32);
    EXPECT_EQ(a.vector, 4u);
    EXPECT_EQ(a.address_operand, 1u);

    a = decoded("st.shared::cta.v2.u64 [%r1], {%rd1, %rd2}");
    EXPECT_EQ(a.op, Op::Store);
    EXPECT_EQ(a.space, StateSpace::Shared);
    EXPECT_EQ(a.address_operand, 0u);

    a = decoded("ld.param::func.b32 %r1, [p]");
    EXPECT_EQ(a.space, StateSpace::Param);

    a = decoded("ld.volatile.s8 %rs1, [%rd1]"); // no space: generic
    EXPECT_EQ(a.space, StateSpace::Generic);
    EXPECT_EQ(a.type, Type::S8);

    EXPECT_EQ(decoded("ldu.global.u32 %r1, [%rd1]").op, Op::Load);
    EXPECT_EQ(decoded("prefetch.global.L2::evict_last [%rd1]").op, Op::Prefetch);
}

TEST(FrontEndMemory, RefusesWhatNoFormTakes) {
    EXPECT_EQ(refusal("ld.global %r1, [%rd1]"), ErrorCode::Unsupported);                    // no type
    EXPECT_EQ(refusal("ld.global.b128 %r1, [%rd1]"), ErrorCode::Unsupported);               // not yet
    EXPECT_EQ(refusal("ld.global.v8.b16 {%rs1}, [%rd1]"), ErrorCode::Unsupported);          // not yet
    EXPECT_EQ(refusal("st.const.u32 [%rd1], %r1"), ErrorCode::Unsupported);                 // not a PTX form
    EXPECT_EQ(refusal("ld.global.v2.u32 {%r1, %r2, %r3}, [%rd1]"), ErrorCode::Unsupported); // count != .v2
    EXPECT_EQ(refusal("st.global.v4.u32 [%rd1], {%r1, %r2}"), ErrorCode::Unsupported);
    EXPECT_EQ(refusal("ld.global.frob.u32 %r1, [%rd1]"), ErrorCode::Unsupported); // unknown modifier
    EXPECT_EQ(refusal("ld.global.u32 %r1"), ErrorCode::Invalid);                  // operand count
    EXPECT_EQ(refusal("st.global.u32 [%rd1], %r1, %r2"), ErrorCode::Invalid);
}
