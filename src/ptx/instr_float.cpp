// The f32/f64 arithmetic family's meaning (see instr_float.h).
#include "ptx/instr_float.h"

#include "ptx/instr_decode.h"

namespace d4r::ptx {

namespace {

using Op = FloatArith::Op;
using decode::expect_operands;
using decode::finish;
using decode::unsupported;

// The rounding and flag modifiers every form reads.
FloatArith float_mods(Modifiers& m) {
    FloatArith f;
    std::string_view r = m.take_any({"rn", "rz", "rm", "rp"});
    if (!r.empty()) f.round = r == "rz" ? Round::Rz : r == "rm" ? Round::Rm : r == "rp" ? Round::Rp : Round::Rn;
    f.ftz = m.take("ftz");
    f.sat = m.take("sat");
    f.approx = m.take("approx");
    f.full = m.take("full");
    return f;
}

Status check_f64_mods(const FloatArith& f, bool ftz_ok = false) {
    if (f.type == Type::F64 && ((f.ftz && !ftz_ok) || f.sat)) return unsupported(".ftz and .sat apply to .f32 only");
    return ok_status();
}

Expected<FloatArith> decode_minmax(const ast::Instruction& in, Modifiers& m, FloatArith f) {
    f.nan = m.take("NaN");
    f.xorsign = m.take("xorsign");
    const bool abs = m.take("abs");
    D4R_TRY(finish(m));
    if (f.xorsign != abs) return unsupported(".xorsign needs .abs");
    if (f.round || f.sat || f.approx || f.full) return unsupported("min/max take no rounding or saturation");
    if (f.type == Type::F64 && (f.ftz || f.nan || f.xorsign)) return unsupported("min/max.f64 take no modifiers");
    if (in.operands.size() == 4) return unsupported("three-input min/max is not supported yet");
    D4R_TRY(expect_operands(in, 3));
    return f;
}

Expected<FloatArith> decode_unary(const ast::Instruction& in, std::string_view base, FloatArith f) {
    // rcp.approx.ftz.f64 and rsqrt.approx.ftz.f64 are the f64 forms with .ftz.
    D4R_TRY(check_f64_mods(f, f.approx && (base == "rcp" || base == "rsqrt")));
    if (f.sat) return unsupported(fmt::format("{} has no .sat", base));
    auto need = [&](bool ok, std::string_view what) -> Status {
        if (!ok) return unsupported(fmt::format("{} needs {}", base, what));
        return ok_status();
    };
    const bool f32 = f.type == Type::F32;
    f.sources = 1;
    if (base == "abs" || base == "neg") {
        D4R_TRY(need(!f.round && !f.approx, "no rounding modifier"));
        f.op = base == "abs" ? Op::Abs : Op::Neg;
    } else if (base == "sqrt" || base == "rcp") {
        f.op = base == "sqrt" ? Op::Sqrt : Op::Rcp;
        if (f.approx) {
            // .approx is within 1 ulp (rcp) / 2^-23 relative (sqrt): the exact result satisfies both.
            D4R_TRY(need(!f.round, ".approx or a rounding modifier, not both"));
            if (!f32 && !(f.op == Op::Rcp && f.ftz))
                return unsupported(fmt::format("{}.approx.f64 is not a PTX form", base));
        } else {
            D4R_TRY(need(f.round.has_value(), ".approx or a rounding modifier"));
        }
    } else {
        D4R_TRY(need(f.approx && !f.round, ".approx"));
        if (base == "rsqrt") {
            f.op = Op::Rsqrt;
        } else {
            D4R_TRY(need(f32, ".f32"));
            f.op = base == "sin"   ? Op::Sin
                   : base == "cos" ? Op::Cos
                   : base == "lg2" ? Op::Lg2
                   : base == "ex2" ? Op::Ex2
                                   : Op::Tanh;
            if (f.op == Op::Tanh && f.ftz) return unsupported("tanh has no .ftz");
        }
    }
    D4R_TRY(expect_operands(in, 2));
    return f;
}

Expected<FloatArith> decode_copysign(const ast::Instruction& in, Modifiers& m) {
    FloatArith f;
    f.op = Op::Copysign;
    f.type = m.take_type();
    D4R_TRY(finish(m));
    if (f.type != Type::F32 && f.type != Type::F64) return unsupported("copysign needs .f32 or .f64");
    D4R_TRY(expect_operands(in, 3));
    return f;
}

Expected<FloatArith> decode_testp(const ast::Instruction& in, Modifiers& m) {
    constexpr std::string_view kTests[] = {"finite", "infinite", "number", "notanumber", "normal", "subnormal"};
    FloatArith f;
    f.op = Op::Testp;
    f.sources = 1;
    const std::string_view test = m.take_any({"finite", "infinite", "number", "notanumber", "normal", "subnormal"});
    f.type = m.take_type();
    D4R_TRY(finish(m));
    if (test.empty() || (f.type != Type::F32 && f.type != Type::F64))
        return unsupported("testp needs a test and .f32 or .f64");
    for (uint8_t i = 0; i < 6; ++i)
        if (test == kTests[i]) f.test = static_cast<FloatArith::Test>(i);
    D4R_TRY(expect_operands(in, 2));
    return f;
}

} // namespace

Expected<FloatArith> decode_float(const ast::Instruction& in) {
    Modifiers m(in.opcode);
    const std::string_view base = m.base();
    if (base == "copysign") return decode_copysign(in, m);
    if (base == "testp") return decode_testp(in, m);
    FloatArith f = float_mods(m);
    f.type = m.take_type();
    const bool function = base != "abs" && base != "neg" && base != "min" && base != "max" && base != "add" &&
                          base != "sub" && base != "mul" && base != "fma" && base != "mad" && base != "div";
    if (function) D4R_TRY(finish(m)); // sqrt rcp rsqrt sin cos lg2 ex2 tanh: the modifiers before the type
    if (f.type != Type::F32 && f.type != Type::F64)
        return unsupported(fmt::format("{}.{} is not supported yet", base, type_name(f.type)));
    if (base == "min" || base == "max") {
        f.op = base == "min" ? Op::Min : Op::Max;
        return decode_minmax(in, m, f);
    }
    D4R_TRY(finish(m));
    if (base == "add" || base == "sub" || base == "mul") {
        D4R_TRY(check_f64_mods(f));
        if (f.approx || f.full) return unsupported(fmt::format("{} has no .approx/.full form", base));
        f.op = base == "add" ? Op::Add : base == "sub" ? Op::Sub : Op::Mul;
        D4R_TRY(expect_operands(in, 3));
        return f;
    }
    if (base == "fma" || base == "mad") {
        D4R_TRY(check_f64_mods(f));
        f.mad = base == "mad";
        if (!f.round && !f.mad) return unsupported("fma needs a rounding modifier");
        f.op = Op::Fma;
        f.sources = 3;
        D4R_TRY(expect_operands(in, 4));
        return f;
    }
    if (base == "div") {
        D4R_TRY(check_f64_mods(f));
        if (f.sat) return unsupported("div has no .sat");
        if (f.type == Type::F64 && !f.round) return unsupported("div.f64 needs a rounding modifier");
        if (f.type == Type::F32 && !f.round && !f.approx && !f.full)
            return unsupported("div.f32 needs .approx, .full or a rounding modifier");
        f.op = Op::Div;
        D4R_TRY(expect_operands(in, 3));
        return f;
    }
    for (std::string_view unary : {"abs", "neg", "sqrt", "rcp", "rsqrt", "sin", "cos", "lg2", "ex2", "tanh"})
        if (base == unary) return decode_unary(in, base, f);
    return unsupported(fmt::format("unsupported floating-point instruction '{}'", base));
}

} // namespace d4r::ptx
