// The PTX front end, typed instructions (docs/ptx-front-end.md): the mbarrier family, the 64-bit barrier objects in
// (shared) memory, and cp.async.mbarrier.arrive, which arrives on one when the thread's cp.async copies complete.
// Memory-ordering and scope modifiers (.release .acquire .relaxed .cta .cluster ...) are read and dropped: d4r's
// memory is sequentially consistent.
//
// The forms d4r implements (.space: .shared, .shared::cta, .shared::cluster, or none for a generic address):
//   mbarrier.init{.space}.b64 [a], count
//   mbarrier.inval{.space}.b64 [a]
//   mbarrier.arrive{.noComplete}{.space}.b64 {state,} [a] {, count}     (state may be the sink '_')
//   mbarrier.arrive.expect_tx{.space}.b64 {state,} [a], txCount         (one arrival)
//   mbarrier.arrive_drop{.noComplete}{.space}.b64 {state,} [a] {, count}
//   mbarrier.expect_tx{.space}.b64 [a], txCount; mbarrier.complete_tx{.space}.b64 [a], txCount
//   mbarrier.test_wait{.parity}{.space}.b64 p, [a], state | parity
//   mbarrier.try_wait{.parity}{.space}.b64 p, [a], state | parity {, suspendTimeHint}
//   mbarrier.pending_count.b64 count, state
//   cp.async.mbarrier.arrive{.noinc}{.space}.b64 [a]
// Refused (Unsupported): arrive_drop.expect_tx, and each of .noComplete, .expect_tx and .parity on an operation that
// does not take it.
//
// Promise: decode_mbarrier() accepts exactly the forms d4r implements and says what each does and where its operands
// are; errors carry no location (the consumer adds it): Invalid for an operand count no assembler takes,
// Unsupported for anything else it refuses, with ptxsim's messages. Addresses and registers are the consumer's.
#pragma once

#include <cstdint>

#include "core/status.h"
#include "ptx/ast.h"
#include "ptx/types.h"

namespace d4r::ptx {

struct Mbarrier {
    enum class Op : uint8_t {
        Init,          // set the expected arrivals per phase (count), phase 0
        Inval,         // invalidate the object
        Arrive,        // count arrivals (1 when absent); with expect_tx one arrival and txCount expected bytes
        ArriveDrop,    // count arrivals that also leave the expected count of later phases
        ExpectTx,      // raise the pending transaction bytes by txCount
        CompleteTx,    // lower them by txCount
        TestWait,      // p = whether the phase named by the state (or parity) has completed
        TryWait,       // the same (a potentially blocking test: the suspend-time hint is only a hint)
        PendingCount,  // count = the pending arrivals recorded in a state
        CpAsyncArrive, // cp.async.mbarrier.arrive: an arrive when the thread's prior cp.async copies complete
    };
    Op op = Op::Init;
    // Where the object is: Shared for .shared and .shared::cta (and .shared::cluster, read as this CTA's: a launch is
    // a cluster of one CTA), else Generic. PendingCount has no object.
    StateSpace space = StateSpace::Generic;
    bool no_complete = false; // Arrive/ArriveDrop .noComplete: the arrivals must not complete the phase
    bool expect_tx = false;   // Arrive.expect_tx: one arrival, the value operand is the transaction bytes
    bool parity = false;      // TestWait/TryWait .parity: the value operand is a phase parity, not a state
    bool noinc = false;       // CpAsyncArrive .noinc: the arrive counts against the expected arrivals; without it
                              // the pending count is raised first (no net arrival)
    // The operands. The object's [address] is operand `address` (none for PendingCount). Arrive/ArriveDrop with
    // `state_result` write the state before their arrival (.b64) to operand 0. TestWait/TryWait write their
    // predicate to operand 0; PendingCount its .u32 count. The value operand (`value`, of type `value_type`; None
    // when there is none): Init's count, Arrive/ArriveDrop's count or txCount, ExpectTx/CompleteTx's txCount, a
    // wait's state (.b64) or parity (.u32), PendingCount's state (.b64). TryWait's suspend-time hint follows it.
    unsigned address = 0;
    bool state_result = false;
    unsigned value = 0;
    Type value_type = Type::None;
    bool suspend_hint = false; // TryWait: a trailing suspend-time hint operand (ignored)
};

// mbarrier.* and cp.async.mbarrier.arrive.
Expected<Mbarrier> decode_mbarrier(const ast::Instruction& in);

} // namespace d4r::ptx
