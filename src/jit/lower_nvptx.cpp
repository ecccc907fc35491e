// Lowering for LLVM's NVPTX back end (lower.h, lower_kernel_nvptx): what the host lowering asks ptxsim's runtime
// for, spelled as the GPU's own instructions. One GPU thread runs one PTX thread, so control flow, barriers and warp
// collectives are the GPU's; memory is LLVM's address spaces (global 1, shared 3, const 4, local 5) with no checks;
// rounding modes, approximations and half precision are NVVM intrinsics, which the back end prints as the one PTX
// instruction they name (so ptxas can neither contract nor reassociate them). A form without such a spelling in this
// libLLVM is refused, naming it.
#include <fmt/format.h>

#include "jit/float_rules.h"
#include "jit/lower_impl.h"
#include "ptx/instr_decode.h"
#include "ptx/modifiers.h"
#include "ptx/module_index.h"

namespace d4r::jit {

using ptx::Round;
using ptx::StateSpace;

namespace {

unsigned address_space(StateSpace s) {
    switch (s) {
    case StateSpace::Global:
        return 1;
    case StateSpace::Shared:
        return 3;
    case StateSpace::Const:
        return 4;
    case StateSpace::Local:
        return 5;
    default:
        return 0;
    }
}

const char* round_name(Round r) {
    switch (r) {
    case Round::Rn:
        return "rn";
    case Round::Rz:
        return "rz";
    case Round::Rm:
        return "rm";
    case Round::Rp:
        return "rp";
    case Round::Rna:
        return "rna";
    }
    return "rn";
}

// .satfinite of N f16 (bf16) values in WORD, an integer of 16 N bits rounded to nearest: an infinity (from an
// infinite input or from rounding past the largest finite value) becomes the largest finite value of its sign; NaNs
// stay.
LLVMValueRef satfinite_f16(IrBuilder& ir, LLVMValueRef word, bool bf, unsigned n) {
    LLVMTypeRef t = ir.int_type(16 * n);
    const uint64_t inf = bf ? 0x7f80 : 0x7c00, largest = bf ? 0x7f7f : 0x7bff;
    for (unsigned k = 0; k < n; ++k) {
        const uint64_t shift = 16 * k;
        LLVMValueRef mag = ir.and_(word, ir.constant(t, 0x7fffull << shift));
        LLVMValueRef infinite = ir.icmp(abi::D4R_LLVMIntEQ, mag, ir.constant(t, inf << shift));
        LLVMValueRef sign = ir.and_(word, ir.constant(t, 0x8000ull << shift));
        LLVMValueRef others = ir.and_(word, ir.constant(t, ~(0xffffull << shift)));
        LLVMValueRef saturated = ir.or_(others, ir.or_(sign, ir.constant(t, largest << shift)));
        word = ir.select(infinite, saturated, word);
    }
    return word;
}

ast::Operand named(std::string_view name) {
    ast::Operand o;
    o.kind = ast::OperandKind::Name;
    o.name = name;
    return o;
}

} // namespace

Expected<LLVMValueRef> Lowering::nvvm(std::string_view name, std::initializer_list<LLVMTypeRef> overloads,
                                      std::initializer_list<LLVMValueRef> args) {
    if (!ir.has_intrinsic(name, overloads.size()))
        return refuse(
            ir.has_intrinsic(name, overloads.size() ? 0 : 1)
                ? fmt::format("internal: intrinsic {} called with {} overloaded types", name, overloads.size())
                : fmt::format("libLLVM {} has no intrinsic {}", ir.llvm().version, name));
    return ir.intrinsic(name, overloads, args);
}

LLVMTypeRef Lowering::nv_pointer_type(StateSpace space) const {
    return ir.llvm().LLVMPointerTypeInContext(ir.context(), address_space(space));
}

void Lowering::nv_return() { ir.llvm().LLVMBuildRetVoid(ir.builder()); }

Expected<std::vector<LLVMValueRef>> Lowering::nv_inline(std::string_view what, const std::string& text,
                                                        const std::vector<LLVMTypeRef>& results,
                                                        const std::vector<LLVMValueRef>& args, bool barrier) {
    const LlvmLibrary& l = ir.llvm();
    if (!m_inline_ptx) // WHAT may be the instruction's text: its opcode
        return refuse(fmt::format("{}: libLLVM {} has no intrinsic for it (and inline PTX is off)",
                                  what.substr(0, what.find(' ')), l.version));
    auto letter = [&](LLVMTypeRef t) -> Expected<char> {
        if (t == ir.f32) return 'f';
        if (t == ir.f64) return 'd';
        if (t == ir.i16) return 'h';
        if (t == ir.i32) return 'r';
        if (t == ir.i64) return 'l';
        return refuse("internal: an inline PTX operand of an unexpected type");
    };
    std::string constraints;
    for (LLVMTypeRef t : results)
        constraints += fmt::format("{}={}", constraints.empty() ? "" : ",", D4R_TRY(letter(t)));
    std::vector<LLVMTypeRef> arg_types;
    for (LLVMValueRef a : args) {
        arg_types.push_back(l.LLVMTypeOf(a));
        constraints += fmt::format("{}{}", constraints.empty() ? "" : ",", D4R_TRY(letter(arg_types.back())));
    }
    std::vector<LLVMTypeRef> fields(results);
    LLVMTypeRef ret = results.empty()       ? ir.void_type
                      : results.size() == 1 ? results[0]
                                            : l.LLVMStructTypeInContext(ir.context(), fields.data(),
                                                                        static_cast<unsigned>(fields.size()), 0);
    LLVMTypeRef fn_type = l.LLVMFunctionType(ret, arg_types.data(), static_cast<unsigned>(arg_types.size()), 0);
    LLVMValueRef code = l.LLVMGetInlineAsm(fn_type, text.data(), text.size(), constraints.data(), constraints.size(),
                                           barrier ? 1 : 0, 0, 0, 0);
    std::vector<LLVMValueRef> values(args);
    LLVMValueRef call =
        l.LLVMBuildCall2(ir.builder(), fn_type, code, values.data(), static_cast<unsigned>(values.size()), "");
    if (barrier) {
        const unsigned kind = l.LLVMGetEnumAttributeKindForName("convergent", 10);
        l.LLVMAddCallSiteAttribute(call, ~0u, l.LLVMCreateEnumAttribute(ir.context(), kind, 0));
    }
    std::vector<LLVMValueRef> out;
    if (results.size() == 1) out.push_back(call);
    if (results.size() > 1)
        for (unsigned k = 0; k < results.size(); ++k) out.push_back(l.LLVMBuildExtractValue(ir.builder(), call, k, ""));
    return out;
}

// --- special registers, variables, addresses ---

Expected<LLVMValueRef> Lowering::nv_special(std::string_view name) {
    auto sreg = [&](std::string_view reg) -> Expected<LLVMValueRef> {
        return nvvm(fmt::format("llvm.nvvm.read.ptx.sreg.{}", reg), {}, {});
    };
    for (std::string_view prefix : {"%tid.", "%ntid.", "%ctaid.", "%nctaid."})
        if (name.starts_with(prefix) && name.size() == prefix.size() + 1 && name.back() >= 'x' && name.back() <= 'z')
            return sreg(fmt::format("{}{}", prefix.substr(1), name.back()));
    for (std::string_view reg : {"laneid", "warpid", "nwarpid", "smid", "nsmid"})
        if (name.substr(1) == reg) return sreg(reg);
    if (name == "WARP_SZ") return ir.constant(ir.i32, 32);
    if (name.starts_with("%lanemask_")) { // from %laneid, as the host lowering computes them
        LLVMValueRef lane = D4R_TRY(sreg("laneid"));
        LLVMValueRef one = ir.shl(ir.constant(ir.i32, 1), lane);
        LLVMValueRef below = ir.sub(one, ir.constant(ir.i32, 1));
        const std::string_view which = name.substr(10);
        if (which == "eq") return one;
        if (which == "lt") return below;
        if (which == "le") return ir.or_(below, one);
        if (which == "ge") return ir.not_(below);
        if (which == "gt") return ir.not_(ir.or_(below, one));
    }
    if (name == "%dynamic_smem_size") {
        // LLVM 19 has no intrinsic for it: the register read as inline PTX (a mov, which decides nothing).
        const std::string_view text = "mov.u32 $0, %dynamic_smem_size;", constraints = "=r";
        LLVMTypeRef fn_type = ir.llvm().LLVMFunctionType(ir.i32, nullptr, 0, 0);
        LLVMValueRef asm_value = ir.llvm().LLVMGetInlineAsm(fn_type, text.data(), text.size(), constraints.data(),
                                                            constraints.size(), 0, 0, 0, 0);
        return ir.call(fn_type, asm_value, {});
    }
    return refuse(fmt::format("special register '{}' has no NVPTX lowering", name));
}

Status Lowering::nv_declare(const ast::Variable& v) {
    const LlvmLibrary& l = ir.llvm();
    uint64_t size = ptx::ptx_type_size(v.type.type) * v.type.vector;
    for (uint64_t d : v.dims) size *= d;
    const uint64_t align = v.type.align ? v.type.align : std::max<uint64_t>(ptx::ptx_type_size(v.type.type), 1);
    if (v.has_init) return refuse(fmt::format("an initialised {} variable '{}'", v.space, v.name));
    const uint64_t index = m_objects.size();
    StateSpace space;
    LLVMValueRef object;
    if (v.space == ".local") {
        if (size == 0 || size > (1u << 20))
            return refuse(fmt::format(".local variable '{}' of {} bytes", v.name, size));
        object = ir.zeroed_slot(l.LLVMArrayType(ir.i8, static_cast<unsigned>(size)));
        space = StateSpace::Local;
    } else if (v.space == ".shared") {
        const std::string global = fmt::format("{}__{}", function.name, v.name);
        LLVMTypeRef type = l.LLVMArrayType(ir.i8, static_cast<unsigned>(size));
        object = l.LLVMAddGlobalInAddressSpace(ir.module(), type, global.c_str(), 3);
        if (v.is_extern || size == 0) {
            l.LLVMSetLinkage(object, abi::D4R_LLVMExternalLinkage);
        } else {
            l.LLVMSetInitializer(object, ir.undef(type));
            l.LLVMSetLinkage(object, abi::D4R_LLVMInternalLinkage);
        }
        space = StateSpace::Shared;
    } else if (v.space == ".param") { // a call's argument or return value: its bytes, which the callee reads
        if (size == 0 || size > 4096) return refuse(fmt::format(".param variable '{}' of {} bytes", v.name, size));
        object = ir.zeroed_slot(l.LLVMArrayType(ir.i8, static_cast<unsigned>(size)));
        l.LLVMSetAlignment(object, static_cast<unsigned>(std::max<uint64_t>(align, 8)));
        m_objects.push_back(object);
        m_object_spaces.push_back(StateSpace::Param);
        m_scopes.back().variables[v.name] = ptxsim::VariablePlace{StateSpace::Param, index | kParamObject, size};
        return ok_status();
    } else {
        return refuse(fmt::format("a {} variable in a kernel body has no NVPTX lowering", v.space));
    }
    l.LLVMSetAlignment(object, static_cast<unsigned>(align));
    m_objects.push_back(object);
    m_object_spaces.push_back(space);
    m_scopes.back().variables[v.name] = ptxsim::VariablePlace{space, index, size};
    return ok_status();
}

// A device function's return and value parameters: its arguments, pointers to their bytes (NvptxObjects).
Status Lowering::nv_function_parameters() {
    const LlvmLibrary& l = ir.llvm();
    unsigned k = 0;
    for (const std::vector<ast::Variable>* list : {&function.returns, &function.params})
        for (const ast::Variable& v : *list) {
            if (v.space != ".param")
                return refuse(fmt::format("parameter '{}' of .func '{}' in {}", v.name, function.name, v.space));
            uint64_t size = ptx::ptx_type_size(v.type.type) * v.type.vector;
            for (uint64_t d : v.dims) size *= d;
            const uint64_t index = m_objects.size();
            m_objects.push_back(l.LLVMGetParam(ir.function(), k++));
            m_object_spaces.push_back(StateSpace::Param);
            m_scopes.back().variables[v.name] = ptxsim::VariablePlace{StateSpace::Param, index | kParamObject, size};
        }
    return ok_status();
}

// call (rets), f, (args): the device function with a pointer to each return and argument .param variable of the
// call; through a register, an indirect call of a function of that many pointers (the module's functions all take
// pointers only).
Status Lowering::nv_call(const ptx::Control& op) {
    const ast::Instruction& in = *current;
    const LlvmLibrary& l = ir.llvm();
    std::vector<LLVMValueRef> args;
    auto take = [&](int list) -> Status {
        if (list < 0) return ok_status();
        for (const ast::Operand& o : in.operands[size_t(list)].elements) {
            const ptxsim::VariablePlace* place = o.kind == ast::OperandKind::Name ? variable(o.name) : nullptr;
            if (!place || place->space != StateSpace::Param || !(place->address & kParamObject))
                return refuse("a call argument that is not a .param variable of the caller");
            args.push_back(m_objects[place->address & ~kParamObject]);
        }
        return ok_status();
    };
    D4R_TRY(take(op.returns));
    D4R_TRY(take(op.arguments));
    const ast::Operand& target = in.operands[size_t(op.function)];
    std::vector<LLVMTypeRef> types(args.size(), ir.ptr);
    LLVMTypeRef fn_type = l.LLVMFunctionType(ir.void_type, types.data(), static_cast<unsigned>(types.size()), 0);
    LLVMValueRef callee = nullptr;
    if (auto f = m_nvptx_objects->functions.find(target.name); f != m_nvptx_objects->functions.end()) {
        callee = f->second;
        if (l.LLVMGlobalGetValueType(callee) != fn_type)
            return refuse(fmt::format("the call's parameters do not match those of '{}'", target.name));
    } else if (auto r = reg(target.name); r && r->bits == 64) {
        callee = l.LLVMBuildIntToPtr(ir.builder(), D4R_TRY(value(target, Type::U64)), ir.ptr, "");
    } else {
        return refuse(fmt::format("'{}' is no device function defined in the module", target.name));
    }
    l.LLVMBuildCall2(ir.builder(), fn_type, callee, args.data(), static_cast<unsigned>(args.size()), "");
    return ok_status();
}

Expected<LLVMValueRef> Lowering::nv_variable_address(const ptxsim::VariablePlace& place, bool generic) {
    if (place.address >= m_objects.size()) return refuse("internal: a variable without its NVPTX object");
    auto key = std::pair{place.address, generic};
    if (auto known = m_object_addresses.find(key); known != m_object_addresses.end()) return known->second;
    const LlvmLibrary& l = ir.llvm();
    LLVMValueRef object = m_objects[place.address];
    const StateSpace space = m_object_spaces[place.address];
    const LLVMBasicBlockRef here = ir.current();
    ir.position(m_entry); // once, where every use sees it (the objects are made before their first use)
    LLVMValueRef p = object;
    if (generic && space != StateSpace::Local)
        p = l.LLVMBuildAddrSpaceCast(ir.builder(), object, nv_pointer_type(StateSpace::Generic), "");
    if (!generic && space == StateSpace::Local) // an alloca's generic pointer to the local window
        p = l.LLVMBuildAddrSpaceCast(ir.builder(), object, nv_pointer_type(StateSpace::Local), "");
    LLVMValueRef at = l.LLVMBuildPtrToInt(ir.builder(), p, ir.i64, "");
    ir.position(here);
    m_object_addresses.emplace(key, at);
    return at;
}

LLVMValueRef Lowering::nv_pointer(const Address& a, StateSpace space) {
    if (space == StateSpace::Param) return ir.byte_offset(m_param_block, a.value);
    return ir.llvm().LLVMBuildIntToPtr(ir.builder(), a.value, nv_pointer_type(space), "");
}

// --- control ---

Status Lowering::nv_control(const ptx::Control& op) {
    using Op = ptx::Control::Op;
    using Reduction = ptx::Control::Reduction;
    const ast::Instruction& in = *current;
    const LlvmLibrary& l = ir.llvm();
    switch (op.op) {
    case Op::Bra: {
        if (in.operands.size() != 1 || in.operands[0].kind != ast::OperandKind::Name)
            return refuse("bra without a label");
        auto label = m_labels.find(in.operands[0].name);
        if (label == m_labels.end()) return refuse(fmt::format("unknown label '{}'", in.operands[0].name));
        ir.br(label->second.block);
        ir.position(ir.new_block("dead"));
        return ok_status();
    }
    case Op::Brx: { // a switch; an index outside the table traps (the GPU's behaviour there is undefined)
        if (in.operands.size() != 2 || in.operands[1].kind != ast::OperandKind::Name)
            return refuse("brx.idx without a branch table");
        const ast::BranchTable* table = nullptr;
        for (const ast::BranchTable& t : function.tables)
            if (t.name == in.operands[1].name) table = &t;
        if (!table) return refuse(fmt::format("'{}' is not a .branchtargets list", in.operands[1].name));
        LLVMValueRef index = D4R_TRY(value(in.operands[0], Type::U32));
        LLVMBasicBlockRef outside = ir.new_block("brx_outside");
        LLVMValueRef sw = l.LLVMBuildSwitch(ir.builder(), index, outside, static_cast<unsigned>(table->labels.size()));
        for (size_t k = 0; k < table->labels.size(); ++k) {
            auto label = m_labels.find(table->labels[k]);
            if (label == m_labels.end()) return refuse(fmt::format("unknown label '{}'", table->labels[k]));
            l.LLVMAddCase(sw, ir.constant(ir.i32, k), label->second.block);
        }
        ir.position(outside);
        ir.intrinsic("llvm.trap", {}, {});
        nv_return();
        ir.position(ir.new_block("dead"));
        return ok_status();
    }
    case Op::Exit:
    case Op::Ret:
        if (!function.is_entry && op.op == Op::Exit) return refuse("exit in a .func");
        nv_return();
        ir.position(ir.new_block("dead"));
        return ok_status();
    case Op::Trap:
    case Op::Breakpoint:
        ir.intrinsic("llvm.trap", {}, {});
        nv_return();
        ir.position(ir.new_block("dead"));
        return ok_status();
    case Op::Barrier: {
        const ast::Operand& id_operand = in.operands[op.barrier_id];
        if (op.arrive) {
            if (!op.thread_count) return refuse("bar.arrive without a thread count");
            LLVMValueRef id = D4R_TRY(value(id_operand, Type::U32));
            LLVMValueRef count = D4R_TRY(value(in.operands[op.barrier_id + 1], Type::U32));
            D4R_TRY(nv_inline("bar.arrive", "bar.arrive $0, $1;", {}, {id, count}, true));
            return ok_status();
        }
        const bool id_zero = id_operand.kind == ast::OperandKind::Integer && id_operand.integer == 0;
        if (op.reduction != Reduction::None) {
            if (!id_zero || op.thread_count) return refuse("bar.red with a barrier other than 0 or a thread count");
            LLVMValueRef p = ir.zext(D4R_TRY(value(in.operands.back(), Type::Pred)), ir.i32);
            const char* name = op.reduction == Reduction::Popc  ? "llvm.nvvm.barrier0.popc"
                               : op.reduction == Reduction::And ? "llvm.nvvm.barrier0.and"
                                                                : "llvm.nvvm.barrier0.or";
            LLVMValueRef r = D4R_TRY(nvvm(name, {}, {p}));
            if (op.reduction == Reduction::Popc) return assign(in.operands[0], Type::U32, r);
            return assign(in.operands[0], Type::Pred, ir.icmp(abi::D4R_LLVMIntNE, r, ir.constant(ir.i32, 0)));
        }
        if (op.thread_count) {
            LLVMValueRef id = D4R_TRY(value(id_operand, Type::U32));
            LLVMValueRef count = D4R_TRY(value(in.operands[op.barrier_id + 1], Type::U32));
            D4R_TRY(nvvm("llvm.nvvm.barrier.sync.cnt", {}, {id, count}));
            return ok_status();
        }
        if (id_zero) {
            D4R_TRY(nvvm("llvm.nvvm.barrier0", {}, {}));
            return ok_status();
        }
        LLVMValueRef id = D4R_TRY(value(id_operand, Type::U32));
        D4R_TRY(nvvm("llvm.nvvm.barrier.sync", {}, {id}));
        return ok_status();
    }
    case Op::WarpSync: {
        if (in.operands.size() != 1) return refuse("expected a member mask");
        LLVMValueRef member = D4R_TRY(value(in.operands[0], Type::U32));
        D4R_TRY(nvvm("llvm.nvvm.bar.warp.sync", {}, {member}));
        return ok_status();
    }
    case Op::Fence: { // LLVM 19's NVPTX back end selects no `fence` instruction: the membar of the scope
        const ptx::Modifiers m(in.opcode);
        const char* name = m.has("cta")   ? "llvm.nvvm.membar.cta"
                           : m.has("sys") ? "llvm.nvvm.membar.sys"
                                          : "llvm.nvvm.membar.gl";
        if (m.has("proxy")) return refuse("fence.proxy has no NVPTX lowering");
        D4R_TRY(nvvm(name, {}, {}));
        return ok_status();
    }
    case Op::Nanosleep: {
        LLVMValueRef t = D4R_TRY(value(in.operands[0], Type::U32));
        D4R_TRY(nvvm("llvm.nvvm.nanosleep", {}, {t}));
        return ok_status();
    }
    case Op::Call:
        return nv_call(op);
    default:
        return refuse("this control instruction has no NVPTX lowering");
    }
}

// --- memory ---

// ld/st: the access through a pointer of its space, naturally aligned (as PTX requires: the back end then emits one
// access, not bytes). .volatile and the .relaxed/.acquire/.release forms are volatile accesses (LLVM 19's back end
// selects no atomic load or store), an acquire followed and a release preceded by the membar of its scope.
Status Lowering::nv_memory(const ptx::MemoryAccess& op) {
    const ast::Instruction& in = *current;
    const ptx::Modifiers mods(in.opcode);
    if (mods.has("mmio")) return refuse("an .mmio access has no NVPTX lowering");
    const bool is_volatile = mods.has("volatile") || mods.has("relaxed") || mods.has("acquire") || mods.has("release");
    const char* membar = mods.has("cta")   ? "llvm.nvvm.membar.cta"
                         : mods.has("sys") ? "llvm.nvvm.membar.sys"
                                           : "llvm.nvvm.membar.gl";
    const MemoryOperands m = D4R_TRY(memory_operands(op));
    std::vector<LLVMValueRef> values;
    if (!m.load)
        for (const ast::Operand* e : m.elements) values.push_back(D4R_TRY(value(*e, m.raw)));
    if (!m.load && mods.has("release")) D4R_TRY(nvvm(membar, {}, {}));
    LLVMValueRef p = pointer(m.address, m.address.space, m.total, !m.load);
    LLVMTypeRef it = ir.int_type(m.bits);
    for (unsigned k = 0; k < op.vector; ++k) {
        LLVMValueRef at = k == 0 ? p : ir.byte_offset(p, ir.constant(ir.i64, uint64_t(k) * m.bytes));
        const unsigned align = k == 0 ? m.total : m.bytes;
        if (m.load) {
            LLVMValueRef v = ir.load(it, at, align);
            if (is_volatile) ir.llvm().LLVMSetVolatile(v, 1);
            const Type as = ptx::is_signed(op.type) ? op.type : m.raw;
            if (m.elements[k]->kind == ast::OperandKind::Name && m.elements[k]->name == "_") continue;
            Reg r = D4R_TRY(reg(m.elements[k]->name));
            if (r.bits == 1) return refuse("a load into a predicate");
            ir.store(ir.resize(v, r.bits, ptx::is_signed(as)), r.slot);
        } else {
            LLVMValueRef s = ir.llvm().LLVMBuildStore(ir.builder(), values[k], at);
            ir.llvm().LLVMSetAlignment(s, align);
            if (is_volatile) ir.llvm().LLVMSetVolatile(s, 1);
        }
    }
    if (m.load && mods.has("acquire")) D4R_TRY(nvvm(membar, {}, {}));
    return ok_status();
}

Status Lowering::nv_async(const ptx::AsyncCopy& op) {
    using Op = ptx::AsyncCopy::Op;
    const ast::Instruction& in = *current;
    switch (op.op) {
    case Op::CommitGroup:
        D4R_TRY(nvvm("llvm.nvvm.cp.async.commit.group", {}, {}));
        return ok_status();
    case Op::WaitGroup:
        D4R_TRY(nvvm("llvm.nvvm.cp.async.wait.group", {}, {ir.constant(ir.i32, op.groups)}));
        return ok_status();
    case Op::WaitAll:
        D4R_TRY(nvvm("llvm.nvvm.cp.async.wait.all", {}, {}));
        return ok_status();
    case Op::Copy:
        break;
    default:
        return refuse("this cp.async form has no NVPTX lowering");
    }
    if (op.cache_policy) return refuse("cp.async with a cache policy has no NVPTX lowering");
    if (in.operands.size() < 3 + (op.source_operand ? 1 : 0)) return refuse("missing operands");
    const Address dst = D4R_TRY(address(in.operands[0], StateSpace::Shared));
    const Address src = D4R_TRY(address(in.operands[1], StateSpace::Global));
    LLVMValueRef d = nv_pointer(dst, StateSpace::Shared), s = nv_pointer(src, StateSpace::Global);
    const std::string name =
        fmt::format("llvm.nvvm.cp.async.{}.shared.global.{}", op.cache_global ? "cg" : "ca", op.bytes);
    if (!op.source_operand) {
        D4R_TRY(nvvm(name, {}, {d, s}));
        return ok_status();
    }
    const ast::Operand& o = in.operands[3];
    bool predicate = o.negated;
    if (o.kind == ast::OperandKind::Name && !predicate)
        if (auto r = reg(o.name)) predicate = r->bits == 1;
    LLVMValueRef size =
        predicate ? ir.select(D4R_TRY(value(o, Type::Pred)), ir.constant(ir.i32, 0), ir.constant(ir.i32, op.bytes))
                  : D4R_TRY(value(o, Type::U32));
    D4R_TRY(nvvm(name + ".s", {}, {d, s, size}));
    return ok_status();
}

Status Lowering::nv_move(const ptx::Move& op) {
    using Sreg = ptx::Move::Sreg;
    const ast::Instruction& in = *current;
    const LlvmLibrary& l = ir.llvm();
    const Type t = op.type;
    if (op.op == ptx::Move::Op::Cvta) {
        if (ptx::type_bits(t) != 64) return refuse("a 32-bit cvta has no NVPTX lowering");
        if (op.space == StateSpace::Param) return refuse("cvta of kernel parameters has no NVPTX lowering");
        LLVMValueRef a = D4R_TRY(value(in.operands[1], t));
        const StateSpace from = op.to_space ? StateSpace::Generic : op.space;
        const StateSpace to = op.to_space ? op.space : StateSpace::Generic;
        LLVMValueRef p = l.LLVMBuildIntToPtr(ir.builder(), a, nv_pointer_type(from), "");
        p = l.LLVMBuildAddrSpaceCast(ir.builder(), p, nv_pointer_type(to), "");
        return assign(in.operands[0], t, l.LLVMBuildPtrToInt(ir.builder(), p, ir.i64, ""));
    }
    if (op.op == ptx::Move::Op::Isspacep) {
        const char* name = op.space == StateSpace::Global   ? "llvm.nvvm.isspacep.global"
                           : op.space == StateSpace::Shared ? "llvm.nvvm.isspacep.shared"
                           : op.space == StateSpace::Local  ? "llvm.nvvm.isspacep.local"
                           : op.space == StateSpace::Const  ? "llvm.nvvm.isspacep.const"
                                                            : nullptr;
        if (!name) return refuse("isspacep.param has no NVPTX lowering");
        LLVMValueRef a = D4R_TRY(value(in.operands[1], Type::U64));
        LLVMValueRef p = l.LLVMBuildIntToPtr(ir.builder(), a, nv_pointer_type(StateSpace::Generic), "");
        return assign(in.operands[0], Type::Pred, D4R_TRY(nvvm(name, {}, {p})));
    }
    switch (op.sreg) {
    case Sreg::Other:
        return assign(in.operands[0], t, D4R_TRY(value(in.operands[1], t)));
    case Sreg::Clock:
        return assign(in.operands[0], t, D4R_TRY(nvvm("llvm.nvvm.read.ptx.sreg.clock", {}, {})));
    case Sreg::ClockHi: { // the upper half of %clock64
        LLVMValueRef c = D4R_TRY(nvvm("llvm.nvvm.read.ptx.sreg.clock64", {}, {}));
        return assign(in.operands[0], t, ir.trunc(ir.lshr(c, ir.constant(ir.i64, 32)), ir.i32));
    }
    case Sreg::Clock64:
        return assign(in.operands[0], t, D4R_TRY(nvvm("llvm.nvvm.read.ptx.sreg.clock64", {}, {})));
    case Sreg::GlobalTimer:
        return assign(in.operands[0], t, D4R_TRY(nvvm("llvm.nvvm.read.ptx.sreg.globaltimer", {}, {})));
    default:
        return refuse("this special register has no NVPTX lowering");
    }
}

// --- numerics ---

// The f32/f64 forms the IR does not spell (lower_float.cpp): directed rounding, the .approx and .full forms,
// .xorsign.abs, as the NVVM intrinsic of the same instruction; .sat (which no f32 intrinsic but add/mul takes) as
// the host lowering spells it, on the rounded result.
Status Lowering::nv_float(const ptx::FloatArith& op, const std::vector<LLVMValueRef>& s) {
    using Op = ptx::FloatArith::Op;
    const ast::Instruction& in = *current;
    const bool f32 = op.type == Type::F32;
    FloatRules fr{ir, f32};
    const char* suffix = f32 ? "f" : "d";
    const std::string ftz = op.ftz ? ".ftz" : "";
    LLVMTypeRef ft = fr.type();
    LLVMValueRef r = nullptr;
    auto call = [&](const std::string& name, std::initializer_list<LLVMValueRef> args) -> Expected<LLVMValueRef> {
        return nvvm(name, {}, args);
    };
    const bool directed = op.round && *op.round != Round::Rn;
    const std::string rnd = op.round ? round_name(*op.round) : "rn";
    switch (op.op) {
    case Op::Add:
    case Op::Sub:
    case Op::Mul:
    case Op::Fma:
    case Op::Div:
    case Op::Sqrt:
    case Op::Rcp: {
        if (op.approx || op.full) {
            std::string name;
            if (op.op == Op::Div && op.approx && f32) name = "llvm.nvvm.div.approx" + ftz + ".f";
            if (op.op == Op::Div && op.full && f32) name = "llvm.nvvm.div.full" + ftz;
            if (op.op == Op::Sqrt && op.approx && f32) name = "llvm.nvvm.sqrt.approx" + ftz + ".f";
            if (op.op == Op::Rcp && op.approx && f32) name = "llvm.nvvm.rcp.approx" + ftz + ".f";
            if (op.op == Op::Rcp && op.approx && !f32 && op.ftz) name = "llvm.nvvm.rcp.approx.ftz.d";
            if (name.empty()) return refuse("this approximate form has no NVPTX lowering");
            std::vector<LLVMValueRef> args = {s[0]};
            if (op.op == Op::Div) args.push_back(s[1]);
            if (ir.has_intrinsic(name)) {
                r = ir.intrinsic_call(name, args);
            } else { // div.full and rcp.approx.f32 have no intrinsic in LLVM 19
                const char* base = op.op == Op::Div ? "div" : op.op == Op::Sqrt ? "sqrt" : "rcp";
                const std::string text = fmt::format("{}.{}{}.{} $0, $1{};", base, op.full ? "full" : "approx", ftz,
                                                     f32 ? "f32" : "f64", op.op == Op::Div ? ", $2" : "");
                r = D4R_TRY(nv_inline(text, text, {ft}, args))[0];
            }
            break;
        }
        if (!directed && !op.ftz) return refuse("internal: a round-to-nearest form not spelled in IR");
        const char* base = op.op == Op::Mul    ? "mul"
                           : op.op == Op::Fma  ? "fma"
                           : op.op == Op::Div  ? "div"
                           : op.op == Op::Sqrt ? "sqrt"
                           : op.op == Op::Rcp  ? "rcp"
                                               : "add";
        const std::string name = fmt::format("llvm.nvvm.{}.{}{}.{}", base, rnd, f32 ? ftz : "", suffix);
        if (op.op == Op::Sub) // a - b as a + (-b): the same rounding, exactly (negation is exact)
            r = D4R_TRY(call(name, {s[0], fr.neg_or_abs(s[1], false)}));
        else if (op.op == Op::Fma)
            r = D4R_TRY(call(name, {s[0], s[1], s[2]}));
        else if (op.op == Op::Sqrt || op.op == Op::Rcp)
            r = D4R_TRY(call(name, {s[0]}));
        else
            r = D4R_TRY(call(name, {s[0], s[1]}));
        if (op.sat) r = fr.saturate(r);
        break;
    }
    case Op::Min:
    case Op::Max: {
        if (!op.xorsign || !f32) return refuse("internal: a min/max form not spelled in IR");
        const std::string name =
            fmt::format("llvm.nvvm.f{}{}{}.xorsign.abs.f", op.op == Op::Min ? "min" : "max", ftz, op.nan ? ".nan" : "");
        r = D4R_TRY(call(name, {s[0], s[1]}));
        break;
    }
    case Op::Rsqrt:
    case Op::Sin:
    case Op::Cos:
    case Op::Lg2:
    case Op::Ex2: {
        const char* base = op.op == Op::Rsqrt ? "rsqrt"
                           : op.op == Op::Sin ? "sin"
                           : op.op == Op::Cos ? "cos"
                           : op.op == Op::Lg2 ? "lg2"
                                              : "ex2";
        std::string name = fmt::format("llvm.nvvm.{}.approx{}.{}", base, f32 ? ftz : "", suffix);
        if (!f32 && op.ftz) name = fmt::format("llvm.nvvm.{}.approx.ftz.d", base);
        r = D4R_TRY(call(name, {s[0]}));
        break;
    }
    case Op::Tanh: {
        if (!f32) return refuse("tanh.approx of f64");
        const std::string text = fmt::format("tanh.approx{}.f32 $0, $1;", ftz);
        r = D4R_TRY(nv_inline("tanh.approx.f32", text, {ft}, {s[0]}))[0];
        break;
    }
    default:
        return refuse("this floating-point instruction has no NVPTX lowering");
    }
    return assign(in.operands[0], op.type, r);
}

// cvt forms the IR does not spell (lower_float.cpp): directed rounding of floats (d2f, i2f, ...), the half
// conversions, the packed ones; each the NVVM intrinsic of that instruction, or IR where IR's rounding is the PTX
// instruction's (fpext, and fptrunc to f16/bf16, both round to nearest even).
Status Lowering::nv_cvt(const ptx::Cvt& op) {
    using Form = ptx::Cvt::Form;
    const ast::Instruction& in = *current;
    const LlvmLibrary& l = ir.llvm();
    const Type dt = op.dst, at = op.src;
    const Round round = op.round.value_or(Round::Rn);
    const std::string rnd = round_name(round);
    auto half_type = [&](Type t) { return t == Type::BF16 || t == Type::BF16x2 ? ir.bf16 : ir.f16; };
    auto is_half = [](Type t) { return t == Type::F16 || t == Type::BF16; };
    if (op.form == Form::Pack) { // cvt.rn|rz{.relu}.f16x2|bf16x2.f32 d, a, b: a in the high half
        if (round != Round::Rn && round != Round::Rz) return refuse("a packed conversion rounding other than rn/rz");
        LLVMValueRef a = D4R_TRY(value(in.operands[1], Type::F32)), b = D4R_TRY(value(in.operands[2], Type::F32));
        const bool bf = dt == Type::BF16; // the decoder gives a pair's element type
        const std::string name =
            fmt::format("llvm.nvvm.ff2{}x2.{}{}", bf ? "bf16" : "f16", rnd, op.relu ? ".relu" : "");
        LLVMValueRef r = l.LLVMBuildBitCast(ir.builder(), D4R_TRY(nvvm(name, {}, {a, b})), ir.i32, "");
        if (op.satfinite) r = satfinite_f16(ir, r, bf, 2);
        return assign(in.operands[0], Type::B32, r);
    }
    if (op.form == Form::ToFp8 || op.form == Form::FromFp8) { // no intrinsics in LLVM 19: the instruction itself
        const char* fp8 = op.e5m2 ? "e5m2x2" : "e4m3x2";
        const std::string relu = op.relu ? ".relu" : "";
        if (op.form == Form::FromFp8) {
            const std::string text = fmt::format("cvt.rn{}.f16x2.{} $0, $1;", relu, fp8);
            LLVMValueRef a = D4R_TRY(value(in.operands[1], Type::B16));
            return assign(in.operands[0], Type::B32, D4R_TRY(nv_inline(text, text, {ir.i32}, {a}))[0]);
        }
        if (!op.satfinite) return refuse("a conversion to FP8 without .satfinite");
        if (op.src == Type::F32) {
            const std::string text = fmt::format("cvt.rn.satfinite{}.{}.f32 $0, $1, $2;", relu, fp8);
            LLVMValueRef a = D4R_TRY(value(in.operands[1], Type::F32)), b = D4R_TRY(value(in.operands[2], Type::F32));
            return assign(in.operands[0], Type::B16, D4R_TRY(nv_inline(text, text, {ir.i16}, {a, b}))[0]);
        }
        const std::string text = fmt::format("cvt.rn.satfinite{}.{}.f16x2 $0, $1;", relu, fp8);
        LLVMValueRef a = D4R_TRY(value(in.operands[1], Type::B32));
        return assign(in.operands[0], Type::B16, D4R_TRY(nv_inline(text, text, {ir.i16}, {a}))[0]);
    }
    if (op.form != Form::Convert) return refuse("this cvt form has no NVPTX lowering in LLVM 19");
    if (op.satfinite && !(is_half(dt) && at == Type::F32 && round == Round::Rn))
        return refuse("cvt .satfinite of these types has no NVPTX lowering in LLVM 19");
    const bool f_dst = dt == Type::F32 || dt == Type::F64, f_src = at == Type::F32 || at == Type::F64;
    const bool i_dst = ptx::is_integer(dt), i_src = ptx::is_integer(at);
    // From f16/bf16: exact (fpext), then as from f32/f64.
    if (is_half(at)) {
        if (!f_dst || op.relu || op.sat || op.int_round) return refuse("this conversion from a half type");
        LLVMValueRef h = ir.bitcast(D4R_TRY(value(in.operands[1], Type::B16)), half_type(at));
        return assign(in.operands[0], dt, ir.fpext(h, llvm_type(dt)));
    }
    // To f16/bf16.
    if (is_half(dt)) {
        const bool bf = dt == Type::BF16;
        // The conversion of an f32 toward zero or to nearest (.relu), as 16 bits: f2bf16, or the low half of the
        // packed conversion of (0, x).
        auto from_f32 = [&](LLVMValueRef x, const std::string& mode) -> Expected<LLVMValueRef> {
            if (bf) return ir.bitcast(D4R_TRY(nvvm(fmt::format("llvm.nvvm.f2bf16.{}", mode), {}, {x})), ir.i16);
            LLVMValueRef pair = D4R_TRY(nvvm(fmt::format("llvm.nvvm.ff2f16x2.{}", mode), {}, {ir.f32_bits(0), x}));
            return ir.trunc(l.LLVMBuildBitCast(ir.builder(), pair, ir.i32, ""), ir.i16);
        };
        LLVMValueRef bits = nullptr;
        if (op.relu) {
            if (at != Type::F32 || (round != Round::Rn && round != Round::Rz)) return refuse("this .relu conversion");
            bits = D4R_TRY(from_f32(D4R_TRY(value(in.operands[1], Type::F32)), rnd + ".relu"));
        } else if (round == Round::Rn && f_src && !op.ftz) { // fptrunc rounds to nearest even, as cvt.rn does
            bits = ir.bitcast(ir.fptrunc(D4R_TRY(value(in.operands[1], at)), half_type(dt)), ir.i16);
        } else if (round == Round::Rn && i_src && !op.sat) { // cvt.rn.f16.s32 and the like
            const bool wide = ptx::type_bits(at) == 64, is_signed = ptx::is_signed(at);
            LLVMValueRef a = ir.resize(D4R_TRY(value(in.operands[1], at)), wide ? 64 : 32, is_signed);
            bits = ir.bitcast(is_signed ? ir.sitofp(a, half_type(dt)) : ir.uitofp(a, half_type(dt)), ir.i16);
        } else if (round != Round::Rn && !op.ftz && !op.sat && !op.satfinite &&
                   (f_src || (i_src && ptx::type_bits(at) <= 32))) {
            // A directed rounding: toward zero through f32 (rz of rz is rz: the f16 and bf16 values are f32
            // values), then .rm/.rp step the magnitude one unit up where the result is inexact and the rounding is
            // away from zero for its sign (an overflow then reaches the infinity, an underflow the least subnormal).
            LLVMValueRef a = D4R_TRY(value(in.operands[1], at));
            LLVMValueRef wide = nullptr; // the source, exactly, in f64
            LLVMValueRef negative = nullptr, nan = ir.constant(ir.i1, 0);
            LLVMValueRef x = nullptr;
            if (f_src) {
                FloatRules src{ir, at == Type::F32};
                wide = at == Type::F32 ? ir.fpext(a, ir.f64) : a;
                negative = ir.icmp(abi::D4R_LLVMIntNE, ir.and_(src.bits(a), src.k(src.sign_bit())), src.k(0));
                nan = src.is_nan(a);
                x = at == Type::F32 ? a : D4R_TRY(nvvm("llvm.nvvm.d2f.rz", {}, {a}));
            } else {
                const bool is_signed = ptx::is_signed(at);
                LLVMValueRef a32 = ir.resize(a, 32, is_signed);
                wide = is_signed ? ir.sitofp(a32, ir.f64) : ir.uitofp(a32, ir.f64);
                negative =
                    is_signed ? ir.icmp(abi::D4R_LLVMIntSLT, a32, ir.constant(ir.i32, 0)) : ir.constant(ir.i1, 0);
                // (not llvm.nvvm.i2f.rz, which LLVM 19's InstCombine makes a conversion to nearest)
                const std::string text = fmt::format("cvt.rz.f32.{}32 $0, $1;", is_signed ? "s" : "u");
                x = D4R_TRY(nv_inline(text, text, {ir.f32}, {a32}))[0];
            }
            bits = D4R_TRY(from_f32(x, "rz"));
            if (round == Round::Rm || round == Round::Rp) {
                LLVMValueRef back = ir.fpext(ir.bitcast(bits, half_type(dt)), ir.f64);
                LLVMValueRef inexact = ir.and_(ir.fcmp(abi::D4R_LLVMRealUNE, back, wide), ir.not_(nan));
                LLVMValueRef away = round == Round::Rm ? negative : ir.not_(negative);
                bits = ir.select(ir.and_(inexact, away), ir.add(bits, ir.constant(ir.i16, 1)), bits);
            } else if (round != Round::Rz) {
                return refuse("this rounding to a half type");
            }
            if (at == Type::F64) { // a NaN keeps its sign and the top of its payload, quieted (ptxsim's narrow_nan)
                const uint64_t mantissa = bf ? 7 : 10, inf = bf ? 0x7f80 : 0x7c00;
                LLVMValueRef b = ir.bitcast(a, ir.i64);
                LLVMValueRef sign = ir.trunc(ir.lshr(b, ir.constant(ir.i64, 48)), ir.i16);
                sign = ir.and_(sign, ir.constant(ir.i16, 0x8000));
                LLVMValueRef payload = ir.trunc(
                    ir.lshr(ir.and_(b, ir.constant(ir.i64, 0x000fffffffffffffull)), ir.constant(ir.i64, 52 - mantissa)),
                    ir.i16);
                LLVMValueRef quiet = ir.constant(ir.i16, inf | (1ull << (mantissa - 1)));
                bits = ir.select(nan, ir.or_(sign, ir.or_(payload, quiet)), bits);
            }
        } else {
            return refuse("this conversion to a half type has no NVPTX lowering in LLVM 19");
        }
        if (op.satfinite) bits = satfinite_f16(ir, bits, bf, 1);
        return assign(in.operands[0], Type::B16, bits);
    }
    if (op.relu) return refuse("cvt .relu of this type");
    // Integer to float with a directed rounding: i2f/ui2f/ll2f/ull2f (f32), ll2d/ull2d (f64; 32-bit ones are exact).
    if (i_src && f_dst) {
        const bool wide = ptx::type_bits(at) == 64;
        const bool is_signed = ptx::is_signed(at);
        LLVMValueRef a = D4R_TRY(value(in.operands[1], at));
        LLVMValueRef r = nullptr;
        if (dt == Type::F64 && !wide) {
            r = is_signed ? ir.sitofp(a, ir.f64) : ir.uitofp(a, ir.f64);
        } else if (round == Round::Rz) {
            // LLVM 19's InstCombine turns llvm.nvvm.{i,ui,ll,ull}2{f,d}.rz into sitofp/uitofp, which round to
            // nearest (found by this round trip on the corpus case cvt_i2f): the instruction itself instead.
            a = ir.resize(a, wide ? 64 : 32, is_signed);
            const std::string text = fmt::format("cvt.rz.{}.{}{} $0, $1;", dt == Type::F32 ? "f32" : "f64",
                                                 is_signed ? "s" : "u", wide ? 64 : 32);
            r = D4R_TRY(nv_inline(text, text, {llvm_type(dt)}, {a}))[0];
        } else {
            a = ir.resize(a, wide ? 64 : 32, is_signed);
            const std::string name = fmt::format("llvm.nvvm.{}{}2{}.{}", is_signed ? "" : "u", wide ? "ll" : "i",
                                                 dt == Type::F32 ? "f" : "d", rnd);
            r = D4R_TRY(nvvm(name, {}, {a}));
        }
        FloatRules fr{ir, dt == Type::F32};
        if (dt == Type::F32 && op.ftz) r = fr.flush(r);
        if (op.sat) r = fr.saturate(r);
        return assign(in.operands[0], dt, r);
    }
    // f64 to f32 with a directed rounding (d2f), f32 to f32/f64 the same.
    if (f_src && f_dst && at == Type::F64 && dt == Type::F32) {
        LLVMValueRef a = D4R_TRY(value(in.operands[1], at));
        LLVMValueRef r = D4R_TRY(nvvm(fmt::format("llvm.nvvm.d2f.{}{}", rnd, op.ftz ? ".ftz" : ""), {}, {a}));
        FloatRules fr{ir, true};
        if (op.sat) r = fr.saturate(r);
        return assign(in.operands[0], dt, r);
    }
    (void)l;
    (void)i_dst;
    return refuse("this cvt has no NVPTX lowering");
}

// Half precision (f16, bf16 and their pairs): add, sub and mul as the fma intrinsic of their modifiers with a
// neutral operand (a + b = fma(a, 1, b), a - b = fma(b, -1, a), a * b = fma(a, b, -0): one rounding, the same
// zeros and NaNs), min/max/ex2 as their intrinsics, neg as LLVM's fneg (neg.f16), bf16 neg/abs as theirs.
Status Lowering::nv_half(const ptx::HalfArith& op) {
    using Op = ptx::HalfArith::Op;
    const ast::Instruction& in = *current;
    const LlvmLibrary& l = ir.llvm();
    const bool bf = op.type == Type::BF16 || op.type == Type::BF16x2;
    const bool packed = op.type == Type::F16x2 || op.type == Type::BF16x2;
    LLVMTypeRef et = bf ? ir.bf16 : ir.f16;
    LLVMTypeRef vt = packed ? ir.vector_of(et, 2) : et;
    const std::string suffix = std::string(bf ? "bf16" : "f16") + (packed ? "x2" : "");
    std::vector<LLVMValueRef> s;
    for (unsigned k = 0; k < op.sources; ++k) s.push_back(ir.bitcast(D4R_TRY(value(in.operands[1 + k], op.reg)), vt));
    auto constant = [&](uint16_t f16_bits, uint16_t bf16_bits) {
        LLVMValueRef one = ir.bitcast(ir.constant(ir.i16, bf ? bf16_bits : f16_bits), et);
        if (!packed) return one;
        LLVMValueRef v = ir.insert(ir.undef(vt), one, 0);
        return ir.insert(v, one, 1);
    };
    const std::string mods = std::string(op.ftz ? ".ftz" : "") + (op.sat ? ".sat" : "") + (op.relu ? ".relu" : "");
    LLVMValueRef r = nullptr;
    switch (op.op) {
    case Op::Add:
    case Op::Sub:
    case Op::Mul:
    case Op::Fma: {
        if (op.round && *op.round != Round::Rn) return refuse("a half rounding other than .rn");
        const std::string name = fmt::format("llvm.nvvm.fma.rn{}.{}", mods, suffix);
        LLVMValueRef one = constant(0x3c00, 0x3f80), minus_one = constant(0xbc00, 0xbf80),
                     minus_zero = constant(0x8000, 0x8000);
        if (op.op == Op::Add) r = D4R_TRY(nvvm(name, {}, {s[0], one, s[1]}));
        if (op.op == Op::Sub) r = D4R_TRY(nvvm(name, {}, {s[1], minus_one, s[0]}));
        if (op.op == Op::Mul) r = D4R_TRY(nvvm(name, {}, {s[0], s[1], minus_zero}));
        if (op.op == Op::Fma) r = D4R_TRY(nvvm(name, {}, {s[0], s[1], s[2]}));
        break;
    }
    case Op::Min:
    case Op::Max: {
        const std::string name =
            fmt::format("llvm.nvvm.f{}{}{}{}.{}", op.op == Op::Min ? "min" : "max", op.ftz ? ".ftz" : "",
                        op.nan ? ".nan" : "", op.xorsign ? ".xorsign.abs" : "", suffix);
        r = D4R_TRY(nvvm(name, {}, {s[0], s[1]}));
        break;
    }
    case Op::Ex2:
    case Op::Tanh: {
        const char* base = op.op == Op::Ex2 ? "ex2" : "tanh";
        const std::string name = fmt::format("llvm.nvvm.{}.approx{}.{}", base, op.ftz ? ".ftz" : "", suffix);
        if (ir.has_intrinsic(name)) {
            r = ir.intrinsic_call(name, {s[0]});
            break;
        }
        // ex2.approx.ftz.bf16 and tanh.approx have no intrinsic in LLVM 19: on the register's bits.
        LLVMTypeRef word = ir.int_type(ptx::type_bits(op.reg));
        const std::string text = fmt::format("{}.approx{}.{} $0, $1;", base, op.ftz ? ".ftz" : "", suffix);
        LLVMValueRef w = l.LLVMBuildBitCast(ir.builder(), s[0], word, "");
        return assign(in.operands[0], op.reg, D4R_TRY(nv_inline(text, text, {word}, {w}))[0]);
    }
    case Op::Neg:
    case Op::Abs: {
        if (bf) { // neg.bf16 and abs.bf16 have intrinsics (and no .ftz form)
            if (op.ftz) return refuse(".ftz of a bf16 neg or abs");
            r = D4R_TRY(nvvm(fmt::format("llvm.nvvm.{}.{}", op.op == Op::Neg ? "neg" : "abs", suffix), {}, {s[0]}));
            break;
        }
        if (op.op == Op::Abs || op.ftz) {
            // LLVM 19 widens fabs of f16 to f32 (cvt, abs.f32, cvt: another NaN) and has no .ftz form: the
            // instruction itself, on the register's bits.
            LLVMTypeRef word = ir.int_type(ptx::type_bits(op.reg));
            const std::string text =
                fmt::format("{}{}.{} $0, $1;", op.op == Op::Neg ? "neg" : "abs", op.ftz ? ".ftz" : "", suffix);
            LLVMValueRef w = l.LLVMBuildBitCast(ir.builder(), s[0], word, "");
            return assign(in.operands[0], op.reg, D4R_TRY(nv_inline(text, text, {word}, {w}))[0]);
        }
        r = l.LLVMBuildFNeg(ir.builder(), s[0], ""); // neg.f16 / neg.f16x2
        break;
    }
    }
    return assign(in.operands[0], op.reg, l.LLVMBuildBitCast(ir.builder(), r, ir.int_type(ptx::type_bits(op.reg)), ""));
}

// --- warp collectives, atomics, textures, tensor cores ---

Status Lowering::nv_collective(const ptx::WarpCollective& op) {
    using Op = ptx::WarpCollective::Op;
    using Vote = ptx::WarpCollective::Vote;
    using Red = ptx::WarpCollective::Reduction;
    const ast::Instruction& in = *current;
    const LlvmLibrary& l = ir.llvm();
    const size_t n = in.operands.size();
    const ast::Operand& d = in.operands[0];
    const bool pair = d.kind == ast::OperandKind::Pair;
    const ast::Operand value_dst = pair ? named(d.name) : d;
    switch (op.op) {
    case Op::Shuffle: {
        if (n != 5 || op.type != Type::B32) return refuse("expected shfl.sync.b32 d, a, b, c, membermask");
        static constexpr const char* kModes[] = {"up", "down", "bfly", "idx"};
        LLVMValueRef a = D4R_TRY(value(in.operands[1], Type::B32));
        LLVMValueRef b = D4R_TRY(value(in.operands[2], Type::U32));
        LLVMValueRef c = D4R_TRY(value(in.operands[3], Type::U32));
        LLVMValueRef member = D4R_TRY(value(in.operands[4], Type::U32));
        const std::string name =
            fmt::format("llvm.nvvm.shfl.sync.{}.i32{}", kModes[static_cast<int>(op.shuffle)], pair ? "p" : "");
        LLVMValueRef r = D4R_TRY(nvvm(name, {}, {member, a, b, c}));
        if (!pair) return assign(d, Type::B32, r);
        D4R_TRY(assign(value_dst, Type::B32, l.LLVMBuildExtractValue(ir.builder(), r, 0, "")));
        return assign(named(d.name2), Type::Pred, l.LLVMBuildExtractValue(ir.builder(), r, 1, ""));
    }
    case Op::Vote: {
        if (n != 3) return refuse("expected vote.sync d, p, membermask");
        LLVMValueRef p = D4R_TRY(value(in.operands[1], Type::Pred));
        LLVMValueRef member = D4R_TRY(value(in.operands[2], Type::U32));
        static constexpr const char* kModes[] = {"all", "any", "uni", "ballot"};
        LLVMValueRef r =
            D4R_TRY(nvvm(fmt::format("llvm.nvvm.vote.{}.sync", kModes[static_cast<int>(op.vote)]), {}, {member, p}));
        return assign(d, op.vote == Vote::Ballot ? Type::B32 : Type::Pred, r);
    }
    case Op::Match: {
        if (n != 3) return refuse("expected match.sync d, a, membermask");
        LLVMValueRef a = D4R_TRY(value(in.operands[1], op.type));
        LLVMValueRef member = D4R_TRY(value(in.operands[2], Type::U32));
        const char* width = op.type == Type::B64 ? "i64" : "i32";
        if (!op.all) {
            LLVMValueRef r = D4R_TRY(nvvm(fmt::format("llvm.nvvm.match.any.sync.{}", width), {}, {member, a}));
            return assign(d, Type::B32, r);
        }
        LLVMValueRef r = D4R_TRY(nvvm(fmt::format("llvm.nvvm.match.all.sync.{}p", width), {}, {member, a}));
        D4R_TRY(assign(value_dst, Type::B32, l.LLVMBuildExtractValue(ir.builder(), r, 0, "")));
        if (pair) D4R_TRY(assign(named(d.name2), Type::Pred, l.LLVMBuildExtractValue(ir.builder(), r, 1, "")));
        return ok_status();
    }
    case Op::Reduce: {
        if (n != 3 || ptx::type_bits(op.type) != 32) return refuse("expected redux.sync.op.32-bit-type d, a, mask");
        LLVMValueRef a = D4R_TRY(value(in.operands[1], op.type));
        LLVMValueRef member = D4R_TRY(value(in.operands[2], Type::U32));
        const bool is_signed = op.type == Type::S32;
        const char* name = nullptr;
        switch (op.reduction) {
        case Red::Add:
            name = "add";
            break;
        case Red::Min:
            name = is_signed ? "min" : "umin";
            break;
        case Red::Max:
            name = is_signed ? "max" : "umax";
            break;
        case Red::And:
            name = "and";
            break;
        case Red::Or:
            name = "or";
            break;
        case Red::Xor:
            name = "xor";
            break;
        }
        LLVMValueRef r = D4R_TRY(nvvm(fmt::format("llvm.nvvm.redux.sync.{}", name), {}, {a, member}));
        return assign(d, op.type, r);
    }
    case Op::ActiveMask:
        if (n != 1) return refuse("expected activemask.b32 d");
        return assign(d, Type::B32, D4R_TRY(nvvm("llvm.nvvm.activemask", {}, {})));
    }
    return refuse("this warp collective has no NVPTX lowering");
}

// atom/red: atomicrmw (cmpxchg for cas) on a pointer of the instruction's space, monotonic (PTX's default
// .relaxed; the back end prints atom/red of the operation). inc and dec are uinc_wrap and udec_wrap, which the back
// end expands into a cmpxchg loop computing the same values.
Status Lowering::nv_atomic(const ptx::Atomic& op) {
    using Op = ptx::Atomic::Op;
    const ast::Instruction& in = *current;
    const LlvmLibrary& l = ir.llvm();
    const ptx::Modifiers mods(in.opcode);
    for (std::string_view m : {"acquire", "release", "acq_rel", "sc"})
        if (mods.has(m)) return refuse(fmt::format("atom .{} has no NVPTX lowering yet", m));
    const unsigned first = op.address_operand;
    if (in.operands.size() < first + 1 + op.values) return refuse("missing operands");
    const Address a = D4R_TRY(address(in.operands[first], op.space));
    LLVMValueRef p = nv_pointer(a, op.space);
    const bool fp = op.op == Op::Add && (op.type == Type::F32 || op.type == Type::F64 || op.half);
    LLVMValueRef v = D4R_TRY(value(in.operands[first + 1], op.value));
    if (op.half) {
        const bool bf = op.type == Type::BF16 || op.type == Type::BF16x2;
        const bool packed = op.type == Type::F16x2 || op.type == Type::BF16x2;
        // A pair: atomicrmw fadd of <2 x half> (<2 x bfloat>), which LLVM 19 expands into a cmpxchg loop around
        // add.rn.f16x2 (.bf16x2): the same atomic add, in more instructions.
        LLVMTypeRef ht = bf ? ir.bf16 : ir.f16;
        v = l.LLVMBuildBitCast(ir.builder(), v, packed ? ir.vector_of(ht, 2) : ht, "");
    } else if (fp) {
        v = ir.bitcast(v, llvm_type(op.type));
    }
    LLVMValueRef old = nullptr;
    if (op.op == Op::Cas) {
        LLVMValueRef swap = D4R_TRY(value(in.operands[first + 2], op.value));
        LLVMValueRef x = l.LLVMBuildAtomicCmpXchg(ir.builder(), p, v, swap, abi::D4R_LLVMAtomicOrderingMonotonic,
                                                  abi::D4R_LLVMAtomicOrderingMonotonic, 0);
        old = l.LLVMBuildExtractValue(ir.builder(), x, 0, "");
    } else {
        int rmw = 0;
        switch (op.op) {
        case Op::And:
            rmw = abi::D4R_LLVMAtomicRMWBinOpAnd;
            break;
        case Op::Or:
            rmw = abi::D4R_LLVMAtomicRMWBinOpOr;
            break;
        case Op::Xor:
            rmw = abi::D4R_LLVMAtomicRMWBinOpXor;
            break;
        case Op::Exch:
            rmw = abi::D4R_LLVMAtomicRMWBinOpXchg;
            break;
        case Op::Add:
            rmw = fp ? abi::D4R_LLVMAtomicRMWBinOpFAdd : abi::D4R_LLVMAtomicRMWBinOpAdd;
            break;
        case Op::Inc:
            rmw = abi::D4R_LLVMAtomicRMWBinOpUIncWrap;
            break;
        case Op::Dec:
            rmw = abi::D4R_LLVMAtomicRMWBinOpUDecWrap;
            break;
        case Op::Min:
            rmw = op.signed_compare ? abi::D4R_LLVMAtomicRMWBinOpMin : abi::D4R_LLVMAtomicRMWBinOpUMin;
            break;
        case Op::Max:
            rmw = op.signed_compare ? abi::D4R_LLVMAtomicRMWBinOpMax : abi::D4R_LLVMAtomicRMWBinOpUMax;
            break;
        default:
            return refuse("this atomic has no NVPTX lowering");
        }
        old = l.LLVMBuildAtomicRMW(ir.builder(), rmw, p, v, abi::D4R_LLVMAtomicOrderingMonotonic, 0);
    }
    if (!op.result) return ok_status();
    if (fp || op.half) old = l.LLVMBuildBitCast(ir.builder(), old, ir.int_type(ptx::type_bits(op.value)), "");
    return assign(in.operands[0], op.value, old);
}

// tex, tld4, suld.b and sust.b of 2D images through a 64-bit object handle: the unified-mode NVVM intrinsic of the
// same instruction (the object, filtering, addressing and the surface's out-of-range mode are the GPU's).
Status Lowering::nv_texture(const ptx::TextureOp& op) {
    using Op = ptx::TextureOp::Op;
    using Clamp = ptx::TextureOp::Clamp;
    const ast::Instruction& in = *current;
    const LlvmLibrary& l = ir.llvm();
    if (in.operands.size() <= std::max(op.image_operand, op.data_operand)) return refuse("missing operands");
    if (op.geometry != ptx::TextureOp::Geometry::D2) return refuse("an image geometry other than .2d for NVPTX");
    const ast::Operand& image = in.operands[op.image_operand];
    if (image.elements.empty()) return refuse("an image operand without coordinates");
    auto handle_reg = reg(image.name);
    if (!handle_reg || handle_reg->bits != 64)
        return refuse(fmt::format("'{}' is not a 64-bit register (texture references are not supported)", image.name));
    LLVMValueRef handle = D4R_TRY(value(named(image.name), Type::U64));
    const std::vector<const ast::Operand*> coords = ptx::decode::vector_elements(image.elements[0]);
    if (coords.size() < 2) return refuse("missing coordinates");
    const Type ct = op.coordinate == Type::F32 ? Type::F32 : Type::S32;
    LLVMValueRef x = D4R_TRY(value(*coords[size_t(op.coordinates.x)], ct));
    LLVMValueRef y = D4R_TRY(value(*coords[size_t(op.coordinates.y)], ct));
    const std::vector<const ast::Operand*> data = ptx::decode::vector_elements(in.operands[op.data_operand]);
    if (data.size() < op.vector || op.vector > 4) return refuse("unexpected data operand");
    auto element = [&](LLVMValueRef r, unsigned k) {
        return op.vector == 1 && op.op != Op::Tex && op.op != Op::Gather
                   ? r
                   : l.LLVMBuildExtractValue(ir.builder(), r, k, "");
    };
    if (op.op == Op::Tex || op.op == Op::Gather) {
        const char* result = op.data == Type::F32 ? "v4f32" : op.data == Type::S32 ? "v4s32" : "v4u32";
        std::string name;
        if (op.op == Op::Tex) {
            name = fmt::format("llvm.nvvm.tex.unified.2d.{}.{}", result, ct == Type::F32 ? "f32" : "s32");
        } else {
            if (ct != Type::F32) return refuse("tld4 with integer coordinates");
            static constexpr const char* kComponents = "rgba";
            name =
                fmt::format("llvm.nvvm.tld4.unified.{}.2d.{}.f32", kComponents[static_cast<int>(op.component)], result);
        }
        LLVMValueRef r = D4R_TRY(nvvm(name, {}, {handle, x, y}));
        for (unsigned k = 0; k < 4; ++k) {
            if (data[k]->kind == ast::OperandKind::Name && data[k]->name == "_") continue;
            D4R_TRY(assign(*data[k], op.data, element(r, k)));
        }
        return ok_status();
    }
    const unsigned bits = ptx::type_bits(op.data);
    const std::string shape = fmt::format("{}i{}", op.vector == 1 ? "" : fmt::format("v{}", op.vector), bits);
    const char* mode = op.clamp == Clamp::Clamp ? "clamp" : op.clamp == Clamp::Zero ? "zero" : "trap";
    const Type word = op.data == Type::B64 ? Type::B64 : Type::B32;
    LLVMTypeRef element_type = ir.int_type(bits == 8 ? 16 : bits); // the b8 forms carry each byte in 16 bits
    if (op.op == Op::SurfaceLoad) {
        LLVMValueRef r = D4R_TRY(nvvm(fmt::format("llvm.nvvm.suld.2d.{}.{}", shape, mode), {}, {handle, x, y}));
        for (unsigned k = 0; k < op.vector; ++k) {
            if (data[k]->kind == ast::OperandKind::Name && data[k]->name == "_") continue;
            LLVMValueRef v = element(r, k);
            if (bits == 8) v = ir.and_(v, ir.constant(element_type, 0xff));
            D4R_TRY(assign(*data[k], word, ir.resize(v, ptx::type_bits(word), false)));
        }
        return ok_status();
    }
    std::vector<LLVMValueRef> args = {handle, x, y};
    for (unsigned k = 0; k < op.vector; ++k)
        args.push_back(ir.resize(D4R_TRY(value(*data[k], word)), ir.width(element_type), false));
    const std::string name = fmt::format("llvm.nvvm.sust.b.2d.{}.{}", shape, mode);
    if (!ir.has_intrinsic(name)) return refuse(fmt::format("libLLVM {} has no intrinsic {}", l.version, name));
    ir.intrinsic_call(name, args);
    return ok_status();
}

// mma.sync (f16 and bf16 inputs, m16n8k8 and m16n8k16) and ldmatrix: the NVVM intrinsic of the same shape and types,
// fragments as the registers hold them.
Status Lowering::nv_matrix(const ptx::MatrixOp& op) {
    const ast::Instruction& in = *current;
    const LlvmLibrary& l = ir.llvm();
    if (op.op == ptx::MatrixOp::Op::LoadMatrix) {
        if (in.operands.size() != 2 || in.operands[0].kind != ast::OperandKind::Vector ||
            in.operands[0].elements.size() != op.matrices)
            return refuse("expected ldmatrix {d...}, [a]");
        if (op.space != StateSpace::Shared && op.space != StateSpace::Generic)
            return refuse("ldmatrix reads shared memory");
        const Address a = D4R_TRY(address(in.operands[1], op.space));
        LLVMValueRef p = nv_pointer(a, op.space);
        if (op.space == StateSpace::Generic)
            p = l.LLVMBuildAddrSpaceCast(ir.builder(), p, nv_pointer_type(StateSpace::Shared), "");
        const std::string name =
            fmt::format("llvm.nvvm.ldmatrix.sync.aligned.m8n8.x{}{}.b16", op.matrices, op.transpose ? ".trans" : "");
        LLVMValueRef r = D4R_TRY(nvvm(name, {nv_pointer_type(StateSpace::Shared)}, {p}));
        for (unsigned k = 0; k < op.matrices; ++k)
            D4R_TRY(assign(in.operands[0].elements[k], Type::B32,
                           op.matrices == 1 ? r : l.LLVMBuildExtractValue(ir.builder(), r, k, "")));
        return ok_status();
    }
    using Format = ptx::ElementFormat;
    if (in.operands.size() != 4) return refuse("expected mma d, a, b, c");
    const unsigned counts[4] = {op.c_regs, op.a_regs, op.b_regs, op.c_regs};
    for (unsigned k = 0; k < 4; ++k)
        if (in.operands[k].kind != ast::OperandKind::Vector || in.operands[k].elements.size() != counts[k])
            return refuse("expected register lists of the fragments' sizes");
    const bool f16 = op.a == Format::F16 && op.b == Format::F16;
    const bool bf16 = op.a == Format::BF16 && op.b == Format::BF16;
    const bool acc16 = op.accumulator == Type::F16;
    const bool fp8 = (op.a == Format::E4M3 || op.a == Format::E5M2) && (op.b == Format::E4M3 || op.b == Format::E5M2);
    if (fp8 && op.k == 32) { // no intrinsic in LLVM 19: the instruction itself, on the fragments' registers
        auto format = [](Format f) { return f == Format::E4M3 ? "e4m3" : "e5m2"; };
        const char* acc = acc16 ? "f16" : "f32";
        std::string text =
            fmt::format("mma.sync.aligned.m16n8k32.row.col.{}.{}.{}.{} ", acc, format(op.a), format(op.b), acc);
        unsigned next = 0;
        const unsigned counts_in_order[4] = {op.c_regs, op.a_regs, op.b_regs, op.c_regs};
        for (unsigned k = 0; k < 4; ++k) {
            text += k ? ", {" : "{";
            for (unsigned r = 0; r < counts_in_order[k]; ++r) text += fmt::format("{}${}", r ? ", " : "", next++);
            text += "}";
        }
        text += ";";
        std::vector<LLVMValueRef> args;
        for (unsigned k = 1; k < 3; ++k)
            for (const ast::Operand& e : in.operands[k].elements) args.push_back(D4R_TRY(value(e, Type::B32)));
        for (const ast::Operand& e : in.operands[3].elements)
            args.push_back(D4R_TRY(value(e, acc16 ? Type::B32 : Type::F32)));
        const std::vector<LLVMTypeRef> results(op.c_regs, acc16 ? ir.i32 : ir.f32);
        const std::vector<LLVMValueRef> d = D4R_TRY(nv_inline(text, text, results, args));
        for (unsigned k = 0; k < op.c_regs; ++k)
            D4R_TRY(assign(in.operands[0].elements[k], acc16 ? Type::B32 : Type::F32, d[k]));
        return ok_status();
    }
    if ((!f16 && !bf16) || (op.k != 8 && op.k != 16))
        return refuse("mma.sync of these formats: LLVM 19 has intrinsics for f16 and bf16 m16n8k8/k16 only");
    if (bf16 && acc16) return refuse("bf16 mma with f16 accumulators");
    LLVMTypeRef h2 = ir.vector_of(ir.f16, 2);
    std::vector<LLVMValueRef> args;
    for (unsigned k = 1; k < 3; ++k)
        for (const ast::Operand& e : in.operands[k].elements) {
            LLVMValueRef w = D4R_TRY(value(e, Type::B32));
            args.push_back(f16 ? l.LLVMBuildBitCast(ir.builder(), w, h2, "") : w);
        }
    for (const ast::Operand& e : in.operands[3].elements)
        args.push_back(acc16 ? l.LLVMBuildBitCast(ir.builder(), D4R_TRY(value(e, Type::B32)), h2, "")
                             : D4R_TRY(value(e, Type::F32)));
    const std::string name =
        bf16 ? fmt::format("llvm.nvvm.mma.m16n8k{}.row.col.bf16", op.k)
             : fmt::format("llvm.nvvm.mma.m16n8k{}.row.col.{}", op.k, acc16 ? "f16.f16" : "f32.f32");
    if (!ir.has_intrinsic(name)) return refuse(fmt::format("libLLVM {} has no intrinsic {}", l.version, name));
    LLVMValueRef r = ir.intrinsic_call(name, args);
    for (unsigned k = 0; k < op.c_regs; ++k) {
        LLVMValueRef v = l.LLVMBuildExtractValue(ir.builder(), r, k, "");
        if (acc16)
            D4R_TRY(assign(in.operands[0].elements[k], Type::B32, l.LLVMBuildBitCast(ir.builder(), v, ir.i32, "")));
        else
            D4R_TRY(assign(in.operands[0].elements[k], Type::F32, v));
    }
    return ok_status();
}

} // namespace d4r::jit
