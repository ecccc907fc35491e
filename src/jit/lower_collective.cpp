// Lowering the warp collectives (lower.h): shfl.sync, vote.sync, match.sync, redux.sync, activemask and
// bar.warp.sync. A thread stores the collective's operands in its state (ptxsim/compiled.h) and stops; ptxsim runs
// the collective for the warp with the interpreter's rules (compiled_collectives.cpp) and resumes the thread, which
// reads its results from the state.
#include <fmt/format.h>

#include "jit/lower_impl.h"

namespace d4r::jit {

Status Lowering::lower_warp_sync() {
    const ast::Instruction& in = *current;
    if (!in.guard.empty()) return refuse("a guarded warp collective is not compiled yet");
    if (in.operands.size() != 1) return refuse("expected a member mask");
    LLVMValueRef member = D4R_TRY(value(in.operands[0], Type::U32));
    ptxsim::CollectiveSite site;
    site.kind = ptxsim::CollectiveSite::Kind::WarpSync;
    site.order = static_cast<uint32_t>(m_statement);
    const uint32_t index = static_cast<uint32_t>(m_collectives.size());
    m_collectives.push_back(site);
    return suspend(ptxsim::kCompiledCollective, [&](LLVMValueRef state) {
        ir.store(ir.constant(ir.i32, index), ir.field(state, ptxsim::kStateCollective), 4);
        ir.store(member, ir.field(state, ptxsim::kStateMember), 4);
    });
}

Status Lowering::lower_collective(const ptx::WarpCollective& op) {
    using Op = ptx::WarpCollective::Op;
    using Kind = ptxsim::CollectiveSite::Kind;
    const ast::Instruction& in = *current;
    if (nvptx) return nv_collective(op);
    // A guarded collective runs for the lanes whose guard holds: the others must not stop at it.
    if (!in.guard.empty()) return refuse("a guarded warp collective is not compiled yet");
    ptxsim::CollectiveSite site;
    site.order = static_cast<uint32_t>(m_statement);
    LLVMValueRef member = ir.constant(ir.i32, 0), a = nullptr, b = nullptr, c = nullptr, p = nullptr;
    const size_t n = in.operands.size();
    switch (op.op) {
    case Op::Shuffle:
        if (n != 5 || op.type != Type::B32) return refuse("expected shfl.sync.b32 d, a, b, c, membermask");
        site.kind = Kind::Shuffle;
        site.mode = static_cast<uint8_t>(op.shuffle);
        a = D4R_TRY(value(in.operands[1], Type::B32));
        b = D4R_TRY(value(in.operands[2], Type::U32));
        c = D4R_TRY(value(in.operands[3], Type::U32));
        member = D4R_TRY(value(in.operands[4], Type::U32));
        if (in.operands[1].kind == ast::OperandKind::Name) {
            Reg r = D4R_TRY(reg(in.operands[1].name));
            site.source_offset = state_offset(r);
        }
        break;
    case Op::Vote:
        if (n != 3) return refuse("expected vote.sync d, p, membermask");
        site.kind = Kind::Vote;
        site.mode = static_cast<uint8_t>(op.vote);
        p = ir.zext(D4R_TRY(value(in.operands[1], Type::Pred)), ir.i32);
        member = D4R_TRY(value(in.operands[2], Type::U32));
        break;
    case Op::Match:
        if (n != 3) return refuse("expected match.sync d, a, membermask");
        site.kind = Kind::Match;
        site.mode = op.all ? 1 : 0;
        site.wide = op.type == Type::B64;
        a = ir.zext(D4R_TRY(value(in.operands[1], op.type)), ir.i64);
        member = D4R_TRY(value(in.operands[2], Type::U32));
        break;
    case Op::Reduce:
        if (n != 3 || ptx::type_bits(op.type) != 32)
            return refuse("expected redux.sync.op.32-bit-type d, a, membermask");
        site.kind = Kind::Reduce;
        site.mode = static_cast<uint8_t>(op.reduction);
        site.is_signed = op.type == Type::S32;
        a = D4R_TRY(value(in.operands[1], op.type));
        member = D4R_TRY(value(in.operands[2], Type::U32));
        break;
    case Op::ActiveMask:
        if (n != 1) return refuse("expected activemask.b32 d");
        site.kind = Kind::ActiveMask;
        break;
    }
    const uint32_t index = static_cast<uint32_t>(m_collectives.size());
    m_collectives.push_back(site);
    D4R_TRY(suspend(ptxsim::kCompiledCollective, [&](LLVMValueRef state) {
        ir.store(ir.constant(ir.i32, index), ir.field(state, ptxsim::kStateCollective), 4);
        ir.store(member, ir.field(state, ptxsim::kStateMember), 4);
        if (a) ir.store(a, ir.field(state, ptxsim::kStateA), 4);
        if (b) ir.store(b, ir.field(state, ptxsim::kStateB), 4);
        if (c) ir.store(c, ir.field(state, ptxsim::kStateC), 4);
        if (p) ir.store(p, ir.field(state, ptxsim::kStatePredIn), 4);
    }));
    // The results.
    LLVMValueRef state = thread_ptr(ptxsim::kThreadState);
    LLVMValueRef out = ir.load(ir.i64, ir.field(state, ptxsim::kStateOut), 8);
    LLVMValueRef pred =
        ir.icmp(abi::D4R_LLVMIntNE, ir.load(ir.i32, ir.field(state, ptxsim::kStatePredOut), 4), ir.constant(ir.i32, 0));
    const ast::Operand& d = in.operands[0];
    const bool pair = d.kind == ast::OperandKind::Pair;
    const ast::Operand value_dst = pair ? named(d.name) : d;
    switch (op.op) {
    case Op::Shuffle:
    case Op::Match:
        D4R_TRY(assign(value_dst, Type::B32, ir.trunc(out, ir.i32)));
        if (pair) D4R_TRY(assign(named(d.name2), Type::Pred, pred));
        return ok_status();
    case Op::Vote:
        if (op.vote == ptx::WarpCollective::Vote::Ballot) return assign(d, Type::B32, ir.trunc(out, ir.i32));
        return assign(d, Type::Pred, pred);
    case Op::Reduce:
        return assign(d, op.type, ir.trunc(out, ir.i32));
    case Op::ActiveMask:
        return assign(d, Type::B32, ir.trunc(out, ir.i32));
    }
    return ok_status();
}

// ldmatrix: each lane's row address goes to its state; ptxsim reads the rows with the interpreter's checks once all
// 32 lanes are there and hands each lane its registers (mma_warp.h).
Status Lowering::lower_ldmatrix(const ptx::MatrixOp& op) {
    const ast::Instruction& in = *current;
    if (!in.guard.empty()) return refuse("a guarded warp collective is not compiled yet");
    if (in.operands.size() != 2 || in.operands[0].kind != ast::OperandKind::Vector ||
        in.operands[0].elements.size() != op.matrices)
        return refuse("expected ldmatrix {d...}, [a]");
    const Address a = D4R_TRY(address(in.operands[1], op.space));
    if (a.space != ptx::StateSpace::Shared && a.space != ptx::StateSpace::Generic)
        return refuse("ldmatrix reads shared memory");
    ptxsim::CollectiveSite site;
    site.kind = ptxsim::CollectiveSite::Kind::LoadMatrix;
    site.order = static_cast<uint32_t>(m_statement);
    site.mode = static_cast<uint8_t>(op.matrices);
    site.transpose = op.transpose;
    site.shared = a.space == ptx::StateSpace::Shared;
    site.fault_site = this->site();
    const uint32_t index = static_cast<uint32_t>(m_collectives.size());
    m_collectives.push_back(site);
    D4R_TRY(suspend(ptxsim::kCompiledCollective, [&](LLVMValueRef state) {
        ir.store(ir.constant(ir.i32, index), ir.field(state, ptxsim::kStateCollective), 4);
        ir.store(ir.constant(ir.i32, 0xffffffffu), ir.field(state, ptxsim::kStateMember), 4);
        ir.store(a.value, ir.field(state, ptxsim::kStateA), 8);
    }));
    LLVMValueRef state = thread_ptr(ptxsim::kThreadState);
    for (unsigned r = 0; r < op.matrices; ++r)
        D4R_TRY(assign(in.operands[0].elements[r], Type::B32,
                       ir.load(ir.i32, ir.field(state, ptxsim::kStateFragmentOut + 4 * r), 4)));
    return ok_status();
}

// mma.sync: each lane's A, B and C fragment words go to its state; ptxsim runs the warp's mma with the interpreter's
// numerics (mma_warp.h) once all 32 lanes are there, and each lane reads its D words back.
Status Lowering::lower_mma(const ptx::MatrixOp& op) {
    const ast::Instruction& in = *current;
    if (op.op == ptx::MatrixOp::Op::LoadMatrix) return lower_ldmatrix(op);
    if (!in.guard.empty()) return refuse("a guarded warp collective is not compiled yet");
    if (in.operands.size() != 4) return refuse("expected mma d, a, b, c");
    const unsigned counts[4] = {op.c_regs, op.a_regs, op.b_regs, op.c_regs};
    for (unsigned k = 0; k < 4; ++k)
        if (in.operands[k].kind != ast::OperandKind::Vector || in.operands[k].elements.size() != counts[k])
            return refuse("expected register lists of the fragments' sizes");
    std::vector<LLVMValueRef> words;
    for (unsigned k = 1; k < 4; ++k)
        for (const ast::Operand& e : in.operands[k].elements) words.push_back(D4R_TRY(value(e, Type::B32)));
    if (words.size() > 10) return refuse("internal: fragments larger than the state holds");
    ptxsim::CollectiveSite site;
    site.kind = ptxsim::CollectiveSite::Kind::Mma;
    site.order = static_cast<uint32_t>(m_statement);
    site.mode = static_cast<uint8_t>(op.k);
    site.acc16 = op.accumulator == Type::F16;
    site.format_a = static_cast<uint8_t>(op.a);
    site.format_b = static_cast<uint8_t>(op.b);
    const uint32_t index = static_cast<uint32_t>(m_collectives.size());
    m_collectives.push_back(site);
    D4R_TRY(suspend(ptxsim::kCompiledCollective, [&](LLVMValueRef state) {
        ir.store(ir.constant(ir.i32, index), ir.field(state, ptxsim::kStateCollective), 4);
        ir.store(ir.constant(ir.i32, 0xffffffffu), ir.field(state, ptxsim::kStateMember), 4);
        for (size_t k = 0; k < words.size(); ++k)
            ir.store(words[k], ir.field(state, ptxsim::kStateFragment + 4 * static_cast<unsigned>(k)), 4);
    }));
    LLVMValueRef state = thread_ptr(ptxsim::kThreadState);
    for (unsigned r = 0; r < op.c_regs; ++r)
        D4R_TRY(assign(in.operands[0].elements[r], Type::B32,
                       ir.load(ir.i32, ir.field(state, ptxsim::kStateFragmentOut + 4 * r), 4)));
    return ok_status();
}

} // namespace d4r::jit
