// Memory barriers in shared memory: mbarrier.init, .inval, .arrive (.noComplete, .expect_tx),
// .arrive_drop, .expect_tx, .complete_tx, .test_wait / .try_wait (with a state or .parity),
// .pending_count, and cp.async.mbarrier.arrive (.noinc). What each form means, and where its operands are, is the
// front end's (ptx/instr_mbarrier.h); here the object's layout, the handler and the registers.
//
// The 64-bit object is opaque to programs; ptxsim lays it out as
//   bits 0-20 pending arrivals of the current phase, 21-41 expected arrivals per phase,
//   42-62 pending transaction bytes (21-bit two's complement), 63 the current phase's parity.
// A phase completes when its pending arrivals and transaction bytes are both zero: the parity flips
// and the pending arrivals start again at the expected count (less what arrive_drop removed). The
// state an arrive returns is the object before the arrival; a wait on it (or on a parity) succeeds
// once the phase it names has completed, that is once the object's parity differs from it.
//
// cp.async copies complete when they issue (ops_async.cpp), so cp.async.mbarrier.arrive triggers its
// arrive at once: without .noinc the pending count is raised and lowered again (no net change), with
// .noinc it is one arrival. A wait that finds its phase incomplete ends the warp's slice so the
// warps it waits for run.
//
// Instr use: base/imm/flags kAddr32 the object's address; count the operation (Op); s[0] the count,
// transaction bytes, state or parity operand (kNoReg: none); d[0] the returned state (kNoReg: none);
// pd[0] the wait result; flags kShared (the address is a .shared offset), kNoComplete, kNoInc.
#include <fmt/format.h>

#include "ptx/instr_mbarrier.h"
#include "ptxsim/decoder.h"
#include "ptxsim/lanes.h"
#include "ptxsim/memory_access.h"
#include "ptxsim/ops.h"

namespace d4r::ptxsim {

namespace {

enum class Op : uint8_t {
    Init,
    Inval,
    Arrive,
    ArriveDrop,
    ExpectTx,
    CompleteTx,
    ArriveExpectTx,
    TestWait,
    TestParity,
    CpAsyncArrive
};

constexpr uint16_t kShared = 1;
constexpr uint16_t kNoComplete = 2;
constexpr uint16_t kNoInc = 4;

constexpr uint64_t kCountMask = (1ull << 21) - 1;
constexpr unsigned kExpectedShift = 21;
constexpr unsigned kTxShift = 42;
constexpr uint64_t kParityBit = 1ull << 63;

uint32_t pending_of(uint64_t v) { return static_cast<uint32_t>(v & kCountMask); }
uint32_t expected_of(uint64_t v) { return static_cast<uint32_t>((v >> kExpectedShift) & kCountMask); }
int32_t tx_of(uint64_t v) {
    int32_t raw = static_cast<int32_t>((v >> kTxShift) & kCountMask);
    return raw >= (1 << 20) ? raw - (1 << 21) : raw;
}
uint64_t pack(uint32_t pending, uint32_t expected, int32_t tx, bool parity) {
    return (uint64_t(pending) & kCountMask) | (uint64_t(expected) & kCountMask) << kExpectedShift |
           (uint64_t(static_cast<uint32_t>(tx)) & kCountMask) << kTxShift | (parity ? kParityBit : 0);
}

// Applies ARRIVALS arrivals (DROP of them also leave the expected count) and TX transaction bytes
// (added: expect, subtracted: complete) to the object at P. False when the ISA's limits are broken.
bool update(uint64_t& v, uint32_t arrivals, uint32_t drop, int64_t tx, bool no_complete, std::string& why) {
    uint32_t pending = pending_of(v), expected = expected_of(v);
    int64_t t = tx_of(v) + tx;
    if (arrivals > pending) {
        why = fmt::format("{} arrivals on an mbarrier with {} pending", arrivals, pending);
        return false;
    }
    if (drop > expected) {
        why = fmt::format("arrive_drop of {} on an mbarrier expecting {}", drop, expected);
        return false;
    }
    if (t < -((1 << 20) - 1) || t > (1 << 20) - 1) {
        why = fmt::format("mbarrier transaction count {} out of range", t);
        return false;
    }
    pending -= arrivals;
    expected -= drop;
    bool parity = (v & kParityBit) != 0;
    if (pending == 0 && t == 0) {
        if (no_complete) {
            why = "mbarrier.arrive.noComplete completed the phase";
            return false;
        }
        parity = !parity;
        pending = expected;
    }
    v = pack(pending, expected, static_cast<int32_t>(t), parity);
    return true;
}

template <Space S>
Flow exec_mbarrier(Warp& w, const Instr& in, uint32_t mask) {
    uint64_t addr[32];
    lane_addresses(w, in, addr);
    const Op op = static_cast<Op>(in.count);
    uint64_t operand[32] = {};
    if (in.s[0] != kNoReg) {
        if (op == Op::TestWait) {
            read_lanes(w, in.s[0], operand);
        } else {
            uint32_t v[32];
            read_lanes(w, in.s[0], v);
            for (int i = 0; i < 32; ++i) operand[i] = v[i];
        }
    } else {
        for (int i = 0; i < 32; ++i) operand[i] = 1; // the default arrival count
    }
    uint64_t state[32] = {};
    uint32_t done = 0;
    uint32_t m = mask;
    while (m) {
        const uint32_t lane = static_cast<uint32_t>(__builtin_ctz(m));
        m &= m - 1;
        uint8_t* p = translate<S>(w, lane, addr[lane], 8, op != Op::TestWait && op != Op::TestParity);
        if (!p) return Flow::Stop;
        uint64_t v;
        __builtin_memcpy(&v, p, 8);
        state[lane] = v;
        std::string why;
        bool ok = true;
        switch (op) {
        case Op::Init: {
            const uint32_t count = static_cast<uint32_t>(operand[lane]);
            if (count == 0 || count > (1u << 20) - 1) {
                why = fmt::format("mbarrier.init count {} outside 1..2^20-1", count);
                ok = false;
            }
            v = pack(count, count, 0, false);
            break;
        }
        case Op::Inval:
            v = 0;
            break;
        case Op::Arrive:
            ok = update(v, static_cast<uint32_t>(operand[lane]), 0, 0, in.flags & kNoComplete, why);
            break;
        case Op::ArriveDrop:
            ok = update(v, static_cast<uint32_t>(operand[lane]), static_cast<uint32_t>(operand[lane]), 0,
                        in.flags & kNoComplete, why);
            break;
        case Op::ArriveExpectTx:
            ok = update(v, 1, 0, int64_t(operand[lane]), false, why);
            break;
        case Op::ExpectTx:
            ok = update(v, 0, 0, int64_t(operand[lane]), false, why);
            break;
        case Op::CompleteTx:
            ok = update(v, 0, 0, -int64_t(operand[lane]), false, why);
            break;
        case Op::CpAsyncArrive:
            ok = update(v, in.flags & kNoInc ? 1 : 0, 0, 0, false, why);
            break;
        case Op::TestWait:
            done |= ((v ^ operand[lane]) & kParityBit) ? lane_bit(lane) : 0u;
            break;
        case Op::TestParity:
            done |= (((v >> 63) ^ operand[lane]) & 1) ? lane_bit(lane) : 0u;
            break;
        }
        if (!ok) return fault(w, FaultKind::IllegalInstruction, lane, addr[lane], 8, why);
        if (op != Op::TestWait && op != Op::TestParity) __builtin_memcpy(p, &v, 8);
    }
    if (in.d[0] != kNoReg) write_lanes(w, in.d[0], state, mask);
    if (op == Op::TestWait || op == Op::TestParity) {
        write_pred(w, in.pd[0], done, mask);
        if (done != mask) {
            // Waiting for other warps: move on and give them the rest of the slice.
            for (int i = 0; i < 32; ++i)
                if (w.active & lane_bit(i)) w.pc[i] = w.cur_pc + 1;
            return Flow::Stop;
        }
    }
    return Flow::Next;
}

// The address operand at I in .shared (kShared) or generic space.
Status emit_mbarrier(InstrDecoder& d, bool shared, size_t i, Op op, uint16_t flags, uint32_t s0, uint32_t d0,
                     int16_t pd0) {
    InstrDecoder::Address a = D4R_TRY(d.address(d.operand(i), shared ? Space::Shared : Space::Generic));
    Instr& in = d.emit(shared ? &exec_mbarrier<Space::Shared> : &exec_mbarrier<Space::Generic>);
    in.base = a.base;
    in.imm = a.imm;
    if (a.base != kNoReg && !a.base_wide) in.flags |= kAddr32;
    in.flags |= flags | (shared ? kShared : 0);
    in.count = static_cast<uint8_t>(op);
    in.s[0] = s0;
    in.d[0] = d0;
    in.pd[0] = pd0;
    return ok_status();
}

Flow exec_pending_count(Warp& w, const Instr& in, uint32_t mask) {
    uint64_t state[32];
    read_lanes(w, in.s[0], state);
    uint32_t out[32];
    for (int i = 0; i < 32; ++i) out[i] = pending_of(state[i]);
    write_lanes(w, in.d[0], out, mask);
    return Flow::Next;
}

// The handler's operation for the front end's (PendingCount has a handler of its own).
Op op_of(const ptx::Mbarrier& b) {
    switch (b.op) {
    case ptx::Mbarrier::Op::Init:
        return Op::Init;
    case ptx::Mbarrier::Op::Inval:
        return Op::Inval;
    case ptx::Mbarrier::Op::Arrive:
        return b.expect_tx ? Op::ArriveExpectTx : Op::Arrive;
    case ptx::Mbarrier::Op::ArriveDrop:
        return Op::ArriveDrop;
    case ptx::Mbarrier::Op::ExpectTx:
        return Op::ExpectTx;
    case ptx::Mbarrier::Op::CompleteTx:
        return Op::CompleteTx;
    case ptx::Mbarrier::Op::TestWait:
    case ptx::Mbarrier::Op::TryWait:
        return b.parity ? Op::TestParity : Op::TestWait;
    case ptx::Mbarrier::Op::CpAsyncArrive:
    case ptx::Mbarrier::Op::PendingCount:
        break;
    }
    return Op::CpAsyncArrive;
}

// The family's meaning is the front end's (ptx/instr_mbarrier.h); here the address, registers and handlers.
Status decode_mbarrier(InstrDecoder& d) {
    const ptx::Mbarrier b = D4R_TRY(d.typed(ptx::decode_mbarrier));
    using MOp = ptx::Mbarrier::Op;
    if (b.op == MOp::PendingCount) {
        uint32_t dst = D4R_TRY(d.dst(0, Type::U32));
        uint32_t src = D4R_TRY(d.src(b.value, b.value_type));
        Instr& in = d.emit(&exec_pending_count);
        in.d[0] = dst;
        in.s[0] = src;
        return ok_status();
    }
    const bool wait = b.op == MOp::TestWait || b.op == MOp::TryWait;
    const uint32_t state = b.state_result ? D4R_TRY(d.dst(0, Type::B64)) : kNoReg;
    const int16_t done = wait ? D4R_TRY(d.pred_dst(d.operand(0))) : int16_t(-1);
    const uint32_t value = b.value_type != Type::None ? D4R_TRY(d.src(b.value, b.value_type)) : kNoReg;
    const uint16_t flags = (b.no_complete ? kNoComplete : 0) | (b.noinc ? kNoInc : 0);
    return emit_mbarrier(d, b.space == ptx::StateSpace::Shared, b.address, op_of(b), flags, value, state, done);
}

} // namespace

// cp.async.mbarrier.arrive{.noinc}{.shared{::cta}}.b64 [addr] (reached through ops_async.cpp's cp decoder): the
// mbarrier front end decodes it with the rest of the family.
Status decode_cp_async_mbarrier_arrive(InstrDecoder& d) { return decode_mbarrier(d); }

void add_mbarrier_ops(OpcodeTable& t) { t["mbarrier"] = &decode_mbarrier; }

} // namespace d4r::ptxsim
