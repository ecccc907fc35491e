// Lowering atom and red (lower.h): each thread's atomic is one call of ptxsim's runtime helper
// (CompiledRuntime::atomic), which checks the address and performs the operation with the interpreter's own code
// (src/ptxsim/scalar_atomic.h), faults included.
//
// Threads run one after the other, each up to its exit or its next barrier: a thread that spins until another
// thread of its block changes memory (`while (atomicCAS(lock, 0, 1) != 0);`) would spin forever, the other never
// running meanwhile. Such a wait needs a loop around a read of memory another thread writes: volatile or ordered
// loads (refused everywhere) or an atom, whose old value can end it. So an atom inside a loop (between a label and a
// later branch back to it, in statement order: every cycle of the control flow has such a branch) is refused; red
// returns nothing and compiles anywhere, and so does an atom outside loops.
#include <fmt/format.h>

#include "jit/lower_impl.h"
#include "ptx/instr_atomic.h"

namespace d4r::jit {

Status Lowering::lower_atomic(const ptx::Atomic& op) {
    const ast::Instruction& in = *current;
    if (nvptx) return nv_atomic(op);
    if (op.result)
        for (const Loop& loop : m_loops)
            if (loop.label <= m_statement && m_statement <= loop.branch)
                return refuse(fmt::format("atom inside a loop (from label '{}' to the branch back on line {}): a "
                                          "thread may spin there until another thread of its block writes, and "
                                          "compiled threads run one after the other",
                                          loop.name, loop.branch_line));
    if (function.is_entry == false) return refuse("atomic in a .func");
    const unsigned first = op.address_operand;
    if (in.operands.size() < first + 1 + op.values) return refuse("missing operands");
    const Address a = D4R_TRY(address(in.operands[first], op.space));
    // The operands as their bits, zero-extended (the runtime reads the low bits of the type's width).
    const unsigned bits = ptx::type_bits(op.value);
    std::array<LLVMValueRef, 2> v{ir.constant(ir.i64, 0), ir.constant(ir.i64, 0)};
    for (unsigned k = 0; k < op.values; ++k) {
        LLVMValueRef x = D4R_TRY(value(in.operands[first + 1 + k], op.value));
        if (op.value == Type::F32 || op.value == Type::F64) x = ir.bitcast(x, ir.int_type(bits));
        v[k] = ir.resize(x, 64, false);
    }
    if (!m_atomic_old) m_atomic_old = ir.zeroed_slot(ir.i64);
    const LlvmLibrary& l = ir.llvm();
    LLVMTypeRef params[6] = {ir.ptr, ir.i32, ir.i64, ir.i64, ir.i64, ir.ptr};
    LLVMValueRef fn = runtime_entry(ptxsim::kRuntimeAtomic);
    // Warp code: lane by lane in lane order, as the interpreter performs them.
    auto atomic = [&](LLVMValueRef lane) -> Expected<std::vector<LLVMValueRef>> {
        LLVMValueRef done =
            ir.call(l.LLVMFunctionType(ir.i32, params, 6, 0), fn,
                    {m_thread, ir.constant(ir.i32, ptxsim::atomic_op_code(op)), element_of(a.value, lane),
                     element_of(v[0], lane), element_of(v[1], lane), m_atomic_old});
        fault_unless(ir.icmp(abi::D4R_LLVMIntNE, done, ir.constant(ir.i32, 0)));
        if (!op.result) return std::vector<LLVMValueRef>{};
        return std::vector<LLVMValueRef>{ir.load(ir.i64, m_atomic_old, 8)};
    };
    std::vector<LLVMValueRef> olds;
    if (warp) {
        olds = D4R_TRY(each_lane(op.result ? 1 : 0, atomic));
    } else {
        olds = D4R_TRY(atomic(nullptr));
    }
    if (!op.result) return ok_status();
    LLVMValueRef old = ir.resize(olds[0], bits, false);
    return assign(in.operands[0], ptx::parse_type(fmt::format("b{}", bits)), old);
}

} // namespace d4r::jit
