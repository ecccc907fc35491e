// Control flow and synchronisation: bra (.uni), call / ret to .func with .param passing, exit,
// bar.sync / barrier.sync (with thread counts), bar.arrive / barrier.arrive, bar.warp.sync,
// membar / fence (no-ops: every access is immediately visible in this interpreter), trap, brkpt,
// nanosleep, and calls of the external vprintf (device printf, formatted on the host: vprintf.h).
//
// Instr use: bra: aux = target pc; brx.idx: aux = branch table, s[0] index; call: aux = call-site index
// (Program::calls), s[0] the function address register of an indirect call; bar: s[0] barrier id, s[1]
// thread count (kNoReg: all threads), flags = kArriveOnly; vprintf: imm = offset of the format-address
// .param variable, aux = offset of the argument-buffer-address variable | (offset of the return
// variable + 1) << 32 (0: no return variable).
//
// Calls push (return pc, call site, target) on the lane's stack; ret pops it and copies the callee's
// return parameters to the caller's .param variables. A call into a recursive function also saves the
// callee's frame for the calling lanes, and its ret restores it (recursion.h).
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

#include "ptx/instr_control.h"
#include "ptxsim/decoder.h"
#include "ptxsim/lanes.h"
#include "ptxsim/memory_access.h"
#include "ptxsim/ops.h"
#include "ptxsim/program_builder.h"
#include "ptxsim/recursion.h"
#include "ptxsim/vprintf.h"

namespace d4r::ptxsim {

namespace {

// Lanes of `active` outside MASK move on to the next instruction; lanes in MASK go to TARGET.
D4R_INLINE void split_pcs(Warp& w, uint32_t mask, uint32_t target) {
    const uint32_t next = w.cur_pc + 1;
    for (int i = 0; i < 32; ++i)
        if (w.active & lane_bit(i)) w.pc[i] = (mask & lane_bit(i)) ? target : next;
}

Flow exec_bra(Warp& w, const Instr& in, uint32_t mask) {
    uint32_t target = static_cast<uint32_t>(in.aux);
    if (mask == w.active) {
        w.cur_pc = target;
        return Flow::Continue;
    }
    split_pcs(w, mask, target);
    return Flow::Resched;
}

// brx.idx: each lane jumps to the table entry its index selects.
Flow exec_brx(Warp& w, const Instr& in, uint32_t mask) {
    const std::vector<uint32_t>& table = w.launch->program->branch_tables[in.aux];
    uint32_t idx[32];
    read_lanes(w, in.s[0], idx);
    uint32_t bad = 0;
    for_lanes(mask, [&](unsigned l) {
        if (idx[l] >= table.size()) bad |= lane_bit(l);
    });
    if (bad) {
        unsigned l = static_cast<unsigned>(__builtin_ctz(bad));
        return fault(w, FaultKind::IllegalInstruction, l, 0, 0,
                     fmt::format("brx.idx index {} is outside its {}-entry table", idx[l], table.size()));
    }
    const uint32_t next = w.cur_pc + 1;
    for (int i = 0; i < 32; ++i)
        if (w.active & lane_bit(i)) w.pc[i] = (mask & lane_bit(i)) ? table[idx[i]] : next;
    return Flow::Resched;
}

Flow exec_exit(Warp& w, const Instr& in, uint32_t mask) {
    split_pcs(w, 0, 0);
    w.live &= ~mask;
    w.sync_wait &= ~mask;
    return Flow::Resched;
}

Flow exec_ret(Warp& w, const Instr& in, uint32_t mask) {
    if (w.max_depth == 0) { // a kernel without calls: ret is exit
        w.live &= ~mask;
        w.sync_wait &= ~mask;
        if (mask == w.active) {
            w.set_active(0);
            return Flow::Resched;
        }
        split_pcs(w, 0, 0);
        return Flow::Resched;
    }
    split_pcs(w, 0, 0);
    const Program& prog = *w.launch->program;
    for_lanes(mask, [&](unsigned l) {
        if (w.depth[l] == 0) { // returning from the kernel: the thread exits
            w.live &= ~lane_bit(l);
            w.sync_wait &= ~lane_bit(l);
            return;
        }
        --w.depth[l];
        size_t slot = size_t(w.depth[l]) * 32 + l;
        uint64_t frame = w.frame_stack[slot];
        const CallTarget& t = prog.calls[frame >> 32].targets[uint32_t(frame)];
        if (t.frame >= 0) {
            restore_frame(w, l, t);
        } else {
            uint8_t* fp = fparam_of(w, l);
            for (const CallTarget::Copy& c : t.rets) std::memmove(fp + c.to, fp + c.from, c.bytes);
        }
        w.pc[l] = w.ret_stack[slot];
    });
    return Flow::Resched;
}

// vprintf: each lane formats its call (lanes in lane order) into the block's printf text. A read outside
// device memory (the format, the argument buffer or a %s string) faults like the load it stands for.
class LaneMemory final : public VprintfMemory {
public:
    LaneMemory(Warp& w, unsigned lane) : m_w(w), m_lane(lane) {}
    bool read(uint64_t addr, void* dst, uint32_t bytes) override {
        const uint8_t* p = translate<Space::Generic>(m_w, m_lane, addr, bytes, false);
        if (!p) return false;
        std::memcpy(dst, p, bytes);
        return true;
    }

private:
    Warp& m_w;
    unsigned m_lane;
};

Flow exec_vprintf(Warp& w, const Instr& in, uint32_t mask) {
    const uint32_t fmt_off = static_cast<uint32_t>(in.imm);
    const uint32_t args_off = static_cast<uint32_t>(in.aux);
    const uint32_t ret_slot = static_cast<uint32_t>(in.aux >> 32);
    std::string local;
    std::string& out = t_block_printf ? *t_block_printf : local;
    Flow flow = Flow::Next;
    for_lanes(mask, [&](unsigned l) {
        if (flow != Flow::Next) return;
        uint8_t* fp = fparam_of(w, l);
        uint64_t fmt = 0, args = 0;
        std::memcpy(&fmt, fp + fmt_off, sizeof fmt);
        std::memcpy(&args, fp + args_off, sizeof args);
        LaneMemory mem(w, l);
        std::string text;
        const VprintfResult r = format_vprintf(mem, fmt, args, text);
        if (r.fault) { // the call prints nothing
            w.fault_detail = "vprintf: " + w.fault_detail;
            flow = Flow::Stop;
            return;
        }
        out += text;
        if (ret_slot) std::memcpy(fp + (ret_slot - 1), &r.value, sizeof r.value);
    });
    if (!t_block_printf && !local.empty()) std::fwrite(local.data(), 1, local.size(), stdout);
    return flow;
}

// __assertfail(message, file, line, function, char size): what a failed device-side assert calls. Each
// failing lane prints as NVIDIA's driver does ("FILE:LINE: FUNCTION: block: [x,y,z], thread: [x,y,z]
// Assertion `MESSAGE` failed.") and the kernel stops with CUDA_ERROR_ASSERT.
Flow exec_assertfail(Warp& w, const Instr& in, uint32_t mask) {
    std::string out, first_message;
    for_lanes(mask, [&](unsigned l) {
        const uint8_t* fp = fparam_of(w, l);
        uint64_t message = 0, file = 0, function = 0;
        uint32_t line = 0;
        std::memcpy(&message, fp + in.s[0], 8);
        std::memcpy(&file, fp + in.s[1], 8);
        std::memcpy(&line, fp + in.s[2], 4);
        std::memcpy(&function, fp + in.s[3], 8);
        LaneMemory mem(w, l);
        auto text = [&](uint64_t addr) {
            std::string s;
            char c = 0;
            while (addr && s.size() < 4096 && mem.read(addr + s.size(), &c, 1) && c) s += c;
            return s;
        };
        const unsigned tid = w.first_thread + l;
        const Dim3 dim = w.launch->config.block;
        const Dim3 b = w.block->ctaid;
        const std::string what = text(message);
        if (first_message.empty()) first_message = what;
        out +=
            fmt::format("{}:{}: {}: block: [{},{},{}], thread: [{},{},{}] Assertion `{}` failed.\n", text(file), line,
                        text(function), b.x, b.y, b.z, tid % dim.x, tid / dim.x % dim.y, tid / (dim.x * dim.y), what);
    });
    if (t_block_printf)
        *t_block_printf += out;
    else
        std::fwrite(out.data(), 1, out.size(), stdout);
    return fault(w, FaultKind::Assert, static_cast<uint32_t>(__builtin_ctz(mask)), 0, 0,
                 fmt::format("Assertion `{}` failed", first_message));
}

Flow exec_call(Warp& w, const Instr& in, uint32_t mask) {
    const CallSite& cs = w.launch->program->calls[in.aux];
    uint64_t fptr[32] = {};
    if (cs.indirect) read_lanes(w, in.s[0], fptr);
    uint32_t deep = 0, bad_target = 0;
    uint32_t targets[32] = {};
    for_lanes(mask, [&](unsigned l) {
        uint32_t t = 0;
        if (cs.indirect) {
            t = UINT32_MAX;
            for (uint32_t k = 0; k < cs.targets.size(); ++k)
                if (kFunctionWindow + 16 * uint64_t(cs.targets[k].function) == fptr[l]) t = k;
            if (t == UINT32_MAX) {
                bad_target |= lane_bit(l);
                return;
            }
        }
        targets[l] = t;
        if (w.depth[l] >= w.max_depth) deep |= lane_bit(l);
    });
    if (bad_target) {
        unsigned l = static_cast<unsigned>(__builtin_ctz(bad_target));
        return fault(
            w, FaultKind::IllegalInstruction, l, fptr[l], 0,
            fmt::format("indirect call to 0x{:x}, which is no function of this kernel with this prototype", fptr[l]));
    }
    if (deep && w.recursion) { // the stacks of a recursive kernel grow as needed, up to a limit
        if (!grow_call_stack(w)) return stack_overflow(w, static_cast<unsigned>(__builtin_ctz(deep)), 0);
        deep = 0;
    }
    if (deep)
        return fault(w, FaultKind::IllegalInstruction, static_cast<uint32_t>(__builtin_ctz(deep)), 0, 0,
                     fmt::format("call stack deeper than {}", w.max_depth));
    if (cs.saves && save_frames(w, cs, targets, mask) == Flow::Stop) return Flow::Stop;
    const uint32_t next = w.cur_pc + 1;
    for_lanes(mask, [&](unsigned l) {
        const CallTarget& t = cs.targets[targets[l]];
        uint8_t* fp = fparam_of(w, l);
        for (const CallTarget::Copy& c : t.args) std::memmove(fp + c.to, fp + c.from, c.bytes);
        size_t slot = size_t(w.depth[l]) * 32 + l;
        w.ret_stack[slot] = next;
        w.frame_stack[slot] = (uint64_t(in.aux) << 32) | targets[l];
        ++w.depth[l];
    });
    if (!cs.indirect && mask == w.active) {
        w.cur_pc = cs.targets[0].pc;
        return Flow::Continue;
    }
    for (int i = 0; i < 32; ++i)
        if (w.active & lane_bit(i)) w.pc[i] = (mask & lane_bit(i)) ? cs.targets[targets[i]].pc : next;
    return Flow::Resched;
}

D4R_INLINE uint32_t first_lane_value(const Warp& w, uint32_t slot, uint32_t mask) {
    return reinterpret_cast<const uint32_t*>(w.regs + slot)[__builtin_ctz(mask)];
}

enum BarFlags : uint16_t { kArriveOnly = 1, kRedPopc = 2, kRedAnd = 4, kRedOr = 8 };

Flow exec_bar(Warp& w, const Instr& in, uint32_t mask) {
    uint32_t id = first_lane_value(w, in.s[0], mask);
    uint32_t count = in.s[1] == kNoReg ? 0 : first_lane_value(w, in.s[1], mask);
    if (id >= 16)
        return fault(w, FaultKind::IllegalInstruction, static_cast<uint32_t>(__builtin_ctz(mask)), 0, 0,
                     fmt::format("barrier id {} is not in 0..15", id));
    if (count % 32 != 0 || count > 1024)
        return fault(w, FaultKind::IllegalInstruction, static_cast<uint32_t>(__builtin_ctz(mask)), 0, 0,
                     fmt::format("barrier thread count {} is not a multiple of 32 up to 1024", count));
    if (in.flags & kArriveOnly) {
        // A non-blocking arrival counts the warp (32 threads) once per execution.
        ++w.block->bar_arrivals[id];
        return Flow::Next;
    }
    if (w.bar_wait && w.bar_id != id)
        return fault(w, FaultKind::IllegalInstruction, static_cast<uint32_t>(__builtin_ctz(mask)), 0, 0,
                     fmt::format("lanes of one warp wait at barriers {} and {}", w.bar_id, id));
    w.bar_id = id;
    w.bar_count = count;
    w.bar_wait |= mask;
    if (in.flags & (kRedPopc | kRedAnd | kRedOr)) {
        // bar.red: every arriving thread contributes its predicate; the result is delivered on release.
        uint32_t p = read_pred(w, in.ps[0], in.ps_neg[0]) & mask;
        BlockState& b = *w.block;
        b.red_popc[id] += static_cast<uint32_t>(__builtin_popcount(p));
        b.red_true[id] |= p;
        b.red_false[id] |= mask & ~p;
        w.red_op = (in.flags & kRedPopc) ? 1 : (in.flags & kRedAnd) ? 2 : 3;
        w.red_dst = (in.flags & kRedPopc) ? in.d[0] : static_cast<uint32_t>(in.pd[0]);
        w.red_lanes |= mask;
    }
    split_pcs(w, 0, 0); // every active lane continues after the barrier once it is released
    return Flow::Resched;
}

Flow exec_warp_sync(Warp& w, const Instr& in, uint32_t mask) {
    CollectiveGroup g;
    switch (collective_ready(w, in, mask, 0, g)) {
    case SyncResult::Go:
        return g.simple() ? Flow::Next : finish_collective(w, g);
    case SyncResult::Wait:
        return Flow::Resched;
    default:
        return Flow::Stop;
    }
}

Flow exec_nop(Warp&, const Instr&, uint32_t) { return Flow::Next; }

Flow exec_trap(Warp& w, const Instr& in, uint32_t mask) {
    return fault(w, FaultKind::IllegalInstruction, static_cast<uint32_t>(__builtin_ctz(mask)), 0, 0,
                 in.flags ? "brkpt" : "trap");
}

// The family's meaning is the front end's (ptx/instr_control.h); here labels, tables, call targets and handlers.
Status decode_bra(InstrDecoder& d) {
    D4R_TRY(d.typed(ptx::decode_control));
    d.emit(&exec_bra);
    return d.branch_target(d.operand(0).name);
}

Status decode_brx(InstrDecoder& d) {
    D4R_TRY(d.typed(ptx::decode_control));
    uint32_t index = D4R_TRY(d.src(0, Type::U32));
    const ast::Operand& t = d.operand(1);
    int64_t table = t.kind == ast::OperandKind::Name ? d.builder().branch_table(t.name) : -1;
    if (table < 0) return d.error("brx.idx needs a .branchtargets list of this function");
    Instr& in = d.emit(&exec_brx);
    in.s[0] = index;
    in.aux = static_cast<uint64_t>(table);
    return ok_status();
}

Status decode_exit(InstrDecoder& d) {
    D4R_TRY(d.typed(ptx::decode_control));
    d.emit(&exec_exit);
    return ok_status();
}

Status decode_ret(InstrDecoder& d) {
    D4R_TRY(d.typed(ptx::decode_control));
    d.emit(&exec_ret);
    return ok_status();
}

// call (ret), vprintf, (fmt, args): the external function CUDA's printf compiles to.
Status decode_vprintf(InstrDecoder& d, const ast::Operand* rets, const ast::Operand* args) {
    if (!args || args->elements.size() != 2 || (rets && rets->elements.size() > 1))
        return d.error("vprintf takes two arguments (format, argument buffer) and at most one return value");
    auto param = [&](const ast::Operand& o, uint64_t min_size) -> Expected<uint32_t> {
        auto v = o.kind == ast::OperandKind::Name ? d.lookup(o.name) : std::nullopt;
        if (!v || v->kind != Symbol::Kind::Var || v->space != Space::FuncParam || v->size < min_size)
            return d.error("vprintf arguments must be .param variables (8 bytes; the return value 4)");
        return static_cast<uint32_t>(v->value);
    };
    uint32_t fmt = D4R_TRY(param(args->elements[0], 8));
    uint32_t buf = D4R_TRY(param(args->elements[1], 8));
    uint64_t ret = 0;
    if (rets && rets->elements.size() == 1) ret = uint64_t(D4R_TRY(param(rets->elements[0], 4))) + 1;
    Instr& in = d.emit(&exec_vprintf);
    in.imm = fmt;
    in.aux = buf | (ret << 32);
    return ok_status();
}

// call __assertfail, (message, file, line, function, char size): a device-side assert.
Status decode_assertfail(InstrDecoder& d, const ast::Operand* rets, const ast::Operand* args) {
    if (rets || !args || args->elements.size() < 4)
        return d.error("__assertfail takes (message, file, line, function[, char size]) and returns nothing");
    uint32_t offsets[4];
    for (size_t i = 0; i < 4; ++i) {
        const ast::Operand& o = args->elements[i];
        auto v = o.kind == ast::OperandKind::Name ? d.lookup(o.name) : std::nullopt;
        if (!v || v->kind != Symbol::Kind::Var || v->space != Space::FuncParam || v->size < (i == 2 ? 4u : 8u))
            return d.error("__assertfail arguments must be .param variables");
        offsets[i] = static_cast<uint32_t>(v->value);
    }
    Instr& in = d.emit(&exec_assertfail);
    for (size_t i = 0; i < 4; ++i) in.s[i] = offsets[i];
    return ok_status();
}

// call{.uni} (rets), func, (args);  call func, (args);  call (rets), func;  call func;
// call (rets), %fptr, (args), prototype;  (indirect: every address-taken .func with a matching signature)
Status decode_call(InstrDecoder& d) {
    const ptx::Control c = D4R_TRY(d.typed(ptx::decode_control));
    const ast::Operand* rets = c.returns >= 0 ? &d.operand(static_cast<size_t>(c.returns)) : nullptr;
    const ast::Operand* func = &d.operand(static_cast<size_t>(c.function));
    const ast::Operand* args = c.arguments >= 0 ? &d.operand(static_cast<size_t>(c.arguments)) : nullptr;
    // A name after the function is the prototype of an indirect call (or a list of possible targets): the
    // signature is checked against each candidate below.
    size_t nargs = args ? args->elements.size() : 0;
    size_t nrets = rets ? rets->elements.size() : 0;
    ProgramBuilder& b = d.builder();
    auto sym = d.lookup(func->name);
    if (!sym) return d.error(fmt::format("unknown call target '{}'", func->name));
    std::vector<uint32_t> candidates;
    bool indirect = false;
    uint32_t pointer = kNoReg;
    if (sym->kind == Symbol::Kind::Func) {
        const ast::Function& f = b.ctx().ast->functions[sym->value];
        if (f.is_entry) return d.error(fmt::format("'{}' is a kernel, not a .func", func->name));
        if (!f.defined && f.name == "vprintf") return decode_vprintf(d, rets, args);
        if (!f.defined && f.name == "__assertfail") return decode_assertfail(d, rets, args);
        if (!f.defined && is_device_runtime_function(f.name)) return decode_device_runtime_call(d, f.name, rets, args);
        if (!f.defined && is_heap_function(f.name)) return decode_heap_call(d, f.name, rets, args);
        if (!f.defined && is_conditional_function(f.name)) return decode_conditional_call(d, rets, args);
        if (!f.defined) return d.error(fmt::format("call to external function '{}' is not supported", func->name));
        candidates.push_back(static_cast<uint32_t>(sym->value));
    } else if (sym->kind == Symbol::Kind::Reg && sym->wide) {
        indirect = true;
        pointer = static_cast<uint32_t>(sym->value);
        for (uint32_t c : b.ctx().address_taken) {
            const std::vector<Symbol>* formals = b.formals(c);
            if (formals && formals->size() == nargs + nrets && b.return_count(c) == nrets) candidates.push_back(c);
        }
    } else {
        return d.error(fmt::format("'{}' is not a function or a 64-bit function address", func->name));
    }
    for (uint32_t c : candidates) {
        const std::vector<Symbol>* formals = b.formals(c);
        uint32_t nret = b.return_count(c);
        if (!formals || formals->size() - nret != nargs || nrets != nret)
            return d.error(fmt::format("'{}' takes {} parameters and {} return values, the call passes {} and {}",
                                       b.ctx().ast->functions[c].name, formals ? formals->size() - nret : 0, nret,
                                       nargs, nrets));
    }
    auto copy_of = [&](const ast::Operand& o, const Symbol& formal, bool to_callee) -> Expected<CallTarget::Copy> {
        if (o.kind != ast::OperandKind::Name) return d.error("call arguments must be .param variables");
        auto v = d.lookup(o.name);
        if (!v || v->kind != Symbol::Kind::Var || v->space != Space::FuncParam)
            return d.error(fmt::format("call argument '{}' is not a .param variable (register arguments are not "
                                       "supported)",
                                       o.name));
        uint32_t bytes = static_cast<uint32_t>(std::min(v->size, formal.size));
        if (to_callee)
            return CallTarget::Copy{static_cast<uint32_t>(v->value), static_cast<uint32_t>(formal.value), bytes};
        return CallTarget::Copy{static_cast<uint32_t>(formal.value), static_cast<uint32_t>(v->value), bytes};
    };
    std::vector<std::pair<std::vector<CallTarget::Copy>, std::vector<CallTarget::Copy>>> copies;
    for (uint32_t c : candidates) {
        const std::vector<Symbol>& formals = *b.formals(c);
        std::vector<CallTarget::Copy> arg_copies, ret_copies;
        for (size_t i = 0; i < nargs; ++i) arg_copies.push_back(D4R_TRY(copy_of(args->elements[i], formals[i], true)));
        for (size_t i = 0; i < nrets; ++i)
            ret_copies.push_back(D4R_TRY(copy_of(rets->elements[i], formals[nargs + i], false)));
        copies.emplace_back(std::move(arg_copies), std::move(ret_copies));
    }
    uint32_t site = b.add_call_site(candidates, indirect);
    CallSite& cs = b.program().calls[site];
    for (size_t k = 0; k < candidates.size(); ++k) {
        cs.targets[k].args = std::move(copies[k].first);
        cs.targets[k].rets = std::move(copies[k].second);
    }
    Instr& in = d.emit(&exec_call);
    in.aux = site;
    in.s[0] = pointer;
    return ok_status();
}

// bar{.cta}.sync / barrier{.cta}.sync{.aligned} a{, b}; bar.arrive / barrier.arrive a, b; bar.red; bar.warp.sync.
Status decode_bar(InstrDecoder& d) {
    const ptx::Control c = D4R_TRY(d.typed(ptx::decode_control));
    if (c.op == ptx::Control::Op::WarpSync) {
        uint32_t member = D4R_TRY(d.src(0, Type::B32));
        d.emit(&exec_warp_sync).s[0] = member;
        return ok_status();
    }
    using Reduction = ptx::Control::Reduction;
    uint32_t id = D4R_TRY(d.src(c.barrier_id, Type::U32));
    uint32_t count = c.thread_count ? D4R_TRY(d.src(c.barrier_id + 1, Type::U32)) : kNoReg;
    Instr tmp;
    if (c.reduction != Reduction::None) {
        auto p = D4R_TRY(d.pred_src(d.operand(d.operand_count() - 1)));
        tmp.ps[0] = p.first;
        tmp.ps_neg[0] = p.second;
        if (c.reduction == Reduction::Popc)
            tmp.d[0] = D4R_TRY(d.dst(0, Type::U32));
        else
            tmp.pd[0] = D4R_TRY(d.pred_dst(d.operand(0)));
    }
    Instr& in = d.emit(&exec_bar);
    in.s[0] = id;
    in.s[1] = count;
    in.d[0] = tmp.d[0];
    in.pd[0] = tmp.pd[0];
    in.ps[0] = tmp.ps[0];
    in.ps_neg[0] = tmp.ps_neg[0];
    in.flags = c.arrive                         ? kArriveOnly
               : c.reduction == Reduction::Popc ? kRedPopc
               : c.reduction == Reduction::And  ? kRedAnd
               : c.reduction == Reduction::Or   ? kRedOr
                                                : 0;
    return ok_status();
}

Status decode_fence(InstrDecoder& d) {
    D4R_TRY(d.typed(ptx::decode_control)); // no effect in d4r's sequentially consistent memory
    d.emit(&exec_nop);
    return ok_status();
}

Status decode_trap(InstrDecoder& d) {
    const ptx::Control c = D4R_TRY(d.typed(ptx::decode_control));
    d.emit(&exec_trap).flags = c.op == ptx::Control::Op::Breakpoint ? 1 : 0;
    return ok_status();
}

// A thread sleeps while it waits for others (spin loops with backoff): the warp gives the rest of its
// slice to the others.
Flow exec_nanosleep(Warp& w, const Instr&, uint32_t) {
    for (int i = 0; i < 32; ++i)
        if (w.active & lane_bit(i)) w.pc[i] = w.cur_pc + 1;
    return Flow::Stop;
}

Status decode_nanosleep(InstrDecoder& d) {
    D4R_TRY(d.typed(ptx::decode_control));
    d.emit(&exec_nanosleep);
    return ok_status();
}

} // namespace

void add_control_ops(OpcodeTable& t) {
    t["bra"] = &decode_bra;
    t["brx"] = &decode_brx;
    t["exit"] = &decode_exit;
    t["ret"] = &decode_ret;
    t["call"] = &decode_call;
    t["bar"] = &decode_bar;
    t["barrier"] = &decode_bar;
    t["membar"] = &decode_fence;
    t["fence"] = &decode_fence;
    t["trap"] = &decode_trap;
    t["brkpt"] = &decode_trap;
    t["nanosleep"] = &decode_nanosleep;
}

bool is_builtin_function(std::string_view name) {
    return name == "vprintf" || name == "__assertfail" || is_device_runtime_function(name) || is_heap_function(name) ||
           is_conditional_function(name);
}

} // namespace d4r::ptxsim
