// d4r's PTX JIT internals: the interpreter's floating-point rules (src/numerics/fp.h, ptxsim's ops_float.cpp) spelled
// in LLVM IR, for the lowerings of float arithmetic, conversions and compares.
#pragma once

#include "jit/ir_builder.h"
#include "numerics/fp.h"

namespace d4r::jit {

// The rules for f32 (F32) or f64 values.
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

} // namespace d4r::jit
