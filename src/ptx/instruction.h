// The PTX front end (docs/ptx-front-end.md): one instruction's meaning, whatever its family. decode_instruction()
// routes an instruction of the syntax tree to its family's decoder the way the ISA overloads opcodes (an `add` is
// the integer, f32/f64 or half family's by its type; `min.u16x2` the packed family's; `and.pred` predicate logic)
// and returns that family's typed instruction. This is what a consumer that is not ptxsim (the JIT) reads.
//
// Promise: every instruction ptxsim runs decodes here to the same meaning ptxsim executes (ptxsim's decoders call
// the same family decoders); errors carry no location: Invalid for what is not PTX (an unknown opcode, a wrong
// operand count), Unsupported for real PTX that d4r does not implement.
#pragma once

#include <string_view>
#include <variant>

#include "core/status.h"
#include "ptx/ast.h"
#include "ptx/instr_async.h"
#include "ptx/instr_atomic.h"
#include "ptx/instr_compare.h"
#include "ptx/instr_control.h"
#include "ptx/instr_cvt.h"
#include "ptx/instr_float.h"
#include "ptx/instr_half.h"
#include "ptx/instr_int.h"
#include "ptx/instr_matrix.h"
#include "ptx/instr_mbarrier.h"
#include "ptx/instr_memory.h"
#include "ptx/instr_move.h"
#include "ptx/instr_simd.h"
#include "ptx/instr_texture.h"
#include "ptx/instr_warp.h"
#include "ptx/instr_wgmma.h"
#include "ptx/instr_wmma.h"

namespace d4r::ptx {

using TypedInstruction =
    std::variant<Cvt, FloatArith, IntArith, HalfArith, Compare, Move, MemoryAccess, Control, WarpCollective, Atomic,
                 MatrixOp, AsyncCopy, PackedInt, Wmma, TextureOp, Mbarrier, Wgmma>;

// What decoding needs beyond the instruction: the module's .target ("sm_90"; the sub-byte wmma forms check it).
struct DecodeContext {
    std::string_view target;
};

Expected<TypedInstruction> decode_instruction(const ast::Instruction& in, const DecodeContext& context);

// Whether BASE ("add", "wgmma") names an instruction of the PTX ISA (up to 8.8), implemented or not.
bool is_ptx_opcode(std::string_view base);

} // namespace d4r::ptx
