// Lowering the packed integer instructions (lower.h) as the interpreter computes them (src/ptxsim/ops_simd.cpp):
// dp4a, dp2a (.lo/.hi), vabsdiff4.add and min/max{.relu} on .u16x2/.s16x2. Every operand is a .b32; each byte or
// half is zero- or sign-extended by its type, products and sums are 32-bit and wrap.
#include "jit/lower_impl.h"

namespace d4r::jit {

namespace {

// Lane K of V, WIDTH bits wide, extended to 32 bits by IS_SIGNED (ops_simd.cpp's byte_of and half_of).
LLVMValueRef lane_of(IrBuilder& ir, LLVMValueRef v, unsigned width, unsigned k, bool is_signed) {
    LLVMValueRef part = ir.trunc(ir.lshr(v, ir.constant(ir.i32, uint64_t(width) * k)), ir.int_type(width));
    return is_signed ? ir.sext(part, ir.i32) : ir.zext(part, ir.i32);
}

} // namespace

Status Lowering::lower_simd(const ptx::PackedInt& op) {
    using Op = ptx::PackedInt::Op;
    const ast::Instruction& in = *current;
    if (in.operands.size() != 1 + op.sources || op.sources < 2 || op.sources > 3) return refuse("missing operands");
    LLVMValueRef s[3] = {};
    for (unsigned k = 0; k < op.sources; ++k) s[k] = D4R_TRY(value(in.operands[1 + k], Type::B32));
    const bool sa = op.a_signed, sb = op.b_signed;
    LLVMValueRef r = nullptr;
    switch (op.op) {
    case Op::Dot4:
        r = s[2];
        for (unsigned k = 0; k < 4; ++k)
            r = ir.add(r, ir.mul(lane_of(ir, s[0], 8, k, sa), lane_of(ir, s[1], 8, k, sb)));
        break;
    case Op::Dot2: {
        const unsigned first = op.high ? 2 : 0; // b's bytes
        r = s[2];
        for (unsigned k = 0; k < 2; ++k)
            r = ir.add(r, ir.mul(lane_of(ir, s[0], 16, k, sa), lane_of(ir, s[1], 8, first + k, sb)));
        break;
    }
    case Op::AbsDiff4Add:
        r = s[2];
        for (unsigned k = 0; k < 4; ++k) {
            LLVMValueRef diff = ir.sub(lane_of(ir, s[0], 8, k, sa), lane_of(ir, s[1], 8, k, sb));
            LLVMValueRef negative = ir.icmp(abi::D4R_LLVMIntSLT, diff, ir.constant(ir.i32, 0));
            r = ir.add(r, ir.select(negative, ir.sub(ir.constant(ir.i32, 0), diff), diff));
        }
        break;
    case Op::Min:
    case Op::Max: {
        const bool sgn = op.halves_signed;
        int pred = op.op == Op::Max ? (sgn ? abi::D4R_LLVMIntSGT : abi::D4R_LLVMIntUGT)
                                    : (sgn ? abi::D4R_LLVMIntSLT : abi::D4R_LLVMIntULT);
        r = ir.constant(ir.i32, 0);
        for (unsigned k = 0; k < 2; ++k) {
            LLVMValueRef x = lane_of(ir, s[0], 16, k, sgn), y = lane_of(ir, s[1], 16, k, sgn);
            LLVMValueRef v = ir.select(ir.icmp(pred, x, y), x, y);
            if (op.relu && sgn)
                v = ir.select(ir.icmp(abi::D4R_LLVMIntSLT, v, ir.constant(ir.i32, 0)), ir.constant(ir.i32, 0), v);
            r = ir.or_(r, ir.shl(ir.and_(v, ir.constant(ir.i32, 0xffff)), ir.constant(ir.i32, 16ull * k)));
        }
        break;
    }
    default:
        return refuse("this packed integer instruction is not compiled yet");
    }
    return assign(in.operands[0], Type::B32, r);
}

} // namespace d4r::jit
