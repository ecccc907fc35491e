// The integer family's meaning (see instr_int.h).
#include "ptx/instr_int.h"

#include <initializer_list>
#include <string_view>

#include "ptx/instr_decode.h"

namespace d4r::ptx {

namespace {

using decode::expect_operands;
using decode::finish;
using decode::unsupported;
using Op = IntArith::Op;
using Mode = IntArith::Mode;

// The 16-, 32- and 64-bit integer types (signed, unsigned and bits) most of the family takes.
bool int_type(Type t) { return is_integer(t) && type_bits(t) >= 16 && type_bits(t) <= 64; }
bool carry_type(Type t) { return t == Type::U32 || t == Type::S32 || t == Type::U64 || t == Type::S64; }

Type wide_of(Type t) {
    switch (t) {
    case Type::S16:
        return Type::S32;
    case Type::U16:
        return Type::U32;
    case Type::S32:
        return Type::S64;
    case Type::U32:
        return Type::U64;
    default:
        return Type::None;
    }
}

Mode mode_of(std::string_view m) {
    return m == "lo" ? Mode::Lo : m == "hi" ? Mode::Hi : m == "wide" ? Mode::Wide : Mode::None;
}

// The operand types and count: the result DST, then SOURCES.
Expected<IntArith> shaped(const ast::Instruction& in, IntArith a, Type dst, std::initializer_list<Type> sources) {
    a.dst = dst;
    a.sources = 0;
    for (Type t : sources) a.src[a.sources++] = t;
    D4R_TRY(expect_operands(in, 1 + a.sources));
    return a;
}

// The usual shape d, a, b (..) of type T, which must be a 16- to 64-bit integer type.
Expected<IntArith> same_type(const ast::Instruction& in, const IntArith& a, unsigned sources) {
    if (!int_type(a.type)) return unsupported("unsupported type");
    const Type t = a.type;
    return sources == 1 ? shaped(in, a, t, {t}) : sources == 2 ? shaped(in, a, t, {t, t}) : shaped(in, a, t, {t, t, t});
}

Expected<IntArith> decode_addsub(const ast::Instruction& in, Modifiers& m, IntArith a) {
    a.cc = m.take("cc");
    a.sat = m.take("sat");
    a.type = m.take_type();
    D4R_TRY(finish(m));
    if (a.cc) {
        if (!carry_type(a.type)) return unsupported(".cc needs .u32, .s32, .u64 or .s64");
        if (a.sat) return unsupported(".cc takes no .sat");
    } else if (a.sat && a.type != Type::S32) {
        return unsupported(".sat needs .s32");
    }
    return same_type(in, a, 2);
}

Expected<IntArith> decode_carry(const ast::Instruction& in, Modifiers& m, IntArith a) {
    a.cc = m.take("cc");
    a.type = m.take_type();
    D4R_TRY(finish(m));
    if (!carry_type(a.type)) return unsupported("needs .u32, .s32, .u64 or .s64");
    return same_type(in, a, 2);
}

Expected<IntArith> decode_mul(const ast::Instruction& in, Modifiers& m, IntArith a) {
    a.mode = mode_of(m.take_any({"lo", "hi", "wide"}));
    a.type = m.take_type();
    D4R_TRY(finish(m));
    if (a.mode == Mode::None) return unsupported("integer mul needs .lo, .hi or .wide");
    const Type t = a.type;
    if (a.mode == Mode::Wide) {
        if (wide_of(t) == Type::None) return unsupported(".wide needs a 16- or 32-bit type");
        return shaped(in, a, wide_of(t), {t, t});
    }
    if (is_bits(t)) return unsupported("mul needs a signed or unsigned type");
    return same_type(in, a, 2);
}

Expected<IntArith> decode_mad(const ast::Instruction& in, Modifiers& m, IntArith a) {
    a.mode = mode_of(m.take_any({"lo", "hi", "wide"}));
    a.cc = m.take("cc");
    a.sat = m.take("sat");
    a.type = m.take_type();
    D4R_TRY(finish(m));
    const Type t = a.type;
    if (a.mode == Mode::None) return unsupported("integer mad needs .lo, .hi or .wide");
    if (is_bits(t)) return unsupported("mad needs a signed or unsigned type");
    if (a.mode == Mode::Wide) {
        if (wide_of(t) == Type::None || a.cc || a.sat)
            return unsupported(".wide needs a 16- or 32-bit type (no .cc or .sat)");
        return shaped(in, a, wide_of(t), {t, t, wide_of(t)});
    }
    if (a.sat && (a.mode != Mode::Hi || t != Type::S32 || a.cc)) return unsupported(".sat needs mad.hi.s32");
    if (a.cc && !carry_type(t)) return unsupported(".cc needs .u32, .s32, .u64 or .s64");
    return same_type(in, a, 3);
}

Expected<IntArith> decode_madc(const ast::Instruction& in, Modifiers& m, IntArith a) {
    a.mode = mode_of(m.take_any({"lo", "hi"}));
    a.cc = m.take("cc");
    a.type = m.take_type();
    D4R_TRY(finish(m));
    if (!carry_type(a.type) || a.mode == Mode::None)
        return unsupported("madc needs .lo or .hi and .u32, .s32, .u64 or .s64");
    return same_type(in, a, 3);
}

Expected<IntArith> decode_24(const ast::Instruction& in, Modifiers& m, IntArith a) {
    a.mode = mode_of(m.take_any({"lo", "hi"}));
    a.type = m.take_type();
    D4R_TRY(finish(m));
    if (a.mode == Mode::None || (a.type != Type::U32 && a.type != Type::S32))
        return unsupported("needs .lo or .hi and .u32 or .s32");
    return same_type(in, a, a.op == Op::Mad24 ? 3 : 2);
}

Expected<IntArith> decode_minmax(const ast::Instruction& in, Modifiers& m, IntArith a) {
    a.relu = m.take("relu");
    a.type = m.take_type();
    D4R_TRY(finish(m));
    if (is_bits(a.type)) return unsupported("needs a signed or unsigned type");
    if (a.relu && a.type != Type::S32) return unsupported(".relu needs .s32 or .s16x2");
    return same_type(in, a, 2);
}

Expected<IntArith> decode_shift(const ast::Instruction& in, IntArith a) {
    const Type t = a.type;
    if (a.op == Op::Shl && !is_bits(t)) return unsupported("shl needs .b16, .b32 or .b64");
    if (a.op == Op::Shr && (is_float(t) || type_bits(t) < 16))
        return unsupported("shr needs a 16-, 32- or 64-bit integer type");
    if (!int_type(t)) return unsupported("unsupported type");
    return shaped(in, a, t, {t, Type::U32});
}

// The forms that read nothing but their type.
Expected<IntArith> decode_typed(const ast::Instruction& in, IntArith a) {
    const Type t = a.type;
    switch (a.op) {
    case Op::Sad:
        if (is_bits(t)) return unsupported("sad needs a signed or unsigned type");
        return same_type(in, a, 3);
    case Op::Div:
    case Op::Rem:
        if (is_bits(t)) return unsupported("needs a signed or unsigned type");
        return same_type(in, a, 2);
    case Op::Abs:
    case Op::Neg:
        if (!is_signed(t) || t == Type::S8) return unsupported("needs .s16, .s32 or .s64");
        return same_type(in, a, 1);
    case Op::And:
    case Op::Or:
    case Op::Xor:
        if (type_bits(t) < 16 || type_bits(t) > 64 || is_float(t)) return unsupported("needs .b16, .b32 or .b64");
        return same_type(in, a, 2);
    case Op::Not:
    case Op::Cnot:
        if (type_bits(t) < 16 || is_float(t)) return unsupported("needs .b16, .b32 or .b64");
        return same_type(in, a, 1);
    case Op::Shl:
    case Op::Shr:
        return decode_shift(in, a);
    case Op::Popc:
    case Op::Clz:
        if (t != Type::B32 && t != Type::B64) return unsupported("needs .b32 or .b64");
        return shaped(in, a, Type::U32, {t});
    case Op::Brev:
        if (t != Type::B32 && t != Type::B64) return unsupported("needs .b32 or .b64");
        return shaped(in, a, t, {t});
    case Op::Bfe:
        if (type_bits(t) < 32 || is_bits(t) || is_float(t)) return unsupported("needs .u32, .s32, .u64 or .s64");
        return shaped(in, a, t, {t, Type::U32, Type::U32});
    case Op::Bfi:
        if (t != Type::B32 && t != Type::B64) return unsupported("needs .b32 or .b64");
        return shaped(in, a, t, {t, t, Type::U32, Type::U32});
    case Op::Fns:
        if (t != Type::B32) return unsupported("fns needs .b32");
        return shaped(in, a, t, {Type::B32, Type::B32, Type::S32});
    default:
        return unsupported("unknown integer instruction");
    }
}

Expected<IntArith> decode_lop3(const ast::Instruction& in, IntArith a) {
    if (a.type != Type::B32) return unsupported("lop3 needs .b32 (the predicate form is not supported yet)");
    D4R_TRY(expect_operands(in, 5));
    const uint64_t lut = D4R_TRY(decode::integer_constant(in.operands[4]));
    if (lut > 255) return unsupported("lop3 lookup table must be 0..255");
    a.lut = static_cast<uint8_t>(lut);
    a.dst = a.type;
    a.src = {a.type, a.type, a.type, Type::None};
    a.sources = 3;
    return a;
}

struct Named {
    std::string_view name;
    Op op;
};
constexpr Named kOps[] = {
    {"add", Op::Add},   {"sub", Op::Sub},     {"addc", Op::AddC},   {"subc", Op::SubC},   {"mul", Op::Mul},
    {"mad", Op::Mad},   {"madc", Op::MadC},   {"mul24", Op::Mul24}, {"mad24", Op::Mad24}, {"sad", Op::Sad},
    {"div", Op::Div},   {"rem", Op::Rem},     {"abs", Op::Abs},     {"neg", Op::Neg},     {"min", Op::Min},
    {"max", Op::Max},   {"and", Op::And},     {"or", Op::Or},       {"xor", Op::Xor},     {"not", Op::Not},
    {"cnot", Op::Cnot}, {"shl", Op::Shl},     {"shr", Op::Shr},     {"popc", Op::Popc},   {"clz", Op::Clz},
    {"brev", Op::Brev}, {"bfind", Op::Bfind}, {"bfe", Op::Bfe},     {"bfi", Op::Bfi},     {"bmsk", Op::Bmsk},
    {"prmt", Op::Prmt}, {"lop3", Op::Lop3},   {"shf", Op::Shf},     {"fns", Op::Fns},
};

} // namespace

Expected<IntArith> decode_int(const ast::Instruction& in) {
    Modifiers m(in.opcode);
    IntArith a;
    const Named* named = nullptr;
    for (const Named& n : kOps)
        if (n.name == m.base()) named = &n;
    if (!named) return unsupported(fmt::format("'{}' is not an integer instruction", m.base()));
    a.op = named->op;
    switch (a.op) {
    case Op::Add:
    case Op::Sub:
        return decode_addsub(in, m, a);
    case Op::AddC:
    case Op::SubC:
        return decode_carry(in, m, a);
    case Op::Mul:
        return decode_mul(in, m, a);
    case Op::Mad:
        return decode_mad(in, m, a);
    case Op::MadC:
        return decode_madc(in, m, a);
    case Op::Mul24:
    case Op::Mad24:
        return decode_24(in, m, a);
    case Op::Min:
    case Op::Max:
        return decode_minmax(in, m, a);
    case Op::Bfind: {
        a.shift_amount = m.take("shiftamt");
        a.type = m.take_type();
        D4R_TRY(finish(m));
        if (!carry_type(a.type)) return unsupported("needs .u32, .s32, .u64 or .s64");
        return shaped(in, a, Type::U32, {a.type});
    }
    case Op::Bmsk: {
        const std::string_view mode = m.take_any({"clamp", "wrap"});
        a.type = m.take_type();
        D4R_TRY(finish(m));
        if (mode.empty()) return unsupported("bmsk needs .clamp or .wrap");
        if (a.type != Type::B32) return unsupported("needs .b32");
        a.clamp = mode == "clamp";
        return shaped(in, a, Type::B32, {Type::U32, Type::U32});
    }
    case Op::Prmt: {
        constexpr std::string_view kModes[] = {"f4e", "b4e", "rc8", "ecl", "ecr", "rc16"};
        const std::string_view mode = m.take_any({"f4e", "b4e", "rc8", "ecl", "ecr", "rc16"});
        a.type = m.take_type();
        D4R_TRY(finish(m));
        if (a.type != Type::B32) return unsupported("prmt needs .b32");
        for (uint8_t i = 0; i < 6; ++i)
            if (mode == kModes[i]) a.permute = static_cast<uint8_t>(i + 1);
        return same_type(in, a, 3);
    }
    case Op::Shf: {
        const std::string_view dir = m.take_any({"l", "r"});
        const std::string_view mode = m.take_any({"wrap", "clamp"});
        a.type = m.take_type();
        D4R_TRY(finish(m));
        if (dir.empty() || mode.empty() || a.type != Type::B32)
            return unsupported("shf needs .l/.r, .wrap/.clamp and .b32");
        a.left = dir == "l";
        a.clamp = mode == "clamp";
        return shaped(in, a, a.type, {a.type, a.type, Type::U32});
    }
    default:
        a.type = m.take_type();
        D4R_TRY(finish(m));
        if (a.op == Op::Lop3) return decode_lop3(in, a);
        return decode_typed(in, a);
    }
}

} // namespace d4r::ptx
