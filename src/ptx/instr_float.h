// The PTX front end, typed instructions (docs/ptx-front-end.md): the f32 and f64 arithmetic family. add sub mul
// mad fma div min max abs neg (whose .f16/.bf16 forms are the half family's and whose integer forms the integer
// family's), sqrt rcp rsqrt sin cos lg2 ex2 tanh, copysign and testp, decoded once from opcode and operand count.
//
// Promise: decode_float() accepts exactly the f32/f64 forms d4r implements and says what each computes; errors
// carry no location (the consumer adds it): Invalid for an operand count no assembler takes, Unsupported for
// anything else it refuses, with ptxsim's messages.
#pragma once

#include <optional>

#include "core/status.h"
#include "ptx/ast.h"
#include "ptx/types.h"

namespace d4r::ptx {

struct FloatArith {
    enum class Op : uint8_t {
        Add,
        Sub,
        Mul,
        Fma, // fma, and mad (`mad` set: a rounding modifier is optional there, and absent means .rn)
        Div,
        Min,
        Max,
        Abs,
        Neg,
        Sqrt,
        Rcp,
        Rsqrt,
        Sin,
        Cos,
        Lg2,
        Ex2,
        Tanh,
        Copysign,
        Testp,
    };
    enum class Test : uint8_t { Finite, Infinite, Number, NotANumber, Normal, Subnormal }; // testp, in this order
    Op op = Op::Add;
    Type type = Type::F32;      // F32 or F64
    std::optional<Round> round; // .rn .rz .rm .rp when written
    bool ftz = false, sat = false;
    bool approx = false;               // div.approx; sqrt rcp .approx; rsqrt sin cos lg2 ex2 tanh (always .approx)
    bool full = false;                 // div.full
    bool mad = false;                  // written as mad
    bool nan = false, xorsign = false; // min/max .NaN; .xorsign.abs
    Test test = Test::Finite;
    unsigned sources = 2; // operands after the destination (for testp: the destination is a predicate)
};

Expected<FloatArith> decode_float(const ast::Instruction& in);

} // namespace d4r::ptx
