// Lowering f32/f64 arithmetic and cvt (lower.h) with the interpreter's rules (src/ptxsim/ops_float.cpp, ops_cvt.cpp;
// docs/numerics.md). Round-to-nearest arithmetic and the plain conversions between integers, f32 and f64 are spelled
// in IR (f32 NaN results are canonical, f64 NaN results the quieted operand the H200 picks, .ftz flushes inputs and
// results with tininess after rounding, .sat clamps to [0, 1], float-to-integer conversions saturate). Everything
// else — directed rounding, the .approx and .full forms, .xorsign.abs, half precision, tf32, FP8 and the packed
// conversions — calls ptxsim's numerics helpers, which run the interpreter's own scalar functions for one lane
// (CompiledRuntime, src/ptxsim/scalar_float.h, scalar_cvt.h), so there is one implementation of each rule.
#include <fmt/format.h>

#include "jit/float_rules.h"
#include "jit/lower_impl.h"

namespace d4r::jit {

using ptx::Round;

namespace {

// testp's test of X (ptxsim's testp_lane): finite, infinite, a number, NaN, normal (zero counts as normal, ISA) or
// subnormal, from the exponent and the magnitude's bits.
LLVMValueRef testp(FloatRules& fr, ptx::FloatArith::Test test, LLVMValueRef x) {
    using Test = ptx::FloatArith::Test;
    IrBuilder& ir = fr.ir;
    LLVMValueRef magnitude = ir.and_(fr.bits(x), fr.k(fr.exponent_mask() | (fr.exponent_mask() - 1)));
    LLVMValueRef exponent = ir.and_(magnitude, fr.k(fr.exponent_mask()));
    LLVMValueRef exponent_zero = ir.icmp(abi::D4R_LLVMIntEQ, exponent, fr.k(0));
    LLVMValueRef exponent_full = ir.icmp(abi::D4R_LLVMIntEQ, exponent, fr.k(fr.exponent_mask()));
    LLVMValueRef zero = ir.icmp(abi::D4R_LLVMIntEQ, magnitude, fr.k(0));
    LLVMValueRef infinite = ir.icmp(abi::D4R_LLVMIntEQ, magnitude, fr.k(fr.exponent_mask()));
    switch (test) {
    case Test::Finite:
        return ir.not_(exponent_full);
    case Test::Infinite:
        return infinite;
    case Test::Number:
        return ir.icmp(abi::D4R_LLVMIntULE, magnitude, fr.k(fr.exponent_mask()));
    case Test::NotANumber:
        return ir.icmp(abi::D4R_LLVMIntUGT, magnitude, fr.k(fr.exponent_mask()));
    case Test::Normal:
        return ir.or_(ir.and_(ir.not_(exponent_zero), ir.not_(exponent_full)), zero);
    case Test::Subnormal:
        return ir.and_(exponent_zero, ir.not_(zero));
    }
    return ir.constant(ir.i1, 0);
}

// Whether IN gives the canonical f32 NaN whenever a source is a NaN, whatever its bits: add, sub, mul or fma (and
// mad) of f32 rounding to nearest, all spelled in IR with FloatRules::canonical (.ftz keeps a NaN, .sat makes it +0).
bool absorbs_nan(const ast::Instruction& in) {
    const ptx::Modifiers m(in.opcode);
    const std::string_view base = m.base();
    if (base != "add" && base != "sub" && base != "mul" && base != "fma" && base != "mad") return false;
    return m.has("f32") && !m.has("rz") && !m.has("rm") && !m.has("rp") && !m.has("approx");
}

} // namespace

void Lowering::find_nan_absorbed() {
    if (nvptx) return;
    std::unordered_set<std::string_view> other;
    for (const ast::Instruction& in : function.instructions) {
        std::vector<std::string_view> read;
        const bool writes = !in.operands.empty() && writes_first_operand(in);
        for (size_t k = 0; k < in.operands.size(); ++k) {
            std::vector<std::string_view> names;
            operand_names(in.operands[k], names);
            for (std::string_view n : names) {
                if (k == 0 && writes) {
                    m_nan_absorbed.insert(n); // a candidate
                    continue;
                }
                if (!absorbs_nan(in) || in.operands[k].kind != ast::OperandKind::Name) other.insert(n);
            }
        }
        if (!in.guard.empty()) other.insert(in.guard);
    }
    for (std::string_view n : other) m_nan_absorbed.erase(n);
}

// --- f32 and f64 ---

Status Lowering::lower_float(const ptx::FloatArith& op) {
    using Op = ptx::FloatArith::Op;
    const ast::Instruction& in = *current;
    const bool f32 = op.type == Type::F32;
    FloatRules fr{ir, f32};
    const Type t = op.type;
    if (t != Type::F32 && t != Type::F64) return refuse("a floating-point type the JIT does not lower");
    if (in.operands.size() < 1 + op.sources) return refuse("missing operands");
    if (op.op == Op::Testp) {
        LLVMValueRef x = D4R_TRY(value(in.operands[1], t));
        return assign(in.operands[0], Type::Pred, testp(fr, op.test, x));
    }
    std::vector<LLVMValueRef> s;
    for (unsigned k = 0; k < op.sources; ++k) {
        if (op.op == Op::Fma && k < 2 && fused_multiplicands[k])
            s.push_back(fused_multiplicands[k]);
        else
            s.push_back(D4R_TRY(value(in.operands[1 + k], t)));
    }
    if (op.op == Op::Fma && in.contracted) { // fused from a mul and a sub: neg as the interpreter computes it
        if (in.contracted & ptx::kNegateProduct) s[0] = fr.neg_or_abs(s[0], false);
        if (in.contracted & ptx::kNegateAddend) s[2] = fr.neg_or_abs(s[2], false);
    }
    if (op.op == Op::Copysign) { // b with a's sign, bit for bit (std::copysign keeps a NaN's payload)
        LLVMValueRef sign = ir.and_(fr.bits(s[0]), fr.k(fr.sign_bit()));
        LLVMValueRef magnitude = ir.and_(fr.bits(s[1]), fr.k(~fr.sign_bit() & (f32 ? 0xffffffffull : ~0ull)));
        return assign(in.operands[0], t, fr.from_bits(ir.or_(magnitude, sign)));
    }
    // Round to nearest: in IR below, with the forms the interpreter computes exactly as their .rn form (sqrt.approx,
    // rcp.approx.f32, div.full: ops_float.cpp's emit_float); everything else by the interpreter's function.
    const bool nearest = !op.round || *op.round == Round::Rn;
    const bool exact_form = !op.approx && !op.full &&
                            (op.op == Op::Add || op.op == Op::Sub || op.op == Op::Mul || op.op == Op::Div ||
                             op.op == Op::Fma || op.op == Op::Min || op.op == Op::Max || op.op == Op::Abs ||
                             op.op == Op::Neg || op.op == Op::Sqrt || op.op == Op::Rcp);
    const bool as_rn = (op.op == Op::Sqrt && op.approx) || (op.op == Op::Rcp && op.approx && f32) ||
                       (op.op == Op::Div && op.full && !op.approx);
    // (NVPTX code: the approximate forms are the GPU's own instructions, not their .rn models.)
    const bool in_ir = nearest && !op.xorsign && (exact_form || (as_rn && !nvptx));
    if (!in_ir && nvptx) return nv_float(op, s);
    if (!in_ir) {
        std::array<LLVMValueRef, 3> sources{};
        for (size_t k = 0; k < s.size() && k < 3; ++k) sources[k] = s[k];
        return assign(in.operands[0], t, runtime_float(t, ptxsim::float_op_code(op), sources));
    }
    if (op.ftz)
        for (LLVMValueRef& v : s) v = fr.flush(v);
    auto exact = [&](LLVMValueRef v) { return ir.fpext(v, ir.f64); }; // an f32 operand in double
    // Written to a register whose readers all make a NaN canonical themselves (find_nan_absorbed).
    const bool nan_absorbed =
        f32 && in.operands[0].kind == ast::OperandKind::Name && m_nan_absorbed.contains(in.operands[0].name);
    LLVMValueRef r = nullptr;
    switch (op.op) {
    case Op::Add:
    case Op::Sub:
    case Op::Mul:
    case Op::Div: {
        auto apply = [&](LLVMValueRef a, LLVMValueRef b) {
            switch (op.op) {
            case Op::Add:
                return ir.fadd(a, b);
            case Op::Sub:
                return ir.fsub(a, b);
            case Op::Mul:
                return ir.fmul(a, b);
            default:
                return ir.fdiv(a, b);
            }
        };
        r = apply(s[0], s[1]);
        if (!nan_absorbed) r = fr.canonical(r);
        if (!f32) r = op.op == Op::Div ? fr.f64_nan(s[0], s[1], r) : fr.f64_nan(s[1], s[0], r);
        if (op.ftz && f32) r = fr.flush_result(r, apply(exact(s[0]), exact(s[1])));
        if (op.sat) r = fr.saturate(r);
        break;
    }
    case Op::Fma:
        r = ir.intrinsic("llvm.fma", {fr.type()}, {s[0], s[1], s[2]});
        if (!nan_absorbed) r = fr.canonical(r);
        if (!f32) r = fr.f64_nan(s[1], s[2], fr.f64_nan(s[2], s[0], r));
        if (op.ftz && f32)
            r = fr.flush_result(r, ir.intrinsic("llvm.fma", {ir.f64}, {exact(s[0]), exact(s[1]), exact(s[2])}));
        if (op.sat) r = fr.saturate(r);
        break;
    case Op::Min:
    case Op::Max: {
        const bool is_max = op.op == Op::Max;
        LLVMValueRef a = s[0], b = s[1];
        LLVMValueRef an = fr.is_nan(a), bn = fr.is_nan(b);
        LLVMValueRef a_neg = ir.icmp(abi::D4R_LLVMIntNE, ir.and_(fr.bits(a), fr.k(fr.sign_bit())), fr.k(0));
        LLVMValueRef equal = ir.fcmp(abi::D4R_LLVMRealOEQ, a, b);
        LLVMValueRef pick_a = is_max ? ir.or_(ir.fcmp(abi::D4R_LLVMRealOGT, a, b), ir.and_(equal, ir.not_(a_neg)))
                                     : ir.or_(ir.fcmp(abi::D4R_LLVMRealOLT, a, b), ir.and_(equal, a_neg));
        LLVMValueRef ordered = ir.select(pick_a, a, b);
        LLVMValueRef canonical_nan = fr.from_bits(fr.k(f32 ? 0x7fffffffull : 0x7fffffffffffffffull));
        LLVMValueRef both = f32 ? canonical_nan : fr.quiet(b);
        r = ir.select(an, ir.select(bn, both, b), ir.select(bn, a, ordered));
        if (op.nan) r = ir.select(ir.or_(an, bn), canonical_nan, r);
        break;
    }
    case Op::Abs:
    case Op::Neg:
        r = fr.neg_or_abs(s[0], op.op == Op::Abs);
        if (op.ftz) r = fr.flush(r);
        break;
    case Op::Sqrt:
        r = fr.canonical(ir.intrinsic("llvm.sqrt", {fr.type()}, {s[0]}));
        if (op.ftz) r = fr.flush(r);
        break;
    case Op::Rcp: {
        LLVMValueRef one = f32 ? ir.f32_bits(0x3f800000u) : ir.f64_bits(0x3ff0000000000000ull);
        r = fr.canonical(ir.fdiv(one, s[0]));
        if (op.ftz && f32) r = fr.flush_result(r, ir.fdiv(ir.f64_bits(0x3ff0000000000000ull), exact(s[0])));
        break;
    }
    default:
        return refuse("this floating-point instruction is not compiled yet");
    }
    return assign(in.operands[0], t, r);
}

// --- cvt ---

// A cvt by ptxsim's helper (the interpreter's scalar conversion). The operands are read and written with the widths
// the interpreter's decoder gives them (ops_cvt.cpp): the types of the Convert form, else 32-bit words, 16-bit ones
// for FP8 pairs and the FromFp8 source.
Status Lowering::lower_cvt_by_runtime(const ptx::Cvt& op) {
    using Form = ptx::Cvt::Form;
    const ast::Instruction& in = *current;
    if (nvptx) return nv_cvt(op);
    auto bits_of = [&](const ast::Operand& o, Type t) -> Expected<LLVMValueRef> {
        LLVMValueRef v = D4R_TRY(value(o, t));
        if (t == Type::F32 || t == Type::F64) v = ir.bitcast(v, ir.int_type(ptx::type_bits(t)));
        return ir.resize(v, 64, false);
    };
    LLVMValueRef a = nullptr;
    Type dst = Type::B32;
    switch (op.form) {
    case Form::Convert:
        if (ptx::type_bits(op.src) > 64 || ptx::type_bits(op.dst) > 64)
            return refuse("a cvt type the JIT does not lower");
        a = D4R_TRY(bits_of(in.operands[1], op.src));
        dst = op.dst;
        break;
    case Form::Pack: // the first source in the high half
        a = ir.or_(ir.shl(D4R_TRY(bits_of(in.operands[1], Type::F32)), ir.constant(ir.i64, 32)),
                   D4R_TRY(bits_of(in.operands[2], Type::F32)));
        break;
    case Form::ToTf32:
        a = D4R_TRY(bits_of(in.operands[1], Type::B32));
        break;
    case Form::ToFp8:
        if (op.src == Type::F32)
            a = ir.or_(ir.shl(D4R_TRY(bits_of(in.operands[1], Type::F32)), ir.constant(ir.i64, 32)),
                       D4R_TRY(bits_of(in.operands[2], Type::F32)));
        else
            a = D4R_TRY(bits_of(in.operands[1], Type::B32));
        dst = Type::B16;
        break;
    case Form::FromFp8:
        a = D4R_TRY(bits_of(in.operands[1], Type::B16));
        break;
    }
    LLVMValueRef r = ir.resize(runtime_cvt(ptxsim::cvt_op_code(op), a), ptx::type_bits(dst), false);
    if (dst == Type::F32 || dst == Type::F64) r = ir.bitcast(r, llvm_type(dst));
    return assign(in.operands[0], dst, r);
}

// cvt.rna{.satfinite}|.rn|.rz.tf32.f32 (scalar_cvt.h's tf32_lane) in IR: tf32 is f32 without its 13 low mantissa bits
// (denormals included), so rounding is on the magnitude's bits: add half a tf32 ulp (.rna), or half minus one plus
// the kept lowest bit (.rn, ties to even), then clear the 13 bits; a carry into the exponent gives the next binade
// or infinity, as round_to_small does. NaNs: .rna keeps the truncated bits, .rn/.rz give 0x7fffe000; .satfinite
// takes one tf32 ulp off an all-ones exponent.
Status Lowering::lower_cvt_tf32(const ptx::Cvt& op) {
    const ast::Instruction& in = *current;
    const Round r = op.round.value_or(Round::Rn);
    LLVMValueRef a = D4R_TRY(value(in.operands[1], Type::B32));
    LLVMValueRef sign = ir.and_(a, ir.constant(ir.i32, 0x80000000u));
    LLVMValueRef mag = ir.and_(a, ir.constant(ir.i32, 0x7fffffffu));
    LLVMValueRef up = ir.constant(ir.i32, 0);
    if (r == Round::Rna) up = ir.constant(ir.i32, 0x1000);
    if (r == Round::Rn)
        up =
            ir.add(ir.constant(ir.i32, 0x0fff), ir.and_(ir.lshr(mag, ir.constant(ir.i32, 13)), ir.constant(ir.i32, 1)));
    if (r != Round::Rna && r != Round::Rn && r != Round::Rz) return refuse("a tf32 rounding the JIT does not lower");
    LLVMValueRef rounded = ir.or_(sign, ir.and_(ir.add(mag, up), ir.constant(ir.i32, 0xffffe000u)));
    LLVMValueRef nan = ir.icmp(abi::D4R_LLVMIntUGT, mag, ir.constant(ir.i32, 0x7f800000u));
    LLVMValueRef nan_bits =
        r == Round::Rna ? ir.and_(a, ir.constant(ir.i32, 0xffffe000u)) : ir.constant(ir.i32, 0x7fffe000u);
    LLVMValueRef result = ir.select(nan, nan_bits, rounded);
    if (op.satfinite) {
        LLVMValueRef top = ir.icmp(abi::D4R_LLVMIntEQ, ir.and_(result, ir.constant(ir.i32, 0x7f800000u)),
                                   ir.constant(ir.i32, 0x7f800000u));
        result = ir.select(top, ir.sub(result, ir.constant(ir.i32, 0x2000)), result);
    }
    return assign(in.operands[0], Type::B32, result);
}

// cvt.f32.f16 and cvt.rn.f16.f32 without other modifiers (scalar_cvt.h's convert_lane with float_value,
// round_to_small) in IR, on the bits: f16 to f32 is exact (a subnormal is its mantissa times 2^-24, exact in f32); a
// NaN gives the canonical f32 NaN. f32 to f16 rounds to nearest even: a normal result by adding half an f16 ulp minus
// one plus the kept lowest bit (a carry into the exponent gives the next binade or infinity), a subnormal one by
// adding 0.5f (the sum's last place is 2^-24, the f16 subnormal quantum, so the f32 addition rounds there); 2^16
// and above is infinity; a NaN gives 0x7fff (round_to_small's NaN, without the sign).
Status Lowering::lower_cvt_half(const ptx::Cvt& op) {
    const ast::Instruction& in = *current;
    auto k = [&](uint32_t v) { return ir.constant(ir.i32, v); };
    if (op.src == Type::F16) {
        LLVMValueRef h = ir.zext(D4R_TRY(value(in.operands[1], Type::F16)), ir.i32);
        LLVMValueRef sign = ir.shl(ir.and_(h, k(0x8000u)), k(16));
        LLVMValueRef e = ir.and_(ir.lshr(h, k(10)), k(0x1fu)), m = ir.and_(h, k(0x3ffu));
        LLVMValueRef normal = ir.or_(sign, ir.or_(ir.shl(ir.add(e, k(112)), k(23)), ir.shl(m, k(13))));
        LLVMValueRef small =
            ir.or_(sign, ir.bitcast(ir.fmul(ir.uitofp(m, ir.f32), ir.f32_bits(0x33800000u)), ir.i32)); // m * 2^-24
        LLVMValueRef special = ir.select(ir.icmp(abi::D4R_LLVMIntEQ, m, k(0)), ir.or_(sign, k(0x7f800000u)),
                                         k(0x7fffffffu)); // infinity, or the canonical NaN
        LLVMValueRef r = ir.select(ir.icmp(abi::D4R_LLVMIntEQ, e, k(0)), small,
                                   ir.select(ir.icmp(abi::D4R_LLVMIntEQ, e, k(0x1fu)), special, normal));
        return assign(in.operands[0], Type::F32, ir.bitcast(r, ir.f32));
    }
    LLVMValueRef u = ir.bitcast(D4R_TRY(value(in.operands[1], Type::F32)), ir.i32);
    LLVMValueRef sign = ir.and_(ir.lshr(u, k(16)), k(0x8000u));
    LLVMValueRef a = ir.and_(u, k(0x7fffffffu));
    LLVMValueRef odd = ir.and_(ir.lshr(a, k(13)), k(1));
    // a - (127 - 15) << 23 + 0xfff + odd, shifted: the exponent rebiased and the mantissa rounded.
    LLVMValueRef normal = ir.lshr(ir.add(ir.add(a, k(0xc8000fffu)), odd), k(13));
    LLVMValueRef half = ir.f32_bits(0x3f000000u);
    LLVMValueRef small = ir.sub(ir.bitcast(ir.fadd(ir.bitcast(a, ir.f32), half), ir.i32), k(0x3f000000u));
    LLVMValueRef magnitude = ir.select(ir.icmp(abi::D4R_LLVMIntUGE, a, k(0x47800000u)), k(0x7c00u),
                                       ir.select(ir.icmp(abi::D4R_LLVMIntULT, a, k(0x38800000u)), small, normal));
    LLVMValueRef r = ir.select(ir.icmp(abi::D4R_LLVMIntUGT, a, k(0x7f800000u)), k(0x7fffu), ir.or_(sign, magnitude));
    return assign(in.operands[0], Type::F16, ir.trunc(r, ir.i16));
}

Status Lowering::lower_cvt(const ptx::Cvt& op) {
    using Form = ptx::Cvt::Form;
    const ast::Instruction& in = *current;
    const Type dt = op.dst, at = op.src;
    if (op.form == Form::ToTf32 && in.operands.size() == 2) return lower_cvt_tf32(op);
    if (op.form == Form::Convert && !nvptx && !op.relu && !op.satfinite && !op.sat && !op.ftz && !op.int_round &&
        in.operands.size() == 2 &&
        ((dt == Type::F32 && at == Type::F16 && !op.round) ||
         (dt == Type::F16 && at == Type::F32 && op.round == Round::Rn)))
        return lower_cvt_half(op);
    auto is_fp = [](Type x) { return x == Type::F32 || x == Type::F64; };
    auto is_int = [](Type x) { return ptx::is_integer(x); };
    if (in.operands.size() != 1 + op.sources) return refuse("unexpected operand count");
    // In IR: the conversions between integers, f32 and f64 that round to nearest (or to an integer), without
    // .relu/.satfinite, and integer ones without .sat. Everything else by the interpreter's function.
    const bool in_ir = op.form == Form::Convert && !op.relu && !op.satfinite && (is_fp(dt) || is_int(dt)) &&
                       (is_fp(at) || is_int(at)) && (!op.round || *op.round == Round::Rn);
    if (!in_ir) return lower_cvt_by_runtime(op);
    LLVMValueRef a = D4R_TRY(value(in.operands[1], at));
    const unsigned dbits = ptx::type_bits(dt);
    LLVMValueRef r = nullptr;
    if (is_int(at) && is_int(dt)) {
        r = op.sat ? saturate_int(a, at, dt) : ir.resize(a, dbits, ptx::is_signed(at));
    } else if (is_int(at)) {
        FloatRules fr{ir, dt == Type::F32};
        r = ptx::is_signed(at) ? ir.sitofp(a, fr.type()) : ir.uitofp(a, fr.type());
        if (dt == Type::F32 && op.ftz) r = fr.flush(r);
        if (op.sat) r = fr.saturate(r);
    } else {
        FloatRules src{ir, at == Type::F32};
        if (at == Type::F32 && op.ftz) a = src.flush(a);
        LLVMValueRef x = at == Type::F32 ? ir.fpext(a, ir.f64) : a;
        auto round_integer = [&](LLVMValueRef v, Round mode) {
            const char* name = mode == Round::Rz   ? "llvm.trunc"
                               : mode == Round::Rm ? "llvm.floor"
                               : mode == Round::Rp ? "llvm.ceil"
                                                   : "llvm.roundeven";
            return ir.intrinsic(name, {ir.f64}, {v});
        };
        FloatRules dbl{ir, false};
        if (is_int(dt)) {
            if (!op.int_round) return lower_cvt_by_runtime(op);
            x = round_integer(x, *op.int_round);
            // NaN: a 64-bit destination, or an f64 source to 32 bits, gives the sign-bit pattern; otherwise 0.
            uint64_t nan_bits = 0;
            if (dbits == 64)
                nan_bits = 0x8000000000000000ull;
            else if (at == Type::F64 && dbits == 32)
                nan_bits = 0x80000000ull;
            LLVMTypeRef dty = ir.int_type(dbits);
            LLVMValueRef c = ptx::is_signed(dt) ? ir.intrinsic("llvm.fptosi.sat", {dty, ir.f64}, {x})
                                                : ir.intrinsic("llvm.fptoui.sat", {dty, ir.f64}, {x});
            r = ir.select(dbl.is_nan(x), ir.constant(dty, nan_bits), c);
        } else {
            if (op.int_round) x = round_integer(x, *op.int_round);
            if (op.sat) x = dbl.saturate(x);
            if (dt == Type::F64) {
                if (at == Type::F64)
                    r = ir.select(dbl.is_nan(x), dbl.quiet(x), x);
                else if (op.ftz)
                    r = ir.select(dbl.is_nan(x), ir.f64_bits(0x7fffffffe0000000ull), x);
                else
                    r = x;
            } else {
                FloatRules fr{ir, true};
                r = ir.fptrunc(x, ir.f32);
                if (at != Type::F64) r = fr.canonical(r);
                if (op.ftz) r = fr.flush(r);
            }
        }
    }
    return assign(in.operands[0], dt, r);
}

} // namespace d4r::jit
