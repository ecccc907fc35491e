// Lowering the half-precision family (lower.h): add sub mul fma min max neg abs ex2 tanh on .f16 .f16x2 .bf16
// .bf16x2 with every modifier the front end takes (src/ptxsim/ops_half.cpp). Each instruction is one call of
// ptxsim's numerics helper (CompiledRuntime::half_op), which runs the interpreter's own element rule
// (src/ptxsim/scalar_half.h) on the registers' words, so there is one implementation of each rule. A multiply-add
// fused from a mul and an add or sub (ptx/contract.h) is refused at the mul (lower.cpp).
#include "jit/lower_impl.h"

namespace d4r::jit {

LLVMValueRef Lowering::runtime_half(uint32_t code, std::array<LLVMValueRef, 3> sources) {
    LLVMTypeRef params[4] = {ir.i32, ir.i32, ir.i32, ir.i32};
    LLVMTypeRef fn_type = ir.llvm().LLVMFunctionType(ir.i32, params, 4, 0);
    LLVMValueRef fn = runtime_entry(ptxsim::kRuntimeHalfOp);
    for (LLVMValueRef& s : sources) s = s ? ir.resize(s, 32, false) : ir.constant(ir.i32, 0);
    if (warp)
        return per_lane(ir.i32, {sources[0], sources[1], sources[2]}, [&](const std::vector<LLVMValueRef>& x) {
            return ir.call(fn_type, fn, {ir.constant(ir.i32, code), x[0], x[1], x[2]});
        });
    return ir.call(fn_type, fn, {ir.constant(ir.i32, code), sources[0], sources[1], sources[2]});
}

Status Lowering::lower_half(const ptx::HalfArith& op) {
    const ast::Instruction& in = *current;
    if (in.operands.size() != 1 + op.sources) return refuse("unexpected operand count");
    if (nvptx) return nv_half(op);
    // The registers' words as the interpreter reads them: 16 bits (.b16) or 32 (the packed forms).
    const Type reg = op.reg;
    std::array<LLVMValueRef, 3> s{};
    for (unsigned k = 0; k < op.sources && k < 3; ++k) s[k] = D4R_TRY(value(in.operands[1 + k], reg));
    LLVMValueRef r = runtime_half(ptxsim::half_op_code(op), s);
    return assign(in.operands[0], reg, ir.resize(r, ptx::type_bits(reg), false));
}

} // namespace d4r::jit
