// The PTX front end, typed instructions (docs/ptx-front-end.md): Hopper's warpgroup matrix instructions (sm_90a).
// wgmma.mma_async.sync.aligned.m64nNk16 with f16 inputs (f32 or f16 accumulators) or bf16 inputs (f32), N a
// multiple of 8 up to 256, A from a shared-memory matrix descriptor or from registers, B from a descriptor; and
// wgmma.fence, wgmma.commit_group and wgmma.wait_group N.
//
// What one wgmma.mma_async computes: D (64 x N) = A (64 x 16) * B (16 x N) + (scale-d ? D : 0), A and B each times
// its imm-scale (1 or -1); scale-d is a predicate or the constant 0 or 1 (ptxas takes both). Each warp of the warpgroup
// (four consecutive warps, rank = warp % 4) holds rows 16 rank .. 16 rank + 15 of A (in registers: mma.sync m16n8k16's
// A fragment) and of D (per 8 columns j: f32 registers 4j .. 4j + 3 as mma.sync's m16n8 D fragment, f16 registers 2j,
// 2j + 1), so a warp's rows depend only on its own registers and on shared memory. A matrix descriptor (64 bits): start
// address >> 4 in bits 0-13, the leading-dimension byte offset (LBO) >> 4 in bits 16-29, the stride-dimension byte
// offset (SBO) >> 4 in bits 32-45, the base offset in bits 49-51, the swizzle mode in bits 62-63. d4r implements the
// K-major layout without swizzling (mode 0, imm-trans 0): the matrix is made of 8 x 8 core matrices of 16-byte rows
// (128 contiguous bytes), core matrix (i, j) (i along M or N, j along K) at start + i * SBO + j * LBO. Swizzled layouts
// and transposed operands are refused (Unsupported).
//
// Promise: decode_wgmma() accepts exactly the forms d4r implements and says what each computes; errors carry no
// location (the consumer adds it): Invalid for an operand count no assembler takes, Unsupported for anything else.
#pragma once

#include <cstdint>

#include "core/status.h"
#include "ptx/ast.h"
#include "ptx/instr_matrix.h"
#include "ptx/types.h"

namespace d4r::ptx {

struct Wgmma {
    enum class Op : uint8_t {
        Mma,         // wgmma.mma_async.sync.aligned.m64nNk16.dtype.atype.btype d, a, b-desc, scale-d, sa, sb{, ta}, tb
        Fence,       // wgmma.fence.sync.aligned
        CommitGroup, // wgmma.commit_group.sync.aligned
        WaitGroup,   // wgmma.wait_group.sync.aligned N
    };
    Op op = Op::Mma;
    unsigned n = 8;                           // Mma: N of m64nNk16
    Type accumulator = Type::F32;             // Mma: D's type, .f32 or .f16
    ElementFormat input = ElementFormat::F16; // Mma: A's and B's, F16 or BF16
    bool a_registers = false;                 // Mma: A is four registers (else a descriptor, a 64-bit register)
    unsigned d_regs = 4;                      // Mma: N / 2 (f32) or N / 4 (f16) 32-bit registers
    bool negate_a = false, negate_b = false;  // Mma: imm-scale-a / imm-scale-b of -1
    int scale_d = -1;                         // Mma: scale-d written as the constant 0 or 1 (-1: a predicate)
    uint64_t groups = 0;                      // WaitGroup: N
};

Expected<Wgmma> decode_wgmma(const ast::Instruction& in);

// The parts of a matrix descriptor (see above), in bytes.
struct MatrixDescriptor {
    uint32_t start = 0, leading = 0, stride = 0;
    unsigned base_offset = 0, swizzle = 0;
};
inline MatrixDescriptor matrix_descriptor(uint64_t bits) {
    return {static_cast<uint32_t>(bits & 0x3fff) << 4, static_cast<uint32_t>((bits >> 16) & 0x3fff) << 4,
            static_cast<uint32_t>((bits >> 32) & 0x3fff) << 4, static_cast<unsigned>((bits >> 49) & 7),
            static_cast<unsigned>(bits >> 62)};
}
// Where element (row R, k K) of a K-major matrix without swizzling lies, in bytes from its start (2-byte elements).
inline uint32_t core_matrix_offset(const MatrixDescriptor& d, uint32_t r, uint32_t k) {
    return (r / 8) * d.stride + (k / 8) * d.leading + (r % 8) * 16 + (k % 8) * 2;
}

} // namespace d4r::ptx
