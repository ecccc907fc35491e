// The PTX front end, typed instructions (docs/ptx-front-end.md): the warp-wide matrix instructions mma.sync
// (m16n8k8, m16n8k16 with f16/bf16 inputs, m16n8k32 with e4m3/e5m2 inputs; .row.col) and ldmatrix.sync (m8n8
// .x1/.x2/.x4 {.trans} .b16). The wmma family is not typed yet.
//
// Promise: decode_matrix() accepts exactly the forms d4r implements and says what each computes and how many
// registers each fragment has; errors carry no location (the consumer adds it): Invalid for an operand count no
// assembler takes, Unsupported for anything else it refuses, with ptxsim's messages.
#pragma once

#include <cstdint>

#include "core/status.h"
#include "ptx/ast.h"
#include "ptx/types.h"

namespace d4r::ptx {

// The element format of a matrix operand (the order of ptxsim's mma numerics, mma_numerics.h).
enum class ElementFormat : uint8_t { F16, BF16, E4M3, E5M2, F32 };

struct MatrixOp {
    enum class Op : uint8_t {
        Mma,        // mma.sync.aligned.shape.row.col.dtype.atype.btype.ctype {d}, {a}, {b}, {c}
        LoadMatrix, // ldmatrix.sync.aligned.m8n8.xN{.trans}{.shared}.b16 {d}, [a]
    };
    Op op = Op::Mma;
    // Mma: K of m16n8kK, the accumulators' type (D and C alike: .f32 or .f16), the inputs' formats and the
    // registers of each fragment (A: 2 for K = 8, else 4; B: 1 or 2; C and D: 4 for .f32, 2 for .f16).
    unsigned k = 16;
    Type accumulator = Type::F32;
    ElementFormat a = ElementFormat::F16, b = ElementFormat::F16;
    unsigned a_regs = 4, b_regs = 2, c_regs = 4;
    // LoadMatrix: how many 8x8 matrices (one destination register each), transposed or not, the written space
    // (.shared, or generic when none is written).
    unsigned matrices = 1;
    bool transpose = false;
    StateSpace space = StateSpace::Generic;
};

Expected<MatrixOp> decode_matrix(const ast::Instruction& in);

} // namespace d4r::ptx
