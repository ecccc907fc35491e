// Lowering setp, set, selp, slct and predicate logic (lower.h) as the interpreter compares
// (src/ptxsim/ops_compare.cpp): float compares ordered or unordered as the operator says, .ftz flushes f32 operands, a
// compare combines with a predicate; set writes all ones or 1.0, slct selects whole registers by the sign of its
// selector.
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

} // namespace

// --- setp, selp, predicate logic ---

Status Lowering::lower_compare(const ptx::Compare& op) {
    using Op = ptx::Compare::Op;
    using Combine = ptx::Compare::Combine;
    const ast::Instruction& in = *current;
    const Type t = op.type;
    // setp and set: the comparison, combined with the predicate operand after the compared values.
    auto compare = [&]() -> Expected<std::pair<LLVMValueRef, LLVMValueRef>> { // (combined, combined complement)
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
        return std::pair{combine(c), combine(ir.not_(c))};
    };
    switch (op.op) {
    case Op::Setp: {
        const auto [p_value, q_value] = D4R_TRY(compare());
        const ast::Operand& d = in.operands[0];
        if (op.dst_kind == ptx::Compare::Dst::PredPair) {
            ast::Operand p, q;
            p.kind = q.kind = ast::OperandKind::Name;
            p.name = d.name;
            q.name = d.name2;
            D4R_TRY(assign(p, Type::Pred, p_value));
            return assign(q, Type::Pred, q_value);
        }
        return assign(d, Type::Pred, p_value);
    }
    case Op::Set: { // all ones, or 1.0 for an .f32 destination, where the combined test holds (a 32-bit word)
        LLVMValueRef holds = D4R_TRY(compare()).first;
        const uint64_t one = op.dst == Type::F32 ? 0x3f800000u : 0xffffffffu;
        return assign(in.operands[0], Type::B32, ir.select(holds, ir.constant(ir.i32, one), ir.constant(ir.i32, 0)));
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
