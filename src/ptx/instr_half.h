// The PTX front end, typed instructions (docs/ptx-front-end.md): the half-precision family, the .f16 .f16x2 .bf16
// .bf16x2 forms of add sub mul fma min max neg abs, and ex2.approx and tanh.approx.
//
// Promise: decode_half() accepts exactly the half-precision forms d4r implements and says what each computes;
// errors carry no location (the consumer adds it): Invalid for an operand count no assembler takes, Unsupported for
// anything else it refuses, with ptxsim's messages.
#pragma once

#include <optional>

#include "core/status.h"
#include "ptx/ast.h"
#include "ptx/types.h"

namespace d4r::ptx {

struct HalfArith {
    enum class Op : uint8_t { Add, Sub, Mul, Fma, Min, Max, Neg, Abs, Ex2, Tanh };
    Op op = Op::Add;
    Type type = Type::F16;      // F16, F16x2, BF16 or BF16x2
    Type reg = Type::B16;       // the registers' type: .b16, or .b32 for the packed forms
    std::optional<Round> round; // .rn when written (the only rounding these forms take)
    bool ftz = false, sat = false, relu = false;
    bool nan = false, xorsign = false; // min/max .NaN; .xorsign.abs
    unsigned sources = 2;
};

Expected<HalfArith> decode_half(const ast::Instruction& in);

} // namespace d4r::ptx
