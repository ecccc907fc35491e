// The half-precision family's meaning (see instr_half.h).
#include "ptx/instr_half.h"

#include <string>

#include "ptx/instr_decode.h"

namespace d4r::ptx {

namespace {

using decode::expect_operands;
using decode::finish;
using decode::unsupported;
using Op = HalfArith::Op;

bool is_bf(Type t) { return t == Type::BF16 || t == Type::BF16x2; }

Expected<HalfArith> decode_functions(const ast::Instruction& in, Modifiers& m) {
    const std::string_view base = m.base();
    HalfArith h;
    const bool approx = m.take("approx");
    h.ftz = m.take("ftz");
    h.type = m.take_type();
    D4R_TRY(finish(m));
    const std::string what = fmt::format("{}.{}", base, type_name(h.type));
    if (base != "ex2" && base != "tanh") return unsupported(fmt::format("{} is not a PTX instruction", what));
    if (!approx) return unsupported(fmt::format("{} needs .approx", what));
    // ex2.approx.f16/.f16x2 (no .ftz: f16 keeps subnormals), ex2.approx.ftz.bf16/.bf16x2 (.ftz required);
    // tanh.approx on all four types, without .ftz.
    if (base == "ex2" && h.ftz != is_bf(h.type))
        return unsupported(is_bf(h.type) ? "ex2.approx.bf16 needs .ftz" : "ex2.approx.f16 takes no .ftz");
    if (base == "tanh" && h.ftz) return unsupported("tanh.approx takes no .ftz");
    h.op = base == "ex2" ? Op::Ex2 : Op::Tanh;
    h.sources = 1;
    return h;
}

} // namespace

Expected<HalfArith> decode_half(const ast::Instruction& in) {
    Modifiers m(in.opcode);
    const std::string_view base = m.base();
    Expected<HalfArith> decoded = [&]() -> Expected<HalfArith> {
        if (base == "ex2" || base == "tanh" || base == "sqrt" || base == "rcp" || base == "rsqrt" || base == "sin" ||
            base == "cos" || base == "lg2")
            return decode_functions(in, m);
        HalfArith h;
        const std::string_view rnd = m.take_any({"rn", "rz", "rm", "rp"});
        h.ftz = m.take("ftz");
        h.sat = m.take("sat");
        h.relu = m.take("relu");
        h.nan = m.take("NaN");
        h.xorsign = m.take("xorsign");
        const bool abs = m.take("abs");
        h.type = m.take_type();
        D4R_TRY(finish(m));
        if (!rnd.empty()) h.round = Round::Rn;
        const std::string what = fmt::format("{}.{}", base, type_name(h.type));
        if (h.ftz && is_bf(h.type)) return unsupported(fmt::format("{} has no .ftz", what));
        if (!rnd.empty() && rnd != "rn") return unsupported(fmt::format("{} rounds with .rn only", what));
        if (h.sat && (is_bf(h.type) || h.relu)) return unsupported(".sat applies to .f16/.f16x2 without .relu");
        if (base == "add" || base == "sub" || base == "mul" || base == "fma") {
            if (h.nan || h.xorsign || abs) return unsupported(fmt::format("{} takes no .NaN/.xorsign/.abs", what));
            if (h.relu && base != "fma") return unsupported(".relu applies to fma");
            if (base == "fma" && rnd.empty()) return unsupported("fma needs .rn");
            h.op = base == "add" ? Op::Add : base == "sub" ? Op::Sub : base == "mul" ? Op::Mul : Op::Fma;
            h.sources = h.op == Op::Fma ? 3 : 2;
            return h;
        }
        if (base == "min" || base == "max") {
            if (!rnd.empty() || h.sat || h.relu)
                return unsupported(fmt::format("{} takes no rounding, .sat or .relu", what));
            if (h.xorsign != abs) return unsupported(".xorsign needs .abs");
            if (in.operands.size() == 4) return unsupported("three-input min/max is not supported yet");
            h.op = base == "min" ? Op::Min : Op::Max;
            return h;
        }
        if (base == "neg" || base == "abs") {
            if (!rnd.empty() || h.sat || h.relu || h.nan || h.xorsign || abs)
                return unsupported(fmt::format("{} takes no modifiers but .ftz", what));
            h.op = base == "neg" ? Op::Neg : Op::Abs;
            h.sources = 1;
            return h;
        }
        return unsupported(fmt::format("{} is not a PTX instruction", what));
    }();
    if (!decoded) return decoded;
    if (!is_half_type(decoded->type)) return unsupported("unsupported type");
    decoded->reg = decoded->type == Type::F16x2 || decoded->type == Type::BF16x2 ? Type::B32 : Type::B16;
    D4R_TRY(expect_operands(in, 1 + decoded->sources));
    return decoded;
}

} // namespace d4r::ptx
