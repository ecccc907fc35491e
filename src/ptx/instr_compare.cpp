// The comparison family's meaning (see instr_compare.h).
#include "ptx/instr_compare.h"

#include <iterator>
#include <string_view>

#include "ptx/instr_decode.h"

namespace d4r::ptx {

namespace {

using decode::expect_operands;
using decode::finish;
using decode::unsupported;
using Op = Compare::Op;
using Cmp = Compare::Cmp;
using Combine = Compare::Combine;
using Dst = Compare::Dst;

constexpr std::string_view kCmpNames[] = {"eq", "ne",  "lt",  "le",  "gt",  "ge",  "lo",  "ls",  "hi",
                                          "hs", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};

bool is_half(Type t) { return t == Type::F16 || t == Type::BF16 || t == Type::F16x2 || t == Type::BF16x2; }
bool is_packed(Type t) { return t == Type::F16x2 || t == Type::BF16x2; }

// The types setp and set compare: 16-, 32- and 64-bit integers, .f32, .f64 and the half types.
bool compared_type(Type t) {
    switch (t) {
    case Type::S16:
    case Type::U16:
    case Type::B16:
    case Type::S32:
    case Type::U32:
    case Type::B32:
    case Type::S64:
    case Type::U64:
    case Type::B64:
    case Type::F32:
    case Type::F64:
        return true;
    default:
        return is_half(t);
    }
}

// The comparison operator, .and/.or/.xor and .ftz of a setp or set comparing values of type C.TYPE.
Status compare_mods(Modifiers& m, Compare& c) {
    bool found = false;
    for (size_t i = 0; i < std::size(kCmpNames); ++i) {
        if (m.take(kCmpNames[i])) {
            c.cmp = static_cast<Cmp>(i);
            found = true;
            break;
        }
    }
    if (!found) return unsupported("missing comparison operator");
    const std::string_view op = m.take_any({"and", "or", "xor"});
    c.combine = op == "and" ? Combine::And : op == "or" ? Combine::Or : op == "xor" ? Combine::Xor : Combine::None;
    c.ftz = m.take("ftz");
    const Type t = c.type;
    const bool float_cmp = c.cmp >= Cmp::Equ;
    const bool unsigned_only = c.cmp == Cmp::Lo || c.cmp == Cmp::Ls || c.cmp == Cmp::Hi || c.cmp == Cmp::Hs;
    if (float_cmp && !is_float(t)) return unsupported("unordered comparisons need a floating-point type");
    if (unsigned_only && is_float(t)) return unsupported("lo/ls/hi/hs compare integers");
    if (c.ftz && t != Type::F32 && t != Type::F16 && t != Type::F16x2)
        return unsupported(".ftz needs .f32, .f16 or .f16x2");
    if (is_bits(t) && c.cmp != Cmp::Eq && c.cmp != Cmp::Ne && !unsigned_only)
        return unsupported("bit-size types compare with eq and ne only");
    return ok_status();
}

// The operands of a setp or set: the compared values, then the combining predicate.
Status compared_operands(const ast::Instruction& in, Compare& c) {
    c.sources = 0;
    c.src[c.sources++] = c.type;
    c.src[c.sources++] = c.type;
    if (c.combine != Combine::None) c.src[c.sources++] = Type::Pred;
    return expect_operands(in, 1 + c.sources);
}

Expected<Compare> decode_setp(const ast::Instruction& in, Modifiers& m, Compare c) {
    c.type = m.peek_type();
    D4R_TRY(compare_mods(m, c));
    m.take_type();
    D4R_TRY(finish(m));
    if (!compared_type(c.type)) return unsupported(fmt::format("setp.{} is not supported", type_name(c.type)));
    D4R_TRY(compared_operands(in, c));
    c.dst_kind = in.operands[0].kind == ast::OperandKind::Pair ? Dst::PredPair : Dst::Pred;
    c.dst = Type::Pred;
    return c;
}

// set with a half source: .f16/.bf16 sources write .u16 .s16 .u32 .s32 .f16 .bf16 or .f32; packed sources write
// .u32 .s32 .f16x2 or .bf16x2.
bool half_set_form(Type dt, Type st) {
    switch (dt) {
    case Type::U32:
    case Type::S32:
        return true;
    case Type::F16x2:
    case Type::BF16x2:
        return is_packed(st);
    case Type::U16:
    case Type::S16:
    case Type::F32:
    case Type::F16:
    case Type::BF16:
        return !is_packed(st);
    default:
        return false;
    }
}

Expected<Compare> decode_set(const ast::Instruction& in, Modifiers& m, Compare c) {
    // set.cmp{.bool}{.ftz}.dtype.stype: the first type is the destination's.
    c.dst = m.peek_type();
    m.take_type();
    c.type = m.peek_type();
    D4R_TRY(compare_mods(m, c));
    m.take_type();
    D4R_TRY(finish(m));
    if (is_half(c.type)) {
        if (!half_set_form(c.dst, c.type))
            return unsupported(fmt::format("set.{}.{} is not a PTX form", type_name(c.dst), type_name(c.type)));
    } else {
        if (c.dst != Type::U32 && c.dst != Type::S32 && c.dst != Type::F32)
            return unsupported("set writes .u32, .s32 or .f32");
        if (!compared_type(c.type))
            return unsupported(fmt::format("set with source .{} is not supported", type_name(c.type)));
    }
    D4R_TRY(compared_operands(in, c));
    c.dst_kind = Dst::Value;
    return c;
}

Expected<Compare> decode_selp(const ast::Instruction& in, Modifiers& m, Compare c) {
    c.type = m.take_type();
    D4R_TRY(finish(m));
    const Type t = c.type;
    if (t == Type::None || t == Type::Pred || type_bits(t) > 64)
        return unsupported("selp needs a 16-, 32- or 64-bit type");
    D4R_TRY(expect_operands(in, 4));
    c.dst = t;
    c.src = {t, t, Type::Pred};
    c.sources = 3;
    return c;
}

Expected<Compare> decode_slct(const ast::Instruction& in, Modifiers& m, Compare c) {
    c.ftz = m.take("ftz");
    c.type = m.take_type();
    const Type selector = m.take_type();
    D4R_TRY(finish(m));
    const Type t = c.type;
    if (t == Type::None || t == Type::Pred || type_bits(t) > 64 || (selector != Type::S32 && selector != Type::F32))
        return unsupported("slct needs a data type and .s32 or .f32");
    if (c.ftz && selector != Type::F32) return unsupported(".ftz needs an .f32 selector");
    D4R_TRY(expect_operands(in, 4));
    c.dst = t;
    c.src = {t, t, selector};
    c.sources = 3;
    return c;
}

Expected<Compare> decode_logic(const ast::Instruction& in, Modifiers& m, Compare c) {
    c.type = m.take_type();
    D4R_TRY(finish(m));
    if (c.type != Type::Pred) return unsupported("predicate logic needs .pred");
    c.sources = c.op == Op::Not ? 1 : 2;
    D4R_TRY(expect_operands(in, 1 + c.sources));
    c.dst_kind = Dst::Pred;
    c.dst = Type::Pred;
    c.src = {Type::Pred, c.sources == 2 ? Type::Pred : Type::None, Type::None};
    return c;
}

struct Named {
    std::string_view name;
    Op op;
};
constexpr Named kOps[] = {
    {"setp", Op::Setp}, {"set", Op::Set}, {"selp", Op::Selp}, {"slct", Op::Slct},
    {"and", Op::And},   {"or", Op::Or},   {"xor", Op::Xor},   {"not", Op::Not},
};

} // namespace

Expected<Compare> decode_compare(const ast::Instruction& in) {
    Modifiers m(in.opcode);
    Compare c;
    const Named* named = nullptr;
    for (const Named& n : kOps)
        if (n.name == m.base()) named = &n;
    if (!named) return unsupported(fmt::format("'{}' is not a comparison, select or predicate logic", m.base()));
    c.op = named->op;
    switch (c.op) {
    case Op::Setp:
        return decode_setp(in, m, c);
    case Op::Set:
        return decode_set(in, m, c);
    case Op::Selp:
        return decode_selp(in, m, c);
    case Op::Slct:
        return decode_slct(in, m, c);
    default:
        return decode_logic(in, m, c);
    }
}

} // namespace d4r::ptx
