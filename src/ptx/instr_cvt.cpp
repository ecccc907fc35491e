// cvt's meaning (see instr_cvt.h).
#include "ptx/instr_cvt.h"

#include "ptx/instr_decode.h"

namespace d4r::ptx {

namespace {

using decode::expect_operands;
using decode::finish;
using decode::unsupported;

std::optional<Round> round_of(std::string_view r) {
    if (r.empty()) return std::nullopt;
    if (r == "rz" || r == "rzi") return Round::Rz;
    if (r == "rm" || r == "rmi") return Round::Rm;
    if (r == "rp" || r == "rpi") return Round::Rp;
    if (r == "rna") return Round::Rna;
    return Round::Rn;
}

// .bN converts like .uN.
Type value_type(Type t) {
    switch (t) {
    case Type::B8:
        return Type::U8;
    case Type::B16:
        return Type::U16;
    case Type::B32:
        return Type::U32;
    case Type::B64:
        return Type::U64;
    default:
        return t;
    }
}

bool convertible(Type t) {
    switch (t) {
    case Type::U8:
    case Type::U16:
    case Type::U32:
    case Type::U64:
    case Type::S8:
    case Type::S16:
    case Type::S32:
    case Type::S64:
    case Type::F16:
    case Type::BF16:
    case Type::F32:
    case Type::F64:
        return true;
    default:
        return false;
    }
}

// cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.{f32,f16x2} and cvt.rn{.relu}.f16x2.{e4m3x2,e5m2x2}. OTHER is the
// written non-FP8 type; which side the FP8 type is on is the written order.
Expected<Cvt> decode_fp8(const ast::Instruction& in, Cvt c, std::string_view frnd, Type other) {
    const std::string_view op = in.opcode;
    const bool to_fp8 = op.find(c.e5m2 ? ".e5m2x2" : ".e4m3x2") < op.find(fmt::format(".{}", type_name(other)));
    if (frnd != "rn") return unsupported("FP8 conversions round with .rn");
    c.round = Round::Rn;
    if (to_fp8) {
        if (!c.satfinite) return unsupported("conversions to FP8 need .satfinite");
        if (other != Type::F32 && other != Type::F16x2)
            return unsupported("conversions to FP8 take .f32 or .f16x2 sources");
        c.form = Cvt::Form::ToFp8;
        c.dst = Type::B16;
        c.src = other;
        c.sources = other == Type::F32 ? 2 : 1;
    } else {
        if (other != Type::F16x2 || c.satfinite) return unsupported("conversions from FP8 give .f16x2 (no .satfinite)");
        c.form = Cvt::Form::FromFp8;
        c.dst = Type::F16x2;
        c.src = Type::B16;
    }
    D4R_TRY(expect_operands(in, 1 + c.sources));
    return c;
}

} // namespace

Expected<Cvt> decode_cvt(const ast::Instruction& in) {
    Modifiers m(in.opcode);
    Cvt c;
    const std::string_view irnd = m.take_any({"rni", "rzi", "rmi", "rpi"});
    const std::string_view frnd = m.take_any({"rn", "rz", "rm", "rp", "rna"});
    c.ftz = m.take("ftz");
    c.sat = m.take("sat");
    c.relu = m.take("relu");
    c.satfinite = m.take("satfinite");
    if (m.has("rs")) return unsupported("cvt with .rs is not supported yet");
    const std::string_view fp8 = m.take_any({"e4m3x2", "e5m2x2"});
    Type dt = m.take_type();
    Type at = fp8.empty() ? m.take_type() : Type::None;
    D4R_TRY(finish(m));
    c.round = round_of(frnd);
    c.int_round = round_of(irnd);
    if (!fp8.empty()) {
        if (dt == Type::None || !irnd.empty() || c.ftz || c.sat)
            return unsupported("FP8 cvt takes .rn, .satfinite and .relu only");
        c.e5m2 = fp8 == "e5m2x2";
        return decode_fp8(in, c, frnd, dt);
    }
    if (dt == Type::None || at == Type::None) return unsupported("cvt needs a destination and a source type");
    if (dt == Type::TF32) {
        if (at != Type::F32 || c.ftz || c.sat || !irnd.empty()) return unsupported("cvt.tf32 needs an .f32 source");
        if (frnd != "rna" && frnd != "rn" && frnd != "rz") return unsupported("cvt.tf32.f32 needs .rna, .rn or .rz");
        if (c.relu || (c.satfinite && frnd != "rna"))
            return unsupported("cvt.tf32.f32 with .relu, or .satfinite without .rna, is not supported yet");
        c.form = Cvt::Form::ToTf32;
        c.dst = dt;
        c.src = at;
        D4R_TRY(expect_operands(in, 2));
        return c;
    }
    if (frnd == "rna") return unsupported("cvt.rna applies to .tf32 results only");
    if ((c.relu || c.satfinite) && dt != Type::F16 && dt != Type::BF16 && dt != Type::F16x2 && dt != Type::BF16x2)
        return unsupported(".relu and .satfinite apply to f16, bf16, tf32 and FP8 results");
    if (dt == Type::F16x2 || dt == Type::BF16x2) {
        if (at != Type::F32 || frnd.empty() || c.ftz || c.sat)
            return unsupported("packed cvt needs .rn/.rz and .f32 sources");
        c.form = Cvt::Form::Pack;
        c.dst = dt == Type::F16x2 ? Type::F16 : Type::BF16;
        c.src = at;
        c.sources = 2;
        D4R_TRY(expect_operands(in, 3));
        return c;
    }
    dt = value_type(dt);
    at = value_type(at);
    const bool dfloat = is_float(dt), afloat = is_float(at);
    if (!afloat && !dfloat) {
        if (!irnd.empty() || !frnd.empty() || c.ftz)
            return unsupported("integer-to-integer cvt takes no rounding or .ftz");
    } else if (afloat && !dfloat) {
        if (irnd.empty()) return unsupported("float-to-integer cvt needs .rni, .rzi, .rmi or .rpi");
        if (!frnd.empty()) return unsupported("float-to-integer cvt takes an integer rounding modifier");
    } else if (!afloat && dfloat) {
        if (!irnd.empty()) return unsupported("integer-to-float cvt takes .rn, .rz, .rm or .rp");
    } else {
        if (!irnd.empty() && !frnd.empty()) return unsupported("cvt takes one rounding modifier");
        const bool narrowing = type_bits(dt) < type_bits(at) || (dt == Type::BF16 && at == Type::F16) ||
                               (dt == Type::F16 && at == Type::BF16);
        if (narrowing && frnd.empty() && irnd.empty())
            return unsupported("narrowing float cvt needs a rounding modifier");
        if (!narrowing && !frnd.empty()) return unsupported("widening float cvt takes no floating rounding modifier");
    }
    if (c.ftz && at != Type::F32 && dt != Type::F32) return unsupported(".ftz applies to .f32 operands");
    if (!convertible(dt) || !convertible(at))
        return unsupported(fmt::format("cvt.{}.{} is not supported", type_name(dt), type_name(at)));
    c.dst = dt;
    c.src = at;
    D4R_TRY(expect_operands(in, 2));
    return c;
}

} // namespace d4r::ptx
