// The PTX front end, typed instructions (docs/ptx-front-end.md): the control family, bra brx exit ret call, the
// barriers (bar, barrier, bar.warp.sync), membar/fence, trap brkpt and nanosleep.
//
// Promise: decode_control() accepts exactly the forms d4r implements and says what each does and where its operands
// are; errors carry no location (the consumer adds it): Invalid for an operand count no assembler takes,
// Unsupported for anything else it refuses, with ptxsim's messages. Labels, branch tables, call targets and their
// signatures are resolved by the consumer.
#pragma once

#include <cstdint>

#include "core/status.h"
#include "ptx/ast.h"

namespace d4r::ptx {

struct Control {
    enum class Op : uint8_t {
        Bra,        // bra{.uni} label
        Brx,        // brx.idx{.uni} index, table
        Exit,       // exit
        Ret,        // ret{.uni}
        Call,       // call{.uni} (rets), func, (args){, prototype}
        Barrier,    // bar/barrier{.cta}{.aligned}.sync|.arrive|.red: see `arrive` and `reduction`
        WarpSync,   // bar.warp.sync membermask
        Fence,      // membar, fence: every scope, proxy and ordering (no effect in d4r's memory)
        Trap,       // trap
        Breakpoint, // brkpt (faults like trap)
        Nanosleep,  // nanosleep{.u32} t (a yield)
    };
    enum class Reduction : uint8_t { None, Popc, And, Or }; // bar.red.popc.u32 / .and.pred / .or.pred
    Op op = Op::Bra;
    bool uniform = false; // .uni
    bool arrive = false;  // bar.arrive: no wait
    Reduction reduction = Reduction::None;
    // Barrier: the operand of the barrier id, and whether a thread count follows it (bar.red: the destination is
    // operand 0, the predicate the last operand).
    unsigned barrier_id = 0;
    bool thread_count = false;
    // Call: the operand indices of the return list, the function and the argument list (-1 when absent).
    int returns = -1, function = -1, arguments = -1;
};

Expected<Control> decode_control(const ast::Instruction& in);

} // namespace d4r::ptx
