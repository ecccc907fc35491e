// Lowering integer arithmetic (lower.h) with the interpreter's rules (src/ptxsim/ops_int.cpp): division by zero gives
// all ones, a signed division by -1 wraps, shifts clamp at the width, .sat clamps to the s32 range.
#include <fmt/format.h>

#include "jit/lower_impl.h"

namespace d4r::jit {

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

} // namespace d4r::jit
