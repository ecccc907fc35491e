// The PTX front end's warp collectives (ptx/instr_warp.h): what each form computes, and what it refuses.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "front_end_test_util.h"
#include "ptx/instr_warp.h"

using namespace d4r;
using namespace d4r::ptx;
using Op = WarpCollective::Op;

namespace {

WarpCollective decoded(const std::string& instruction) { return test::decoded_by(instruction, decode_warp); }

std::optional<ErrorCode> refusal(const std::string& instruction) { return test::refusal_of(instruction, decode_warp); }

} // namespace

TEST(FrontEndWarp, CollectivesSayWhatTheyCompute) {
    WarpCollective w = decoded("shfl.sync.bfly.b32 %r1|%p1, %r2, 1, 31, -1");
    EXPECT_EQ(w.op, Op::Shuffle);
    EXPECT_EQ(w.shuffle, WarpCollective::Shuffle::Butterfly);
    EXPECT_TRUE(w.predicate_out);
    EXPECT_FALSE(decoded("shfl.sync.idx.b32 %r1, %r2, 0, 31, -1").predicate_out);

    w = decoded("vote.sync.ballot.b32 %r1, %p1, -1");
    EXPECT_EQ(w.vote, WarpCollective::Vote::Ballot);
    EXPECT_EQ(decoded("vote.sync.uni.pred %p2, !%p1, -1").vote, WarpCollective::Vote::Uniform);

    w = decoded("match.all.sync.b64 %r1|%p1, %rd1, -1");
    EXPECT_EQ(w.op, Op::Match);
    EXPECT_TRUE(w.all);
    EXPECT_EQ(w.type, Type::B64);

    w = decoded("redux.sync.max.s32 %r1, %r2, -1");
    EXPECT_EQ(w.reduction, WarpCollective::Reduction::Max);
    EXPECT_EQ(w.type, Type::S32);

    EXPECT_EQ(decoded("activemask.b32 %r1").op, Op::ActiveMask);
}

TEST(FrontEndWarp, RefusesWhatNoFormTakes) {
    EXPECT_EQ(refusal("shfl.bfly.b32 %r1, %r2, 1, 31"), ErrorCode::Unsupported); // no .sync: gone
    EXPECT_EQ(refusal("vote.any.pred %p1, %p2"), ErrorCode::Unsupported);
    EXPECT_EQ(refusal("shfl.sync.up.b64 %rd1, %rd2, 1, 0, -1"), ErrorCode::Unsupported); // .b32 only
    EXPECT_EQ(refusal("vote.sync.all.b32 %r1, %p1, -1"), ErrorCode::Unsupported);        // .all gives a .pred
    EXPECT_EQ(refusal("match.any.sync.b32 %r1|%p1, %r2, -1"), ErrorCode::Unsupported);   // no predicate for .any
    EXPECT_EQ(refusal("redux.sync.and.u32 %r1, %r2, -1"), ErrorCode::Unsupported);       // and/or/xor take .b32
    EXPECT_EQ(refusal("activemask.b64 %rd1"), ErrorCode::Unsupported);
    EXPECT_EQ(refusal("shfl.sync.up.b32 %r1, %r2, 1, 0"), ErrorCode::Invalid); // the member mask
    EXPECT_EQ(refusal("redux.sync.add.s32 %r1, %r2"), ErrorCode::Invalid);
}
