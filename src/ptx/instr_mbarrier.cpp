// The mbarrier family's meaning (see instr_mbarrier.h).
#include "ptx/instr_mbarrier.h"

#include "ptx/instr_decode.h"

namespace d4r::ptx {

namespace {

using decode::expect_operands;
using decode::finish;
using decode::unsupported;
using Op = Mbarrier::Op;

StateSpace take_space(Modifiers& m) {
    return m.take_any({"shared", "shared::cta", "shared::cluster"}).empty() ? StateSpace::Generic : StateSpace::Shared;
}

// cp.async.mbarrier.arrive{.noinc}{.space}.b64 [a].
Expected<Mbarrier> decode_cp_async_arrive(const ast::Instruction& in, Modifiers& m) {
    if (!m.take("async") || !m.take("mbarrier"))
        return unsupported("'cp' is an mbarrier instruction only as cp.async.mbarrier.arrive");
    if (!m.take("arrive")) return unsupported("cp.async.mbarrier supports only .arrive");
    Mbarrier b;
    b.op = Op::CpAsyncArrive;
    b.noinc = m.take("noinc");
    b.space = take_space(m);
    if (!m.take("b64")) return unsupported("cp.async.mbarrier.arrive needs .b64");
    D4R_TRY(finish(m));
    D4R_TRY(expect_operands(in, 1));
    return b;
}

// An error for modifier NAME on mbarrier.WHAT, which does not take it.
Error misplaced(std::string_view what, std::string_view name) {
    return unsupported(fmt::format("mbarrier.{} takes no .{}", what, name));
}

} // namespace

Expected<Mbarrier> decode_mbarrier(const ast::Instruction& in) {
    Modifiers m(in.opcode);
    if (m.base() == "cp") return decode_cp_async_arrive(in, m);
    if (m.base() != "mbarrier") return unsupported(fmt::format("'{}' is not an mbarrier instruction", m.base()));
    Mbarrier b;
    m.take_memory_hints(); // .release .acquire .relaxed and the scopes
    b.space = take_space(m);
    const std::string_view what = m.take_any({"init", "inval", "arrive_drop", "arrive", "expect_tx", "complete_tx",
                                              "test_wait", "try_wait", "pending_count"});
    b.no_complete = m.take("noComplete");
    b.expect_tx = m.take("expect_tx");
    b.parity = m.take("parity");
    if (!m.take("b64")) return unsupported("mbarrier needs .b64");
    D4R_TRY(finish(m));
    if (what.empty()) return unsupported("unsupported mbarrier operation");
    const bool arrive = what == "arrive" || what == "arrive_drop";
    const bool wait = what == "test_wait" || what == "try_wait";
    if (b.no_complete && (!arrive || b.expect_tx))
        return misplaced(b.expect_tx ? fmt::format("{}.expect_tx", what) : std::string(what), "noComplete");
    if (b.expect_tx && !arrive) return misplaced(what, "expect_tx");
    if (b.parity && !wait) return misplaced(what, "parity");

    if (what == "pending_count") { // count, state
        D4R_TRY(expect_operands(in, 2));
        b.op = Op::PendingCount;
        b.value = 1;
        b.value_type = Type::B64;
        return b;
    }
    if (what == "init" || what == "expect_tx" || what == "complete_tx") { // [a], count | txCount
        D4R_TRY(expect_operands(in, 2));
        b.op = what == "init" ? Op::Init : what == "expect_tx" ? Op::ExpectTx : Op::CompleteTx;
        b.value = 1;
        b.value_type = Type::U32;
        return b;
    }
    if (what == "inval") { // [a]
        D4R_TRY(expect_operands(in, 1));
        b.op = Op::Inval;
        return b;
    }
    if (arrive) { // [state,] [a] {, count | txCount}: the state may be the sink '_' or left out
        D4R_TRY(expect_operands(in, 1, 3));
        b.op = what == "arrive" ? Op::Arrive : Op::ArriveDrop;
        b.state_result = in.operands[0].kind != ast::OperandKind::Address;
        b.address = b.state_result ? 1 : 0;
        D4R_TRY(expect_operands(in, b.address + 1, b.address + 2));
        if (in.operands.size() > b.address + 1) {
            b.value = b.address + 1;
            b.value_type = Type::U32;
        }
        if (b.expect_tx) {
            if (b.op == Op::ArriveDrop) return unsupported("arrive_drop.expect_tx is not supported");
            if (b.value_type == Type::None) return unsupported("expect_tx needs a transaction count");
        }
        return b;
    }
    // test_wait / try_wait: waitComplete, [a], state | phaseParity {, suspendTimeHint}
    D4R_TRY(expect_operands(in, 3, what == "try_wait" ? 4 : 3));
    b.op = what == "test_wait" ? Op::TestWait : Op::TryWait;
    b.address = 1;
    b.value = 2;
    b.value_type = b.parity ? Type::U32 : Type::B64;
    b.suspend_hint = in.operands.size() == 4;
    return b;
}

} // namespace d4r::ptx
