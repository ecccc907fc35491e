// The PTX front end, typed instructions (docs/ptx-front-end.md): cvt. What a cvt means, decoded once from its opcode
// and operand count, for every consumer (ptxsim picks its handler from it; the JIT lowers it).
//
// Promise: decode_cvt() accepts exactly the cvt forms d4r implements and says what each means; anything else is
// an error without a location (the consumer adds module, line and text): Unsupported for a form PTX has but d4r does
// not implement (`.rs`), Invalid for operand counts no assembler accepts, Unsupported (as ptxsim always answered)
// for modifier combinations outside the forms below.
#pragma once

#include <optional>

#include "core/status.h"
#include "ptx/ast.h"
#include "ptx/types.h"

namespace d4r::ptx {

struct Cvt {
    enum class Form : uint8_t {
        Convert, // cvt{.irnd|.frnd}{.ftz}{.sat}{.relu}{.satfinite}.dtype.atype d, a: integers and floats
        Pack,    // cvt.frnd{.relu}{.satfinite}.f16x2|.bf16x2.f32 d, a, b (a in the high half, b in the low)
        ToTf32,  // cvt.rna{.satfinite}|.rn|.rz.tf32.f32 d, a
        ToFp8,   // cvt.rn.satfinite{.relu}.e4m3x2|.e5m2x2.f32 d, a, b and .f16x2 d, a
        FromFp8, // cvt.rn{.relu}.f16x2.e4m3x2|.e5m2x2 d, a
    };
    Form form = Form::Convert;
    // Convert: the destination and source types, a .bN type given as .uN (it converts like it). Pack: F16 or
    // BF16 and F32. ToTf32: TF32 and F32. ToFp8: B16 and F32 or F16x2. FromFp8: F16x2 and B16.
    Type dst = Type::None, src = Type::None;
    std::optional<Round> round;     // .rn .rz .rm .rp (.rna: ToTf32 only)
    std::optional<Round> int_round; // .rni .rzi .rmi .rpi, as Rn Rz Rm Rp (Convert only)
    bool ftz = false, sat = false, relu = false, satfinite = false;
    bool e5m2 = false;    // ToFp8 / FromFp8: e5m2 pairs (else e4m3)
    unsigned sources = 1; // operands after the destination: 2 for Pack and for ToFp8 from F32
};

Expected<Cvt> decode_cvt(const ast::Instruction& in);

} // namespace d4r::ptx
