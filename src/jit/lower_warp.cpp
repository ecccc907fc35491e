// Warp code (lower.h): the active mask and its merges, branches and exits, memory access for 32 lanes, runtime
// helpers lane by lane, and what warp code refuses.
#include <algorithm>

#include <fmt/format.h>

#include "jit/lower_impl.h"
#include "jit/uniformity.h"
#include "ptxsim/ptxsim.h"

namespace d4r::jit {

using ptx::StateSpace;

LLVMValueRef Lowering::lane_ids() {
    if (!m_lane_ids) {
        LLVMValueRef v = ir.undef(ir.vector_of(ir.i32));
        for (unsigned k = 0; k < ir.kLanes; ++k) v = ir.insert(v, ir.constant(ir.i32, k), k);
        m_lane_ids = v; // a constant (folded)
    }
    return m_lane_ids;
}

LLVMValueRef Lowering::per_lane(LLVMTypeRef result, const std::vector<LLVMValueRef>& args,
                                const std::function<LLVMValueRef(const std::vector<LLVMValueRef>&)>& call) {
    bool vector = false;
    for (LLVMValueRef a : args) vector = vector || ir.lanes(a) != 0;
    if (!vector) return call(args); // the same in every lane
    LLVMValueRef out = ir.undef(ir.vector_of(result));
    std::vector<LLVMValueRef> x(args.size());
    for (unsigned lane = 0; lane < ir.kLanes; ++lane) {
        for (size_t k = 0; k < args.size(); ++k) x[k] = ir.lanes(args[k]) ? ir.extract(args[k], lane) : args[k];
        out = ir.insert(out, call(x), lane);
    }
    return out;
}

LLVMValueRef Lowering::element_of(LLVMValueRef v, LLVMValueRef lane) {
    return ir.lanes(v) ? ir.llvm().LLVMBuildExtractElement(ir.builder(), v, lane, "") : v;
}

Expected<std::vector<LLVMValueRef>>
Lowering::each_lane(unsigned results, const std::function<Expected<std::vector<LLVMValueRef>>(LLVMValueRef)>& body) {
    LLVMTypeRef wide = ir.vector_of(ir.i64);
    std::vector<LLVMValueRef> words;
    for (unsigned k = 0; k < results; ++k) {
        words.push_back(ir.words(ir.kLanes));
        ir.store(ir.llvm().LLVMConstNull(wide), words.back(), 8);
    }
    LLVMValueRef counter = ir.zeroed_slot(ir.i32);
    ir.store(ir.constant(ir.i32, 0), counter, 4);
    LLVMBasicBlockRef head = ir.new_block("lanes"), check = ir.new_block(""), run = ir.new_block("lane");
    LLVMBasicBlockRef next = ir.new_block(""), done = ir.new_block("");
    ir.br(head);
    ir.position(head);
    LLVMValueRef lane = ir.load(ir.i32, counter, 4);
    ir.cond_br(ir.icmp(abi::D4R_LLVMIntEQ, lane, ir.constant(ir.i32, ir.kLanes)), done, check);
    ir.position(check);
    ir.cond_br(
        ir.icmp(abi::D4R_LLVMIntNE, ir.and_(ir.lshr(m_exec, lane), ir.constant(ir.i32, 1)), ir.constant(ir.i32, 0)),
        run, next);
    ir.position(run);
    ir.store(lane, ir.field(m_thread, ptxsim::kThreadLane), 4);
    std::vector<LLVMValueRef> out = D4R_TRY(body(lane));
    if (out.size() != results) return refuse("internal: a lane's results");
    LLVMValueRef at = ir.mul(ir.zext(lane, ir.i64), ir.constant(ir.i64, 8));
    for (unsigned k = 0; k < results; ++k) ir.store(out[k], ir.byte_offset(words[k], at), 8);
    ir.br(next);
    ir.position(next);
    ir.store(ir.add(lane, ir.constant(ir.i32, 1)), counter, 4);
    ir.br(head);
    ir.position(done);
    std::vector<LLVMValueRef> vectors;
    for (LLVMValueRef w : words) vectors.push_back(ir.load(wide, w, 8));
    return vectors;
}

// --- the active mask ---

// The merges: every label, and the fall-through of every branch back to a label (find_loops), in body order.
void Lowering::make_merges() {
    for (const auto& [name, label] : m_labels) m_merges.push_back(Merge{2 * label.statement, label.block, nullptr});
    for (const Loop& loop : m_loops) {
        const size_t key = 2 * loop.branch + 1;
        if (std::none_of(m_merges.begin(), m_merges.end(), [&](const Merge& m) { return m.key == key; }))
            m_merges.push_back(Merge{key, ir.new_block("fallthrough"), nullptr});
    }
    std::sort(m_merges.begin(), m_merges.end(), [](const Merge& a, const Merge& b) { return a.key < b.key; });
    for (Merge& m : m_merges) m.waiting = ir.zeroed_slot(ir.i32);
}

// With no branch that may diverge no lane ever waits; otherwise the names live at a label or at the fall-through of a
// branch back (liveness over-approximates: a lane there reads nothing else before writing it).
void Lowering::find_waiting_live() {
    if (divergent_branch(function, whole_warps).empty()) return;
    Liveness live(function);
    for (size_t i = 0; i < function.body.size(); ++i) {
        if (function.body[i].kind != ast::Statement::Kind::Label) continue;
        for (size_t j = i + 1; j < function.body.size(); ++j)
            if (function.body[j].kind == ast::Statement::Kind::Instruction) {
                for (std::string_view n : live.live_before(function.body[j].index)) m_waiting_live.insert(n);
                break;
            }
    }
    for (const Loop& loop : m_loops)
        for (std::string_view n : live.live_after(function.body[loop.branch].index)) m_waiting_live.insert(n);
}

const Lowering::Merge* Lowering::merge_at(size_t key) const {
    auto it =
        std::lower_bound(m_merges.begin(), m_merges.end(), key, [](const Merge& m, size_t k) { return m.key < k; });
    return it != m_merges.end() && it->key == key ? &*it : nullptr;
}

void Lowering::skip_after(size_t key) {
    auto it =
        std::upper_bound(m_merges.begin(), m_merges.end(), key, [](size_t k, const Merge& m) { return k < m.key; });
    if (it == m_merges.end()) // no lane waits anywhere: the warp is done
        ir.ret(ir.constant(ir.i32, ptxsim::kCompiledDone));
    else
        ir.br(it->block);
}

void Lowering::enter_merge(const Merge& m) {
    LLVMValueRef active = ir.or_(ir.load(ir.i32, m_active, 4), ir.load(ir.i32, m.waiting, 4));
    ir.store(active, m_active, 4);
    ir.store(ir.constant(ir.i32, 0), m.waiting, 4);
    LLVMBasicBlockRef skip = ir.new_block("skip");
    LLVMBasicBlockRef run = ir.new_block("");
    ir.cond_br(ir.icmp(abi::D4R_LLVMIntEQ, active, ir.constant(ir.i32, 0)), skip, run);
    ir.position(skip);
    skip_after(m.key);
    ir.position(run);
}

// bra: the lanes that take it (exec_bits) wait at a later label, or loop back to an earlier one while the others wait
// at the fall-through.
Status Lowering::warp_branch(const Label& target) {
    LLVMValueRef take = m_exec;
    LLVMValueRef active = ir.load(ir.i32, m_active, 4);
    LLVMValueRef rest = ir.and_(active, ir.not_(take));
    if (target.statement > m_statement) {
        const Merge* m = merge_at(2 * target.statement);
        if (!m) return refuse("internal: a label without its merge");
        ir.store(ir.or_(ir.load(ir.i32, m->waiting, 4), take), m->waiting, 4);
        ir.store(rest, m_active, 4);
        LLVMBasicBlockRef skip = ir.new_block("skip");
        LLVMBasicBlockRef run = ir.new_block("");
        ir.cond_br(ir.icmp(abi::D4R_LLVMIntEQ, rest, ir.constant(ir.i32, 0)), skip, run);
        ir.position(skip);
        skip_after(2 * m_statement);
        ir.position(run);
        return ok_status();
    }
    const Merge* fall = merge_at(2 * m_statement + 1);
    if (!fall) return refuse("internal: a branch back without its merge");
    LLVMBasicBlockRef loop = ir.new_block("loop");
    ir.cond_br(ir.icmp(abi::D4R_LLVMIntNE, take, ir.constant(ir.i32, 0)), loop, fall->block);
    ir.position(loop);
    ir.store(ir.or_(ir.load(ir.i32, fall->waiting, 4), rest), fall->waiting, 4);
    ir.store(take, m_active, 4);
    poll_watchdog();
    ir.br(target.block);
    ir.position(fall->block);
    enter_merge(*fall);
    return ok_status();
}

Status Lowering::warp_exit() {
    LLVMValueRef rest = ir.and_(ir.load(ir.i32, m_active, 4), ir.not_(m_exec));
    ir.store(rest, m_active, 4);
    LLVMBasicBlockRef skip = ir.new_block("skip");
    LLVMBasicBlockRef run = ir.new_block("");
    ir.cond_br(ir.icmp(abi::D4R_LLVMIntEQ, rest, ir.constant(ir.i32, 0)), skip, run);
    ir.position(skip);
    skip_after(2 * m_statement);
    ir.position(run);
    return ok_status();
}

Status Lowering::warp_refusals(const ptx::TypedInstruction& typed) {
    if (const auto* c = std::get_if<ptx::Control>(&typed))
        if (c->op == ptx::Control::Op::Barrier && c->reduction != ptx::Control::Reduction::None)
            return refuse("bar.red is not in warp code yet");
    return ok_status();
}

Status Lowering::warp_instruction(const ast::Instruction& in, const ptx::TypedInstruction& typed) {
    D4R_TRY(warp_refusals(typed));
    m_guarded = !in.guard.empty();
    LLVMValueRef active = ir.load(ir.i32, m_active, 4);
    m_exec = active;
    if (!in.guard.empty()) {
        LLVMValueRef p = D4R_TRY(value(named(in.guard), Type::Pred));
        if (in.guard_negated) p = ir.not_(p);
        if (!ir.lanes(p)) p = ir.splat(p);
        m_exec = ir.and_(active, ir.mask_to_bits(p));
    }
    if (const auto* c = std::get_if<ptx::Control>(&typed)) {
        if (c->op == ptx::Control::Op::Bra) {
            if (in.operands.size() != 1 || in.operands[0].kind != ast::OperandKind::Name)
                return refuse("bra without a label");
            auto label = m_labels.find(in.operands[0].name);
            if (label == m_labels.end()) return refuse(fmt::format("unknown label '{}'", in.operands[0].name));
            return warp_branch(label->second);
        }
        if (c->op == ptx::Control::Op::Exit || c->op == ptx::Control::Op::Ret) return warp_exit();
    }
    // activemask: the interpreter's active group at this pc (the guard aside), which is the active mask here.
    if (const auto* c = std::get_if<ptx::WarpCollective>(&typed); c && c->op == ptx::WarpCollective::Op::ActiveMask) {
        if (in.operands.empty()) return refuse("activemask without a destination");
        return assign(in.operands[0], Type::B32, active);
    }
    // A guarded instruction runs when a lane runs it (nothing happens for none: no fault, no runtime call).
    LLVMBasicBlockRef after = nullptr;
    if (!in.guard.empty()) {
        after = ir.new_block("");
        LLVMBasicBlockRef body = ir.new_block("");
        ir.cond_br(ir.icmp(abi::D4R_LLVMIntNE, m_exec, ir.constant(ir.i32, 0)), body, after);
        ir.position(body);
    }
    D4R_TRY(lower_typed(typed));
    if (after) {
        if (!ir.terminated()) ir.br(after);
        ir.position(after);
    }
    return ok_status();
}

// --- memory ---

std::vector<size_t> Lowering::shared_group(const ptx::MemoryAccess& op, std::string_view base, int64_t offset,
                                           int64_t& min, int64_t& max) const {
    const unsigned bytes = ptx::type_bits(op.type) / 8;
    min = max = offset;
    std::vector<size_t> members{m_statement};
    auto writes_base = [&](const ast::Instruction& in) {
        if (in.operands.empty() || !writes_first_operand(in)) return false;
        std::vector<std::string_view> names;
        operand_names(in.operands[0], names);
        return std::find(names.begin(), names.end(), base) != names.end();
    };
    if (writes_base(*current)) return {};
    for (size_t j = m_statement + 1; j < function.body.size(); ++j) {
        const ast::Statement& st = function.body[j];
        if (st.kind == ast::Statement::Kind::Declaration) continue;
        if (st.kind != ast::Statement::Kind::Instruction) break; // a label (lanes may join) or a scope
        const ast::Instruction& in = function.instructions[st.index];
        const std::string_view name = ptx::Modifiers(in.opcode).base();
        // Where the active lanes may change, or the warp stops (its registers then come back from its state).
        if (name == "bra" || name == "brx" || name == "exit" || name == "ret" || name == "bar" || name == "barrier" ||
            name == "call" || name == "trap" || name == "brkpt")
            break;
        if (auto m = ptx::decode_memory(in);
            m && in.guard.empty() && m->space == StateSpace::Shared && m->vector == 1 &&
            ptx::type_bits(m->type) == bytes * 8 &&
            (m->op == ptx::MemoryAccess::Op::Load || m->op == ptx::MemoryAccess::Op::Store) &&
            m->address_operand < in.operands.size()) {
            const ast::Operand& o = in.operands[m->address_operand];
            const auto off = static_cast<int64_t>(static_cast<int32_t>(static_cast<uint32_t>(o.offset)));
            if (o.kind == ast::OperandKind::Address && o.elements.empty() && o.name == base &&
                (off - offset) % int64_t(bytes) == 0) {
                members.push_back(j);
                min = std::min(min, off);
                max = std::max(max, off);
            }
        }
        if (writes_base(in)) break;
    }
    if (members.size() < 2) return {};
    return members;
}

// ld and st for the warp: the address of every lane; when all the lanes that run it are aligned and inside the
// window the interpreter checks first (the global range hit last, also for generic addresses; the block's shared
// memory; the kernel's parameters for ld.param through a register, with no alignment rule), one gather or
// scatter (lane order: the highest lane's store to an address stays, as interpreted); otherwise ptxsim's translate()
// for each lane in lane order, so the first lane that faults reports, as interpreted. A load from one address for
// every lane (a parameter or a variable) reads it once for the first lane, as the interpreter does.
Status Lowering::lower_memory_warp(const ptx::MemoryAccess& op) {
    const Type t = op.type;
    const MemoryOperands m = D4R_TRY(memory_operands(op));
    const unsigned bits = m.bits, bytes = m.bytes, total = m.total;
    const bool load = m.load;
    const Address& a = m.address;
    const std::vector<const ast::Operand*>& elements = m.elements;
    const Type raw = m.raw;
    const Type as = ptx::is_signed(t) ? t : raw; // the loaded bits go to the register as the type says
    LLVMTypeRef it = ir.int_type(bits);
    auto put = [&](size_t k, LLVMValueRef v) -> Status {
        if (elements[k]->kind == ast::OperandKind::Name && elements[k]->name == "_") return ok_status();
        Reg r = D4R_TRY(reg(elements[k]->name));
        if (r.bits == 1) return refuse("a load into a predicate");
        return assign(*elements[k], as, v);
    };
    if (load && !ir.lanes(a.value) && a.space != StateSpace::Local) {
        LLVMValueRef p = pointer(a, a.space, total, false);
        for (unsigned k = 0; k < op.vector; ++k)
            D4R_TRY(put(k, ir.load(it, k == 0 ? p : ir.byte_offset(p, ir.constant(ir.i64, uint64_t(k) * bytes)), 1)));
        return ok_status();
    }
    std::vector<LLVMValueRef> values;
    if (!load)
        for (const ast::Operand* e : elements) {
            LLVMValueRef v = D4R_TRY(value(*e, raw));
            values.push_back(ir.lanes(v) ? v : ir.splat(v));
        }
    LLVMValueRef addr = ir.lanes(a.value) ? a.value : ir.splat(a.value);
    LLVMTypeRef vt = ir.vector_of(it);
    const LlvmLibrary& l = ir.llvm();
    std::vector<std::pair<LLVMValueRef, LLVMBasicBlockRef>> fast_loads[4];
    LLVMBasicBlockRef join = ir.new_block("");
    LLVMBasicBlockRef slow = ir.new_block("slow");
    // A generic address inside the global range hit last is a global one (the generic windows of shared, local and
    // parameter memory lie far above any host address): the global checks apply (generic_global).
    const bool global = a.space == StateSpace::Global || (a.space == StateSpace::Generic && generic_global(a, !load));
    // A kernel parameter load through a register (a by-value struct's fields, the same address in every lane mostly):
    // the parameter block is the window, without an alignment rule (translate<KernelParam>).
    const bool param = a.space == StateSpace::Param && load;
    const bool windowed = global || param || a.space == StateSpace::Shared;
    // The global range hit before the last one becomes the last, and the other way round: each range's base and size
    // moved as one 16-byte pair (the runner reads the last one back so, after the call: two 8-byte stores would not
    // forward to that load, a stall at every return).
    auto swap_windows = [&] {
        LLVMTypeRef pair = ir.vector_of(ir.i64, 2);
        LLVMValueRef last = ir.load(pair, ir.field(m_thread, ptxsim::kThreadCacheBase), 8);
        LLVMValueRef before = ir.load(pair, ir.field(m_thread, ptxsim::kThreadCache2Base), 8);
        ir.store(before, ir.field(m_thread, ptxsim::kThreadCacheBase), 8);
        ir.store(last, ir.field(m_thread, ptxsim::kThreadCache2Base), 8);
    };
    if (windowed) {
        // Whether every lane that runs the access is aligned and inside the window.
        auto all_inside = [&](unsigned window = ptxsim::kThreadCacheBase) {
            if (a.space == StateSpace::Shared && a.narrow) { // the same check on 32 bits
                LLVMValueRef a32 = ir.trunc(addr, ir.i32), size = m_shared_bytes;
                LLVMValueRef aligned =
                    ir.icmp(abi::D4R_LLVMIntEQ, ir.and_(a32, ir.constant(ir.i32, total - 1)), ir.constant(ir.i32, 0));
                LLVMValueRef fits = ir.icmp(abi::D4R_LLVMIntULE, a32, ir.sub(size, ir.constant(ir.i32, total)));
                LLVMValueRef ok_lanes = ir.mask_to_bits(ir.and_(aligned, fits));
                return ir.and_(ir.icmp(abi::D4R_LLVMIntUGE, size, ir.constant(ir.i32, total)),
                               ir.icmp(abi::D4R_LLVMIntEQ, ir.and_(ok_lanes, m_exec), m_exec));
            }
            LLVMValueRef base, size;
            if (global) {
                base = thread_u64(window);
                size = thread_u64(window + 8);
            } else {
                base = ir.constant(ir.i64, 0);
                size = ir.zext(param ? thread_u32(ptxsim::kThreadParamsBytes) : m_shared_bytes, ir.i64);
            }
            LLVMValueRef off = ir.sub(addr, base);
            LLVMValueRef aligned = param ? ir.splat(ir.constant(ir.i1, 1))
                                         : ir.icmp(abi::D4R_LLVMIntEQ, ir.and_(addr, ir.constant(ir.i64, total - 1)),
                                                   ir.constant(ir.i64, 0));
            LLVMValueRef fits = ir.icmp(abi::D4R_LLVMIntULE, off, ir.sub(size, ir.constant(ir.i64, total)));
            LLVMValueRef ok_lanes = ir.mask_to_bits(ir.and_(aligned, fits));
            return ir.and_(ir.icmp(abi::D4R_LLVMIntUGE, size, ir.constant(ir.i64, total)),
                           ir.icmp(abi::D4R_LLVMIntEQ, ir.and_(ok_lanes, m_exec), m_exec));
        };
        if (op.vector == 1 && (bytes == 4 || bytes == 8)) {
            // Every lane running, and each half-warp's addresses one after the other (or all the same): a row of a
            // 16-wide tile. Two checks of a range and two vector accesses (or two words) instead of 32 (the
            // interpreter's contiguous and uniform paths, by halves). Stores go lower half first: where the halves
            // write the same words the upper half's stay, as in lane order.
            // The pattern is the base register's when the address is one plus an offset (the same checks then for
            // every access through it).
            const bool narrow = a.space == StateSpace::Shared && a.narrow;
            LLVMValueRef at = narrow ? ir.trunc(addr, ir.i32) : addr;
            LLVMValueRef pattern = at;
            if (a.base && ir.lanes(a.base) && (narrow || ir.width(ir.scalar_type(l.LLVMTypeOf(a.base))) == 64))
                pattern = a.base;
            LLVMTypeRef at_type = ir.scalar_type(l.LLVMTypeOf(at));
            LLVMValueRef halves = ir.undef(ir.vector_of(ir.i32)), step = ir.undef(ir.vector_of(at_type));
            LLVMValueRef lower_lanes = ir.undef(ir.vector_of(ir.i32, 16)), upper_lanes = lower_lanes;
            for (unsigned lane = 0; lane < ir.kLanes; ++lane) {
                halves = ir.insert(halves, ir.constant(ir.i32, lane < 16 ? 0 : 16), lane);
                step = ir.insert(step, ir.constant(at_type, uint64_t(lane % 16) * bytes), lane);
                if (lane < 16) {
                    lower_lanes = ir.insert(lower_lanes, ir.constant(ir.i32, lane), lane);
                    upper_lanes = ir.insert(upper_lanes, ir.constant(ir.i32, lane + 16), lane);
                }
            }
            LLVMValueRef firsts =
                l.LLVMBuildShuffleVector(ir.builder(), pattern, ir.undef(l.LLVMTypeOf(pattern)), halves, "");
            auto every_lane = [&](LLVMValueRef lanes) {
                return ir.icmp(abi::D4R_LLVMIntEQ, ir.mask_to_bits(lanes), ir.constant(ir.i32, 0xffffffffu));
            };
            LLVMValueRef full = ir.icmp(abi::D4R_LLVMIntEQ, m_exec, ir.constant(ir.i32, 0xffffffffu));
            LLVMValueRef lo = ir.extract(pattern, 0), hi = ir.extract(pattern, 16);
            if (pattern != at) {
                lo = ir.add(lo, ir.constant(at_type, a.offset));
                hi = ir.add(hi, ir.constant(at_type, a.offset));
            }
            // Both halves' EXTENT bytes from their first address aligned and inside the window.
            // (Global: inside the range hit last, or with WINDOW, the one before it.)
            auto halves_inside = [&](uint64_t extent, unsigned window = ptxsim::kThreadCacheBase) {
                LLVMValueRef aligned =
                    param ? ir.constant(ir.i1, 1)
                          : ir.icmp(abi::D4R_LLVMIntEQ, ir.and_(ir.or_(lo, hi), ir.constant(at_type, bytes - 1)),
                                    ir.constant(at_type, 0));
                LLVMValueRef base = ir.constant(at_type, 0), size;
                if (global) {
                    base = thread_u64(window);
                    size = thread_u64(window + 8);
                } else {
                    size = ir.resize(param ? thread_u32(ptxsim::kThreadParamsBytes) : m_shared_bytes, ir.width(at_type),
                                     false);
                }
                LLVMValueRef last = ir.sub(size, ir.constant(at_type, extent));
                LLVMValueRef fits = ir.and_(ir.icmp(abi::D4R_LLVMIntUGE, size, ir.constant(at_type, extent)),
                                            ir.and_(ir.icmp(abi::D4R_LLVMIntULE, ir.sub(lo, base), last),
                                                    ir.icmp(abi::D4R_LLVMIntULE, ir.sub(hi, base), last)));
                return ir.and_(aligned, fits);
            };
            // A group of accesses through this base register (shared_group): at its first, the checks of all of
            // them at once, from the least offset to the greatest (32-bit addresses: neither end wraps past the
            // other); the later ones take them.
            if (narrow && pattern != at && !m_guarded && !m_shared_groups.contains(m_statement)) {
                int64_t min = 0, max = 0;
                const std::string_view base_name = current->operands[op.address_operand].name;
                const std::vector<size_t> members =
                    shared_group(op, base_name, static_cast<int32_t>(static_cast<uint32_t>(a.offset)), min, max);
                if (!members.empty()) {
                    LLVMValueRef base_lo = ir.extract(pattern, 0), base_hi = ir.extract(pattern, 16);
                    LLVMValueRef size = m_shared_bytes;
                    auto group_inside = [&](uint64_t extent) {
                        LLVMValueRef least = ir.constant(ir.i32, static_cast<uint32_t>(min));
                        LLVMValueRef most = ir.constant(ir.i32, static_cast<uint32_t>(max));
                        LLVMValueRef last = ir.sub(size, ir.constant(ir.i32, extent));
                        LLVMValueRef ok = ir.icmp(abi::D4R_LLVMIntUGE, size, ir.constant(ir.i32, extent));
                        for (LLVMValueRef x : {base_lo, base_hi}) {
                            LLVMValueRef first = ir.add(x, least), final = ir.add(x, most);
                            ok = ir.and_(ok, ir.and_(ir.icmp(abi::D4R_LLVMIntULE, first, final),
                                                     ir.icmp(abi::D4R_LLVMIntULE, final, last)));
                        }
                        LLVMValueRef aligned = ir.icmp(abi::D4R_LLVMIntEQ,
                                                       ir.and_(ir.or_(ir.add(base_lo, least), ir.add(base_hi, least)),
                                                               ir.constant(ir.i32, bytes - 1)),
                                                       ir.constant(ir.i32, 0));
                        return ir.and_(ok, aligned);
                    };
                    LLVMValueRef rows_pattern =
                        ir.and_(full, every_lane(ir.icmp(abi::D4R_LLVMIntEQ, pattern, ir.add(firsts, step))));
                    LLVMValueRef words_pattern =
                        ir.and_(full, every_lane(ir.icmp(abi::D4R_LLVMIntEQ, pattern, firsts)));
                    const SharedGroup group{ir.and_(rows_pattern, group_inside(16 * bytes)),
                                            ir.and_(words_pattern, group_inside(bytes))};
                    for (size_t j : members) m_shared_groups[j] = group;
                }
            }
            auto half_pointer = [&](LLVMValueRef x) {
                if (param) return ir.byte_offset(thread_ptr(ptxsim::kThreadParams), x);
                return global ? ir.int_to_ptr(x) : ir.byte_offset(m_shared, x);
            };
            LLVMBasicBlockRef rows_check = ir.new_block("rows_check"), rows = ir.new_block("rows");
            LLVMBasicBlockRef not_rows = ir.new_block(""), words_check = ir.new_block("words_check");
            LLVMBasicBlockRef words = ir.new_block("words"), general = ir.new_block("");
            // To TO when both halves' EXTENT bytes are inside the window; global memory: or inside the range hit
            // before the last, which then becomes the last (a kernel reading two arrays in turn, as a tiled GEMM
            // copying its tiles, hits both); otherwise to the general path.
            auto inside_or_swap = [&](uint64_t extent, LLVMBasicBlockRef to) {
                if (!global) return ir.expect_br(halves_inside(extent), true, to, general);
                LLVMBasicBlockRef before = ir.new_block("window2"), swap = ir.new_block("swap_windows");
                ir.expect_br(halves_inside(extent), true, to, before);
                ir.position(before);
                ir.cond_br(halves_inside(extent, ptxsim::kThreadCache2Base), swap, general);
                ir.position(swap);
                swap_windows();
                ir.br(to);
            };
            const auto group = m_shared_groups.find(m_statement);
            if (group != m_shared_groups.end()) { // every check made at the group's first access
                ir.cond_br(group->second.rows, rows, not_rows);
                ir.position(rows_check);
                ir.br(rows);
            } else {
                ir.cond_br(ir.and_(full, every_lane(ir.icmp(abi::D4R_LLVMIntEQ, pattern, ir.add(firsts, step)))),
                           rows_check, not_rows);
                ir.position(rows_check);
                inside_or_swap(16 * bytes, rows);
            }
            ir.position(rows);
            LLVMTypeRef half_type = ir.vector_of(it, 16);
            if (load) {
                LLVMValueRef vlo = ir.load(half_type, half_pointer(lo), bytes);
                LLVMValueRef vhi = ir.load(half_type, half_pointer(hi), bytes);
                fast_loads[0].emplace_back(l.LLVMBuildShuffleVector(ir.builder(), vlo, vhi, lane_ids(), ""),
                                           ir.current());
            } else {
                ir.store(l.LLVMBuildShuffleVector(ir.builder(), values[0], ir.undef(vt), lower_lanes, ""),
                         half_pointer(lo), bytes);
                ir.store(l.LLVMBuildShuffleVector(ir.builder(), values[0], ir.undef(vt), upper_lanes, ""),
                         half_pointer(hi), bytes);
            }
            ir.br(join);
            ir.position(not_rows);
            if (group != m_shared_groups.end()) {
                ir.cond_br(group->second.words, words, general);
                ir.position(words_check);
                ir.br(words);
            } else {
                ir.cond_br(ir.and_(full, every_lane(ir.icmp(abi::D4R_LLVMIntEQ, pattern, firsts))), words_check,
                           general);
                ir.position(words_check);
                inside_or_swap(bytes, words);
            }
            ir.position(words);
            if (load) {
                LLVMValueRef wlo = ir.load(it, half_pointer(lo), bytes), whi = ir.load(it, half_pointer(hi), bytes);
                LLVMValueRef lower = ir.icmp(abi::D4R_LLVMIntULT, lane_ids(), ir.constant(ir.i32, 16));
                fast_loads[0].emplace_back(ir.select(lower, wlo, whi), ir.current());
            } else {
                ir.store(ir.extract(values[0], 15), half_pointer(lo), bytes);
                ir.store(ir.extract(values[0], 31), half_pointer(hi), bytes);
            }
            ir.br(join);
            ir.position(general);
        }
        LLVMBasicBlockRef fast = ir.new_block("fast");
        if (global) {
            // A miss: the range hit before (then the two swap); or translate() for the first lane (the first the
            // lane-by-lane path would translate: its fault is the one to report) moves the window to that lane's
            // allocation, the old window kept as the one before; then the check again.
            LLVMBasicBlockRef second = ir.new_block("second");
            LLVMBasicBlockRef swap = ir.new_block("swap");
            LLVMBasicBlockRef retry = ir.new_block("retry");
            ir.expect_br(all_inside(), true, fast, second);
            ir.position(second);
            ir.cond_br(all_inside(ptxsim::kThreadCache2Base), swap, retry);
            ir.position(swap);
            swap_windows();
            ir.br(fast);
            ir.position(retry);
            ir.store(thread_u64(ptxsim::kThreadCacheBase), ir.field(m_thread, ptxsim::kThreadCache2Base), 8);
            ir.store(thread_u64(ptxsim::kThreadCacheSize), ir.field(m_thread, ptxsim::kThreadCache2Size), 8);
            LLVMValueRef first = ir.intrinsic("llvm.cttz", {ir.i32}, {m_exec, ir.constant(ir.i1, 0)});
            translate(a.space, ir.llvm().LLVMBuildExtractElement(ir.builder(), addr, first, ""), total, !load, first);
            ir.cond_br(all_inside(), fast, slow);
        } else {
            ir.expect_br(all_inside(), true, fast, slow);
        }
        ir.position(fast);
        // Shared memory: 32-bit offsets from its base (inside the window, below 2^31), so gathers of 32-bit lanes.
        LLVMValueRef ptrs = global  ? ir.int_to_ptr(addr)
                            : param ? ir.byte_offset(thread_ptr(ptxsim::kThreadParams), addr)
                                    : ir.byte_offset(m_shared, ir.trunc(addr, ir.i32));
        LLVMValueRef mask = exec_lanes();
        LLVMTypeRef pt = ir.vector_of(ir.ptr);
        for (unsigned k = 0; k < op.vector; ++k) {
            LLVMValueRef at = k == 0 ? ptrs : ir.byte_offset(ptrs, ir.constant(ir.i64, uint64_t(k) * bytes));
            if (load) {
                LLVMValueRef v = ir.intrinsic("llvm.masked.gather", {vt, pt},
                                              {at, ir.constant(ir.i32, 1), mask, l.LLVMConstNull(vt)});
                fast_loads[k].emplace_back(v, ir.current());
            } else {
                ir.intrinsic("llvm.masked.scatter", {vt, pt}, {values[k], at, ir.constant(ir.i32, 1), mask});
            }
        }
        ir.br(join);
    } else {
        ir.br(slow);
    }
    // Lane by lane through translate(), in lane order: the runtime's warp_matrix (one call, not a loop of blocks per
    // access: a tiled kernel's unrolled copies have hundreds).
    ir.position(slow);
    point_value(0, addr, 64);
    for (unsigned k = 0; k < op.vector; ++k) point_value(1 + k, load ? nullptr : values[k], bits);
    call_warp_helper(ptxsim::kRuntimeWarpMatrix,
                     ptxsim::warp_memory_code(static_cast<uint32_t>(a.space), bytes, op.vector, !load), false);
    std::vector<LLVMValueRef> slow_loads;
    if (load)
        for (unsigned k = 0; k < op.vector; ++k) slow_loads.push_back(ir.load(vt, scratch(1 + k), 8));
    LLVMBasicBlockRef slow_end = ir.current();
    ir.br(join);
    ir.position(join);
    if (!load) return ok_status();
    std::vector<LLVMValueRef> loaded = slow_loads;
    if (windowed)
        for (unsigned k = 0; k < op.vector; ++k) { // the phis first, together at the top of the block
            loaded[k] = l.LLVMBuildPhi(ir.builder(), vt, "");
            std::vector<LLVMValueRef> incoming{slow_loads[k]};
            std::vector<LLVMBasicBlockRef> blocks{slow_end};
            for (const auto& [v, b] : fast_loads[k]) {
                incoming.push_back(v);
                blocks.push_back(b);
            }
            l.LLVMAddIncoming(loaded[k], incoming.data(), blocks.data(), static_cast<unsigned>(incoming.size()));
        }
    for (unsigned k = 0; k < op.vector; ++k) D4R_TRY(put(k, loaded[k]));
    return ok_status();
}

} // namespace d4r::jit
