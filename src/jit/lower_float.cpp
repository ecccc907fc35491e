// Lowering f32/f64 arithmetic and cvt between integers and f32/f64 (lower.h) with the interpreter's rules
// (src/ptxsim/ops_float.cpp, ops_cvt.cpp; docs/numerics.md): f32 NaN results are canonical, f64 NaN results the
// quieted operand the H200 picks, .ftz flushes inputs and results (tininess after rounding), .sat clamps to [0, 1],
// float-to-integer conversions saturate. Directed rounding, .approx functions and half precision are refused for
// now (the kernel runs interpreted).
#include <fmt/format.h>

#include "jit/float_rules.h"
#include "jit/lower_impl.h"

namespace d4r::jit {

using ptx::Round;

// --- f32 and f64 ---

Status Lowering::lower_float(const ptx::FloatArith& op) {
    using Op = ptx::FloatArith::Op;
    const ast::Instruction& in = *current;
    if (op.round && *op.round != Round::Rn) return refuse("directed rounding is not compiled yet");
    if (op.approx || op.full) return refuse(".approx and .full are not compiled yet");
    const bool f32 = op.type == Type::F32;
    FloatRules fr{ir, f32};
    const Type t = op.type;
    if (in.operands.size() < 1 + op.sources) return refuse("missing operands");
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
    if (op.ftz)
        for (LLVMValueRef& v : s) v = fr.flush(v);
    auto exact = [&](LLVMValueRef v) { return ir.fpext(v, ir.f64); }; // an f32 operand in double
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
        r = fr.canonical(apply(s[0], s[1]));
        if (!f32) r = op.op == Op::Div ? fr.f64_nan(s[0], s[1], r) : fr.f64_nan(s[1], s[0], r);
        if (op.ftz && f32) r = fr.flush_result(r, apply(exact(s[0]), exact(s[1])));
        if (op.sat) r = fr.saturate(r);
        break;
    }
    case Op::Fma:
        r = fr.canonical(ir.intrinsic("llvm.fma", {fr.type()}, {s[0], s[1], s[2]}));
        if (!f32) r = fr.f64_nan(s[1], s[2], fr.f64_nan(s[2], s[0], r));
        if (op.ftz && f32)
            r = fr.flush_result(r, ir.intrinsic("llvm.fma", {ir.f64}, {exact(s[0]), exact(s[1]), exact(s[2])}));
        if (op.sat) r = fr.saturate(r);
        break;
    case Op::Min:
    case Op::Max: {
        if (op.xorsign) return refuse(".xorsign.abs is not compiled yet");
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

Status Lowering::lower_cvt(const ptx::Cvt& op) {
    const ast::Instruction& in = *current;
    if (op.form != ptx::Cvt::Form::Convert) return refuse("this cvt form is not compiled yet");
    if (op.relu || op.satfinite) return refuse(".relu/.satfinite are not compiled yet");
    const Type dt = op.dst, at = op.src;
    auto is_fp = [](Type x) { return x == Type::F32 || x == Type::F64; };
    auto is_int = [](Type x) { return ptx::is_integer(x); };
    if (!(is_fp(dt) || is_int(dt)) || !(is_fp(at) || is_int(at)))
        return refuse("half-precision conversions are not compiled yet");
    if (op.round && *op.round != Round::Rn) return refuse("directed rounding is not compiled yet");
    if (in.operands.size() != 2) return refuse("expected two operands");
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
            if (!op.int_round) return refuse("float-to-integer cvt without an integer rounding");
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
