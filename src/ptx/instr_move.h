// The PTX front end, typed instructions (docs/ptx-front-end.md): moves. mov (a register, an immediate, a special
// register, a variable's or function's address; .pred; vector packing and unpacking), cvta (between a state
// space's addresses and generic ones) and isspacep.
//
// Promise: decode_move() accepts exactly the forms of this family d4r implements and says what each is, with its
// operand types; errors carry no location (the consumer adds it): Invalid for an operand count no assembler takes,
// Unsupported for anything else it refuses, with ptxsim's messages. Which register or variable a name denotes is
// the consumer's (its symbols).
#pragma once

#include <cstdint>

#include "core/status.h"
#include "ptx/ast.h"
#include "ptx/types.h"

namespace d4r::ptx {

struct Move {
    enum class Op : uint8_t {
        Mov,
        Cvta,     // cvta{.to}.space.(u32|u64) d, a
        Isspacep, // isspacep.space p, a: whether generic address a is in the space
    };
    // What a mov moves (mov.type d, a).
    enum class Form : uint8_t {
        Name,      // a register, or the address of a variable or function (`mov.u64 %rd, array`; .pred: a
                   // predicate, possibly negated)
        Immediate, // an integer or floating-point literal (.pred: an integer, nonzero is true)
        Special,   // one of PTX's special registers (%tid.x, %laneid, %clock64, ...) or WARP_SZ (32): `sreg`
        Pack,      // mov d, {a, b, ...}: `elements` values of `src`, the first in the lowest bits
        Unpack,    // mov {a, b, ...}, d: the reverse, into `elements` registers of `dst`
    };
    // Which special register: Other for the 32-bit ones the consumer reads by name (%tid.x, %laneid, ...) and
    // WARP_SZ; the 64-bit counters and their halves (%clock and %clock_hi are %clock64's low and high 32 bits,
    // %globaltimer_lo and _hi %globaltimer's, which counts nanoseconds), each moved with a type of its width; the
    // 64-bit %gridid.
    enum class Sreg : uint8_t { Other, Clock, ClockHi, Clock64, GlobalTimer, GlobalTimerLo, GlobalTimerHi, GridId };
    Op op = Op::Mov;
    Form form = Form::Name;  // mov
    Sreg sreg = Sreg::Other; // mov: Special
    Type type = Type::None;  // mov, cvta: as written (cvta: .u32 or .u64)
    bool to_space = false;   // cvta.to: a generic address to the space's (else the space's to generic)
    // cvta, isspacep: the space named (never Generic; .shared::cta is .shared, .shared::cluster is refused)
    StateSpace space = StateSpace::Global;
    unsigned elements = 1; // Pack, Unpack: 2 or 4
    // The operands' types: the destination (Unpack: each element; isspacep: .pred) and the source (Pack: each
    // element, .b8 .b16 or .b32; isspacep: the .u64 address). A Pack source element may be an immediate.
    Type dst = Type::None, src = Type::None;
};

Expected<Move> decode_move(const ast::Instruction& in);

} // namespace d4r::ptx
