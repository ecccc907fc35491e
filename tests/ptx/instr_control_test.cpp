// The PTX front end's control family (ptx/instr_control.h): what each form does and where its operands are, and
// what it refuses.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "front_end_test_util.h"
#include "ptx/instr_control.h"

using namespace d4r;
using namespace d4r::ptx;
using Op = Control::Op;

namespace {

Control decoded(const std::string& instruction) { return test::decoded_by(instruction, decode_control); }

std::optional<ErrorCode> refusal(const std::string& instruction) {
    return test::refusal_of(instruction, decode_control);
}

} // namespace

TEST(FrontEndControl, BranchesCallsAndReturns) {
    Control c = decoded("bra.uni L1");
    EXPECT_EQ(c.op, Op::Bra);
    EXPECT_TRUE(c.uniform);
    EXPECT_EQ(decoded("brx.idx %r1, table").op, Op::Brx);
    EXPECT_EQ(decoded("exit").op, Op::Exit);
    EXPECT_EQ(decoded("ret.uni").op, Op::Ret);

    c = decoded("call.uni (retval), callee, (param0, param1)");
    EXPECT_EQ(c.op, Op::Call);
    EXPECT_EQ(c.returns, 0);
    EXPECT_EQ(c.function, 1);
    EXPECT_EQ(c.arguments, 2);

    c = decoded("call %rd1, (param0), prototype"); // indirect, no return values
    EXPECT_EQ(c.returns, -1);
    EXPECT_EQ(c.function, 0);
    EXPECT_EQ(c.arguments, 1);
}

TEST(FrontEndControl, BarriersFencesAndTraps) {
    Control c = decoded("barrier.sync.aligned 1, 64");
    EXPECT_EQ(c.op, Op::Barrier);
    EXPECT_FALSE(c.arrive);
    EXPECT_EQ(c.barrier_id, 0u);
    EXPECT_TRUE(c.thread_count);

    c = decoded("bar.arrive 2, 64");
    EXPECT_TRUE(c.arrive);

    c = decoded("bar.red.popc.u32 %r1, 0, %p1"); // the destination first, the predicate last
    EXPECT_EQ(c.reduction, Control::Reduction::Popc);
    EXPECT_EQ(c.barrier_id, 1u);
    EXPECT_FALSE(c.thread_count);

    EXPECT_EQ(decoded("bar.warp.sync %r1").op, Op::WarpSync);
    EXPECT_EQ(decoded("fence.proxy.async.shared::cta").op, Op::Fence);
    EXPECT_EQ(decoded("membar.gl").op, Op::Fence);
    EXPECT_EQ(decoded("brkpt").op, Op::Breakpoint);
    EXPECT_EQ(decoded("nanosleep.u32 %r1").op, Op::Nanosleep);
}

TEST(FrontEndControl, RefusesWhatNoFormTakes) {
    EXPECT_EQ(refusal("brx %r1, table"), ErrorCode::Unsupported);                // needs .idx
    EXPECT_EQ(refusal("bra 5"), ErrorCode::Unsupported);                         // a label
    EXPECT_EQ(refusal("bar.warp %r1"), ErrorCode::Unsupported);                  // needs .sync
    EXPECT_EQ(refusal("bar.red.popc.pred %p1, 0, %p2"), ErrorCode::Unsupported); // popc counts into .u32
    EXPECT_EQ(refusal("bar.cta 0"), ErrorCode::Unsupported);                     // sync, arrive or red
    EXPECT_EQ(refusal("call (retval)"), ErrorCode::Unsupported);                 // no function
    EXPECT_EQ(refusal("call f, (a), (b), (c)"), ErrorCode::Unsupported);         // one list too many
    EXPECT_EQ(refusal("ret.frob"), ErrorCode::Unsupported);                      // unknown modifier
    EXPECT_EQ(refusal("bar.arrive 1"), ErrorCode::Invalid);                      // arrive needs a thread count
    EXPECT_EQ(refusal("exit %r1"), ErrorCode::Invalid);
    EXPECT_EQ(refusal("bra L1, L2"), ErrorCode::Invalid);
}
