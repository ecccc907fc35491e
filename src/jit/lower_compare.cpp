// Lowering setp, selp and predicate logic (lower.h) as the interpreter compares (src/ptxsim/ops_compare.cpp): float
// compares ordered or unordered as the operator says, .ftz flushes f32 operands, a compare combines with a predicate.
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
