// The PTX front end's mbarrier family (ptx/instr_mbarrier.h): what each form does and where its operands are, and
// what it refuses.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "front_end_test_util.h"
#include "ptx/instr_mbarrier.h"

using namespace d4r;
using namespace d4r::ptx;
using Op = Mbarrier::Op;

namespace {

Mbarrier decoded(const std::string& instruction) {
    auto b = test::decode_one(instruction, decode_mbarrier);
    EXPECT_TRUE(b) << instruction << ": " << b.error().text();
    return b ? *b : Mbarrier{};
}

std::optional<ErrorCode> refusal(const std::string& instruction) {
    return test::refusal_of(instruction, decode_mbarrier);
}

// The message of the refusal of INSTRUCTION ("" when it decodes).
std::string message(const std::string& instruction) {
    auto b = test::decode_one(instruction, decode_mbarrier);
    return b ? std::string() : b.error().message();
}

} // namespace

TEST(FrontEndMbarrier, InitInvalAndTransactions) {
    Mbarrier b = decoded("mbarrier.init.shared::cta.b64 [%r1], %r2");
    EXPECT_EQ(b.op, Op::Init);
    EXPECT_EQ(b.space, StateSpace::Shared);
    EXPECT_EQ(b.address, 0u);
    EXPECT_EQ(b.value, 1u);
    EXPECT_EQ(b.value_type, Type::U32);

    b = decoded("mbarrier.inval.b64 [%rd1]");
    EXPECT_EQ(b.op, Op::Inval);
    EXPECT_EQ(b.space, StateSpace::Generic);
    EXPECT_EQ(b.value_type, Type::None);

    b = decoded("mbarrier.expect_tx.relaxed.cta.shared.b64 [%r1], 64");
    EXPECT_EQ(b.op, Op::ExpectTx);
    EXPECT_FALSE(b.expect_tx); // the operation, not the arrive's modifier
    EXPECT_EQ(b.value_type, Type::U32);
    EXPECT_EQ(decoded("mbarrier.complete_tx.shared::cluster.b64 [%r1], %r2").space, StateSpace::Shared);
}

TEST(FrontEndMbarrier, ArrivesWithAndWithoutState) {
    Mbarrier b = decoded("mbarrier.arrive.shared.b64 %rd1, [%r1]");
    EXPECT_EQ(b.op, Op::Arrive);
    EXPECT_TRUE(b.state_result);
    EXPECT_EQ(b.address, 1u);
    EXPECT_EQ(b.value_type, Type::None); // one arrival

    b = decoded("mbarrier.arrive.release.cta.shared::cta.b64 _, [%r1], 2");
    EXPECT_TRUE(b.state_result); // the sink
    EXPECT_EQ(b.value, 2u);
    EXPECT_EQ(b.value_type, Type::U32);

    b = decoded("mbarrier.arrive.b64 [%rd1], %r2");
    EXPECT_FALSE(b.state_result);
    EXPECT_EQ(b.address, 0u);
    EXPECT_EQ(b.value, 1u);

    b = decoded("mbarrier.arrive.noComplete.shared.b64 %rd1, [%r1], %r2");
    EXPECT_TRUE(b.no_complete);

    b = decoded("mbarrier.arrive.expect_tx.shared.b64 %rd1, [%r1], 1024");
    EXPECT_EQ(b.op, Op::Arrive);
    EXPECT_TRUE(b.expect_tx);
    EXPECT_EQ(b.value, 2u);

    b = decoded("mbarrier.arrive_drop.noComplete.shared.b64 %rd1, [%r1], 1");
    EXPECT_EQ(b.op, Op::ArriveDrop);
    EXPECT_TRUE(b.no_complete);
}

TEST(FrontEndMbarrier, WaitsAndPendingCount) {
    Mbarrier b = decoded("mbarrier.test_wait.shared.b64 %p1, [%r1], %rd2");
    EXPECT_EQ(b.op, Op::TestWait);
    EXPECT_FALSE(b.parity);
    EXPECT_EQ(b.address, 1u);
    EXPECT_EQ(b.value, 2u);
    EXPECT_EQ(b.value_type, Type::B64); // a state

    b = decoded("mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 %p1, [%r1], %r2, %r3");
    EXPECT_EQ(b.op, Op::TryWait);
    EXPECT_TRUE(b.parity);
    EXPECT_EQ(b.value_type, Type::U32); // a parity
    EXPECT_TRUE(b.suspend_hint);
    EXPECT_FALSE(decoded("mbarrier.try_wait.shared.b64 %p1, [%r1], %rd2").suspend_hint);

    b = decoded("mbarrier.pending_count.b64 %r1, %rd1");
    EXPECT_EQ(b.op, Op::PendingCount);
    EXPECT_EQ(b.value, 1u);
    EXPECT_EQ(b.value_type, Type::B64);
}

TEST(FrontEndMbarrier, CpAsyncArrive) {
    Mbarrier b = decoded("cp.async.mbarrier.arrive.noinc.shared.b64 [%r1]");
    EXPECT_EQ(b.op, Op::CpAsyncArrive);
    EXPECT_TRUE(b.noinc);
    EXPECT_EQ(b.space, StateSpace::Shared);
    EXPECT_EQ(b.address, 0u);
    b = decoded("cp.async.mbarrier.arrive.b64 [%rd1]");
    EXPECT_FALSE(b.noinc);
    EXPECT_EQ(b.space, StateSpace::Generic);

    EXPECT_EQ(message("cp.async.mbarrier.arrive.shared.b32 [%r1]"), "cp.async.mbarrier.arrive needs .b64");
    EXPECT_EQ(refusal("cp.async.mbarrier.arrive.noinc.shared.b64 [%r1], %r2"), ErrorCode::Invalid);
    EXPECT_EQ(refusal("cp.async.mbarrier.arrive.release.shared.b64 [%r1]"), ErrorCode::Unsupported);
    EXPECT_EQ(refusal("cp.async.ca.shared.global [%r1], [%rd1], 16"), ErrorCode::Unsupported); // not an mbarrier
}

TEST(FrontEndMbarrier, RefusesWhatNoFormTakes) {
    EXPECT_EQ(message("mbarrier.init.shared.b32 [%r1], 1"), "mbarrier needs .b64");
    EXPECT_EQ(message("mbarrier.shared.b64 [%r1]"), "unsupported mbarrier operation");
    EXPECT_EQ(refusal("mbarrier.arrive.foo.shared.b64 %rd1, [%r1]"), ErrorCode::Unsupported);
    EXPECT_EQ(message("mbarrier.arrive_drop.expect_tx.shared.b64 %rd1, [%r1], 64"),
              "arrive_drop.expect_tx is not supported");
    EXPECT_EQ(message("mbarrier.arrive.expect_tx.shared.b64 %rd1, [%r1]"), "expect_tx needs a transaction count");
    // Modifiers on operations that do not take them.
    EXPECT_EQ(message("mbarrier.init.parity.shared.b64 [%r1], 1"), "mbarrier.init takes no .parity");
    EXPECT_EQ(message("mbarrier.test_wait.noComplete.shared.b64 %p1, [%r1], %rd1"),
              "mbarrier.test_wait takes no .noComplete");
    EXPECT_EQ(message("mbarrier.arrive.noComplete.expect_tx.shared.b64 %rd1, [%r1], 64"),
              "mbarrier.arrive.expect_tx takes no .noComplete");
    EXPECT_EQ(refusal("mbarrier.try_wait.expect_tx.shared.b64 %p1, [%r1], %rd1"), ErrorCode::Unsupported);

    // Operand counts no assembler takes.
    EXPECT_EQ(refusal("mbarrier.init.shared.b64 [%r1]"), ErrorCode::Invalid);
    EXPECT_EQ(refusal("mbarrier.inval.shared.b64 [%r1], 1"), ErrorCode::Invalid);
    EXPECT_EQ(refusal("mbarrier.expect_tx.shared.b64 [%r1]"), ErrorCode::Invalid);
    EXPECT_EQ(refusal("mbarrier.arrive.shared.b64 %rd1, [%r1], %r2, %r3"), ErrorCode::Invalid);
    EXPECT_EQ(refusal("mbarrier.arrive.shared.b64 [%r1], %r2, %r3"), ErrorCode::Invalid); // no state: at most 2
    EXPECT_EQ(refusal("mbarrier.test_wait.shared.b64 %p1, [%r1], %rd1, %r2"), ErrorCode::Invalid); // try_wait's hint
    EXPECT_EQ(refusal("mbarrier.try_wait.shared.b64 %p1, [%r1]"), ErrorCode::Invalid);
    EXPECT_EQ(refusal("mbarrier.pending_count.b64 %r1"), ErrorCode::Invalid);
}
