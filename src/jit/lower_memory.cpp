// Lowering memory access and moves (lower.h): ld, st and prefetch in every state space, cp.async, mov (the clock and
// timer registers through ptxsim's runtime) and cvta. Addresses are checked as ptxsim's translate() checks them:
// inline for kernel parameters at known offsets, the global range the thread hit last, shared and local memory;
// through translate() itself otherwise (which records the fault).
#include <fmt/format.h>

#include "jit/lower_impl.h"
#include "ptxsim/ptxsim.h"

namespace d4r::jit {

using ptx::StateSpace;

namespace {

// The generic window of a space (ptxsim.h), 0 for global.
uint64_t window_of(StateSpace s) {
    switch (s) {
    case StateSpace::Shared:
        return ptxsim::kSharedWindow;
    case StateSpace::Local:
        return ptxsim::kLocalWindow;
    case StateSpace::Param:
        return ptxsim::kParamWindow;
    default:
        return 0;
    }
}

} // namespace

Expected<Lowering::Address> Lowering::address(const ast::Operand& o, StateSpace space) {
    if (o.kind != ast::OperandKind::Address || !o.elements.empty()) return refuse("expected a memory address [...]");
    Address a;
    a.space = space;
    const uint64_t offset = static_cast<uint64_t>(o.offset);
    if (o.name.empty()) {
        a.constant = true;
        a.constant_value = offset;
        a.value = ir.constant(ir.i64, offset);
        return a;
    }
    if (const ptxsim::VariablePlace* place = variable(o.name)) {
        // A variable: its address in its space, or its generic address for a generic access.
        if (space != StateSpace::Generic && place->space != space)
            return refuse(fmt::format("'{}' is not in the instruction's space", o.name));
        if (nvptx && place->space == StateSpace::Param && (place->address & kParamObject)) {
            // A device function's parameter or a call's argument: its bytes' generic address.
            const LLVMValueRef object = m_objects[place->address & ~kParamObject];
            a.value =
                ir.add(ir.llvm().LLVMBuildPtrToInt(ir.builder(), object, ir.i64, ""), ir.constant(ir.i64, offset));
            a.space = StateSpace::Generic;
            return a;
        }
        if (nvptx && place->space != StateSpace::Param) { // its LLVM object's address
            a.value =
                ir.add(D4R_TRY(nv_variable_address(*place, space == StateSpace::Generic)), ir.constant(ir.i64, offset));
            return a;
        }
        if (nvptx && space == StateSpace::Generic)
            return refuse(fmt::format("a generic access to kernel parameter '{}'", o.name));
        const uint64_t window = space == StateSpace::Generic ? window_of(place->space) : 0;
        LLVMValueRef at = D4R_TRY(variable_address(o.name, *place));
        a.value = ir.add(at, ir.constant(ir.i64, window + offset));
        // Known now but for a host address (read at run time).
        a.constant = place->space == StateSpace::Shared || place->space == StateSpace::Local ||
                     place->space == StateSpace::Param;
        a.constant_value = a.constant ? window + place->address + offset : 0;
        return a;
    }
    Reg r = D4R_TRY(reg(o.name));
    if (r.bits == 1) return refuse(fmt::format("predicate '{}' as an address", o.name));
    LLVMValueRef base = ir.load(reg_type(r), r.slot);
    a.narrow = r.bits == 32;
    a.base = base;
    a.offset = r.bits == 32 ? offset & 0xffffffffu : offset;
    if (r.bits == 32) // a 32-bit address wraps at 32 bits, then widens
        a.value = ir.zext(ir.add(base, ir.constant(ir.i32, offset & 0xffffffffu)), ir.i64);
    else
        a.value = ir.add(base, ir.constant(ir.i64, offset));
    return a;
}

bool Lowering::generic_global(const Address& a, bool write) const {
    // A variable's generic address (its window known now) is not worth the check; nor is a store when the module has
    // .const variables: the global ranges then hold the constant segment, which a generic store must not write (the
    // interpreter's translate<Generic> faults there).
    if (a.constant) return false;
    if (!write) return true;
    if (!m_const_variables) {
        m_const_variables = false;
        for (const auto& entry : source.layout->module_variables)
            if (entry.second.space == StateSpace::Const) m_const_variables = true;
    }
    return !*m_const_variables;
}

LLVMValueRef Lowering::pointer(const Address& a, StateSpace space, unsigned bytes, bool write) {
    if (nvptx) return nv_pointer(a, space);
    // A kernel parameter at a known offset: checked now (the block's size is the kernel's).
    if (space == StateSpace::Param && a.constant && !write) {
        const uint64_t size = source.info->param_block_size;
        if (a.constant_value < size && bytes <= size - a.constant_value)
            return ir.byte_offset(thread_ptr(ptxsim::kThreadParams), a.value);
    }
    // A generic address inside the global range hit last is that global address (generic_global).
    const bool global = space == StateSpace::Global || (space == StateSpace::Generic && generic_global(a, write));
    if (!global && space != StateSpace::Shared && space != StateSpace::Local)
        return translate(space, a.value, bytes, write);
    // Aligned and inside the range: the pointer at once; otherwise translate() decides (and faults).
    LLVMValueRef aligned =
        ir.icmp(abi::D4R_LLVMIntEQ, ir.and_(a.value, ir.constant(ir.i64, bytes - 1)), ir.constant(ir.i64, 0));
    LLVMValueRef base, size;
    if (global) {
        base = thread_u64(ptxsim::kThreadCacheBase);
        size = thread_u64(ptxsim::kThreadCacheSize);
    } else {
        base = ir.constant(ir.i64, 0);
        size = ir.zext(thread_u32(space == StateSpace::Shared ? ptxsim::kThreadSharedBytes : ptxsim::kThreadLocalBytes),
                       ir.i64);
    }
    // off < size && bytes <= size - off (no overflow: size >= bytes is checked first)
    LLVMValueRef off = ir.sub(a.value, base);
    LLVMValueRef fits = ir.and_(ir.icmp(abi::D4R_LLVMIntUGE, size, ir.constant(ir.i64, bytes)),
                                ir.icmp(abi::D4R_LLVMIntULE, off, ir.sub(size, ir.constant(ir.i64, bytes))));
    LLVMValueRef ok = ir.and_(aligned, fits);
    LLVMBasicBlockRef fast = ir.new_block("");
    LLVMBasicBlockRef slow = ir.new_block("");
    LLVMBasicBlockRef join = ir.new_block("");
    ir.cond_br(ok, fast, slow);
    ir.position(fast);
    LLVMValueRef p_fast;
    if (global)
        p_fast = ir.int_to_ptr(a.value);
    else
        p_fast = ir.byte_offset(thread_ptr(space == StateSpace::Shared ? ptxsim::kThreadShared : ptxsim::kThreadLocal),
                                a.value);
    LLVMBasicBlockRef fast_end = ir.current();
    ir.br(join);
    ir.position(slow);
    LLVMValueRef p_slow = translate(space, a.value, bytes, write);
    LLVMBasicBlockRef slow_end = ir.current();
    ir.br(join);
    ir.position(join);
    const LlvmLibrary& l = ir.llvm();
    LLVMValueRef phi = l.LLVMBuildPhi(ir.builder(), ir.ptr, "");
    LLVMValueRef values[2] = {p_fast, p_slow};
    LLVMBasicBlockRef blocks[2] = {fast_end, slow_end};
    l.LLVMAddIncoming(phi, values, blocks, 2);
    return phi;
}

Expected<Lowering::MemoryOperands> Lowering::memory_operands(const ptx::MemoryAccess& op) {
    const ast::Instruction& in = *current;
    MemoryOperands m;
    m.bits = ptx::type_bits(op.type);
    if (m.bits < 8 || m.bits > 64) return refuse("a memory type the JIT does not lower");
    if (function.is_entry == false && !nvptx) return refuse("memory access in a .func");
    m.bytes = m.bits / 8;
    m.total = m.bytes * op.vector;
    m.load = op.op == ptx::MemoryAccess::Op::Load;
    const ast::Operand& data = in.operands[m.load ? 0 : 1];
    m.address = D4R_TRY(address(in.operands[op.address_operand], op.space));
    if (op.vector == 1) {
        m.elements.push_back(&data);
    } else {
        if (data.kind != ast::OperandKind::Vector || data.elements.size() != op.vector)
            return refuse("expected a vector of registers");
        for (const ast::Operand& e : data.elements) m.elements.push_back(&e);
    }
    m.raw = ptx::parse_type(fmt::format("b{}", m.bits));
    return m;
}

Status Lowering::lower_memory(const ptx::MemoryAccess& op) {
    const ast::Instruction& in = *current;
    if (op.op == ptx::MemoryAccess::Op::Prefetch) return ok_status(); // no effect, no fault (as interpreted)
    if (in.opcode.starts_with("ldu")) return refuse("ldu is not compiled yet");
    if (nvptx) return nv_memory(op);
    if (warp) return lower_memory_warp(op);
    const Type t = op.type;
    const MemoryOperands m = D4R_TRY(memory_operands(op));
    const unsigned bits = m.bits, bytes = m.bytes, total = m.total;
    const bool load = m.load;
    const Address& a = m.address;
    const std::vector<const ast::Operand*>& elements = m.elements;
    const Type raw = m.raw;
    // The values of a store are read before the access (the interpreter reads all, then translates).
    std::vector<LLVMValueRef> values;
    if (!load)
        for (const ast::Operand* e : elements) values.push_back(D4R_TRY(value(*e, raw)));
    LLVMValueRef p = pointer(a, a.space, total, !load);
    LLVMTypeRef it = ir.int_type(bits);
    for (unsigned k = 0; k < op.vector; ++k) {
        LLVMValueRef at = k == 0 ? p : ir.byte_offset(p, ir.constant(ir.i64, uint64_t(k) * bytes));
        if (load) {
            LLVMValueRef v = ir.load(it, at, 1);
            // The loaded bits go to the register as the type says (signed types sign-extend).
            const Type as = ptx::is_signed(t) ? t : raw;
            if (elements[k]->kind == ast::OperandKind::Name && elements[k]->name == "_") continue;
            Reg r = D4R_TRY(reg(elements[k]->name));
            if (r.bits == 1) return refuse("a load into a predicate");
            ir.store(ir.resize(v, r.bits, ptx::is_signed(as)), r.slot);
        } else {
            ir.store(values[k], at, 1);
        }
    }
    return ok_status();
}

// cp.async: each thread's copy happens when it executes, as the interpreter does it (ops_async.cpp), so its groups
// are complete at once and commit_group, wait_group and wait_all have nothing to do.
Status Lowering::lower_async(const ptx::AsyncCopy& op) {
    using Op = ptx::AsyncCopy::Op;
    const ast::Instruction& in = *current;
    if (op.op == Op::MbarrierArrive) return refuse("cp.async.mbarrier.arrive (mbarriers) is not compiled yet");
    if (nvptx) return nv_async(op);
    if (op.op != Op::Copy) return ok_status();
    if (function.is_entry == false) return refuse("memory access in a .func");
    if (in.operands.size() < 3 + (op.source_operand ? 1 : 0)) return refuse("missing operands");
    const Address dst = D4R_TRY(address(in.operands[0], StateSpace::Shared));
    const Address src = D4R_TRY(address(in.operands[1], StateSpace::Global));
    LLVMValueRef size = ir.constant(ir.i32, op.bytes);
    if (op.source_operand) {
        // A source size, or (a predicate, as the decoder tells them apart) ignore-src: nothing read, all zero.
        const ast::Operand& o = in.operands[3];
        bool predicate = o.negated;
        if (o.kind == ast::OperandKind::Name && !predicate)
            if (auto r = reg(o.name)) predicate = r->bits == 1;
        if (predicate)
            size = ir.select(D4R_TRY(value(o, Type::Pred)), ir.constant(ir.i32, 0), size);
        else
            size = D4R_TRY(value(o, Type::U32));
    }
    if (warp) { // the warp's copies in one call, lane after lane (the runtime's warp_matrix)
        point_value(0, dst.value, 64);
        point_value(1, src.value, 64);
        point_value(2, size, 32);
        call_warp_helper(ptxsim::kRuntimeWarpMatrix, ptxsim::cp_async_code(op.bytes));
        return ok_status();
    }
    LLVMValueRef fn = runtime_entry(ptxsim::kRuntimeCpAsync);
    LLVMTypeRef params[5] = {ir.ptr, ir.i32, ir.i64, ir.i64, ir.i32};
    LLVMValueRef done = ir.call(ir.llvm().LLVMFunctionType(ir.i32, params, 5, 0), fn,
                                {m_thread, ir.constant(ir.i32, op.bytes), dst.value, src.value, size});
    fault_unless(ir.icmp(abi::D4R_LLVMIntNE, done, ir.constant(ir.i32, 0)));
    return ok_status();
}

Status Lowering::lower_move(const ptx::Move& op) {
    const ast::Instruction& in = *current;
    using Form = ptx::Move::Form;
    if (nvptx && (op.op != ptx::Move::Op::Mov || op.form == Form::Special)) return nv_move(op);
    if (op.op == ptx::Move::Op::Cvta) {
        const Type t = op.type;
        LLVMValueRef a = D4R_TRY(value(in.operands[1], t));
        LLVMValueRef window = ir.constant(ir.int_type(ptx::type_bits(t)), window_of(op.space));
        return assign(in.operands[0], t, op.to_space ? ir.sub(a, window) : ir.add(a, window));
    }
    if (op.op == ptx::Move::Op::Isspacep) { // exec_isspacep: the generic windows; global is none of them
        LLVMValueRef a = D4R_TRY(value(in.operands[1], Type::U64));
        auto in_window = [&](uint64_t base) {
            return ir.icmp(abi::D4R_LLVMIntULT, ir.sub(a, ir.constant(ir.i64, base)),
                           ir.constant(ir.i64, ptxsim::kWindowBytes));
        };
        LLVMValueRef shared = in_window(ptxsim::kSharedWindow), local = in_window(ptxsim::kLocalWindow),
                     param = in_window(ptxsim::kParamWindow);
        LLVMValueRef r = nullptr;
        switch (op.space) {
        case StateSpace::Shared:
            r = shared;
            break;
        case StateSpace::Local:
            r = local;
            break;
        case StateSpace::Param:
            r = param;
            break;
        case StateSpace::Global:
            r = ir.not_(ir.or_(shared, ir.or_(local, param)));
            break;
        default:
            return refuse("isspacep.const is not compiled yet");
        }
        return assign(in.operands[0], Type::Pred, r);
    }
    const Type t = op.type;
    if (op.form == Form::Special && op.sreg == ptx::Move::Sreg::GridId) // emit_counter's constant
        return assign(in.operands[0], t, ir.constant(ir.int_type(ptx::type_bits(t)), 1));
    if (op.form == Form::Special && op.sreg != ptx::Move::Sreg::Other) {
        // A clock read in a loop is how a thread waits for time to pass: compiled threads (or warps: warp code) of
        // a block run one after the other, so each would wait in turn and the block would take its thread (warp)
        // count times as long as on the interpreter's warps.
        for (const Loop& loop : m_loops)
            if (loop.label <= m_statement && m_statement <= loop.branch)
                return refuse(fmt::format("a clock or timer read inside a loop (from label '{}' to the branch back on "
                                          "line {}): a thread may wait there for time to pass, and compiled threads "
                                          "and warps wait one after the other",
                                          loop.name, loop.branch_line));
        // The clocks and the global timer: read as the interpreter reads them (for %clock64, the warp's last read
        // bounds the next from below: no thread reads the same value twice).
        LLVMValueRef fn = runtime_entry(ptxsim::kRuntimeCounter);
        LLVMTypeRef params[2] = {ir.ptr, ir.i32};
        LLVMValueRef v = ir.call(ir.llvm().LLVMFunctionType(ir.i64, params, 2, 0), fn,
                                 {m_thread, ir.constant(ir.i32, static_cast<uint32_t>(op.sreg))});
        return assign(in.operands[0], t, ir.resize(v, ptx::type_bits(t), false));
    }
    if (op.form == Form::Pack) {
        const unsigned w = ptx::type_bits(op.src);
        const unsigned total = w * op.elements;
        LLVMTypeRef wide = ir.int_type(total);
        LLVMValueRef acc = ir.constant(wide, 0);
        for (unsigned k = 0; k < op.elements; ++k) {
            LLVMValueRef e = D4R_TRY(value(in.operands[1].elements[k], op.src));
            acc = ir.or_(acc, ir.shl(ir.zext(e, wide), ir.constant(wide, uint64_t(k) * w)));
        }
        return assign(in.operands[0], ptx::parse_type(fmt::format("b{}", total)), acc);
    }
    if (op.form == Form::Unpack) {
        const unsigned w = ptx::type_bits(op.dst);
        LLVMValueRef whole = D4R_TRY(value(in.operands[1], t));
        for (unsigned k = 0; k < op.elements; ++k) {
            const ast::Operand& d = in.operands[0].elements[k];
            LLVMValueRef part =
                ir.trunc(ir.lshr(whole, ir.constant(ir.llvm().LLVMTypeOf(whole), uint64_t(k) * w)), ir.int_type(w));
            D4R_TRY(assign(d, op.dst, part));
        }
        return ok_status();
    }
    const ast::Operand& src = in.operands[1];
    if (t == Type::Pred) return assign(in.operands[0], t, D4R_TRY(value(src, t)));
    // A register to a register copies the whole slot, as the interpreter does.
    if (src.kind == ast::OperandKind::Name && !src.negated && in.operands[0].kind == ast::OperandKind::Name) {
        auto from = reg(src.name);
        auto to = reg(in.operands[0].name);
        if (from && to && from->bits == to->bits && from->bits != 1) {
            LLVMValueRef v = ir.load(reg_type(*from), from->slot);
            if (warp && to->uniform && !from->uniform)
                return refuse(
                    fmt::format("internal: uniform register '{}' written with a value per lane", in.operands[0].name));
            if (warp && !to->uniform) {
                if (from->uniform) v = ir.splat(v);
                if (m_guarded || m_waiting_live.contains(in.operands[0].name))
                    v = ir.select(exec_lanes(), v, ir.load(reg_type(*to), to->slot));
            }
            ir.store(v, to->slot);
            return ok_status();
        }
    }
    return assign(in.operands[0], t, D4R_TRY(value(src, t)));
}

} // namespace d4r::jit
