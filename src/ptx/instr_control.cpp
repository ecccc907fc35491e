// The control family's meaning (see instr_control.h).
#include "ptx/instr_control.h"

#include "ptx/instr_decode.h"

namespace d4r::ptx {

namespace {

using decode::expect_operands;
using decode::finish;
using decode::unsupported;
using Op = Control::Op;

// call{.uni} (rets), func, (args){, prototype or target list}: which operand is which.
Expected<Control> decode_call(const ast::Instruction& in, Control c) {
    for (size_t i = 0; i < in.operands.size(); ++i) {
        const ast::Operand& o = in.operands[i];
        const int at = static_cast<int>(i);
        if (o.kind == ast::OperandKind::List) {
            if (c.function < 0)
                c.returns = at;
            else if (c.arguments < 0)
                c.arguments = at;
            else
                return unsupported("unexpected operand list in call");
        } else if (o.kind == ast::OperandKind::Name) {
            // after the function: the prototype of an indirect call (or a list of possible targets); the consumer
            // checks the signature against each candidate
            if (c.function < 0) c.function = at;
        } else {
            return unsupported("unexpected operand of call");
        }
    }
    if (c.function < 0) return unsupported("call needs a function");
    return c;
}

// bar{.cta}.sync / barrier{.cta}.sync{.aligned} a{, b}; bar.arrive / barrier.arrive a, b; bar.red d, a{, b}, {!}c;
// bar.warp.sync m.
Expected<Control> decode_barrier(const ast::Instruction& in, Modifiers& m, Control c) {
    if (m.base() == "bar" && m.take("warp")) {
        if (!m.take("sync")) return unsupported("bar.warp needs .sync");
        D4R_TRY(finish(m));
        D4R_TRY(expect_operands(in, 1));
        c.op = Op::WarpSync;
        return c;
    }
    m.take("cta");
    m.take("aligned");
    const bool sync = m.take("sync");
    c.arrive = !sync && m.take("arrive");
    const bool red = !sync && !c.arrive && m.take("red");
    if (!sync && !c.arrive && !red) return unsupported("unsupported barrier form");
    if (red) {
        const std::string_view op = m.take_any({"popc", "and", "or"});
        const Type t = m.take_type();
        if (op.empty() || (op == "popc" ? t != Type::U32 : t != Type::Pred))
            return unsupported("bar.red needs .popc.u32, .and.pred or .or.pred");
        c.reduction = op == "popc"  ? Control::Reduction::Popc
                      : op == "and" ? Control::Reduction::And
                                    : Control::Reduction::Or;
    }
    D4R_TRY(finish(m));
    // bar.red d, a{, b}, {!}c: the destination first, the predicate last.
    const size_t first = red ? 1 : 0, extra = red ? 1 : 0;
    D4R_TRY(expect_operands(in, first + (c.arrive ? 2 : 1) + extra, first + 2 + extra));
    c.barrier_id = static_cast<unsigned>(first);
    c.thread_count = in.operands.size() - first - extra == 2;
    return c;
}

} // namespace

Expected<Control> decode_control(const ast::Instruction& in) {
    Modifiers m(in.opcode);
    const std::string_view base = m.base();
    Control c;
    if (base == "bar" || base == "barrier") {
        c.op = Op::Barrier;
        return decode_barrier(in, m, c);
    }
    if (base == "membar" || base == "fence") {
        m.take_memory_hints();
        m.take_any({"sc", "acq_rel", "gl"});
        for (std::string_view prefix : {"proxy", "async", "shared::", "global", "alias", "tensormap"})
            m.take_prefixed(prefix);
        D4R_TRY(finish(m));
        c.op = Op::Fence;
        return c;
    }
    if (base == "trap" || base == "brkpt") {
        D4R_TRY(finish(m));
        c.op = base == "trap" ? Op::Trap : Op::Breakpoint;
        return c;
    }
    if (base == "nanosleep") {
        m.take_type();
        D4R_TRY(finish(m));
        c.op = Op::Nanosleep;
        return c;
    }
    if (base == "brx") {
        if (!m.take("idx")) return unsupported("brx needs .idx");
        c.uniform = m.take("uni");
        D4R_TRY(finish(m));
        D4R_TRY(expect_operands(in, 2));
        c.op = Op::Brx;
        return c;
    }
    if (base == "exit") {
        D4R_TRY(finish(m));
        D4R_TRY(expect_operands(in, 0));
        c.op = Op::Exit;
        return c;
    }
    if (base != "bra" && base != "ret" && base != "call")
        return unsupported(fmt::format("'{}' is not a control instruction", base));
    c.uniform = m.take("uni");
    D4R_TRY(finish(m));
    if (base == "call") {
        c.op = Op::Call;
        return decode_call(in, c);
    }
    if (base == "ret") {
        D4R_TRY(expect_operands(in, 0));
        c.op = Op::Ret;
        return c;
    }
    D4R_TRY(expect_operands(in, 1));
    if (in.operands[0].kind != ast::OperandKind::Name) return unsupported("bra needs a label");
    c.op = Op::Bra;
    return c;
}

} // namespace d4r::ptx
