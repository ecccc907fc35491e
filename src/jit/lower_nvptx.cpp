// Lowering for LLVM's NVPTX back end (lower.h, lower_kernel_nvptx): what the host lowering asks ptxsim's runtime
// for, spelled as the GPU's own instructions. One GPU thread runs one PTX thread, so control flow, barriers and warp
// collectives are the GPU's; memory is LLVM's address spaces (global 1, shared 3, const 4, local 5) with no checks;
// rounding modes, approximations and half precision are NVVM intrinsics, which the back end prints as the one PTX
// instruction they name (so ptxas can neither contract nor reassociate them). A form without such a spelling in this
// libLLVM is refused, naming it.
//
// This file: the intrinsics and inline PTX, special registers, variables, addresses, device functions and calls,
// control flow, memory. lower_nvptx_numerics.cpp: f32/f64, cvt and half precision; lower_nvptx_warp.cpp: warp
// collectives, atomics, textures and surfaces, tensor cores.
#include <fmt/format.h>

#include "jit/float_rules.h"
#include "jit/lower_impl.h"
#include "ptx/instr_decode.h"
#include "ptx/modifiers.h"
#include "ptx/module_index.h"

namespace d4r::jit {

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

} // namespace d4r::jit
