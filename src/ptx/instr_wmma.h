// The PTX front end, typed instructions (docs/ptx-front-end.md): wmma, the warp-level matrix instructions
// (wmma.load.a/.b/.c, wmma.store.d, wmma.mma) with their shapes, element types and fragment sizes as the ISA
// declares them (the facts ptxsim's executors use too: wmma:: below).
//
// Promise: decode_wmma() accepts exactly the forms d4r implements and says what each does and how many registers
// each fragment has; errors carry no location (the consumer adds it): Invalid for an operand count no assembler
// takes, Unsupported for anything else it refuses (with ptxsim's messages), the sub-byte forms included when the
// module's target (TARGET: the architecture of its .target, "sm_75"; empty when none) is older than the ISA allows.
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>

#include "core/status.h"
#include "ptx/ast.h"
#include "ptx/types.h"

namespace d4r::ptx {

namespace wmma {

enum class Frag : uint8_t { A, B, C }; // C: the accumulator, and the D of a store
enum class WShape : uint8_t { M16N16K16, M32N8K16, M8N32K16, M16N16K8, M8N8K4, M8N8K32, M8N8K128 };
enum class EType : uint8_t { F16, BF16, F32, S8, U8, S32, TF32, F64, S4, U4, B1 };

struct Dims {
    unsigned m, n, k;
};
constexpr Dims dims_of(WShape s) {
    switch (s) {
    case WShape::M16N16K16:
        return {16, 16, 16};
    case WShape::M32N8K16:
        return {32, 8, 16};
    case WShape::M8N32K16:
        return {8, 32, 16};
    case WShape::M16N16K8:
        return {16, 16, 8};
    case WShape::M8N8K4:
        return {8, 8, 4};
    case WShape::M8N8K32:
        return {8, 8, 32};
    case WShape::M8N8K128:
        return {8, 8, 128};
    }
    return {16, 16, 16};
}
constexpr bool sub_byte(EType t) { return t == EType::S4 || t == EType::U4 || t == EType::B1; }
constexpr bool sub_byte_shape(WShape s) { return s == WShape::M8N8K32 || s == WShape::M8N8K128; }
constexpr unsigned bits_of(EType t) {
    switch (t) {
    case EType::F16:
    case EType::BF16:
        return 16;
    case EType::S8:
    case EType::U8:
        return 8;
    case EType::S4:
    case EType::U4:
        return 4;
    case EType::B1:
        return 1;
    case EType::F64:
        return 64;
    default:
        return 32;
    }
}

// The matrix a fragment holds: rows x cols.
constexpr std::pair<unsigned, unsigned> matrix_of(Frag f, Dims d) {
    return f == Frag::A ? std::pair{d.m, d.k} : f == Frag::B ? std::pair{d.k, d.n} : std::pair{d.m, d.n};
}

// Registers of a fragment as the ISA declares them (32-bit; 64-bit for f64).
constexpr unsigned regs_of(Frag f, WShape s, EType t) {
    if (f != Frag::C && t == EType::F16) return 8;
    const auto [rows, cols] = matrix_of(f, dims_of(s));
    const unsigned per_reg = t == EType::F64 ? 1 : 32 / bits_of(t);
    return rows * cols / 32 / per_reg;
}

// Which input (A/B) types a shape takes.
constexpr bool input_fits(WShape s, EType t) {
    switch (s) {
    case WShape::M16N16K8:
        return t == EType::TF32;
    case WShape::M8N8K4:
        return t == EType::F64;
    case WShape::M8N8K32:
        return t == EType::S4 || t == EType::U4;
    case WShape::M8N8K128:
        return t == EType::B1;
    default:
        return t == EType::F16 || t == EType::BF16 || t == EType::S8 || t == EType::U8;
    }
}

} // namespace wmma

struct Wmma {
    enum class Op : uint8_t {
        Load,  // wmma.load.a|.b|.c.sync.aligned.layout.shape{.space}.type {frag}, [a]{, stride}
        Store, // wmma.store.d.sync.aligned.layout.shape{.space}.type [a], {frag}{, stride}
        Mma,   // wmma.mma.sync.aligned.alayout.blayout.shape{.rn}{.satfinite}{.xor|.and.popc}.dtype{.atype.btype}.ctype
    };
    enum class BitOp : uint8_t { None, XorPopc, AndPopc }; // single-bit mma
    Op op = Op::Load;
    wmma::WShape shape = wmma::WShape::M16N16K16;
    // Load/Store: the fragment, its layout, type and registers, the written space, whether a stride is given.
    wmma::Frag fragment = wmma::Frag::A;
    bool col = false;
    wmma::EType type = wmma::EType::F16; // Mma: the inputs' (A and B) type
    unsigned regs = 0;
    StateSpace space = StateSpace::Generic;
    bool stride = false;
    // Mma: the layouts of A and B, D's and C's types, the modifiers and every fragment's registers.
    bool a_col = false, b_col = true;
    wmma::EType d_type = wmma::EType::F32, c_type = wmma::EType::F32;
    bool satfinite = false;
    BitOp bit_op = BitOp::None;
    unsigned d_regs = 0, a_regs = 0, b_regs = 0, c_regs = 0;
};

Expected<Wmma> decode_wmma(const ast::Instruction& in, std::string_view target);

} // namespace d4r::ptx
