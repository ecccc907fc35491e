// Warp code's warp-wide instructions (lower.h): the collectives (shfl, vote, match, redux, bar.warp.sync), the
// tensor-core instructions (mma.sync, ldmatrix, wmma) and brx.idx, for the lanes that run them together.
//
// A kernel with collectives is warp code only when none of them can be reached while lanes of the warp wait
// elsewhere (uniformity.h, collective_under_divergence), and none is guarded: every lane that has not exited runs
// the collective here, which is the interpreter's collective_ready finding all its members. (mma.sync, ldmatrix and
// wmma.mma need all 32 lanes: warp_matrix faults without them as the interpreter does, whatever the analysis says.)
// With one member mask in every lane (the usual case: an immediate, or a value the lanes share) shfl, vote and redux
// run inline as the interpreter's simple path does; with several (a partitioned warp), and for match and bar.warp.sync,
// ptxsim's warp_collective runs the interpreter's grouping and rules on the warp's registers. mma.sync, ldmatrix and
// wmma.mma hand the warp's fragments to warp_matrix (the interpreter's numerics, mma_warp.h and wmma_warp.h).
// wmma.load and wmma.store are per lane: warp_matrix moves the fragments of the running lanes, lane after lane, with
// the interpreter's own code (wmma_memory.h).
#include <map>

#include <fmt/format.h>

#include "jit/lower_impl.h"
#include "ptxsim/ptxsim.h"

namespace d4r::jit {

using ptx::StateSpace;

// --- the helpers' registers ---

LLVMValueRef Lowering::warp_words() {
    if (!m_warp_words) m_warp_words = ir.words(32 * 32); // 32 registers of 32 lanes: the largest wmma.mma
    return m_warp_words;
}

void Lowering::put_register(unsigned r, LLVMValueRef v, unsigned bits) {
    if (!ir.lanes(v)) v = ir.splat(v);
    v = ir.resize(v, bits, false);
    ir.store(v, ir.byte_offset(warp_words(), ir.constant(ir.i64, uint64_t(r) * 256)), 8);
}

LLVMValueRef Lowering::get_register(unsigned r, unsigned bits) {
    return ir.load(ir.vector_of(ir.int_type(bits)),
                   ir.byte_offset(warp_words(), ir.constant(ir.i64, uint64_t(r) * 256)), 8);
}

void Lowering::call_warp_helper(unsigned entry, uint32_t code, bool defer) {
    LLVMTypeRef params[5] = {ir.ptr, ir.i32, ir.i32, ir.i32, ir.ptr};
    LLVMValueRef r = ir.call(ir.llvm().LLVMFunctionType(ir.i32, params, 5, 0), runtime_entry(entry),
                             {m_thread, ir.constant(ir.i32, code), m_exec, ir.constant(ir.i32, site()), warp_words()});
    // A helper after a failed one does nothing and fails too: the last one says whether any failed. A check every
    // few calls keeps the blocks short (LLVM's instruction scheduler takes time quadratic in a block's length).
    // A guarded instruction's call sits in a block of its own: checked there (the check must dominate its use).
    m_pending_ok = ir.icmp(abi::D4R_LLVMIntNE, r, ir.constant(ir.i32, 0));
    if (!defer || m_guarded || ++m_deferred >= kDeferredCalls) flush_pending();
}

void Lowering::flush_pending() {
    if (!m_pending_ok) return;
    if (!m_fault_return) { // the helper stored the fault's site
        LLVMBasicBlockRef here = ir.current();
        m_fault_return = ir.new_block("fault");
        ir.position(m_fault_return);
        ir.ret(ir.constant(ir.i32, ptxsim::kCompiledFault));
        ir.position(here);
    }
    LLVMBasicBlockRef next = ir.new_block("");
    ir.expect_br(m_pending_ok, true, next, m_fault_return);
    ir.position(next);
    m_pending_ok = nullptr;
    m_deferred = 0;
}

bool Lowering::deferrable(const ptx::TypedInstruction& typed) {
    // A store through a helper too: after a failed helper it does nothing.
    if (std::holds_alternative<ptx::Wmma>(typed) || std::holds_alternative<ptx::Wgmma>(typed)) return true;
    if (const auto* c = std::get_if<ptx::AsyncCopy>(&typed)) return c->op == ptx::AsyncCopy::Op::Copy;
    return std::holds_alternative<ptx::MatrixOp>(typed) || std::holds_alternative<ptx::IntArith>(typed) ||
           std::holds_alternative<ptx::FloatArith>(typed) || std::holds_alternative<ptx::HalfArith>(typed) ||
           std::holds_alternative<ptx::Cvt>(typed) || std::holds_alternative<ptx::Compare>(typed) ||
           std::holds_alternative<ptx::PackedInt>(typed) || std::holds_alternative<ptx::Move>(typed);
}

// --- collectives ---

LLVMValueRef Lowering::first_lane() { return ir.intrinsic("llvm.cttz", {ir.i32}, {m_exec, ir.constant(ir.i1, 0)}); }

LLVMValueRef Lowering::same_in_lanes(LLVMValueRef v) {
    if (!ir.lanes(v)) return ir.constant(ir.i1, 1);
    LLVMValueRef same = ir.mask_to_bits(ir.icmp(abi::D4R_LLVMIntEQ, v, ir.splat(element_of(v, first_lane()))));
    return ir.icmp(abi::D4R_LLVMIntEQ, ir.and_(same, m_exec), m_exec);
}

Status Lowering::warp_collective(const ptx::WarpCollective& op) {
    using Op = ptx::WarpCollective::Op;
    const ast::Instruction& in = *current;
    if (!in.guard.empty()) return refuse("a guarded warp collective is not compiled yet");
    const size_t n = in.operands.size();
    LLVMValueRef a = nullptr, b = nullptr, c = nullptr, p = nullptr, member = nullptr;
    unsigned a_bits = 32;
    switch (op.op) {
    case Op::Shuffle:
        if (n != 5 || op.type != Type::B32) return refuse("expected shfl.sync.b32 d, a, b, c, membermask");
        a = D4R_TRY(value(in.operands[1], Type::B32));
        b = D4R_TRY(value(in.operands[2], Type::U32));
        c = D4R_TRY(value(in.operands[3], Type::U32));
        member = D4R_TRY(value(in.operands[4], Type::U32));
        break;
    case Op::Vote:
        if (n != 3) return refuse("expected vote.sync d, p, membermask");
        p = D4R_TRY(value(in.operands[1], Type::Pred));
        member = D4R_TRY(value(in.operands[2], Type::U32));
        break;
    case Op::Match:
        if (n != 3) return refuse("expected match.sync d, a, membermask");
        a = D4R_TRY(value(in.operands[1], op.type));
        a_bits = ptx::type_bits(op.type);
        member = D4R_TRY(value(in.operands[2], Type::U32));
        break;
    case Op::Reduce:
        if (n != 3 || ptx::type_bits(op.type) != 32)
            return refuse("expected redux.sync.op.32-bit-type d, a, membermask");
        a = D4R_TRY(value(in.operands[1], op.type));
        member = D4R_TRY(value(in.operands[2], Type::U32));
        break;
    case Op::ActiveMask:
        return refuse("internal: activemask is the active mask");
    }
    // The results, from the inline path or the helper.
    LLVMValueRef out_slot = ir.zeroed_slot(ir.vector_of(ir.i32)), pred_slot = ir.zeroed_slot(ir.vector_of(ir.i1));
    LLVMBasicBlockRef helper = ir.new_block("collective_groups"), done = ir.new_block("");
    if (op.op == Op::Match) {
        ir.br(helper);
    } else {
        // One member mask in every lane that runs it: the interpreter's simple path.
        LLVMBasicBlockRef inline_block = ir.new_block("collective");
        ir.cond_br(same_in_lanes(member), inline_block, helper);
        ir.position(inline_block);
        LLVMValueRef m = element_of(member, first_lane()); // the member mask as one value
        LLVMValueRef parts = ir.and_(m_exec, m);           // the lanes whose values take part
        if (op.op == Op::Shuffle) {
            using S = ptx::WarpCollective::Shuffle;
            // shfl_source (scalar_warp.h) for every lane.
            LLVMValueRef lane = lane_ids();
            LLVMValueRef bval = ir.and_(b, ir.constant(ir.i32, 31)), cval = ir.and_(c, ir.constant(ir.i32, 31));
            LLVMValueRef segmask = ir.and_(ir.lshr(c, ir.constant(ir.i32, 8)), ir.constant(ir.i32, 31));
            LLVMValueRef max_lane = ir.or_(ir.and_(lane, segmask), ir.and_(cval, ir.not_(segmask)));
            LLVMValueRef j = nullptr, valid = nullptr;
            switch (op.shuffle) {
            case S::Up:
                j = ir.sub(lane, bval);
                valid = ir.icmp(abi::D4R_LLVMIntSGE, j, max_lane);
                break;
            case S::Down:
                j = ir.add(lane, bval);
                valid = ir.icmp(abi::D4R_LLVMIntSLE, j, max_lane);
                break;
            case S::Butterfly:
                j = ir.xor_(lane, bval);
                valid = ir.icmp(abi::D4R_LLVMIntSLE, j, max_lane);
                break;
            case S::Index:
                j = ir.or_(ir.and_(lane, segmask), ir.and_(bval, ir.not_(segmask)));
                valid = ir.icmp(abi::D4R_LLVMIntSLE, j, max_lane);
                break;
            }
            LLVMValueRef src = ir.select(valid, ir.and_(j, ir.constant(ir.i32, 31)), lane);
            // Every lane's A as its register stands (a lane outside the collective included), read at SRC.
            LLVMValueRef table = ir.zeroed_slot(ir.vector_of(ir.i32));
            ir.store(ir.lanes(a) ? a : ir.splat(a), table, 4);
            LLVMValueRef ptrs = ir.byte_offset(table, ir.mul(ir.zext(src, ir.i64), ir.constant(ir.i64, 4)));
            LLVMValueRef all = ir.constant(ir.vector_of(ir.i1), 1);
            LLVMValueRef got = ir.intrinsic("llvm.masked.gather", {ir.vector_of(ir.i32), ir.vector_of(ir.ptr)},
                                            {ptrs, ir.constant(ir.i32, 4), all, ir.undef(ir.vector_of(ir.i32))});
            ir.store(got, out_slot, 4);
            ir.store(valid, pred_slot, 1);
        } else if (op.op == Op::Vote) {
            using V = ptx::WarpCollective::Vote;
            LLVMValueRef pv = ir.lanes(p) ? p : ir.splat(p);
            LLVMValueRef bits = ir.and_(ir.mask_to_bits(pv), parts);
            LLVMValueRef zero = ir.constant(ir.i32, 0);
            LLVMValueRef result = nullptr;
            switch (op.vote) {
            case V::All:
                result = ir.icmp(abi::D4R_LLVMIntEQ, bits, parts);
                break;
            case V::Any:
                result = ir.icmp(abi::D4R_LLVMIntNE, bits, zero);
                break;
            case V::Uniform:
                result = ir.or_(ir.icmp(abi::D4R_LLVMIntEQ, bits, zero), ir.icmp(abi::D4R_LLVMIntEQ, bits, parts));
                break;
            case V::Ballot:
                result = ir.constant(ir.i1, 0);
                break;
            }
            ir.store(ir.splat(bits), out_slot, 4);
            ir.store(ir.splat(result), pred_slot, 1);
        } else { // redux: the participants' values combined (0 when there are none, as interpreted)
            using R = ptx::WarpCollective::Reduction;
            const bool s = op.type == Type::S32;
            const char* name = "llvm.vector.reduce.add";
            uint64_t identity = 0;
            switch (op.reduction) {
            case R::Add:
                break;
            case R::Min:
                name = s ? "llvm.vector.reduce.smin" : "llvm.vector.reduce.umin";
                identity = s ? 0x7fffffffu : 0xffffffffu;
                break;
            case R::Max:
                name = s ? "llvm.vector.reduce.smax" : "llvm.vector.reduce.umax";
                identity = s ? 0x80000000u : 0;
                break;
            case R::And:
                name = "llvm.vector.reduce.and";
                identity = 0xffffffffu;
                break;
            case R::Or:
                name = "llvm.vector.reduce.or";
                break;
            case R::Xor:
                name = "llvm.vector.reduce.xor";
                break;
            }
            LLVMValueRef av = ir.lanes(a) ? a : ir.splat(a);
            LLVMValueRef v = ir.select(ir.mask_to_lanes(parts), av, ir.constant(ir.vector_of(ir.i32), identity));
            LLVMValueRef r = ir.intrinsic(name, {ir.vector_of(ir.i32)}, {v});
            r = ir.select(ir.icmp(abi::D4R_LLVMIntEQ, parts, ir.constant(ir.i32, 0)), ir.constant(ir.i32, 0), r);
            ir.store(ir.splat(r), out_slot, 4);
        }
        ir.br(done);
    }
    // Several member masks (or match): ptxsim's grouping and rules.
    ir.position(helper);
    if (a) put_register(ptxsim::kWarpA, a, a_bits);
    if (b) put_register(ptxsim::kWarpB, b, 32);
    if (c) put_register(ptxsim::kWarpC, c, 32);
    put_register(ptxsim::kWarpMember, member, 32);
    if (p) put_register(ptxsim::kWarpPredIn, ir.zext(p, ir.i32), 32);
    uint32_t code = ptxsim::warp_collective_code(op);
    const ast::Operand& dst = in.operands[0];
    if (op.op == Op::Shuffle && in.operands[1].kind == ast::OperandKind::Name &&
        (dst.kind == ast::OperandKind::Name || dst.kind == ast::OperandKind::Pair) && dst.name == in.operands[1].name)
        code |= ptxsim::kShuffleInPlace;
    call_warp_helper(ptxsim::kRuntimeWarpCollective, code, false);
    ir.store(get_register(ptxsim::kWarpOut, 32), out_slot, 4);
    ir.store(ir.icmp(abi::D4R_LLVMIntNE, get_register(ptxsim::kWarpPredOut, 32), ir.constant(ir.i32, 0)), pred_slot, 1);
    ir.br(done);
    ir.position(done);
    LLVMValueRef out = ir.load(ir.vector_of(ir.i32), out_slot, 4);
    LLVMValueRef pred = ir.load(ir.vector_of(ir.i1), pred_slot, 1);
    const ast::Operand& d = in.operands[0];
    const bool pair = d.kind == ast::OperandKind::Pair;
    const ast::Operand value_dst = pair ? named(d.name) : d;
    switch (op.op) {
    case Op::Shuffle:
    case Op::Match:
        D4R_TRY(assign(value_dst, Type::B32, out));
        if (pair) D4R_TRY(assign(named(d.name2), Type::Pred, pred));
        return ok_status();
    case Op::Vote:
        if (op.vote == ptx::WarpCollective::Vote::Ballot) return assign(d, Type::B32, out);
        return assign(d, Type::Pred, pred);
    case Op::Reduce:
        return assign(d, op.type, out);
    case Op::ActiveMask:
        break;
    }
    return ok_status();
}

// bar.warp.sync: with one member mask in every lane that runs it, the lanes are all here (nothing to do); with
// several, ptxsim's grouping checks that each group is complete (or faults as interpreted).
Status Lowering::warp_sync_lanes() {
    const ast::Instruction& in = *current;
    if (!in.guard.empty()) return refuse("a guarded warp collective is not compiled yet");
    if (in.operands.size() != 1) return refuse("expected a member mask");
    LLVMValueRef member = D4R_TRY(value(in.operands[0], Type::U32));
    if (!ir.lanes(member)) return ok_status();
    LLVMBasicBlockRef helper = ir.new_block("warp_sync_groups"), done = ir.new_block("");
    ir.cond_br(same_in_lanes(member), done, helper);
    ir.position(helper);
    put_register(ptxsim::kWarpMember, member, 32);
    call_warp_helper(ptxsim::kRuntimeWarpCollective, ptxsim::warp_sync_code(), false);
    ir.br(done);
    ir.position(done);
    return ok_status();
}

// --- the tensor-core instructions ---

// warp_matrix's registers (compiled.h): pointers to 32 lanes each, in the words buffer: the register's own slot where
// it lives in memory (share_matrix_slots), or else a scratch slot of the function's (8 KiB together, reused by every
// call) holding a copy of its lanes, and of any other value the helper takes.
LLVMValueRef Lowering::scratch(unsigned k) {
    if (k >= 32) { // wgmma's D of up to 128 registers, its A and descriptors: a buffer of their own
        if (!m_wide_scratch) m_wide_scratch = ir.words(32 * (kMatrixSlots - 32));
        return ir.byte_offset(m_wide_scratch, ir.constant(ir.i64, uint64_t(k - 32) * 256));
    }
    if (!m_scratch) m_scratch = ir.words(32 * 32); // not initialised: every call writes what it reads
    return ir.byte_offset(m_scratch, ir.constant(ir.i64, uint64_t(k) * 256));
}

void Lowering::point_value(unsigned k, LLVMValueRef v, unsigned bits) {
    if (v) {
        if (!ir.lanes(v)) v = ir.splat(v);
        ir.store(ir.resize(v, bits, false), scratch(k), 8);
    }
    ir.store(scratch(k), ir.byte_offset(warp_words(), ir.constant(ir.i64, uint64_t(k) * 8)), 8);
}

Status Lowering::point_list(const ast::Operand& list, unsigned count, unsigned first, unsigned bits, bool read,
                            const char* what) {
    if (list.kind != ast::OperandKind::Vector || list.elements.size() != count)
        return refuse(fmt::format("expected {} as a list of {} registers", what, count));
    for (unsigned k = 0; k < count; ++k) {
        const ast::Operand& e = list.elements[k];
        if (e.kind != ast::OperandKind::Name || e.name == "_")
            return refuse(fmt::format("{}: expected registers", what));
        Reg r = D4R_TRY(reg(e.name));
        if (r.bits != bits) return refuse(fmt::format("{}: '{}' is not a {}-bit register", what, e.name, bits));
        if (r.in_memory) // the helper reads and writes the register's own slot
            ir.store(r.slot, ir.byte_offset(warp_words(), ir.constant(ir.i64, uint64_t(first + k) * 8)), 8);
        else
            point_value(first + k, read ? ir.load(reg_type(r), r.slot) : nullptr, bits);
    }
    return ok_status();
}

Status Lowering::take_list(const ast::Operand& list, unsigned count, unsigned first, unsigned bits) {
    const Type t = bits == 64 ? Type::B64 : Type::B32;
    for (unsigned k = 0; k < count; ++k) {
        if (D4R_TRY(reg(list.elements[k].name)).in_memory) continue; // written in place
        D4R_TRY(assign(list.elements[k], t, ir.load(ir.vector_of(ir.int_type(bits)), scratch(first + k), 8)));
    }
    return ok_status();
}

Status Lowering::warp_matrix(const ptx::MatrixOp& op) {
    const ast::Instruction& in = *current;
    if (!in.guard.empty()) return refuse("a guarded warp collective is not compiled yet");
    if (op.op == ptx::MatrixOp::Op::LoadMatrix) {
        if (in.operands.size() != 2) return refuse("expected ldmatrix {d...}, [a]");
        const Address a = D4R_TRY(address(in.operands[1], op.space));
        if (a.space != StateSpace::Shared && a.space != StateSpace::Generic)
            return refuse("ldmatrix reads shared memory");
        point_value(0, a.value, 64);
        D4R_TRY(point_list(in.operands[0], op.matrices, 1, 32, false, "ldmatrix's destination"));
        call_warp_helper(ptxsim::kRuntimeWarpMatrix, ptxsim::matrix_op_code(op));
        return take_list(in.operands[0], op.matrices, 1, 32);
    }
    if (in.operands.size() != 4) return refuse("expected mma d, a, b, c");
    const unsigned nd = op.c_regs, na = op.a_regs, nb = op.b_regs;
    D4R_TRY(point_list(in.operands[0], nd, 0, 32, false, "mma's D"));
    D4R_TRY(point_list(in.operands[1], na, nd, 32, true, "mma's A"));
    D4R_TRY(point_list(in.operands[2], nb, nd + na, 32, true, "mma's B"));
    D4R_TRY(point_list(in.operands[3], nd, nd + na + nb, 32, true, "mma's C"));
    call_warp_helper(ptxsim::kRuntimeWarpMatrix, ptxsim::matrix_op_code(op));
    return take_list(in.operands[0], nd, 0, 32);
}

// wgmma.mma_async: warp_matrix runs the warp's 16 rows (compiled.h's order: D, A's registers or descriptors, B's
// descriptors, scale-d unless a constant); fence, commit_group and wait_group have nothing to do in warp code either
// (the product is made when mma_async runs, ops_wgmma.cpp).
Status Lowering::warp_wgmma(const ptx::Wgmma& op) {
    const ast::Instruction& in = *current;
    if (op.op != ptx::Wgmma::Op::Mma) return ok_status();
    if (!in.guard.empty()) return refuse("a guarded wgmma is not compiled yet");
    const unsigned nd = op.d_regs;
    D4R_TRY(point_list(in.operands[0], nd, 0, 32, true, "wgmma's D"));
    unsigned next = nd;
    if (op.a_registers) {
        D4R_TRY(point_list(in.operands[1], 4, next, 32, true, "wgmma's A"));
        next += 4;
    } else {
        point_value(next++, D4R_TRY(value(in.operands[1], Type::B64)), 64);
    }
    point_value(next++, D4R_TRY(value(in.operands[2], Type::B64)), 64);
    if (op.scale_d < 0) point_value(next++, ir.zext(D4R_TRY(value(in.operands[3], Type::Pred)), ir.i32), 32);
    call_warp_helper(ptxsim::kRuntimeWarpMatrix, ptxsim::wgmma_op_code(op));
    return take_list(in.operands[0], nd, 0, 32);
}

Status Lowering::warp_wmma(const ptx::Wmma& op) {
    using ptx::wmma::EType;
    const ast::Instruction& in = *current;
    if (!in.guard.empty()) return refuse("a guarded wmma is not compiled yet");
    if (op.op != ptx::Wmma::Op::Mma) return warp_wmma_memory(op);
    if (in.operands.size() != 4) return refuse("expected wmma.mma d, a, b, c");
    auto bits = [](EType t) { return t == EType::F64 ? 64u : 32u; };
    const unsigned nd = op.d_regs, na = op.a_regs, nb = op.b_regs, nc = op.c_regs;
    D4R_TRY(point_list(in.operands[0], nd, 0, bits(op.d_type), false, "wmma.mma's D"));
    D4R_TRY(point_list(in.operands[1], na, nd, bits(op.type), true, "wmma.mma's A"));
    D4R_TRY(point_list(in.operands[2], nb, nd + na, bits(op.type), true, "wmma.mma's B"));
    D4R_TRY(point_list(in.operands[3], nc, nd + na + nb, bits(op.c_type), true, "wmma.mma's C"));
    call_warp_helper(ptxsim::kRuntimeWarpMatrix, ptxsim::wmma_op_code(op));
    return take_list(in.operands[0], nd, 0, bits(op.d_type));
}

// wmma.load and wmma.store: ptxsim's warp_matrix moves the fragment for the running lanes (wmma_memory.h: lane after
// lane, each its elements in order, as interpreted) from register 0's addresses with register 1's strides; a load
// writes the running lanes of the fragment's registers only.
Status Lowering::warp_wmma_memory(const ptx::Wmma& op) {
    using namespace ptx::wmma;
    const ast::Instruction& in = *current;
    const bool store = op.op == ptx::Wmma::Op::Store;
    const Address a = D4R_TRY(address(in.operands[store ? 0 : 1], op.space));
    if (a.space != StateSpace::Global && a.space != StateSpace::Shared && a.space != StateSpace::Generic)
        return refuse("wmma in this state space is not compiled yet");
    const auto [rows, cols] = matrix_of(op.fragment, dims_of(op.shape));
    LLVMValueRef stride = ir.constant(ir.i32, op.col ? rows : cols);
    if (op.stride) stride = D4R_TRY(value(in.operands[2], Type::U32));
    ptx::Wmma resolved = op;
    resolved.space = a.space; // a variable's own space when the instruction's is generic
    point_value(0, a.value, 64);
    point_value(1, stride, 32);
    const unsigned bits = op.type == EType::F64 ? 64 : 32;
    const ast::Operand& list = in.operands[store ? 1 : 0];
    D4R_TRY(point_list(list, op.regs, 2, bits, store, store ? "wmma.store's fragment" : "wmma.load's fragment"));
    call_warp_helper(ptxsim::kRuntimeWarpMatrix, ptxsim::wmma_op_code(resolved));
    return store ? ok_status() : take_list(list, op.regs, 2, bits);
}

// --- brx.idx ---

// Each running lane goes to the table entry its index selects (exec_brx): a lane whose index is outside the table
// faults first (the lowest such lane); lanes going forward wait at their label; of the lanes going back, those of
// the earliest label run on from it while the others wait at theirs, and the lanes that do not branch (a guard) wait
// at the fall-through.
Status Lowering::warp_branch_table(const ast::Instruction& in) {
    if (in.operands.size() != 2 || in.operands[1].kind != ast::OperandKind::Name)
        return refuse("brx.idx without a branch table");
    const ast::BranchTable* table = nullptr;
    for (const ast::BranchTable& t : function.tables)
        if (t.name == in.operands[1].name) table = &t;
    if (!table) return refuse(fmt::format("'{}' is not a .branchtargets list of this function", in.operands[1].name));
    // The lanes of each label (a label may appear several times in the table).
    std::map<size_t, std::pair<const Label*, std::vector<unsigned>>> targets; // by statement
    for (size_t k = 0; k < table->labels.size(); ++k) {
        auto label = m_labels.find(table->labels[k]);
        if (label == m_labels.end()) return refuse(fmt::format("unknown label '{}'", table->labels[k]));
        auto& t = targets[label->second.statement];
        t.first = &label->second;
        t.second.push_back(static_cast<unsigned>(k));
    }
    LLVMValueRef index = D4R_TRY(value(in.operands[0], Type::U32));
    if (!ir.lanes(index)) index = ir.splat(index);
    const uint64_t entries = table->labels.size();
    LLVMValueRef bad =
        ir.and_(ir.mask_to_bits(ir.icmp(abi::D4R_LLVMIntUGE, index, ir.constant(ir.i32, entries))), m_exec);
    LLVMBasicBlockRef outside = ir.new_block("brx_outside"), inside = ir.new_block("");
    ir.cond_br(ir.icmp(abi::D4R_LLVMIntNE, bad, ir.constant(ir.i32, 0)), outside, inside);
    ir.position(outside);
    LLVMValueRef lane = ir.intrinsic("llvm.cttz", {ir.i32}, {bad, ir.constant(ir.i1, 0)});
    ir.store(lane, ir.field(m_thread, ptxsim::kThreadLane), 4);
    LLVMTypeRef params[3] = {ir.ptr, ir.i32, ir.i32};
    ir.call(ir.llvm().LLVMFunctionType(ir.void_type, params, 3, 0), runtime_entry(ptxsim::kRuntimeBranchFault),
            {m_thread, element_of(index, lane), ir.constant(ir.i32, entries)});
    ir.store(ir.constant(ir.i32, site()), ir.field(m_thread, ptxsim::kThreadFaultSite), 4);
    ir.ret(ir.constant(ir.i32, ptxsim::kCompiledFault));
    ir.position(inside);
    std::vector<std::pair<const Label*, LLVMValueRef>> back; // the labels at or before here, in body order
    for (const auto& [statement, t] : targets) {
        LLVMValueRef lanes = ir.constant(ir.i32, 0);
        for (unsigned k : t.second)
            lanes = ir.or_(lanes, ir.mask_to_bits(ir.icmp(abi::D4R_LLVMIntEQ, index, ir.constant(ir.i32, k))));
        lanes = ir.and_(lanes, m_exec);
        if (statement > m_statement) {
            const Merge* m = merge_at(2 * statement);
            if (!m) return refuse("internal: a label without its merge");
            ir.store(ir.or_(ir.load(ir.i32, m->waiting, 4), lanes), m->waiting, 4);
        } else {
            back.emplace_back(t.first, lanes);
        }
    }
    LLVMValueRef rest = ir.and_(ir.load(ir.i32, m_active, 4), ir.not_(m_exec));
    if (back.empty()) {
        ir.store(rest, m_active, 4);
        LLVMBasicBlockRef skip = ir.new_block("skip"), run = ir.new_block("");
        ir.cond_br(ir.icmp(abi::D4R_LLVMIntEQ, rest, ir.constant(ir.i32, 0)), skip, run);
        ir.position(skip);
        skip_after(2 * m_statement);
        ir.position(run);
        return ok_status();
    }
    const Merge* fall = merge_at(2 * m_statement + 1);
    if (!fall) return refuse("internal: a branch back without its merge");
    LLVMValueRef any_back = ir.constant(ir.i32, 0);
    for (const auto& [label, lanes] : back) any_back = ir.or_(any_back, lanes);
    LLVMBasicBlockRef looping = ir.new_block("brx_back"), no_back = ir.new_block("");
    ir.cond_br(ir.icmp(abi::D4R_LLVMIntNE, any_back, ir.constant(ir.i32, 0)), looping, no_back);
    // No lane goes back: the others run on (or, with none, on to the next place where lanes wait).
    ir.position(no_back);
    ir.store(rest, m_active, 4);
    LLVMBasicBlockRef skip = ir.new_block("skip");
    ir.cond_br(ir.icmp(abi::D4R_LLVMIntEQ, rest, ir.constant(ir.i32, 0)), skip, fall->block);
    ir.position(skip);
    skip_after(2 * m_statement + 1);
    // Some go back: the earliest label's lanes run from it; the later ones wait at theirs, the rest here.
    ir.position(looping);
    ir.store(ir.or_(ir.load(ir.i32, fall->waiting, 4), rest), fall->waiting, 4);
    poll_watchdog();
    for (size_t k = 0; k < back.size(); ++k) {
        LLVMBasicBlockRef go = ir.new_block("brx_to"), next = ir.new_block("");
        ir.cond_br(ir.icmp(abi::D4R_LLVMIntNE, back[k].second, ir.constant(ir.i32, 0)), go, next);
        ir.position(go);
        for (size_t j = k + 1; j < back.size(); ++j) {
            const Merge* m = merge_at(2 * back[j].first->statement);
            if (!m) return refuse("internal: a label without its merge");
            ir.store(ir.or_(ir.load(ir.i32, m->waiting, 4), back[j].second), m->waiting, 4);
        }
        ir.store(back[k].second, m_active, 4);
        ir.br(back[k].first->block);
        ir.position(next);
    }
    ir.br(fall->block); // not reached: some lane went back
    ir.position(fall->block);
    enter_merge(*fall);
    return ok_status();
}

} // namespace d4r::jit
