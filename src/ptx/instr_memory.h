// The PTX front end, typed instructions (docs/ptx-front-end.md): the memory family, ld, ldu, st, prefetch and
// prefetchu. Cache and ordering hints (.ca .cg .nc .volatile .relaxed .L2::* ...) are read and dropped: in d4r's
// sequentially consistent, single-copy memory they change no result.
//
// Promise: decode_memory() accepts exactly the forms d4r implements and says what each accesses; errors carry no
// location (the consumer adds it): Invalid for an operand count no assembler takes, Unsupported for anything else it
// refuses, with ptxsim's messages. Which space an address's symbol is in, and register widths, are the consumer's.
#pragma once

#include "core/status.h"
#include "ptx/ast.h"
#include "ptx/types.h"

namespace d4r::ptx {

struct MemoryAccess {
    enum class Op : uint8_t { Load, Store, Prefetch };
    Op op = Op::Load;
    StateSpace space = StateSpace::Generic; // as written (.shared::cta is .shared, .param::entry/::func .param)
    Type type = Type::None;                 // at most 64 bits (not for Prefetch)
    unsigned vector = 1;                    // 1, 2 or 4 values: the data operand is a {...} list of that many
    // The operands: Load d, [a]; Store [a], v (operand 0 the address); Prefetch [a] (no data).
    unsigned address_operand = 1;
};

Expected<MemoryAccess> decode_memory(const ast::Instruction& in);

} // namespace d4r::ptx
