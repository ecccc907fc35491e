// The PTX front end, typed instructions (docs/ptx-front-end.md): comparisons and selects. setp and set (the 16-, 32-
// and 64-bit integer types, .f32, .f64 and the half types .f16 .bf16 .f16x2 .bf16x2, with .and/.or/.xor combining a
// predicate), selp, slct, and predicate logic: and or xor not on .pred (their other types are the integer family's;
// PTX has no cnot.pred).
//
// Promise: decode_compare() accepts exactly the forms of this family d4r implements and says what each computes,
// with the type of every operand; errors carry no location (the consumer adds it): Invalid for an operand count no
// assembler takes, Unsupported for anything else it refuses, with ptxsim's messages.
#pragma once

#include <array>
#include <cstdint>

#include "core/status.h"
#include "ptx/ast.h"
#include "ptx/types.h"

namespace d4r::ptx {

struct Compare {
    enum class Op : uint8_t {
        Setp, // setp.cmp{.bool}{.ftz}.type p{|q}, a, b{, c}
        Set,  // set.cmp{.bool}{.ftz}.dtype.type d, a, b{, c}
        Selp, // selp.type d, a, b, c: c ? a : b
        Slct, // slct{.ftz}.type.(s32|f32) d, a, b, c: c >= 0 ? a : b (-0.0 counts as >= 0, NaN selects b)
        And,  // and.pred d, a, b (predicate logic)
        Or,
        Xor,
        Not, // not.pred d, a
    };
    // The comparison operators in the ISA's order. eq ne lt le gt ge: on floats ordered (false when an operand is
    // NaN; ne is lt or gt); lo ls hi hs compare as unsigned (a signed type's values as their bits); equ neu ltu leu
    // gtu geu: unordered (true when an operand is NaN); num: neither is NaN; nan: either is. Integer types take eq
    // ne lt le gt ge lo ls hi hs, .bN types eq ne lo ls hi hs, floats every operator but lo ls hi hs.
    enum class Cmp : uint8_t { Eq, Ne, Lt, Le, Gt, Ge, Lo, Ls, Hi, Hs, Equ, Neu, Ltu, Leu, Gtu, Geu, Num, Nan };
    // .and/.or/.xor: the comparison's result combined with the predicate operand after the compared values.
    enum class Combine : uint8_t { None, And, Or, Xor };
    enum class Dst : uint8_t {
        Pred,     // one predicate (setp, predicate logic)
        PredPair, // setp p|q: q is the complement of the comparison (each combined), or for .f16x2/.bf16x2 the
                  // comparison of the high halves (p the low halves')
        Value,    // a register of `dst` (set, selp, slct)
    };
    Op op = Op::Setp;
    Cmp cmp = Cmp::Eq;               // setp, set
    Combine combine = Combine::None; // setp, set
    // setp, set: the compared type (.f16x2/.bf16x2 compare per half); selp, slct: the selected values' type;
    // predicate logic: .pred.
    Type type = Type::None;
    bool ftz = false; // setp set: the compared .f32 .f16 .f16x2 values flushed; slct: the .f32 selector flushed
    Dst dst_kind = Dst::Value;
    // The destination's type: .pred for Pred and PredPair; set: .u32 .s32 (all ones when true) or .f32 (1.0), and
    // for a half source also .u16 .s16 .f16 .bf16 (scalar sources) and .f16x2 .bf16x2 (packed sources, whose .u32
    // .s32 results are 0xffff per half); selp, slct: `type`.
    Type dst = Type::None;
    // The sources' types, `sources` of them: the compared or selected values, then the combining predicate
    // (.pred), selp's predicate or slct's .s32/.f32 selector. A predicate logic source may also be an integer
    // constant, nonzero meaning true (nvcc writes `xor.pred %p1, %p2, -1`).
    std::array<Type, 3> src{};
    unsigned sources = 0;
};

Expected<Compare> decode_compare(const ast::Instruction& in);

// The bits `set` writes for true in its destination type DST when it compares half-precision values: all ones of the
// integer's width, 1.0 in the float's format, per half for the packed types; 0 for a type set cannot write.
inline uint64_t set_half_true_bits(Type dst) {
    switch (dst) {
    case Type::U32:
    case Type::S32:
        return 0xffffffffu;
    case Type::U16:
    case Type::S16:
        return 0xffffu;
    case Type::F32:
        return 0x3f800000u;
    case Type::F16:
        return 0x3c00u;
    case Type::BF16:
        return 0x3f80u;
    case Type::F16x2:
        return 0x3c003c00u;
    case Type::BF16x2:
        return 0x3f803f80u;
    default:
        return 0;
    }
}

} // namespace d4r::ptx
