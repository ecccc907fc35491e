// The PTX front end, typed instructions (docs/ptx-front-end.md): the atomics, atom (which returns the old value)
// and red (which does not), over 32- and 64-bit integers and floats, and the half-precision .add.noftz forms.
// Memory-ordering and scope modifiers (.relaxed .acquire .gpu .sys ...) are read and dropped: d4r's memory is
// sequentially consistent.
//
// Promise: decode_atomic() accepts exactly the forms d4r implements and says what each does; errors carry no
// location (the consumer adds it): Invalid for an operand count no assembler takes, Unsupported for anything else it
// refuses, with ptxsim's messages.
#pragma once

#include <cstdint>

#include "core/status.h"
#include "ptx/ast.h"
#include "ptx/types.h"

namespace d4r::ptx {

struct Atomic {
    enum class Op : uint8_t { And, Or, Xor, Cas, Exch, Add, Inc, Dec, Min, Max }; // Add of a float type: a float add
    Op op = Op::Add;
    bool result = true;                     // atom d, [a], b{, c}; red [a], b (no d)
    StateSpace space = StateSpace::Generic; // .global, .shared (.shared::cta) or generic
    Type type = Type::None;                 // as written; a half type only with `half`
    bool half = false;                      // .add.noftz on .f16 .bf16 .f16x2 .bf16x2
    bool signed_compare = false;            // min/max of a signed type
    Type value = Type::B32;                 // the registers' type: .b32/.b64, .f32/.f64, or .b16/.b32 for halves
    unsigned values = 1;                    // after the address: 2 for cas (compare, swap)
    unsigned address_operand = 1;           // 1 for atom, 0 for red
    bool cache_policy = false;              // a trailing cache-policy operand (ignored)
};

Expected<Atomic> decode_atomic(const ast::Instruction& in);

} // namespace d4r::ptx
