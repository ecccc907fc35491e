// Lowering setp, set, selp, slct and predicate logic (lower.h) as the interpreter compares
// (src/ptxsim/ops_compare.cpp): float compares ordered or unordered as the operator says, .ftz flushes f32 operands, a
// compare combines with a predicate; set writes all ones or 1.0, slct selects whole registers by the sign of its
// selector. Half-precision operands (.f16 .bf16 and, per half, .f16x2 .bf16x2) are widened to f32 exactly and
// compared as f32, as the interpreter does (.ftz flushes the f16 ones only).
#include <fmt/format.h>

#include "jit/float_rules.h"
#include "jit/lower_impl.h"

namespace d4r::jit {

namespace {

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

// The f16 (BF: bf16) value in the low 16 bits of the i32 H as an f32, exactly (HalfTraits::to_float): a bf16 is an
// f32's high half; an f16's magnitude, moved to an f32's exponent and mantissa fields, is 2^-112 of its value
// (subnormals included), and its infinities and NaNs keep their mantissa under an f32's all-ones exponent.
LLVMValueRef half_to_f32(IrBuilder& ir, LLVMValueRef h, bool bf) {
    if (bf) return ir.bitcast(ir.shl(h, ir.constant(ir.i32, 16)), ir.f32);
    LLVMValueRef magnitude = ir.and_(h, ir.constant(ir.i32, 0x7fff));
    LLVMValueRef moved = ir.shl(magnitude, ir.constant(ir.i32, 13));
    LLVMValueRef finite = ir.bitcast(ir.fmul(ir.bitcast(moved, ir.f32), ir.f32_bits(0x77800000u)), ir.i32); // 2^112
    LLVMValueRef special = ir.or_(moved, ir.constant(ir.i32, 0x7f800000u));
    LLVMValueRef bits =
        ir.select(ir.icmp(abi::D4R_LLVMIntUGE, magnitude, ir.constant(ir.i32, 0x7c00)), special, finite);
    LLVMValueRef sign = ir.shl(ir.and_(h, ir.constant(ir.i32, 0x8000)), ir.constant(ir.i32, 16));
    return ir.bitcast(ir.or_(bits, sign), ir.f32);
}

} // namespace

// --- setp, selp, predicate logic ---

Status Lowering::lower_compare(const ptx::Compare& op) {
    using Op = ptx::Compare::Op;
    using Combine = ptx::Compare::Combine;
    const ast::Instruction& in = *current;
    const Type t = op.type;
    // setp and set: the comparison (of the low halves, and of the high ones for .f16x2/.bf16x2), combined with the
    // predicate operand after the compared values.
    const bool half = t == Type::F16 || t == Type::F16x2 || t == Type::BF16 || t == Type::BF16x2;
    const bool packed = t == Type::F16x2 || t == Type::BF16x2;
    auto compare = [&]() -> Expected<std::pair<LLVMValueRef, LLVMValueRef>> { // (low or only, high)
        const bool fp = t == Type::F32 || t == Type::F64;
        if (!fp && !half && !ptx::is_integer(t)) return refuse("a comparison of this type is not compiled yet");
        if (in.operands.size() < 1 + op.sources) return refuse("missing operands");
        if (half) {
            const int pred = float_predicate(op.cmp);
            if (pred < 0) return refuse("an unsigned comparison of floats");
            const Type word = packed ? Type::B32 : Type::B16;
            LLVMValueRef a = ir.resize(D4R_TRY(value(in.operands[1], word)), 32, false);
            LLVMValueRef b = ir.resize(D4R_TRY(value(in.operands[2], word)), 32, false);
            const bool bf = t == Type::BF16 || t == Type::BF16x2;
            auto compare_half = [&](unsigned shift) {
                auto widen = [&](LLVMValueRef w) {
                    LLVMValueRef h = ir.and_(ir.lshr(w, ir.constant(ir.i32, shift)), ir.constant(ir.i32, 0xffff));
                    if (op.ftz && !bf) { // HalfTraits::flush: a zero exponent keeps the sign only
                        LLVMValueRef tiny = ir.icmp(abi::D4R_LLVMIntEQ, ir.and_(h, ir.constant(ir.i32, 0x7c00)),
                                                    ir.constant(ir.i32, 0));
                        h = ir.select(tiny, ir.and_(h, ir.constant(ir.i32, 0x8000)), h);
                    }
                    return half_to_f32(ir, h, bf);
                };
                return ir.fcmp(pred, widen(a), widen(b));
            };
            return std::pair{compare_half(0), packed ? compare_half(16) : nullptr};
        }
        LLVMValueRef a = D4R_TRY(value(in.operands[1], t)), b = D4R_TRY(value(in.operands[2], t));
        if (fp) {
            if (op.ftz && t == Type::F32) {
                FloatRules fr{ir, true};
                a = fr.flush(a);
                b = fr.flush(b);
            }
            const int pred = float_predicate(op.cmp);
            if (pred < 0) return refuse("an unsigned comparison of floats");
            return std::pair{ir.fcmp(pred, a, b), LLVMValueRef{nullptr}};
        }
        const int pred = int_predicate(op.cmp, ptx::is_signed(t));
        if (pred < 0) return refuse("an unordered comparison of integers");
        return std::pair{ir.icmp(pred, a, b), LLVMValueRef{nullptr}};
    };
    auto combiner = [&]() -> Expected<LLVMValueRef> { // the combining predicate, nullptr when none
        if (op.combine == Combine::None) return LLVMValueRef{nullptr};
        return value(in.operands[3], Type::Pred);
    };
    auto combine = [&](LLVMValueRef v, LLVMValueRef with) {
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
    switch (op.op) {
    case Op::Setp: {
        const auto [c, c_high] = D4R_TRY(compare());
        LLVMValueRef with = D4R_TRY(combiner());
        const ast::Operand& d = in.operands[0];
        if (op.dst_kind == ptx::Compare::Dst::PredPair) { // q: the complement, or the high halves' comparison
            ast::Operand p, q;
            p.kind = q.kind = ast::OperandKind::Name;
            p.name = d.name;
            q.name = d.name2;
            D4R_TRY(assign(p, Type::Pred, combine(c, with)));
            return assign(q, Type::Pred, combine(packed ? c_high : ir.not_(c), with));
        }
        return assign(d, Type::Pred, combine(c, with)); // packed: the low halves' (the high ones' result is dropped)
    }
    case Op::Set: {
        const auto [c, c_high] = D4R_TRY(compare());
        LLVMValueRef with = D4R_TRY(combiner());
        LLVMValueRef holds = combine(c, with);
        if (!half) { // all ones, or 1.0 for an .f32 destination, where the combined test holds (a 32-bit word)
            const uint64_t one = op.dst == Type::F32 ? 0x3f800000u : 0xffffffffu;
            return assign(in.operands[0], Type::B32,
                          ir.select(holds, ir.constant(ir.i32, one), ir.constant(ir.i32, 0)));
        }
        // A half source: the destination's "true" (emit_set_half's table), per half for packed sources; the
        // interpreter writes the whole 32-bit word.
        const uint64_t one = ptx::set_half_true_bits(op.dst);
        if (one == 0) return refuse("a set destination type the interpreter does not take");
        LLVMValueRef zero = ir.constant(ir.i32, 0);
        LLVMValueRef r = ir.select(holds, ir.constant(ir.i32, packed ? one & 0xffffu : one), zero);
        if (packed) r = ir.or_(r, ir.select(combine(c_high, with), ir.constant(ir.i32, one & 0xffff0000u), zero));
        return assign(in.operands[0], Type::B32, r);
    }
    case Op::Slct: { // c >= 0 ? a : b, c .s32 or .f32 (-0.0 >= 0 holds, NaN selects b; .ftz flushes it)
        const unsigned bits = ptx::type_bits(t);
        if (bits != 32 && bits != 64) return refuse("slct of a narrow type is not compiled yet");
        if (in.operands.size() != 4) return refuse("expected four operands");
        auto word = [&](const ast::Operand& o) -> Expected<LLVMValueRef> { // the value's bits
            LLVMValueRef v = D4R_TRY(value(o, t));
            return (t == Type::F32 || t == Type::F64) ? ir.bitcast(v, ir.int_type(bits)) : v;
        };
        LLVMValueRef a = D4R_TRY(word(in.operands[1])), b = D4R_TRY(word(in.operands[2]));
        LLVMValueRef take_a;
        if (op.src[2] == Type::S32) {
            take_a = ir.icmp(abi::D4R_LLVMIntSGE, D4R_TRY(value(in.operands[3], Type::S32)), ir.constant(ir.i32, 0));
        } else {
            FloatRules fr{ir, true};
            LLVMValueRef c = D4R_TRY(value(in.operands[3], Type::F32));
            if (op.ftz) c = fr.flush(c);
            take_a = ir.fcmp(abi::D4R_LLVMRealOGE, c, ir.f32_bits(0));
        }
        return assign(in.operands[0], bits == 64 ? Type::B64 : Type::B32, ir.select(take_a, a, b));
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
    }
    return refuse("this comparison is not compiled yet");
}

} // namespace d4r::jit
