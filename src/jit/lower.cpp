// Lowering one kernel (lower.h): the function, its registers, operands, guards, labels and branches, and the
// dispatch of each typed instruction to its family's lowering.
#include <algorithm>
#include <charconv>

#include <fmt/format.h>

#include "jit/lower_impl.h"
#include "jit/uniformity.h"
#include "ptx/immediate.h"
#include "ptx/modifiers.h"
#include "ptxsim/ptxsim.h"

namespace d4r::jit {

Lowering::Lowering(IrBuilder& builder, const ptxsim::KernelSource& src, bool warp_code, const NvptxObjects* objects)
    : ir(builder), source(src), function(src.module->functions[src.function]), warp(warp_code && !objects),
      nvptx(objects != nullptr) {
    if (objects) {
        m_objects = objects->globals;
        m_inline_ptx = objects->inline_ptx;
        m_nvptx_objects = objects;
        m_object_spaces.assign(m_objects.size(), ptx::StateSpace::Global);
        for (const auto& [name, place] : src.layout->module_variables)
            if (place.address < m_object_spaces.size()) m_object_spaces[place.address] = place.space;
    }
}

Error Lowering::refuse(std::string_view why) const {
    if (!current) return Error(ErrorCode::Unsupported, std::string(why));
    std::string text; // on one line, one space between words (a call's text spans lines)
    for (char c : current->text) {
        const bool space = c == ' ' || c == '\t' || c == '\n' || c == '\r';
        if (!space)
            text += c;
        else if (!text.empty() && text.back() != ' ')
            text += ' ';
    }
    return Error(ErrorCode::Unsupported, fmt::format("line {}: '{}': {}", current->line, text, why));
}

LLVMTypeRef Lowering::llvm_type(Type t) const {
    if (t == Type::F32) return ir.f32;
    if (t == Type::F64) return ir.f64;
    if (t == Type::Pred) return ir.i1;
    return ir.int_type(ptx::type_bits(t));
}

LLVMValueRef Lowering::thread_u32(unsigned offset) { return ir.load(ir.i32, ir.field(m_thread, offset), 4); }
LLVMValueRef Lowering::thread_u64(unsigned offset) { return ir.load(ir.i64, ir.field(m_thread, offset), 8); }
LLVMValueRef Lowering::runtime_entry(unsigned offset) {
    return ir.load(ir.ptr, ir.field(thread_ptr(ptxsim::kThreadRuntime), offset), 8);
}
LLVMValueRef Lowering::thread_ptr(unsigned offset) { return ir.load(ir.ptr, ir.field(m_thread, offset), 8); }

uint32_t Lowering::site() {
    if (m_site < 0) {
        m_site = static_cast<int64_t>(m_sites.size());
        m_sites.push_back({current->line, std::string(current->text)});
    }
    return static_cast<uint32_t>(m_site);
}

void Lowering::fault_unless(LLVMValueRef ok) {
    LLVMBasicBlockRef fail = ir.new_block("fault");
    LLVMBasicBlockRef next = ir.new_block("");
    ir.expect_br(ok, true, next, fail);
    ir.position(fail);
    ir.store(ir.constant(ir.i32, site()), ir.field(m_thread, ptxsim::kThreadFaultSite), 4);
    ir.ret(ir.constant(ir.i32, ptxsim::kCompiledFault));
    ir.position(next);
}

LLVMValueRef Lowering::translate(ptx::StateSpace space, LLVMValueRef address, unsigned bytes, bool write,
                                 LLVMValueRef lane) {
    if (warp) {
        if (!lane) lane = ir.intrinsic("llvm.cttz", {ir.i32}, {m_exec, ir.constant(ir.i1, 0)});
        ir.store(lane, ir.field(m_thread, ptxsim::kThreadLane), 4);
    }
    LLVMValueRef fn = runtime_entry(ptxsim::kRuntimeTranslate);
    LLVMValueRef p = ir.call(m_translate_type, fn,
                             {m_thread, ir.constant(ir.i32, static_cast<uint32_t>(space)), address,
                              ir.constant(ir.i32, bytes), ir.constant(ir.i32, write ? 1 : 0)});
    fault_unless(
        ir.icmp(abi::D4R_LLVMIntNE, ir.llvm().LLVMBuildPtrToInt(ir.builder(), p, ir.i64, ""), ir.constant(ir.i64, 0)));
    return p;
}

LLVMValueRef Lowering::runtime_float(Type t, uint32_t code, std::array<LLVMValueRef, 3> sources) {
    LLVMTypeRef ft = llvm_type(t);
    LLVMTypeRef params[4] = {ir.i32, ft, ft, ft};
    LLVMTypeRef fn_type = ir.llvm().LLVMFunctionType(ft, params, 4, 0);
    LLVMValueRef fn = runtime_entry(t == Type::F32 ? ptxsim::kRuntimeF32Op : ptxsim::kRuntimeF64Op);
    for (LLVMValueRef& s : sources)
        if (!s) s = ir.bitcast(ir.constant(ir.int_type(ptx::type_bits(t)), 0), ft);
    if (warp)
        return per_lane(ft, {sources[0], sources[1], sources[2]}, [&](const std::vector<LLVMValueRef>& x) {
            return ir.call(fn_type, fn, {ir.constant(ir.i32, code), x[0], x[1], x[2]});
        });
    return ir.call(fn_type, fn, {ir.constant(ir.i32, code), sources[0], sources[1], sources[2]});
}

LLVMValueRef Lowering::runtime_cvt(uint64_t code, LLVMValueRef a) {
    LLVMTypeRef params[2] = {ir.i64, ir.i64};
    LLVMTypeRef fn_type = ir.llvm().LLVMFunctionType(ir.i64, params, 2, 0);
    LLVMValueRef fn = runtime_entry(ptxsim::kRuntimeCvt);
    if (warp)
        return per_lane(ir.i64, {a}, [&](const std::vector<LLVMValueRef>& x) {
            return ir.call(fn_type, fn, {ir.constant(ir.i64, code), x[0]});
        });
    return ir.call(fn_type, fn, {ir.constant(ir.i64, code), a});
}

// --- registers and operands ---

Expected<Lowering::Reg> Lowering::reg(std::string_view name) {
    for (auto it = m_scopes.rbegin(); it != m_scopes.rend(); ++it) {
        if (auto f = it->regs.find(name); f != it->regs.end()) return f->second;
        if (auto f = it->range_regs.find(name); f != it->range_regs.end()) return f->second;
    }
    // %r<N> declares %r0 .. %r(N-1): the longest declared prefix whose rest is a number below N.
    for (auto it = m_scopes.rbegin(); it != m_scopes.rend(); ++it) {
        for (size_t cut = name.size(); cut > 0; --cut) {
            auto range = it->ranges.find(name.substr(0, cut));
            if (range == it->ranges.end()) continue;
            std::string_view digits = name.substr(cut);
            uint64_t index = 0;
            auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
            if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() ||
                index >= range->second.count || (digits.size() > 1 && digits[0] == '0'))
                continue;
            const Type t = range->second.type;
            Reg r;
            r.type = t;
            r.bits = t == Type::Pred ? 1 : ptx::type_bits(t) == 64 ? 64 : 32;
            r.uniform = uniform_register(name);
            r.slot = register_slot(name, r);
            it->range_regs.emplace(std::string(name), r);
            return r;
        }
    }
    return refuse(fmt::format("'{}' is not a register the JIT knows", name));
}

const ptxsim::VariablePlace* Lowering::variable(std::string_view name) const {
    for (auto it = m_scopes.rbegin(); it != m_scopes.rend(); ++it)
        if (auto f = it->variables.find(name); f != it->variables.end()) return &f->second;
    auto g = source.layout->module_variables.find(name);
    return g == source.layout->module_variables.end() ? nullptr : &g->second;
}

Expected<LLVMValueRef> Lowering::special(std::string_view name) {
    if (nvptx) return nv_special(name);
    static constexpr std::pair<std::string_view, unsigned> kFields[] = {
        {"%tid.x", ptxsim::kThreadTid},
        {"%tid.y", ptxsim::kThreadTid + 4},
        {"%tid.z", ptxsim::kThreadTid + 8},
        {"%ntid.x", ptxsim::kThreadNtid},
        {"%ntid.y", ptxsim::kThreadNtid + 4},
        {"%ntid.z", ptxsim::kThreadNtid + 8},
        {"%ctaid.x", ptxsim::kThreadCtaid},
        {"%ctaid.y", ptxsim::kThreadCtaid + 4},
        {"%ctaid.z", ptxsim::kThreadCtaid + 8},
        {"%nctaid.x", ptxsim::kThreadNctaid},
        {"%nctaid.y", ptxsim::kThreadNctaid + 4},
        {"%nctaid.z", ptxsim::kThreadNctaid + 8},
        {"%laneid", ptxsim::kThreadLane},
        {"%warpid", ptxsim::kThreadWarpId},
        {"%dynamic_smem_size", ptxsim::kThreadDynamicShared},
    };
    if (warp && name.starts_with("%tid.") && name.size() == 6 && name[5] >= 'x' && name[5] <= 'z') {
        const unsigned k = static_cast<unsigned>(name[5] - 'x');
        return ir.load(ir.vector_of(ir.i32), ir.field(thread_ptr(ptxsim::kThreadLaneTids), k * 128), 4);
    }
    if (warp && name == "%laneid") return lane_ids();
    for (const auto& [n, offset] : kFields)
        if (n == name) return thread_u32(offset);
    if (name == "%nwarpid") return ir.constant(ir.i32, 64);
    if (name == "%nsmid") return ir.constant(ir.i32, 132);
    if (name == "WARP_SZ") return ir.constant(ir.i32, 32);
    if (name.starts_with("%lanemask_")) {
        LLVMValueRef lane = warp ? lane_ids() : thread_u32(ptxsim::kThreadLane);
        LLVMValueRef one = ir.shl(ir.constant(ir.i32, 1), lane);  // lane bit
        LLVMValueRef below = ir.sub(one, ir.constant(ir.i32, 1)); // lanes under it
        const std::string_view which = name.substr(10);
        if (which == "eq") return one;
        if (which == "lt") return below;
        if (which == "le") return ir.or_(below, one);
        if (which == "ge") return ir.not_(below);
        if (which == "gt") return ir.not_(ir.or_(below, one));
    }
    return refuse(fmt::format("special register '{}' is not compiled yet", name));
}

LLVMTypeRef Lowering::slot_type(unsigned bits) { return warp ? ir.vector_of(ir.int_type(bits)) : ir.int_type(bits); }

LLVMValueRef Lowering::register_slot(std::string_view name, Reg& r) {
    auto shared = m_shared_slot.find(name);
    if (shared == m_shared_slot.end() || r.uniform || r.bits == 1) return ir.zeroed_slot(reg_type(r));
    r.in_memory = true;
    while (m_memory_slots.size() <= shared->second) m_memory_slots.push_back(ir.zeroed_slot(ir.vector_of(ir.i64)));
    return m_memory_slots[shared->second];
}

// Warp code: the registers of the warp-wide matrix instructions' register lists (and their addresses' registers)
// stay in memory that the runtime's helper reads and writes in place (no copy of their lanes each call, no vector of
// theirs for LLVM to carry through the calls), a few slots shared by many registers (a GEMM's unrolled loop names
// thousands of fragment registers, each live for a few instructions): two share a slot only where no instruction sees
// both live (Liveness::share_slots). A register some lane waiting at a merge may still read, or one shfl reads, is
// left out (each lane's value must stay where only its own writes go).
void Lowering::share_matrix_slots() {
    std::vector<std::string_view> names;
    for (const ast::Instruction& in : function.instructions) {
        const std::string_view base = ptx::Modifiers(in.opcode).base();
        if (base != "wmma" && base != "mma" && base != "ldmatrix") continue;
        auto take = [&](std::string_view name) {
            if (!m_waiting_live.contains(name) && !uniform_register(name)) names.push_back(name);
        };
        for (const ast::Operand& o : in.operands) {
            if (o.kind == ast::OperandKind::Vector)
                for (const ast::Operand& e : o.elements)
                    if (e.kind == ast::OperandKind::Name) take(e.name);
            // An address's register too: read there every call (a GEMM's row addresses live through its loop).
            if (o.kind == ast::OperandKind::Address && !o.name.empty() && !variable(o.name)) take(o.name);
        }
    }
    if (names.empty()) return;
    const Liveness own(function);
    m_shared_slot = (m_liveness ? *m_liveness : own).share_slots(names);
}

LLVMTypeRef Lowering::reg_type(const Reg& r) { return r.uniform ? ir.int_type(r.bits) : slot_type(r.bits); }

bool Lowering::uniform_register(std::string_view name) const {
    return warp && m_uniform_known && !m_divergent.contains(name);
}

LLVMValueRef Lowering::slot_value(const Reg& r, Type t) {
    LLVMValueRef v = ir.load(reg_type(r), r.slot);
    if (t == Type::Pred) return v;
    const unsigned bits = ptx::type_bits(t);
    v = ir.resize(v, bits, false); // the interpreter reads the low bits of the slot
    if (t == Type::F32 || t == Type::F64) v = ir.bitcast(v, llvm_type(t));
    return v;
}

Expected<LLVMValueRef> Lowering::value(const ast::Operand& o, Type t) {
    if (t == Type::Pred) {
        if (o.kind == ast::OperandKind::Integer) return ir.constant(ir.i1, o.integer != 0 ? 1 : 0);
        if (o.kind != ast::OperandKind::Name) return refuse("a predicate operand that is not a register");
        Reg r = D4R_TRY(reg(o.name));
        if (r.bits != 1) return refuse(fmt::format("'{}' is not a predicate", o.name));
        LLVMValueRef v = slot_value(r, t);
        return o.negated ? ir.not_(v) : v;
    }
    if (ptx::type_bits(t) > 64 || ptx::type_bits(t) == 0) return refuse("an operand type the JIT does not lower");
    if (o.kind == ast::OperandKind::Integer || o.kind == ast::OperandKind::Float) {
        auto bits = ptx::immediate_bits(o, t);
        if (!bits) return refuse(bits.error().message());
        LLVMValueRef v = ir.constant(ir.int_type(ptx::type_bits(t)), *bits);
        if (t == Type::F32 || t == Type::F64) v = ir.bitcast(v, llvm_type(t));
        return v;
    }
    if (o.kind != ast::OperandKind::Name || o.negated) return refuse("expected a register or an immediate");
    bool is_reg = false; // a declared register (whatever its name: `.reg .b16 h;` is one too)
    for (auto it = m_scopes.rbegin(); it != m_scopes.rend() && !is_reg; ++it)
        is_reg = it->regs.contains(o.name) || it->range_regs.contains(o.name);
    if (is_reg || o.name.starts_with("%") || o.name == "WARP_SZ") {
        if (!is_reg && !reg(o.name)) {
            LLVMValueRef s = D4R_TRY(special(o.name));
            if (ptx::type_bits(t) != 32) return refuse(fmt::format("special register '{}' is 32 bits", o.name));
            return t == Type::F32 ? ir.bitcast(s, ir.f32) : s;
        }
        Reg r = D4R_TRY(reg(o.name));
        if (r.bits == 1) return refuse(fmt::format("predicate '{}' read as a value", o.name));
        if (ptx::type_bits(t) > r.bits) return refuse(fmt::format("'{}' is narrower than .{}", o.name, type_name(t)));
        return slot_value(r, t);
    }
    // A variable as a value is its address in its own space.
    const ptxsim::VariablePlace* place = variable(o.name);
    if (!place) return refuse(fmt::format("'{}' is not a register or variable the JIT knows", o.name));
    if (ptx::type_bits(t) != 64 && ptx::type_bits(t) != 32) return refuse("a variable address of this width");
    if (nvptx && place->space == ptx::StateSpace::Param)
        return refuse(fmt::format("the address of kernel parameter '{}' (the NVPTX lowering reads parameters only "
                                  "through ld.param)",
                                  o.name));
    LLVMValueRef at = D4R_TRY(variable_address(o.name, *place));
    return ir.resize(ir.add(at, ir.constant(ir.i64, static_cast<uint64_t>(o.offset))), ptx::type_bits(t), false);
}

Expected<LLVMValueRef> Lowering::variable_address(std::string_view name, const ptxsim::VariablePlace& place) {
    using ptx::StateSpace;
    if (nvptx && place.space != StateSpace::Param) return nv_variable_address(place, false);
    if (place.space == StateSpace::Shared || place.space == StateSpace::Local || place.space == StateSpace::Param)
        return ir.constant(ir.i64, place.address);
    auto module_variable = source.layout->module_variables.find(name);
    if (module_variable == source.layout->module_variables.end() || module_variable->second.address != place.address)
        return refuse(fmt::format("internal: '{}' has a host address but is no module variable", name));
    if (auto known = m_variable_addresses.find(module_variable->first); known != m_variable_addresses.end())
        return known->second;
    const LLVMBasicBlockRef here = ir.current();
    ir.position(m_entry);
    const auto index = static_cast<unsigned>(m_variables.size());
    LLVMValueRef at = ir.load(ir.i64, ir.field(thread_ptr(ptxsim::kThreadVariables), index * 8), 8);
    ir.position(here);
    m_variables.emplace_back(name);
    m_variable_addresses.emplace(module_variable->first, at);
    return at;
}

Status Lowering::assign(const ast::Operand& d, Type t, LLVMValueRef v) {
    if (d.kind != ast::OperandKind::Name || d.negated) return refuse("expected a destination register");
    if (d.name == "_") return ok_status();
    Reg r = D4R_TRY(reg(d.name));
    // Warp code writes the lanes the instruction runs for; the others keep their value. A uniform register is
    // written by all lanes alike (no branch diverges, its guard is uniform: every lane runs it or none).
    auto put = [&](LLVMValueRef x) -> Status {
        // With whole warps in x a register the analysis finds uniform may come from values per lane (%tid.y,
        // %tid.x >> 5): every running lane holds the same, so the first one's is the register's.
        if (warp && r.uniform && ir.lanes(x) && whole_warps && m_exec) x = element_of(x, first_lane());
        if (warp && r.uniform && ir.lanes(x))
            return refuse(fmt::format("internal: uniform register '{}' written with a value per lane", d.name));
        if (warp && !r.uniform) {
            if (!ir.lanes(x)) x = ir.splat(x);
            if (m_guarded || m_waiting_live.contains(d.name))
                x = ir.select(exec_lanes(), x, ir.load(reg_type(r), r.slot));
        }
        ir.store(x, r.slot);
        return ok_status();
    };
    if (t == Type::Pred) {
        if (r.bits != 1) return refuse(fmt::format("'{}' is not a predicate", d.name));
        return put(v);
    }
    if (r.bits == 1) return refuse(fmt::format("'{}' is a predicate", d.name));
    if (ptx::type_bits(t) > r.bits) return refuse(fmt::format("'{}' is narrower than .{}", d.name, type_name(t)));
    if (t == Type::F32 || t == Type::F64) v = ir.bitcast(v, ir.int_type(ptx::type_bits(t)));
    return put(ir.resize(v, r.bits, ptx::is_signed(t)));
}

// --- declarations ---

Status Lowering::declare(const ast::Variable& v, uint32_t index) {
    Scope& scope = m_scopes.back();
    if (v.space == ".reg") {
        const Type t = ptx::parse_type(v.type.type.substr(1));
        if (t == Type::None || v.type.vector != 1 || ptx::type_bits(t) > 64)
            return refuse(fmt::format("register '{}' of type {}", v.name, v.type.type));
        if (v.range >= 0) {
            scope.ranges[v.name] = Range{t, static_cast<uint64_t>(v.range)};
            return ok_status();
        }
        Reg r;
        r.type = t;
        r.bits = t == Type::Pred ? 1 : ptx::type_bits(t) == 64 ? 64 : 32;
        r.uniform = uniform_register(v.name);
        r.slot = register_slot(v.name, r);
        scope.regs[v.name] = r;
        return ok_status();
    }
    if (nvptx) return nv_declare(v);
    auto place = source.layout->declared.find({source.function, index});
    if (place == source.layout->declared.end())
        return Error(ErrorCode::Unsupported, fmt::format("line {}: {} variable '{}'", v.line, v.space, v.name));
    scope.variables[v.name] = place->second;
    return ok_status();
}

// --- control flow ---

// A loop's back edge: when the watchdog took the launch's budget away, the thread stops.
void Lowering::poll_watchdog() {
    LLVMValueRef budget = ir.load(ir.i64, thread_ptr(ptxsim::kThreadBudget), 8);
    ir.llvm().LLVMSetVolatile(budget, 1);
    LLVMBasicBlockRef stop = ir.new_block("stop");
    LLVMBasicBlockRef go = ir.new_block("");
    ir.cond_br(ir.icmp(abi::D4R_LLVMIntSLT, budget, ir.constant(ir.i64, 0)), stop, go);
    ir.position(stop);
    ir.ret(ir.constant(ir.i32, ptxsim::kCompiledStopped));
    ir.position(go);
}

// The loops of the body (Loop): each branch (bra, or a brx.idx target) to a label at or before it.
void Lowering::find_loops() {
    for (size_t i = 0; i < function.body.size(); ++i) {
        const ast::Statement& st = function.body[i];
        if (st.kind != ast::Statement::Kind::Instruction) continue;
        const ast::Instruction& in = function.instructions[st.index];
        const std::string_view base = ptx::Modifiers(in.opcode).base();
        std::vector<std::string_view> targets;
        if (base == "bra" && !in.operands.empty()) targets.push_back(in.operands[0].name);
        if (base == "brx" && in.operands.size() == 2)
            for (const ast::BranchTable& t : function.tables)
                if (t.name == in.operands[1].name) targets.insert(targets.end(), t.labels.begin(), t.labels.end());
        for (std::string_view name : targets) {
            auto label = m_labels.find(name);
            if (label != m_labels.end() && label->second.statement <= i)
                m_loops.push_back(Loop{label->second.statement, i, name, in.line});
        }
    }
}

Status Lowering::lower_control(const ptx::Control& op) {
    const ast::Instruction& in = *current;
    if (nvptx) return nv_control(op);
    switch (op.op) {
    case ptx::Control::Op::Bra: {
        if (in.operands.size() != 1 || in.operands[0].kind != ast::OperandKind::Name)
            return refuse("bra without a label");
        auto label = m_labels.find(in.operands[0].name);
        if (label == m_labels.end()) return refuse(fmt::format("unknown label '{}'", in.operands[0].name));
        if (label->second.statement <= m_statement) poll_watchdog();
        ir.br(label->second.block);
        ir.position(ir.new_block("dead"));
        return ok_status();
    }
    case ptx::Control::Op::Brx:
        return warp ? warp_branch_table(in) : lower_branch_table(in);
    case ptx::Control::Op::Exit:
    case ptx::Control::Op::Ret:
        spill_shuffled(); // other lanes' shfl still read this thread's registers
        ir.ret(ir.constant(ir.i32, ptxsim::kCompiledDone));
        ir.position(ir.new_block("dead"));
        return ok_status();
    case ptx::Control::Op::Barrier:
        return lower_barrier(op);
    case ptx::Control::Op::WarpSync:
        return warp ? warp_sync_lanes() : lower_warp_sync();
    case ptx::Control::Op::Fence: // every access is visible at once in ptxsim's memory (as interpreted)
        return ok_status();
    case ptx::Control::Op::Trap:
    case ptx::Control::Op::Breakpoint: { // exec_trap's fault, through the runtime
        if (warp)                        // for the first lane that runs it
            ir.store(ir.intrinsic("llvm.cttz", {ir.i32}, {m_exec, ir.constant(ir.i1, 0)}),
                     ir.field(m_thread, ptxsim::kThreadLane), 4);
        LLVMValueRef fn = runtime_entry(ptxsim::kRuntimeTrap);
        LLVMTypeRef params[2] = {ir.ptr, ir.i32};
        ir.call(ir.llvm().LLVMFunctionType(ir.void_type, params, 2, 0), fn,
                {m_thread, ir.constant(ir.i32, op.op == ptx::Control::Op::Breakpoint ? 1 : 0)});
        ir.store(ir.constant(ir.i32, site()), ir.field(m_thread, ptxsim::kThreadFaultSite), 4);
        ir.ret(ir.constant(ir.i32, ptxsim::kCompiledFault));
        ir.position(ir.new_block("dead"));
        return ok_status();
    }
    default:
        return refuse("not compiled yet (threads run one after the other: no warp synchronisation or calls)");
    }
}

// A register's slot in the thread's state (kernels with barriers or collectives).
uint32_t Lowering::state_offset(const Reg& r) {
    auto [it, fresh] = m_state_offset.emplace(r.slot, m_state_bytes);
    if (fresh) m_state_bytes += warp ? 8 * ir.kLanes : 8;
    return it->second;
}

// The registers every stop keeps in the state whether live or not: those shfl reads from other lanes.
void Lowering::spill_shuffled() {
    if (m_shuffled.empty() || warp) return; // warp code: the warp's own vectors hold every lane's value
    LLVMValueRef state = thread_ptr(ptxsim::kThreadState);
    for (std::string_view name : m_shuffled) {
        auto r = reg(name);
        if (!r || r->bits == 1) continue;
        ir.store(ir.load(ir.int_type(r->bits), r->slot), ir.field(state, state_offset(*r)), 1);
    }
}

Status Lowering::suspend(uint32_t status, const std::function<void(LLVMValueRef state)>& before_return) {
    if (!m_liveness || !m_dispatch) return refuse("internal: a stop in a kernel not prepared for stops");
    LLVMValueRef state = thread_ptr(ptxsim::kThreadState);
    struct Saved {
        Reg r;
        uint32_t offset = 0;
        bool word = false; // warp code: the same in every lane that has not exited, kept as one word
        std::string_view name;
    };
    std::vector<Saved> saved;
    std::vector<std::string_view> names = m_liveness->live_after(m_index);
    if (warp) // the registers shfl reads keep every lane's value, live or not (a lane that exited included)
        for (std::string_view name : m_shuffled)
            if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    for (std::string_view name : names) {
        auto r = reg(name);
        if (!r) continue; // not a register (a label, variable or special register)
        saved.push_back(Saved{*r, state_offset(*r), warp && m_uniform_known && !m_divergent.contains(name), name});
    }
    LLVMValueRef first =
        warp ? ir.intrinsic("llvm.cttz", {ir.i32}, {ir.load(ir.i32, m_active, 4), ir.constant(ir.i1, 0)}) : nullptr;
    // Warp code: a register nothing after a stop writes is kept in the state already unless this call started the
    // warp (m_written_after_stops); its slot is its own (not one shared with other registers' lanes).
    auto kept = [&](const Saved& x) {
        return warp && m_at_start && !x.r.in_memory && !m_written_after_stops.contains(x.name);
    };
    auto save = [&](const Saved& x) {
        LLVMValueRef v = ir.load(reg_type(x.r), x.r.slot);
        if (x.word && ir.lanes(v)) v = ir.llvm().LLVMBuildExtractElement(ir.builder(), v, first, "");
        ir.store(v, ir.field(state, x.offset), 1);
    };
    bool any_kept = false;
    for (const Saved& x : saved) {
        if (kept(x))
            any_kept = true;
        else
            save(x);
    }
    if (any_kept) {
        LLVMBasicBlockRef fresh = ir.new_block("save_kept"), on = ir.new_block("");
        ir.expect_br(m_at_start, false, fresh, on);
        ir.position(fresh);
        for (const Saved& x : saved)
            if (kept(x)) save(x);
        ir.br(on);
        ir.position(on);
    }
    if (warp) ir.store(ir.load(ir.i32, m_active, 4), ir.field(state, ptxsim::kStateMember), 4);
    spill_shuffled();
    const uint32_t resume = ++m_stops;
    ir.store(ir.constant(ir.i32, resume), ir.field(state, ptxsim::kStateResume), 4);
    before_return(state);
    ir.ret(ir.constant(ir.i32, status));
    // Resumption: the saved registers back, then on.
    LLVMBasicBlockRef restore = ir.new_block("resume");
    LLVMBasicBlockRef after = ir.new_block("");
    ir.llvm().LLVMAddCase(m_dispatch, ir.constant(ir.i32, resume), restore);
    ir.position(restore);
    LLVMValueRef state_again = thread_ptr(ptxsim::kThreadState);
    for (const auto& [r, offset, word, name] : saved) {
        if (word) {
            LLVMValueRef x = ir.load(ir.int_type(r.bits), ir.field(state_again, offset), 1);
            ir.store(r.uniform ? x : ir.splat(x), r.slot);
        } else {
            ir.store(ir.load(reg_type(r), ir.field(state_again, offset), 1), r.slot);
        }
    }
    if (warp) ir.store(ir.load(ir.i32, ir.field(state_again, ptxsim::kStateMember), 4), m_active, 4);
    ir.br(after);
    ir.position(after);
    m_mul_sources.clear(); // a multiply-add is not fused across a stop (the mul's values are not kept)
    return ok_status();
}

// bar.sync / barrier.sync of the whole block: the thread saves the registers live after it and stops; it resumes
// here (through the entry's switch) once every thread that has not exited waits at a barrier.
Status Lowering::lower_barrier(const ptx::Control& op) {
    using Reduction = ptx::Control::Reduction;
    const ast::Instruction& in = *current;
    if (op.arrive || op.thread_count) return refuse("bar.arrive and barriers with a thread count are not compiled yet");
    if (warp && op.reduction != Reduction::None) return refuse("bar.red is not in warp code yet");
    if (!in.guard.empty()) return refuse("a guarded barrier is not compiled yet");
    const ast::Operand& id_operand = in.operands[op.barrier_id];
    if (id_operand.kind != ast::OperandKind::Integer || id_operand.integer > 15)
        return refuse("a barrier id that is not a constant 0..15");
    // bar.red: the thread's predicate goes with it; the block's reduction comes back (compiled_runner.cpp).
    const uint32_t reduction = op.reduction == Reduction::Popc  ? 1
                               : op.reduction == Reduction::And ? 2
                               : op.reduction == Reduction::Or  ? 3
                                                                : 0;
    LLVMValueRef pred = nullptr;
    if (reduction) pred = ir.zext(D4R_TRY(value(in.operands.back(), Type::Pred)), ir.i32);
    D4R_TRY(suspend(ptxsim::kCompiledBarrier, [&](LLVMValueRef state) {
        ir.store(ir.constant(ir.i32, id_operand.integer), ir.field(state, ptxsim::kStateBarrier), 4);
        ir.store(ir.constant(ir.i32, reduction), ir.field(state, ptxsim::kStateReduction), 4);
        if (pred) ir.store(pred, ir.field(state, ptxsim::kStatePredIn), 4);
    }));
    if (!reduction) return ok_status();
    LLVMValueRef state = thread_ptr(ptxsim::kThreadState);
    if (reduction == 1)
        return assign(in.operands[0], Type::U32, ir.load(ir.i32, ir.field(state, ptxsim::kStateOut), 4));
    LLVMValueRef result = ir.load(ir.i32, ir.field(state, ptxsim::kStatePredOut), 4);
    return assign(in.operands[0], Type::Pred, ir.icmp(abi::D4R_LLVMIntNE, result, ir.constant(ir.i32, 0)));
}

// brx.idx index, table: a switch over the function's .branchtargets list; an index outside it faults as
// exec_brx does (the runtime's branch_fault records it).
Status Lowering::lower_branch_table(const ast::Instruction& in) {
    if (in.operands.size() != 2 || in.operands[1].kind != ast::OperandKind::Name)
        return refuse("brx.idx without a branch table");
    const ast::BranchTable* table = nullptr;
    for (const ast::BranchTable& t : function.tables)
        if (t.name == in.operands[1].name) table = &t;
    if (!table) return refuse(fmt::format("'{}' is not a .branchtargets list of this function", in.operands[1].name));
    std::vector<LLVMBasicBlockRef> targets;
    bool backwards = false;
    for (std::string_view name : table->labels) {
        auto label = m_labels.find(name);
        if (label == m_labels.end()) return refuse(fmt::format("unknown label '{}'", name));
        targets.push_back(label->second.block);
        backwards = backwards || label->second.statement <= m_statement;
    }
    LLVMValueRef index = D4R_TRY(value(in.operands[0], Type::U32));
    if (backwards) poll_watchdog();
    LLVMBasicBlockRef outside = ir.new_block("brx_outside");
    const LlvmLibrary& l = ir.llvm();
    LLVMValueRef sw = l.LLVMBuildSwitch(ir.builder(), index, outside, static_cast<unsigned>(targets.size()));
    for (size_t k = 0; k < targets.size(); ++k) l.LLVMAddCase(sw, ir.constant(ir.i32, k), targets[k]);
    ir.position(outside);
    LLVMValueRef fn = runtime_entry(ptxsim::kRuntimeBranchFault);
    LLVMTypeRef params[3] = {ir.ptr, ir.i32, ir.i32};
    ir.call(l.LLVMFunctionType(ir.void_type, params, 3, 0), fn,
            {m_thread, index, ir.constant(ir.i32, static_cast<uint64_t>(targets.size()))});
    ir.store(ir.constant(ir.i32, site()), ir.field(m_thread, ptxsim::kThreadFaultSite), 4);
    ir.ret(ir.constant(ir.i32, ptxsim::kCompiledFault));
    ir.position(ir.new_block("dead"));
    return ok_status();
}

// --- instructions ---

Status Lowering::lower_typed(const ptx::TypedInstruction& typed) {
    if (const auto* op = std::get_if<ptx::IntArith>(&typed)) return lower_int(*op);
    if (const auto* op = std::get_if<ptx::PackedInt>(&typed)) return lower_simd(*op);
    if (const auto* op = std::get_if<ptx::FloatArith>(&typed)) return lower_float(*op);
    if (const auto* op = std::get_if<ptx::HalfArith>(&typed)) return lower_half(*op);
    if (const auto* op = std::get_if<ptx::Cvt>(&typed)) return lower_cvt(*op);
    if (const auto* op = std::get_if<ptx::Compare>(&typed)) return lower_compare(*op);
    if (const auto* op = std::get_if<ptx::Move>(&typed)) return lower_move(*op);
    if (const auto* op = std::get_if<ptx::MemoryAccess>(&typed)) return lower_memory(*op);
    if (const auto* op = std::get_if<ptx::Control>(&typed)) return lower_control(*op);
    if (const auto* op = std::get_if<ptx::Atomic>(&typed)) return lower_atomic(*op);
    if (const auto* op = std::get_if<ptx::AsyncCopy>(&typed)) return lower_async(*op);
    if (const auto* op = std::get_if<ptx::TextureOp>(&typed)) return lower_texture(*op);
    if (const auto* op = std::get_if<ptx::WarpCollective>(&typed))
        return warp ? warp_collective(*op) : lower_collective(*op);
    if (const auto* op = std::get_if<ptx::MatrixOp>(&typed))
        return nvptx ? nv_matrix(*op) : warp ? warp_matrix(*op) : lower_mma(*op);
    if (const auto* op = std::get_if<ptx::Wmma>(&typed)) {
        if (warp) return warp_wmma(*op);
        return refuse("wmma is compiled in warp code only (threads run one after the other)");
    }
    if (const auto* op = std::get_if<ptx::Wgmma>(&typed)) {
        if (warp) return warp_wgmma(*op);
        return refuse("wgmma is compiled in warp code only (threads run one after the other)");
    }
    return refuse("this instruction family is not compiled yet");
}

Status Lowering::lower_instruction(const ast::Instruction& written, size_t statement) {
    const uint32_t index = static_cast<uint32_t>(&written - function.instructions.data());
    m_index = index;
    current = &written;
    m_site = -1;
    // Threads run one after the other: memory orderings other than the plain ones are how threads wait for each
    // other, so a kernel with them stays interpreted. Fences order nothing in ptxsim's memory, and an atomic's
    // ordering only matters to a thread that waits, which the atomics' own rule covers (lower_atomic.cpp).
    const ptx::Modifiers mods(written.opcode);
    const bool ordering_free = nvptx || // the GPU's own memory model

                               mods.base() == "fence" || mods.base() == "membar" || mods.base() == "atom" ||
                               mods.base() == "red";
    for (std::string_view m : {"volatile", "acquire", "release", "relaxed", "mmio"})
        if (mods.has(m) && !ordering_free)
            return refuse(fmt::format("'.{}' memory (threads may wait for each other)", m));

    ast::Instruction fused;
    const ast::Instruction* in = &written;
    fused_multiplicands = {};
    if (auto f = m_contractions.fused.find(index); f != m_contractions.fused.end()) {
        fused = ptx::fused_instruction(written, function.instructions[f->second.mul], f->second);
        in = &fused;
        auto saved = m_mul_sources.find(f->second.mul);
        if (saved == m_mul_sources.end()) return refuse("internal: a fused multiply-add without its mul");
        fused_multiplicands = saved->second;
    }
    current = in; // a fused fma has the add's line and text
    auto typed = ptx::decode_instruction(*in, ptx::DecodeContext{source.target});
    if (!typed) return refuse(typed.error().message());

    // A mul that a later add fuses: its multiplicands as they are here (contract.h).
    for (const auto& [add, x] : m_contractions.fused) {
        if (x.mul != index) continue;
        const auto* mul = std::get_if<ptx::FloatArith>(&*typed);
        if (!mul) return refuse("a fused half-precision multiply-add is not compiled yet");
        const Type t = mul->type;
        if (in->operands.size() < 3) return refuse("internal: a mul without operands");
        m_mul_sources[index] = {D4R_TRY(value(in->operands[1], t)), D4R_TRY(value(in->operands[2], t))};
        break;
    }
    m_statement = statement;
    if (warp) {
        if (!deferrable(*typed)) flush_pending();
        return warp_instruction(*in, *typed);
    }

    LLVMBasicBlockRef after = nullptr;
    if (!in->guard.empty()) {
        const bool is_branch =
            std::holds_alternative<ptx::Control>(*typed) && std::get<ptx::Control>(*typed).op == ptx::Control::Op::Bra;
        LLVMValueRef p = D4R_TRY(value(named(in->guard), Type::Pred));
        if (in->guard_negated) p = ir.not_(p);
        after = ir.new_block("");
        if (is_branch && in->operands.size() == 1) {
            auto label = m_labels.find(in->operands[0].name);
            if (label == m_labels.end()) return refuse(fmt::format("unknown label '{}'", in->operands[0].name));
            if (label->second.statement <= statement && !nvptx) {
                LLVMBasicBlockRef taken = ir.new_block("");
                ir.cond_br(p, taken, after);
                ir.position(taken);
                poll_watchdog();
                ir.br(label->second.block);
            } else {
                ir.cond_br(p, label->second.block, after);
            }
            ir.position(after);
            return ok_status();
        }
        LLVMBasicBlockRef body = ir.new_block("");
        ir.cond_br(p, body, after);
        ir.position(body);
    }
    D4R_TRY(lower_typed(*typed));
    if (after) {
        if (!ir.terminated()) ir.br(after);
        ir.position(after);
    }
    return ok_status();
}

Expected<LoweredKernel> Lowering::run(const char* name) {
    const LlvmLibrary& l = ir.llvm();
    LLVMValueRef fn = nullptr;
    if (nvptx && !function.is_entry) { // a device function: declared by the module's lowering (NvptxObjects)
        auto declared = m_nvptx_objects->functions.find(function.name);
        if (declared == m_nvptx_objects->functions.end())
            return Error(ErrorCode::Internal,
                         fmt::format("line {}: .func '{}' was not declared", function.line, function.name));
        fn = declared->second;
    } else if (nvptx) {
        // A kernel taking the entry's parameters (each a 32- or 64-bit integer, which the back end declares as
        // .param .u32/.u64: the same parameter block), stored at their offsets in a block ld.param reads.
        std::vector<LLVMTypeRef> params;
        for (const ptx::ParamInfo& p : source.info->params) {
            if ((p.size != 4 && p.size != 8) || !p.dims.empty() || p.vector != 1)
                return Error(ErrorCode::Unsupported,
                             fmt::format("line {}: parameter '{}' ({}): the NVPTX lowering takes 32- and 64-bit "
                                         "scalar parameters only",
                                         p.line, p.name, p.describe()));
            params.push_back(p.size == 8 ? ir.i64 : ir.i32);
        }
        fn =
            l.LLVMAddFunction(ir.module(), name,
                              l.LLVMFunctionType(ir.void_type, params.data(), static_cast<unsigned>(params.size()), 0));
        l.LLVMSetFunctionCallConv(fn, abi::D4R_LLVMCallConvPtxKernel);
    } else {
        LLVMTypeRef params[1] = {ir.ptr};
        fn = l.LLVMAddFunction(ir.module(), name, l.LLVMFunctionType(ir.i32, params, 1, 0));
    }
    ir.set_function(fn);
    if (warp) // a warp's <32 x T> in the widest registers the host has (AVX-512's when it has them)
        for (const char* key : {"prefer-vector-width", "min-legal-vector-width"}) {
            const std::string_view k(key);
            l.LLVMAddAttributeAtIndex(
                fn, ~0u, l.LLVMCreateStringAttribute(ir.context(), key, static_cast<unsigned>(k.size()), "512", 3));
        }
    m_thread = nvptx ? nullptr : l.LLVMGetParam(fn, 0);
    LLVMTypeRef translate_params[5] = {ir.ptr, ir.i32, ir.i64, ir.i32, ir.i32};
    m_translate_type = l.LLVMFunctionType(ir.ptr, translate_params, 5, 0);
    LLVMBasicBlockRef allocas = ir.new_block("allocas");
    ir.set_alloca_block(allocas);
    m_entry = allocas;
    if (warp) {
        ir.position(allocas);
        m_shared = thread_ptr(ptxsim::kThreadShared);
        m_shared_bytes = thread_u32(ptxsim::kThreadSharedBytes);
    }
    if (nvptx && function.is_entry) {
        ir.position(allocas);
        const uint64_t block = std::max<uint64_t>(source.info->param_block_size, 8);
        m_param_block = ir.zeroed_slot(l.LLVMArrayType(ir.i8, static_cast<unsigned>(block)));
        l.LLVMSetAlignment(m_param_block, 16);
        for (size_t k = 0; k < source.info->params.size(); ++k) {
            const ptx::ParamInfo& p = source.info->params[k];
            ir.store(l.LLVMGetParam(fn, static_cast<unsigned>(k)),
                     ir.field(m_param_block, static_cast<unsigned>(p.offset)), static_cast<unsigned>(p.size));
        }
    }
    LLVMBasicBlockRef body = ir.new_block("body");
    // A kernel with barriers starts with a switch on where the thread resumes (0: at the start). (NVPTX code: the
    // GPU's barriers and collectives wait by themselves.)
    bool barriers = false;
    std::vector<uint32_t> block_barriers; // warp code's stops: the block barriers (not bar.warp.sync)
    for (const ast::Instruction& in : function.instructions) {
        const ptx::Modifiers m(in.opcode);
        const std::string_view base = m.base();
        const bool barrier = base == "bar" || base == "barrier";
        if (barrier && !m.has("warp"))
            block_barriers.push_back(static_cast<uint32_t>(&in - function.instructions.data()));
        // (Warp code stops at block barriers only: its collectives run inside the call.)
        barriers = barriers || (barrier && !(warp && m.has("warp"))) ||
                   (!warp && (base == "shfl" || base == "vote" || base == "match" || base == "redux" ||
                              base == "activemask" || base == "mma" || base == "ldmatrix"));
        // shfl reads the register of its first source in other lanes too: every stop keeps it.
        if (base == "shfl" && in.operands.size() > 1 && in.operands[1].kind == ast::OperandKind::Name)
            m_shuffled.push_back(in.operands[1].name);
    }
    if (nvptx) {
        barriers = false;
        m_shuffled.clear();
    }
    LLVMBasicBlockRef dispatch = nullptr;
    if (warp && barriers) {
        // Warp code stops at a barrier with every lane that has not exited (the runner resumes the warp as a whole),
        // so a kernel with barriers is warp code only where no branch can diverge.
        if (auto why = barrier_under_divergence(function, whole_warps); !why.empty())
            return Error(ErrorCode::Unsupported, fmt::format("a barrier under divergence: {}", why));
    }
    // Warp code's collectives run with the lanes that reach them: none may be reached while others wait elsewhere.
    if (warp)
        if (auto why = collective_under_divergence(function, whole_warps); !why.empty())
            return Error(ErrorCode::Unsupported, fmt::format("a warp collective under divergence: {}", why));
    // Warp code where no branch diverges: the uniform registers as scalars. A register shfl reads from other lanes
    // keeps each lane's own value (an exited lane's last one, as interpreted): a vector, written lane by lane.
    if (warp && divergent_branch(function, whole_warps).empty()) {
        m_uniform_known = true;
        m_divergent = divergent_registers(function, whole_warps);
        m_divergent.insert(m_shuffled.begin(), m_shuffled.end());
    }
    if (barriers) {
        // Liveness goes by name: a register of a nested { } scope must not hide one of an enclosing scope.
        std::vector<std::vector<std::string_view>> declared(1);
        for (const ast::Statement& st : function.body) {
            if (st.kind == ast::Statement::Kind::BlockOpen) declared.emplace_back();
            if (st.kind == ast::Statement::Kind::BlockClose && declared.size() > 1) declared.pop_back();
            if (st.kind != ast::Statement::Kind::Declaration) continue;
            const std::string_view name = function.declarations[st.index].name;
            for (const auto& scope : declared)
                if (declared.size() > 1 && std::find(scope.begin(), scope.end(), name) != scope.end())
                    return Error(ErrorCode::Unsupported,
                                 fmt::format("line {}: '{}' hides a register of an enclosing scope in a kernel with "
                                             "barriers or warp collectives",
                                             function.declarations[st.index].line, name));
            declared.back().push_back(name);
        }
        m_liveness = std::make_unique<Liveness>(function);
        dispatch = ir.new_block("dispatch");
        ir.position(dispatch);
        LLVMValueRef resume = ir.load(ir.i32, ir.field(thread_ptr(ptxsim::kThreadState), ptxsim::kStateResume), 4);
        if (warp) {
            m_at_start = ir.icmp(abi::D4R_LLVMIntEQ, resume, ir.constant(ir.i32, 0));
            m_written_after_stops = m_liveness->written_after(block_barriers);
        }
        m_dispatch = l.LLVMBuildSwitch(ir.builder(), resume, body, 8);
    }
    ir.position(body);

    m_scopes.emplace_back(); // the kernel's parameters are variables of the parameter block
    if (function.is_entry)
        for (const ptx::ParamInfo& p : source.info->params)
            m_scopes.back().variables[p.name] = ptxsim::VariablePlace{ptx::StateSpace::Param, p.offset, p.size};
    else if (nvptx)
        D4R_TRY(nv_function_parameters());
    for (size_t i = 0; i < function.body.size(); ++i) {
        const ast::Statement& st = function.body[i];
        if (st.kind != ast::Statement::Kind::Label) continue;
        const ast::Label& label = function.labels[st.index];
        m_labels[label.name] = Label{ir.new_block(""), i};
    }
    find_loops();
    m_contractions = ptx::find_contractions(function);
    find_nan_absorbed();
    if (warp) {
        make_merges();
        find_waiting_live();
        m_waiting_live.insert(m_shuffled.begin(), m_shuffled.end());
        share_matrix_slots();
        m_active = ir.zeroed_slot(ir.i32);
        ir.store(thread_u32(ptxsim::kThreadLanes), m_active, 4); // every lane the warp has starts at the start
    }

    for (size_t i = 0; i < function.body.size(); ++i) {
        const ast::Statement& st = function.body[i];
        switch (st.kind) {
        case ast::Statement::Kind::BlockOpen:
            m_scopes.emplace_back();
            break;
        case ast::Statement::Kind::BlockClose:
            if (m_scopes.size() > 1) m_scopes.pop_back();
            break;
        case ast::Statement::Kind::Declaration:
            D4R_TRY(declare(function.declarations[st.index], st.index));
            break;
        case ast::Statement::Kind::Label: {
            flush_pending();
            LLVMBasicBlockRef block = m_labels[function.labels[st.index].name].block;
            if (!ir.terminated()) ir.br(block);
            ir.position(block);
            if (warp) enter_merge(*merge_at(2 * i));
            break;
        }
        case ast::Statement::Kind::Instruction:
            D4R_TRY(lower_instruction(function.instructions[st.index], i));
            break;
        }
    }
    flush_pending();
    if (!ir.terminated()) {
        spill_shuffled();
        if (nvptx)
            nv_return();
        else
            ir.ret(ir.constant(ir.i32, ptxsim::kCompiledDone));
    }
    ir.position(allocas);
    ir.br(dispatch ? dispatch : body);
    LoweredKernel out;
    out.sites = std::move(m_sites);
    out.state_bytes = m_stops ? m_state_bytes : 0;
    out.collectives = std::move(m_collectives);
    out.variables = std::move(m_variables);
    return out;
}

Expected<LoweredKernel> lower_kernel(IrBuilder& ir, const ptxsim::KernelSource& source, const char* name, bool warp,
                                     bool whole_warps) {
    if (!source.module || !source.info || !source.layout || source.function >= source.module->functions.size())
        return make_error(ErrorCode::Invalid, "lower_kernel: no kernel");
    Lowering lowering(ir, source, warp);
    lowering.whole_warps = warp && whole_warps;
    return lowering.run(name);
}

Expected<LoweredKernel> lower_kernel_nvptx(IrBuilder& ir, const ptxsim::KernelSource& source, const char* name,
                                           const NvptxObjects& objects) {
    if (!source.module || !source.layout || source.function >= source.module->functions.size() ||
        (!source.info && source.module->functions[source.function].is_entry))
        return make_error(ErrorCode::Invalid, "lower_kernel_nvptx: no kernel");
    Lowering lowering(ir, source, false, &objects);
    return lowering.run(name);
}

} // namespace d4r::jit
