// The decoder's shared pieces: modifier lists, operand resolution for family decoders, immediates and
// the opcode table.
#include "ptxsim/decoder.h"

#include <bit>
#include <cmath>

#include <fmt/format.h>

#include "ptx/contract.h"
#include "ptx/ptx_lexer.h"
#include "ptxsim/program_builder.h"
#include "ptxsim/ptxsim.h"

namespace d4r::ptxsim {

InstrDecoder::InstrDecoder(ProgramBuilder& builder, const ast::Instruction& in, int16_t guard, bool guard_negated)
    : m_builder(builder), m_in(in), m_mods(in.opcode), m_guard(guard), m_guard_negated(guard_negated) {}

bool InstrDecoder::in_entry() const { return m_builder.in_entry(); }

Error InstrDecoder::error(std::string_view message) const {
    return Error(ErrorCode::Unsupported,
                 fmt::format("{}:{}: {} in '{}'", m_builder.ctx().name, m_in.line, message, m_in.text));
}

Space space_of(ptx::StateSpace s) {
    switch (s) {
    case ptx::StateSpace::Global:
        return Space::Global;
    case ptx::StateSpace::Shared:
        return Space::Shared;
    case ptx::StateSpace::Local:
        return Space::Local;
    case ptx::StateSpace::Const:
        return Space::Const;
    case ptx::StateSpace::Param:
        return Space::KernelParam;
    case ptx::StateSpace::Generic:
        break;
    }
    return Space::Generic;
}

ptx::StateSpace state_space_of(Space s) {
    switch (s) {
    case Space::Global:
        return ptx::StateSpace::Global;
    case Space::Shared:
        return ptx::StateSpace::Shared;
    case Space::Local:
        return ptx::StateSpace::Local;
    case Space::Const:
        return ptx::StateSpace::Const;
    case Space::KernelParam:
    case Space::FuncParam:
        return ptx::StateSpace::Param;
    case Space::Generic:
        break;
    }
    return ptx::StateSpace::Generic;
}

Error InstrDecoder::located(const Error& e) const {
    return Error(e.code(), fmt::format("{}:{}: {} in '{}'", m_builder.ctx().name, m_in.line, e.message(), m_in.text));
}

Error InstrDecoder::malformed(std::string_view message) const {
    return Error(ErrorCode::Invalid,
                 fmt::format("{}:{}: {} in '{}'", m_builder.ctx().name, m_in.line, message, m_in.text));
}

Status InstrDecoder::expect_operands(size_t n) const { return expect_operands(n, n); }

Status InstrDecoder::expect_operands(size_t min, size_t max) const {
    size_t n = m_in.operands.size();
    if (n < min || n > max) {
        if (min == max) return malformed(fmt::format("expected {} operands, found {}", min, n));
        return malformed(fmt::format("expected {} to {} operands, found {}", min, max, n));
    }
    return ok_status();
}

Status InstrDecoder::finish() const {
    std::string_view left = m_mods.leftover();
    if (!left.empty()) return error(fmt::format("unsupported modifier '.{}' of '{}'", left, m_mods.base()));
    return ok_status();
}

std::optional<Symbol> InstrDecoder::lookup(std::string_view name) const { return m_builder.lookup(name); }

namespace {

bool slot_matches(const Symbol& s, Type t) { return s.wide == (type_bits(t) == 64); }

} // namespace

Expected<uint32_t> InstrDecoder::dst(const ast::Operand& o, Type t) {
    if (o.kind != ast::OperandKind::Name || o.negated) return error("expected a register as destination");
    if (o.name == "_") return m_builder.scratch(type_bits(t) == 64);
    auto s = lookup(o.name);
    if (!s) return malformed(fmt::format("unknown register '{}'", o.name));
    if (s->kind != Symbol::Kind::Reg) return error(fmt::format("'{}' is not a register that can be written", o.name));
    if (type_bits(t) > 64) return error(fmt::format("type .{} is not supported", type_name(t)));
    if (!slot_matches(*s, t))
        return malformed(
            fmt::format("register '{}' (.{}) does not fit type .{}", o.name, type_name(s->type), type_name(t)));
    return static_cast<uint32_t>(s->value);
}

uint32_t InstrDecoder::constant(uint64_t bits, bool wide) { return m_builder.constant(bits, wide); }
uint32_t InstrDecoder::scratch(bool wide) { return m_builder.scratch(wide); }

uint32_t InstrDecoder::operand_scratch(bool wide, int which) { return m_builder.operand_scratch(wide, which); }

Status InstrDecoder::emit_op(ExecFn fn, Type dt, std::span<const Type> sources) {
    if (!fn) return error("unsupported type");
    if (sources.size() > 4) return error("more than four sources");
    D4R_TRY(expect_operands(1 + sources.size()));
    uint32_t s[4];
    size_t k = 0;
    for (Type st : sources) {
        s[k] = D4R_TRY(src(k + 1, st));
        ++k;
    }
    const uint32_t d = D4R_TRY(dst(0, dt));
    Instr& in = emit(fn);
    in.d[0] = d;
    for (size_t i = 0; i < k; ++i) in.s[i] = s[i];
    return ok_status();
}

Status InstrDecoder::emit_op(ExecFn fn, Type t, size_t sources) {
    switch (sources) {
    case 0:
        return emit_op(fn, t, std::initializer_list<Type>{});
    case 1:
        return emit_op(fn, t, {t});
    case 2:
        return emit_op(fn, t, {t, t});
    default:
        return emit_op(fn, t, {t, t, t});
    }
}

Status InstrDecoder::emit_fma(ExecFn fma, ExecFn neg, Type t) {
    if (!(m_in.contracted & (kNegateProduct | kNegateAddend))) return emit_op(fma, t, 3);
    D4R_TRY(expect_operands(4));
    uint32_t s[3];
    for (size_t i = 0; i < 3; ++i) s[i] = D4R_TRY(src(i + 1, t));
    const uint32_t d = D4R_TRY(dst(0, t));
    const bool wide = type_bits(t) == 64;
    for (int k = 0; k < 2; ++k) {
        if (!(m_in.contracted & (k == 0 ? kNegateProduct : kNegateAddend))) continue;
        const size_t i = k == 0 ? 0 : 2;
        const uint32_t slot = operand_scratch(wide, k);
        Instr& in = emit(neg);
        in.d[0] = slot;
        in.s[0] = s[i];
        s[i] = slot;
    }
    Instr& in = emit(fma);
    in.d[0] = d;
    for (size_t i = 0; i < 3; ++i) in.s[i] = s[i];
    return ok_status();
}

Expected<uint32_t> InstrDecoder::src(const ast::Operand& o, Type t) {
    bool wide = type_bits(t) == 64;
    if (type_bits(t) > 64 || t == Type::Pred) return error(fmt::format("type .{} is not supported here", type_name(t)));
    if (o.kind == ast::OperandKind::Integer || o.kind == ast::OperandKind::Float) {
        auto bits = immediate_bits(o, t);
        if (!bits) return error(bits.error().message());
        return constant(*bits, wide);
    }
    if (o.kind != ast::OperandKind::Name || o.negated) return error("expected a register or an immediate");
    if (o.name == "WARP_SZ") return constant(32, wide);
    auto s = lookup(o.name);
    if (!s) return malformed(fmt::format("unknown register '{}'", o.name));
    if (s->kind == Symbol::Kind::Special) {
        if (wide) return error(fmt::format("special register '{}' is 32 bits, not .{}", o.name, type_name(t)));
        return static_cast<uint32_t>(s->value);
    }
    if (s->kind == Symbol::Kind::Func) {
        if (!wide) return error(fmt::format("the address of function '{}' is 64 bits", o.name));
        return constant(kFunctionWindow + 16 * s->value, true);
    }
    if (s->kind == Symbol::Kind::Var) {
        // A variable used as a value is its address (mov.u64 %rd, array is handled by mov; other
        // instructions may also take addresses: add.u64 %rd, array, 8).
        auto addr = symbol_address(o);
        if (!addr) return std::move(addr).error();
        return constant(addr->first + static_cast<uint64_t>(o.offset), wide);
    }
    if (s->kind != Symbol::Kind::Reg) return error(fmt::format("'{}' is not a register", o.name));
    if (!slot_matches(*s, t))
        return malformed(
            fmt::format("register '{}' (.{}) does not fit type .{}", o.name, type_name(s->type), type_name(t)));
    return static_cast<uint32_t>(s->value);
}

Expected<InstrDecoder::Reg> InstrDecoder::reg(const ast::Operand& o) {
    if (o.kind != ast::OperandKind::Name || o.negated) return error("expected a register");
    auto s = lookup(o.name);
    if (!s) return malformed(fmt::format("unknown register '{}'", o.name));
    if (s->kind == Symbol::Kind::Special) return Reg{static_cast<uint32_t>(s->value), false, Type::U32};
    if (s->kind != Symbol::Kind::Reg) return error(fmt::format("'{}' is not a register", o.name));
    return Reg{static_cast<uint32_t>(s->value), s->wide, s->type};
}

Expected<int16_t> InstrDecoder::pred_dst(const ast::Operand& o) {
    if (o.kind != ast::OperandKind::Name || o.negated) return error("expected a predicate register");
    if (o.name == "_") return static_cast<int16_t>(-1);
    auto s = lookup(o.name);
    if (!s || s->kind != Symbol::Kind::Pred) return error(fmt::format("'{}' is not a predicate register", o.name));
    return static_cast<int16_t>(s->value);
}

Expected<std::pair<int16_t, bool>> InstrDecoder::pred_src(const ast::Operand& o) {
    if (o.kind != ast::OperandKind::Name) return error("expected a predicate register");
    auto s = lookup(o.name);
    if (!s || s->kind != Symbol::Kind::Pred) return error(fmt::format("'{}' is not a predicate register", o.name));
    return std::pair<int16_t, bool>{static_cast<int16_t>(s->value), o.negated};
}

Expected<uint64_t> InstrDecoder::immediate(const ast::Operand& o) const {
    if (o.kind != ast::OperandKind::Integer) return error("expected an integer constant");
    return o.integer;
}

Expected<std::pair<uint64_t, Space>> InstrDecoder::symbol_address(const ast::Operand& o) {
    auto s = lookup(o.name);
    if (!s || s->kind != Symbol::Kind::Var) return error(fmt::format("'{}' is not a variable", o.name));
    if (s->space == Space::FuncParam)
        return error(fmt::format("the address of function parameter '{}' is not supported", o.name));
    return std::pair<uint64_t, Space>{s->value, s->space};
}

namespace {

// The generic address of an address in SPACE.
uint64_t to_generic(uint64_t address, Space space) {
    switch (space) {
    case Space::Shared:
        return kSharedWindow + address;
    case Space::Local:
        return kLocalWindow + address;
    case Space::KernelParam:
        return kParamWindow + address;
    default:
        return address;
    }
}

} // namespace

Expected<InstrDecoder::Address> InstrDecoder::address(const ast::Operand& o, Space space) {
    if (o.kind != ast::OperandKind::Address) return error("expected an address operand [...]");
    if (!o.elements.empty()) return error("expected a memory address, not a texture or surface operand");
    Address a;
    a.space = space;
    if (o.name.empty()) {
        a.imm = o.offset;
        return a;
    }
    auto s = lookup(o.name);
    if (!s) return malformed(fmt::format("unknown name '{}' in an address", o.name));
    if (s->kind == Symbol::Kind::Reg) {
        a.base = static_cast<uint32_t>(s->value);
        a.base_wide = s->wide;
        a.imm = o.offset;
        if (space == Space::FuncParam)
            return error("a register address in the parameter space of a .func is not supported");
        return a;
    }
    if (s->kind != Symbol::Kind::Var) return error(fmt::format("'{}' cannot be used as an address", o.name));
    Space vs = s->space;
    if (space == Space::Generic) {
        if (vs == Space::FuncParam)
            return error(fmt::format("generic access to function parameter '{}' is not supported", o.name));
        a.imm = static_cast<int64_t>(to_generic(s->value, vs) + static_cast<uint64_t>(o.offset));
        return a;
    }
    bool param_match = space == Space::KernelParam && (vs == Space::KernelParam || vs == Space::FuncParam);
    if (vs != space && !param_match)
        return error(fmt::format("'{}' is a .{} variable, not .{}", o.name, space_name(vs), space_name(space)));
    a.space = vs;
    a.imm = static_cast<int64_t>(s->value + static_cast<uint64_t>(o.offset));
    return a;
}

Instr& InstrDecoder::emit(ExecFn fn) {
    Program& p = m_builder.program();
    Instr in;
    in.fn = fn;
    in.guard = m_guard;
    in.guard_neg = m_guard_negated ? 1 : 0;
    p.code.push_back(in);
    p.sources.push_back(SourceRef{m_in.line, m_in.text, m_builder.current().name});
    return p.code.back();
}

Instr& InstrDecoder::last() { return m_builder.program().code.back(); }

Status InstrDecoder::branch_target(std::string_view label) {
    m_builder.add_label_fixup(static_cast<uint32_t>(m_builder.program().code.size() - 1), label);
    return ok_status();
}

const OpcodeTable& opcode_table() {
    static const OpcodeTable table = [] {
        OpcodeTable t;
        add_move_ops(t);
        add_int_ops(t);
        add_compare_ops(t);
        add_float_ops(t);
        add_cvt_ops(t);
        add_memory_ops(t);
        add_atomic_ops(t);
        add_control_ops(t);
        add_warp_ops(t);
        add_mma_ops(t);
        add_texture_ops(t);
        add_mbarrier_ops(t);
        return t;
    }();
    return table;
}

} // namespace d4r::ptxsim
