// Lowering arithmetic (lower.h): integer, f32/f64, cvt between integers and f32/f64, setp/selp and predicate
// logic, with the interpreter's rules (src/ptxsim/ops_int.cpp, ops_float.cpp, ops_cvt.cpp, ops_compare.cpp;
// docs/numerics.md): division by zero gives all ones, shifts clamp, f32 NaN results are canonical, f64 NaN results
// the quieted operand the H200 picks, .ftz flushes inputs and results (tininess after rounding), .sat clamps to
// [0, 1], float-to-integer conversions saturate. Directed rounding, .approx functions, half precision and the rarer
// integer forms are refused for now (the kernel runs interpreted).
#include <fmt/format.h>

#include "jit/lower_impl.h"
#include "numerics/fp.h"

namespace d4r::jit {

using ptx::Round;

namespace {

// Float helpers over an IrBuilder: the interpreter's rules spelled in IR.
struct FloatRules {
    IrBuilder& ir;
    bool f32;

    LLVMTypeRef type() const { return f32 ? ir.f32 : ir.f64; }
    LLVMTypeRef bits_type() const { return f32 ? ir.i32 : ir.i64; }
    LLVMValueRef bits(LLVMValueRef x) { return ir.bitcast(x, bits_type()); }
    LLVMValueRef from_bits(LLVMValueRef b) { return ir.bitcast(b, type()); }
    LLVMValueRef k(uint64_t v) { return ir.constant(bits_type(), v); }
    uint64_t sign_bit() const { return f32 ? 0x80000000ull : 0x8000000000000000ull; }
    uint64_t exponent_mask() const { return f32 ? 0x7f800000ull : 0x7ff0000000000000ull; }
    LLVMValueRef is_nan(LLVMValueRef x) { return ir.fcmp(abi::D4R_LLVMRealUNO, x, x); }

    // f32: a NaN result becomes 0x7fffffff (f64 results pass through).
    LLVMValueRef canonical(LLVMValueRef x) {
        if (!f32) return x;
        return ir.select(is_nan(x), ir.f32_bits(numerics::kCanonicalNaN32), x);
    }
    LLVMValueRef quiet(LLVMValueRef x) { // f64: the quiet bit set
        return from_bits(ir.or_(bits(x), k(0x0008000000000000ull)));
    }
    // f64: the first NaN of FIRST, SECOND quieted, else R.
    LLVMValueRef f64_nan(LLVMValueRef first, LLVMValueRef second, LLVMValueRef r) {
        return ir.select(is_nan(first), quiet(first), ir.select(is_nan(second), quiet(second), r));
    }
    LLVMValueRef flush(LLVMValueRef x) {
        LLVMValueRef b = bits(x);
        LLVMValueRef tiny = ir.icmp(abi::D4R_LLVMIntEQ, ir.and_(b, k(exponent_mask())), k(0));
        return ir.select(tiny, from_bits(ir.and_(b, k(sign_bit()))), x);
    }
    // .ftz on a round-to-nearest f32 result R whose exact value (in double) is EXACT (numerics::flush_result).
    LLVMValueRef flush_result(LLVMValueRef r, LLVMValueRef exact) {
        r = flush(r);
        LLVMValueRef at_min =
            ir.fcmp(abi::D4R_LLVMRealOEQ, ir.intrinsic("llvm.fabs", {ir.f32}, {r}), ir.f32_bits(0x00800000u));
        LLVMValueRef s =
            ir.fmul(ir.intrinsic("llvm.fabs", {ir.f64}, {exact}), ir.f64_bits(0x4950000000000000ull)); // 2^150
        LLVMValueRef q = ir.intrinsic("llvm.roundeven", {ir.f64}, {s});
        LLVMValueRef below = ir.fcmp(abi::D4R_LLVMRealOLT, q, ir.f64_bits(0x4170000000000000ull)); // 2^24
        LLVMValueRef zero = ir.intrinsic("llvm.copysign", {ir.f32}, {ir.f32_bits(0), r});
        return ir.select(ir.and_(at_min, below), zero, r);
    }
    // .sat: [0, 1], NaN gives +0.
    LLVMValueRef saturate(LLVMValueRef x) {
        LLVMValueRef zero = from_bits(k(0));
        LLVMValueRef one = f32 ? ir.f32_bits(0x3f800000u) : ir.f64_bits(0x3ff0000000000000ull);
        return ir.select(ir.fcmp(abi::D4R_LLVMRealOGT, x, zero),
                         ir.select(ir.fcmp(abi::D4R_LLVMRealOLT, x, one), x, one), zero);
    }
    // neg and abs as the interpreter computes them (f64 NaNs are quieted, not negated).
    LLVMValueRef neg_or_abs(LLVMValueRef x, bool abs) {
        LLVMValueRef r = abs ? ir.intrinsic("llvm.fabs", {type()}, {x}) : from_bits(ir.xor_(bits(x), k(sign_bit())));
        if (f32) return canonical(r);
        return ir.select(is_nan(x), quiet(x), r);
    }
};

int float_predicate(ptx::Compare::Cmp c) {
    using C = ptx::Compare::Cmp;
    switch (c) {
    case C::Eq:
        return abi::D4R_LLVMRealOEQ;
    case C::Ne:
        return abi::D4R_LLVMRealONE;
    case C::Lt:
        return abi::D4R_LLVMRealOLT;
    case C::Le:
        return abi::D4R_LLVMRealOLE;
    case C::Gt:
        return abi::D4R_LLVMRealOGT;
    case C::Ge:
        return abi::D4R_LLVMRealOGE;
    case C::Equ:
        return abi::D4R_LLVMRealUEQ;
    case C::Neu:
        return abi::D4R_LLVMRealUNE;
    case C::Ltu:
        return abi::D4R_LLVMRealULT;
    case C::Leu:
        return abi::D4R_LLVMRealULE;
    case C::Gtu:
        return abi::D4R_LLVMRealUGT;
    case C::Geu:
        return abi::D4R_LLVMRealUGE;
    case C::Num:
        return abi::D4R_LLVMRealORD;
    case C::Nan:
        return abi::D4R_LLVMRealUNO;
    default:
        return -1;
    }
}

int int_predicate(ptx::Compare::Cmp c, bool is_signed) {
    using C = ptx::Compare::Cmp;
    switch (c) {
    case C::Eq:
        return abi::D4R_LLVMIntEQ;
    case C::Ne:
        return abi::D4R_LLVMIntNE;
    case C::Lt:
        return is_signed ? abi::D4R_LLVMIntSLT : abi::D4R_LLVMIntULT;
    case C::Le:
        return is_signed ? abi::D4R_LLVMIntSLE : abi::D4R_LLVMIntULE;
    case C::Gt:
        return is_signed ? abi::D4R_LLVMIntSGT : abi::D4R_LLVMIntUGT;
    case C::Ge:
        return is_signed ? abi::D4R_LLVMIntSGE : abi::D4R_LLVMIntUGE;
    case C::Lo:
        return abi::D4R_LLVMIntULT;
    case C::Ls:
        return abi::D4R_LLVMIntULE;
    case C::Hi:
        return abi::D4R_LLVMIntUGT;
    case C::Hs:
        return abi::D4R_LLVMIntUGE;
    default:
        return -1;
    }
}

} // namespace

// --- integers ---

Status Lowering::lower_int(const ptx::IntArith& op) {
    using Op = ptx::IntArith::Op;
    using Mode = ptx::IntArith::Mode;
    const ast::Instruction& in = *current;
    if (op.cc) return refuse("carry (.cc) is not compiled yet");
    const Type t = op.type;
    const unsigned bits = ptx::type_bits(t);
    const bool sgn = ptx::is_signed(t);
    if (bits != 16 && bits != 32 && bits != 64) return refuse("an integer width the JIT does not lower");
    if (in.operands.size() < 1 + op.sources) return refuse("missing operands");
    std::vector<LLVMValueRef> s;
    for (unsigned k = 0; k < op.sources; ++k) s.push_back(D4R_TRY(value(in.operands[1 + k], op.src[k])));
    LLVMTypeRef ty = ir.int_type(bits);
    auto kc = [&](uint64_t v) { return ir.constant(ty, v); };
    auto widen = [&](LLVMValueRef v) { return ir.resize(v, bits * 2, sgn); };
    auto high = [&](LLVMValueRef a, LLVMValueRef b) { // the high half of the double-width product
        LLVMValueRef p = ir.mul(widen(a), widen(b));
        return ir.trunc(ir.lshr(p, ir.constant(ir.int_type(bits * 2), bits)), ty);
    };
    auto clamp_s32 = [&](LLVMValueRef wide64) { // an i64 clamped to the s32 range, as an i32
        LLVMValueRef lo = ir.constant(ir.i64, static_cast<uint64_t>(int64_t(INT32_MIN)));
        LLVMValueRef hi = ir.constant(ir.i64, INT32_MAX);
        LLVMValueRef v = ir.select(ir.icmp(abi::D4R_LLVMIntSLT, wide64, lo), lo, wide64);
        return ir.trunc(ir.select(ir.icmp(abi::D4R_LLVMIntSGT, v, hi), hi, v), ir.i32);
    };
    LLVMValueRef r = nullptr;
    switch (op.op) {
    case Op::Add:
    case Op::Sub:
        if (op.sat) {
            LLVMValueRef a = ir.sext(s[0], ir.i64), b = ir.sext(s[1], ir.i64);
            r = clamp_s32(op.op == Op::Add ? ir.add(a, b) : ir.sub(a, b));
        } else {
            r = op.op == Op::Add ? ir.add(s[0], s[1]) : ir.sub(s[0], s[1]);
        }
        break;
    case Op::Mul:
        if (op.mode == Mode::Hi)
            r = high(s[0], s[1]);
        else if (op.mode == Mode::Wide)
            r = ir.mul(widen(s[0]), widen(s[1]));
        else
            r = ir.mul(s[0], s[1]);
        break;
    case Op::Mad:
        if (op.mode == Mode::Hi && op.sat) {
            LLVMValueRef p = ir.ashr(ir.mul(ir.sext(s[0], ir.i64), ir.sext(s[1], ir.i64)), ir.constant(ir.i64, 32));
            r = clamp_s32(ir.add(p, ir.sext(s[2], ir.i64)));
        } else if (op.mode == Mode::Hi) {
            r = ir.add(high(s[0], s[1]), s[2]);
        } else if (op.mode == Mode::Wide) {
            r = ir.add(ir.mul(widen(s[0]), widen(s[1])), s[2]);
        } else {
            r = ir.add(ir.mul(s[0], s[1]), s[2]);
        }
        break;
    case Op::Div:
    case Op::Rem: {
        // By zero: all ones; signed by -1: the wrapped negation (div) or 0 (rem). The divisor LLVM sees is never 0
        // or -1 (both undefined there).
        LLVMValueRef zero = ir.icmp(abi::D4R_LLVMIntEQ, s[1], kc(0));
        LLVMValueRef minus = sgn ? ir.icmp(abi::D4R_LLVMIntEQ, s[1], kc(~0ull)) : ir.constant(ir.i1, 0);
        LLVMValueRef safe = ir.select(ir.or_(zero, minus), kc(1), s[1]);
        LLVMValueRef q;
        if (op.op == Op::Div)
            q = sgn ? ir.sdiv(s[0], safe) : ir.udiv(s[0], safe);
        else
            q = sgn ? ir.srem(s[0], safe) : ir.urem(s[0], safe);
        LLVMValueRef by_minus = op.op == Op::Div ? ir.sub(kc(0), s[0]) : kc(0);
        r = ir.select(zero, kc(~0ull), ir.select(minus, by_minus, q));
        break;
    }
    case Op::Abs:
        r = ir.select(ir.icmp(abi::D4R_LLVMIntSLT, s[0], kc(0)), ir.sub(kc(0), s[0]), s[0]);
        break;
    case Op::Neg:
        r = ir.sub(kc(0), s[0]);
        break;
    case Op::Min:
    case Op::Max: {
        const bool is_max = op.op == Op::Max;
        int pred = is_max ? (sgn ? abi::D4R_LLVMIntSGT : abi::D4R_LLVMIntUGT)
                          : (sgn ? abi::D4R_LLVMIntSLT : abi::D4R_LLVMIntULT);
        r = ir.select(ir.icmp(pred, s[0], s[1]), s[0], s[1]);
        if (op.relu) r = ir.select(ir.icmp(abi::D4R_LLVMIntSLT, r, kc(0)), kc(0), r);
        break;
    }
    case Op::And:
        r = ir.and_(s[0], s[1]);
        break;
    case Op::Or:
        r = ir.or_(s[0], s[1]);
        break;
    case Op::Xor:
        r = ir.xor_(s[0], s[1]);
        break;
    case Op::Not:
        r = ir.not_(s[0]);
        break;
    case Op::Cnot:
        r = ir.zext(ir.icmp(abi::D4R_LLVMIntEQ, s[0], kc(0)), ty);
        break;
    case Op::Shl:
    case Op::Shr: {
        // Amounts of the width or more clamp to the width.
        LLVMValueRef amount = s[1]; // .u32
        LLVMValueRef over = ir.icmp(abi::D4R_LLVMIntUGE, amount, ir.constant(ir.i32, bits));
        LLVMValueRef safe = ir.resize(ir.select(over, ir.constant(ir.i32, 0), amount), bits, false);
        if (op.op == Op::Shl)
            r = ir.select(over, kc(0), ir.shl(s[0], safe));
        else if (sgn)
            r = ir.select(over, ir.ashr(s[0], kc(bits - 1)), ir.ashr(s[0], safe));
        else
            r = ir.select(over, kc(0), ir.lshr(s[0], safe));
        break;
    }
    case Op::Popc:
        r = ir.resize(ir.intrinsic("llvm.ctpop", {ty}, {s[0]}), 32, false);
        break;
    case Op::Clz:
        r = ir.resize(ir.intrinsic("llvm.ctlz", {ty}, {s[0], ir.constant(ir.i1, 0)}), 32, false);
        break;
    case Op::Brev:
        r = ir.intrinsic("llvm.bitreverse", {ty}, {s[0]});
        break;
    default:
        return refuse("this integer instruction is not compiled yet");
    }
    return assign(in.operands[0], op.dst, r);
}

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
        if (op.sat) return refuse("cvt.sat between integers is not compiled yet");
        r = ir.resize(a, dbits, ptx::is_signed(at));
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

// --- setp, selp, predicate logic ---

Status Lowering::lower_compare(const ptx::Compare& op) {
    using Op = ptx::Compare::Op;
    using Combine = ptx::Compare::Combine;
    const ast::Instruction& in = *current;
    const Type t = op.type;
    switch (op.op) {
    case Op::Setp: {
        const bool fp = t == Type::F32 || t == Type::F64;
        if (!fp && !ptx::is_integer(t)) return refuse("half-precision compares are not compiled yet");
        if (in.operands.size() < 1 + op.sources) return refuse("missing operands");
        LLVMValueRef a = D4R_TRY(value(in.operands[1], t)), b = D4R_TRY(value(in.operands[2], t));
        LLVMValueRef c;
        if (fp) {
            if (op.ftz && t == Type::F32) {
                FloatRules fr{ir, true};
                a = fr.flush(a);
                b = fr.flush(b);
            }
            const int pred = float_predicate(op.cmp);
            if (pred < 0) return refuse("an unsigned comparison of floats");
            c = ir.fcmp(pred, a, b);
        } else {
            const int pred = int_predicate(op.cmp, ptx::is_signed(t));
            if (pred < 0) return refuse("an unordered comparison of integers");
            c = ir.icmp(pred, a, b);
        }
        LLVMValueRef with = nullptr;
        if (op.combine != Combine::None) with = D4R_TRY(value(in.operands[3], Type::Pred));
        auto combine = [&](LLVMValueRef v) {
            switch (op.combine) {
            case Combine::And:
                return ir.and_(v, with);
            case Combine::Or:
                return ir.or_(v, with);
            case Combine::Xor:
                return ir.xor_(v, with);
            case Combine::None:
                break;
            }
            return v;
        };
        const ast::Operand& d = in.operands[0];
        if (op.dst_kind == ptx::Compare::Dst::PredPair) {
            ast::Operand p, q;
            p.kind = q.kind = ast::OperandKind::Name;
            p.name = d.name;
            q.name = d.name2;
            D4R_TRY(assign(p, Type::Pred, combine(c)));
            return assign(q, Type::Pred, combine(ir.not_(c)));
        }
        return assign(d, Type::Pred, combine(c));
    }
    case Op::Selp: {
        if (in.operands.size() != 4) return refuse("expected four operands");
        LLVMValueRef a = D4R_TRY(value(in.operands[1], t)), b = D4R_TRY(value(in.operands[2], t));
        LLVMValueRef c = D4R_TRY(value(in.operands[3], Type::Pred));
        return assign(in.operands[0], t, ir.select(c, a, b));
    }
    case Op::And:
    case Op::Or:
    case Op::Xor: {
        LLVMValueRef a = D4R_TRY(value(in.operands[1], Type::Pred)), b = D4R_TRY(value(in.operands[2], Type::Pred));
        LLVMValueRef r = op.op == Op::And ? ir.and_(a, b) : op.op == Op::Or ? ir.or_(a, b) : ir.xor_(a, b);
        return assign(in.operands[0], Type::Pred, r);
    }
    case Op::Not:
        return assign(in.operands[0], Type::Pred, ir.not_(D4R_TRY(value(in.operands[1], Type::Pred))));
    default:
        return refuse("set and slct are not compiled yet");
    }
}

} // namespace d4r::jit
