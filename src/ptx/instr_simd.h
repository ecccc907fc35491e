// The PTX front end, typed instructions (docs/ptx-front-end.md): the packed integer instructions, dp4a, dp2a, the
// reduction form of vabsdiff4, and min/max{.relu} on .u16x2/.s16x2 (the integer family hands those over).
//
// Promise: decode_simd() accepts exactly the forms d4r implements and says what each computes; errors carry no
// location (the consumer adds it): Invalid for an operand count no assembler takes, Unsupported for anything else it
// refuses (vabsdiff4's per-lane forms among them), with ptxsim's messages.
#pragma once

#include <cstdint>

#include "core/status.h"
#include "ptx/ast.h"
#include "ptx/modifiers.h"

namespace d4r::ptx {

struct PackedInt {
    enum class Op : uint8_t {
        Dot4,        // dp4a.atype.btype d, a, b, c: c + the four byte products
        Dot2,        // dp2a.lo|.hi.atype.btype d, a, b, c: c + two 16-bit by byte products
        AbsDiff4Add, // vabsdiff4.dtype.atype.btype.add d, a, b, c: c + the four byte distances
        Min,         // min{.relu}.u16x2|.s16x2 d, a, b
        Max,
    };
    Op op = Op::Dot4;
    bool a_signed = false, b_signed = false; // dp4a dp2a vabsdiff4: .s32 (else .u32) for a and b
    bool high = false;                       // dp2a.hi: b's upper two bytes
    bool halves_signed = false;              // min/max: .s16x2 (else .u16x2)
    bool relu = false;                       // min/max.relu.s16x2
    unsigned sources = 3;                    // operands after the .b32 destination
};

// True when an integer min/max names a packed type (.u16x2, .s16x2): decode it with decode_simd.
bool is_packed_minmax(const Modifiers& m);

Expected<PackedInt> decode_simd(const ast::Instruction& in);

} // namespace d4r::ptx
