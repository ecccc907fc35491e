// The PTX front end, typed instructions (docs/ptx-front-end.md): the integer family. add sub addc subc mul mad madc
// mul24 mad24 sad div rem abs neg min max (their float forms are the float and half families'; min/max of packed
// .u16x2/.s16x2 the SIMD family's), and or xor not cnot (the .pred forms are predicate logic), shl shr popc clz brev
// bfind bfe bfi bmsk prmt lop3 shf fns.
//
// Promise: decode_int() accepts exactly the integer forms d4r implements and says what each computes, with the type
// of every operand; errors carry no location (the consumer adds it): Invalid for an operand count no assembler
// takes, Unsupported for anything else it refuses, with ptxsim's messages.
#pragma once

#include <array>

#include "core/status.h"
#include "ptx/ast.h"
#include "ptx/types.h"

namespace d4r::ptx {

struct IntArith {
    enum class Op : uint8_t {
        Add,
        Sub,
        AddC, // addc: with the carry flag in
        SubC,
        Mul,
        Mad,
        MadC,
        Mul24,
        Mad24,
        Sad,
        Div,
        Rem,
        Abs,
        Neg,
        Min,
        Max,
        And,
        Or,
        Xor,
        Not,
        Cnot,
        Shl,
        Shr, // arithmetic for a signed type, logical otherwise
        Popc,
        Clz,
        Brev,
        Bfind,
        Bfe,
        Bfi,
        Bmsk,
        Prmt,
        Lop3,
        Shf,
        Fns,
    };
    enum class Mode : uint8_t { None, Lo, Hi, Wide }; // mul mad madc mul24 mad24
    Op op = Op::Add;
    Type type = Type::None; // as written
    Mode mode = Mode::None;
    bool cc = false;           // .cc: writes the carry flag
    bool sat = false;          // add/sub.sat.s32, mad.hi.sat.s32
    bool relu = false;         // min/max.relu.s32
    bool shift_amount = false; // bfind.shiftamt
    bool clamp = false;        // bmsk, shf: .clamp (else .wrap)
    bool left = false;         // shf.l (else .r)
    uint8_t permute = 0;       // prmt: 0 the default form, 1..6 .f4e .b4e .rc8 .ecl .ecr .rc16
    uint8_t lut = 0;           // lop3: the truth table (its last operand)
    Type dst = Type::None;     // the result's type (.wide: twice the width; popc clz bfind: .u32)
    std::array<Type, 4> src{}; // the sources' types, `sources` of them
    unsigned sources = 0;
};

Expected<IntArith> decode_int(const ast::Instruction& in);

// prmt's specialised modes (IntArith::permute 1..6: .f4e .b4e .rc8 .ecl .ecr .rc16): for each value of c[1:0], the
// source byte of each result byte, from the least significant (bytes 0..3 of a, 4..7 of b).
inline constexpr uint8_t kPrmtModes[6][4][4] = {
    {{0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}}, // f4e
    {{0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0}}, // b4e
    {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}}, // rc8
    {{0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}}, // ecl
    {{0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}}, // ecr
    {{0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3}}, // rc16
};

} // namespace d4r::ptx
