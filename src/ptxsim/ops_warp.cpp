// Warp collectives: shfl.sync (up, down, bfly, idx; clamp and segment mask; the optional predicate
// destination), vote.sync (all, any, uni, ballot), match.sync (any, all; .b32, .b64), redux.sync (add, min,
// max on .u32/.s32; and, or, xor on .b32) and activemask.
//
// A collective runs once every non-exited lane of its member mask executes it; lanes that reach it
// early wait (collective_ready), which also covers member lanes arriving through different paths.
//
// Instr use: shfl: d[0] value, pd[0] predicate, s[0] a, s[1] b, s[2] c, s[3] member mask, flags = mode;
// vote: d[0] ballot result or pd[0], ps[0] source predicate, s[0] member mask, flags = mode;
// match: d[0] lane mask, pd[0] predicate (.all), s[0] value, s[1] member mask;
// redux: d[0] result, s[0] value, s[1] member mask.
//
// match and redux combine the values of the non-exited lanes of the member mask (the ISA's
// participants), whichever instruction each of them executes (see collective_ready).
#include <fmt/format.h>

#include "ptx/instr_warp.h"
#include "ptxsim/decoder.h"
#include "ptxsim/lanes.h"
#include "ptxsim/scalar_warp.h"

namespace d4r::ptxsim {

SyncResult collective_ready(Warp& w, const Instr& in, uint32_t mask, unsigned member_slot, CollectiveGroup& g) {
    const uint32_t* members = reinterpret_cast<const uint32_t*>(w.regs + in.s[member_slot]);
    const uint32_t member = members[__builtin_ctz(mask)];
    // Lanes executing together may name different member masks: disjoint groups of one warp, each its own
    // collective (labeled_partition's groups reach one redux.sync, each lane with its group's mask). The
    // group of the lowest lane runs now; the others stay at this instruction and run next (deferred).
    const uint32_t all = mask;
    for (uint32_t m = mask & (mask - 1); m; m &= m - 1) {
        const unsigned l = static_cast<unsigned>(__builtin_ctz(m));
        if (members[l] != member) mask &= ~lane_bit(l);
    }
    g.deferred = all & ~mask;
    const uint32_t needed = member & w.live;
    g.lanes = mask;
    g.others = 0;
    for (unsigned l = 0; l < 32; ++l)
        if (mask & lane_bit(l)) g.instr[l] = &in;
    uint32_t missing = needed & ~mask;
    if (missing) {
        // Members waiting at another instruction of the same kind with the same member mask join.
        const Instr* code = w.launch->program->code.data();
        uint32_t candidates = w.sync_wait & ~w.active & w.live;
        for (unsigned l = 0; l < 32; ++l) {
            if (!(candidates & lane_bit(l))) continue;
            const Instr& other = code[w.pc[l]];
            if (other.fn != in.fn || other.flags != in.flags) continue;
            if (reinterpret_cast<const uint32_t*>(w.regs + other.s[member_slot])[l] != member) continue;
            g.others |= lane_bit(l);
            g.instr[l] = &other;
        }
        missing &= ~g.others;
    }
    if (missing == 0) {
        g.lanes = mask | g.others;
        w.sync_wait &= ~(w.active | g.others);
        return SyncResult::Go;
    }
    if (w.forced) {
        fault(w, FaultKind::IllegalInstruction, static_cast<uint32_t>(__builtin_ctz(mask)), 0, 0,
              fmt::format("member mask 0x{:08x}: lanes 0x{:08x} never reach this collective", member, missing));
        return SyncResult::Fault;
    }
    // This group waits; deferred lanes stay here too (runnable: their own group runs next).
    w.sync_wait |= mask;
    const uint32_t next = w.cur_pc + 1;
    for (int i = 0; i < 32; ++i)
        if (w.active & lane_bit(i)) w.pc[i] = (all & lane_bit(i)) ? w.cur_pc : next;
    return SyncResult::Wait;
}

Flow finish_collective(Warp& w, const CollectiveGroup& g) {
    for (unsigned l = 0; l < 32; ++l)
        if (g.others & lane_bit(l)) ++w.pc[l];
    const uint32_t next = w.cur_pc + 1;
    for (int i = 0; i < 32; ++i)
        if (w.active & lane_bit(i)) w.pc[i] = (g.deferred & lane_bit(i)) ? w.cur_pc : next;
    return Flow::Resched;
}

namespace {

D4R_INLINE Flow sync_flow(SyncResult r) { return r == SyncResult::Wait ? Flow::Resched : Flow::Stop; }

template <ShflMode M>
Flow exec_shfl(Warp& w, const Instr& in, uint32_t mask) {
    CollectiveGroup g;
    SyncResult ready = collective_ready(w, in, mask, 3, g);
    if (ready != SyncResult::Go) return sync_flow(ready);
    if (g.simple()) {
        uint32_t a[32], b[32], c[32], r[32];
        read_lanes(w, in.s[0], a);
        read_lanes(w, in.s[1], b);
        read_lanes(w, in.s[2], c);
        uint32_t valid = 0;
        for (unsigned lane = 0; lane < 32; ++lane) {
            bool p;
            r[lane] = a[shfl_source(M, lane, b[lane], c[lane], p)];
            valid |= p ? lane_bit(lane) : 0u;
        }
        write_lanes(w, in.d[0], r, mask);
        write_pred(w, in.pd[0], valid, mask);
        return Flow::Next;
    }
    // Members at several instructions: each lane reads its operands and writes its result through its
    // own instruction; a source lane contributes the value of its own instruction's operand.
    uint32_t a[32] = {}, r[32] = {};
    bool valid[32] = {};
    for_lanes(g.lanes, [&](unsigned l) { a[l] = lane_slot32(w, g.instr[l]->s[0], l); });
    for_lanes(g.lanes, [&](unsigned l) {
        const Instr& li = *g.instr[l];
        r[l] = a[shfl_source(M, l, lane_slot32(w, li.s[1], l), lane_slot32(w, li.s[2], l), valid[l])];
    });
    for_lanes(g.lanes, [&](unsigned l) {
        const Instr& li = *g.instr[l];
        lane_slot32(w, li.d[0], l) = r[l];
        write_pred(w, li.pd[0], valid[l] ? kFullMask : 0u, lane_bit(l));
    });
    return finish_collective(w, g);
}

// The family's meaning is the front end's (ptx/instr_warp.h); here the handlers and operands.
// A destination operand "d|p" (shfl, match.all): the register and, when present, the predicate.
Status dst_with_pred(InstrDecoder& d, Type t, uint32_t& dd, int16_t& p) {
    const ast::Operand& dst = d.operand(0);
    p = -1;
    if (dst.kind == ast::OperandKind::Pair) {
        ast::Operand v = dst, q = dst;
        v.kind = q.kind = ast::OperandKind::Name;
        q.name = dst.name2;
        dd = D4R_TRY(d.dst(v, t));
        p = D4R_TRY(d.pred_dst(q));
    } else {
        dd = D4R_TRY(d.dst(dst, t));
    }
    return ok_status();
}

Status decode_shfl(InstrDecoder& d) {
    const ptx::WarpCollective w = D4R_TRY(d.typed(ptx::decode_warp));
    const Type t = w.type;
    uint32_t dd = kNoReg;
    int16_t p = -1;
    D4R_TRY(dst_with_pred(d, t, dd, p));
    uint32_t a = D4R_TRY(d.src(1, t)), b = D4R_TRY(d.src(2, Type::U32)), c = D4R_TRY(d.src(3, Type::U32));
    uint32_t member = D4R_TRY(d.src(4, Type::U32));
    using Shuffle = ptx::WarpCollective::Shuffle;
    ExecFn fn = w.shuffle == Shuffle::Up          ? &exec_shfl<ShflMode::Up>
                : w.shuffle == Shuffle::Down      ? &exec_shfl<ShflMode::Down>
                : w.shuffle == Shuffle::Butterfly ? &exec_shfl<ShflMode::Bfly>
                                                  : &exec_shfl<ShflMode::Idx>;
    Instr& in = d.emit(fn);
    in.d[0] = dd;
    in.pd[0] = p;
    in.s[0] = a;
    in.s[1] = b;
    in.s[2] = c;
    in.s[3] = member;
    return ok_status();
}

enum class VoteMode : uint16_t { All, Any, Uni, Ballot };

Flow exec_vote(Warp& w, const Instr& in, uint32_t mask) {
    CollectiveGroup g;
    SyncResult ready = collective_ready(w, in, mask, 0, g);
    if (ready != SyncResult::Go) return sync_flow(ready);
    const uint32_t member = lane_slot32(w, in.s[0], static_cast<unsigned>(__builtin_ctz(mask)));
    const uint32_t voters = g.lanes & member;
    uint32_t p = 0;
    for_lanes(voters, [&](unsigned l) {
        const Instr& li = *g.instr[l];
        p |= read_pred(w, li.ps[0], li.ps_neg[0]) & lane_bit(l);
    });
    uint32_t result = 0;
    switch (static_cast<VoteMode>(in.flags)) {
    case VoteMode::All:
        result = p == voters ? kFullMask : 0u;
        break;
    case VoteMode::Any:
        result = p != 0 ? kFullMask : 0u;
        break;
    case VoteMode::Uni:
        result = (p == 0 || p == voters) ? kFullMask : 0u;
        break;
    case VoteMode::Ballot:
        result = p;
        break;
    }
    if (static_cast<VoteMode>(in.flags) == VoteMode::Ballot) {
        if (g.simple()) {
            uint32_t r[32];
            for (int i = 0; i < 32; ++i) r[i] = result;
            write_lanes(w, in.d[0], r, mask);
        } else {
            for_lanes(g.lanes, [&](unsigned l) { lane_slot32(w, g.instr[l]->d[0], l) = result; });
        }
    } else if (g.simple()) {
        write_pred(w, in.pd[0], result, mask);
    } else {
        for_lanes(g.lanes, [&](unsigned l) { write_pred(w, g.instr[l]->pd[0], result, lane_bit(l)); });
    }
    return g.simple() ? Flow::Next : finish_collective(w, g);
}

Status decode_vote(InstrDecoder& d) {
    const ptx::WarpCollective w = D4R_TRY(d.typed(ptx::decode_warp));
    using Vote = ptx::WarpCollective::Vote;
    const bool ballot = w.vote == Vote::Ballot;
    auto src = D4R_TRY(d.pred_src(d.operand(1)));
    uint32_t member = D4R_TRY(d.src(2, Type::U32));
    uint32_t dd = kNoReg;
    int16_t pd = -1;
    if (ballot)
        dd = D4R_TRY(d.dst(0, Type::B32));
    else
        pd = D4R_TRY(d.pred_dst(d.operand(0)));
    Instr& in = d.emit(&exec_vote);
    in.d[0] = dd;
    in.pd[0] = pd;
    in.ps[0] = src.first;
    in.ps_neg[0] = src.second;
    in.s[0] = member;
    in.flags = static_cast<uint16_t>(w.vote == Vote::All       ? VoteMode::All
                                     : w.vote == Vote::Any     ? VoteMode::Any
                                     : w.vote == Vote::Uniform ? VoteMode::Uni
                                                               : VoteMode::Ballot);
    return ok_status();
}

// match.any: each participant gets the participants holding its value; match.all: every participant
// gets the participants (and a true predicate) when all values are equal, else 0 (and false).
template <class T, bool All>
Flow exec_match(Warp& w, const Instr& in, uint32_t mask) {
    CollectiveGroup g;
    SyncResult ready = collective_ready(w, in, mask, 1, g);
    if (ready != SyncResult::Go) return sync_flow(ready);
    const uint32_t member = lane_slot32(w, in.s[1], static_cast<unsigned>(__builtin_ctz(mask)));
    const uint32_t parts = g.lanes & member;
    T v[32] = {};
    for_lanes(parts, [&](unsigned l) { v[l] = reinterpret_cast<const T*>(w.regs + g.instr[l]->s[0])[l]; });
    uint32_t r[32] = {};
    uint32_t pred = 0;
    if constexpr (All) {
        const T first = v[__builtin_ctz(parts | 0x80000000u)];
        bool same = true;
        for_lanes(parts, [&](unsigned l) { same = same && v[l] == first; });
        for (int i = 0; i < 32; ++i) r[i] = same ? parts : 0u;
        pred = same ? kFullMask : 0u;
    } else {
        for_lanes(parts, [&](unsigned l) {
            uint32_t m = 0;
            for_lanes(parts, [&](unsigned k) { m |= v[k] == v[l] ? lane_bit(k) : 0u; });
            r[l] = m;
        });
    }
    if (g.simple()) {
        write_lanes(w, in.d[0], r, mask);
        if (All) write_pred(w, in.pd[0], pred, mask);
        return Flow::Next;
    }
    for_lanes(g.lanes, [&](unsigned l) {
        lane_slot32(w, g.instr[l]->d[0], l) = r[l];
        if (All) write_pred(w, g.instr[l]->pd[0], pred, lane_bit(l));
    });
    return finish_collective(w, g);
}

Status decode_match(InstrDecoder& d) {
    const ptx::WarpCollective w = D4R_TRY(d.typed(ptx::decode_warp));
    const Type t = w.type;
    const bool all = w.all;
    uint32_t a = D4R_TRY(d.src(1, t));
    uint32_t member = D4R_TRY(d.src(2, Type::B32));
    uint32_t dd = kNoReg;
    int16_t p = -1;
    D4R_TRY(dst_with_pred(d, Type::B32, dd, p));
    ExecFn fn = t == Type::B32 ? (all ? &exec_match<uint32_t, true> : &exec_match<uint32_t, false>)
                               : (all ? &exec_match<uint64_t, true> : &exec_match<uint64_t, false>);
    Instr& in = d.emit(fn);
    in.d[0] = dd;
    in.pd[0] = p;
    in.s[0] = a;
    in.s[1] = member;
    return ok_status();
}

// redux.sync: one reduction over the participants' values, written to every participant.
template <ReduxOp Op>
Flow exec_redux(Warp& w, const Instr& in, uint32_t mask) {
    CollectiveGroup g;
    SyncResult ready = collective_ready(w, in, mask, 1, g);
    if (ready != SyncResult::Go) return sync_flow(ready);
    const uint32_t member = lane_slot32(w, in.s[1], static_cast<unsigned>(__builtin_ctz(mask)));
    const uint32_t parts = g.lanes & member;
    bool first = true;
    uint32_t acc = 0;
    for_lanes(parts, [&](unsigned l) {
        uint32_t v = lane_slot32(w, g.instr[l]->s[0], l);
        acc = first ? v : redux_step<Op>(acc, v);
        first = false;
    });
    if (g.simple()) {
        uint32_t r[32];
        for (int i = 0; i < 32; ++i) r[i] = acc;
        write_lanes(w, in.d[0], r, mask);
        return Flow::Next;
    }
    for_lanes(g.lanes, [&](unsigned l) { lane_slot32(w, g.instr[l]->d[0], l) = acc; });
    return finish_collective(w, g);
}

Status decode_redux(InstrDecoder& d) {
    const ptx::WarpCollective w = D4R_TRY(d.typed(ptx::decode_warp));
    const Type t = w.type;
    using Reduction = ptx::WarpCollective::Reduction;
    const bool s = t == Type::S32;
    ExecFn fn = w.reduction == Reduction::Add   ? &exec_redux<ReduxOp::Add>
                : w.reduction == Reduction::Min ? (s ? &exec_redux<ReduxOp::MinS> : &exec_redux<ReduxOp::MinU>)
                : w.reduction == Reduction::Max ? (s ? &exec_redux<ReduxOp::MaxS> : &exec_redux<ReduxOp::MaxU>)
                : w.reduction == Reduction::And ? &exec_redux<ReduxOp::And>
                : w.reduction == Reduction::Or  ? &exec_redux<ReduxOp::Or>
                                                : &exec_redux<ReduxOp::Xor>;
    uint32_t a = D4R_TRY(d.src(1, t));
    uint32_t member = D4R_TRY(d.src(2, Type::B32));
    uint32_t dd = D4R_TRY(d.dst(0, t));
    Instr& in = d.emit(fn);
    in.d[0] = dd;
    in.s[0] = a;
    in.s[1] = member;
    return ok_status();
}

// activemask: the lanes executing this instruction together (the converged group at this pc).
Flow exec_activemask(Warp& w, const Instr& in, uint32_t mask) {
    uint32_t r[32];
    for (int i = 0; i < 32; ++i) r[i] = w.active;
    write_lanes(w, in.d[0], r, mask);
    return Flow::Next;
}

Status decode_activemask(InstrDecoder& d) {
    D4R_TRY(d.typed(ptx::decode_warp));
    uint32_t dd = D4R_TRY(d.dst(0, Type::B32));
    d.emit(&exec_activemask).d[0] = dd;
    return ok_status();
}

} // namespace

void add_warp_ops(OpcodeTable& t) {
    t["shfl"] = &decode_shfl;
    t["vote"] = &decode_vote;
    t["activemask"] = &decode_activemask;
    t["match"] = &decode_match;
    t["redux"] = &decode_redux;
}

} // namespace d4r::ptxsim
