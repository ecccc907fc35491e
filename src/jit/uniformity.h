// d4r's PTX JIT: whether a function's branches can diverge (used by the warp lowering, lower.h: warp code stops at a
// barrier with the whole warp and runs a warp collective with the lanes it has, so a kernel with barriers or
// collectives is warp code only where every lane of a warp reaches them together).
//
// Promise: divergent_branch() is "" only when no conditional branch or brx.idx of F can see different values in two
// lanes of one warp that have not exited; otherwise it names the first one it cannot prove uniform ("line N: 'bra'
// may diverge ..."). Over-approximates divergence: a register is uniform when every instruction writing it reads
// only uniform registers, immediates, variable addresses, kernel parameters (ld.param) and the block's or grid's
// special registers (%ctaid, %ntid, %nctaid, ...), under a uniform guard; anything read from other memory, %tid,
// %laneid, %lanemask_*, the clocks, atomics and collectives make it divergent. Sound because, with no divergent
// branch, the lanes of a warp that have not exited run the same instructions in the same order.
#pragma once

#include <string>
#include <string_view>
#include <unordered_set>

#include "ptx/ast.h"

namespace d4r::jit {

//
// WHOLE_WARPS (every function here): assume that the block's x dimension is a multiple of 32, so that each warp's
// lanes share %tid.y and %tid.z and hold %tid.x = 32k + lane (warps are consecutive threads of the block). Then
// %tid.y, %tid.z and %ntid.x (a multiple of 32) are uniform, and so is what keeps the form 32k + lane apart and
// reads the k alone: a shift right by 5 or more, an and with the low 5 bits clear, a comparison with a boundary
// that is a multiple of 32 (`tid.x < 64`, `tid.z * ntid.x + tid.x > 63`: nvcc's spelling of "the first two warps").
// Code analysed so is right only for such launches (the caller must check them).
std::string divergent_branch(const ptx::ast::Function& f, bool whole_warps = false);
// The registers that may differ between the lanes of a warp that have not exited (the same analysis; where
// divergent_branch() is "", every other register holds one value in all of them).
std::unordered_set<std::string_view> divergent_registers(const ptx::ast::Function& f, bool whole_warps = false);

// "" when no barrier of F can be reached while lanes of its warp that have not exited wait elsewhere (warp code's
// schedule, lower.h); otherwise why not ("line N: 'bar.sync 0' may be reached while lanes wait at ..."). Each branch
// that may diverge leaves lanes waiting over a region of the body: from the branch to its label (forward), or the
// loop from its label to the branch (backward); a region grows to every branch inside it that leaves it (the
// others run on while the lanes wait), and a register written inside one may differ between lanes (so branches it
// decides may diverge too), up to a fixed point. A barrier inside no region sees every lane.
std::string barrier_under_divergence(const ptx::ast::Function& f, bool whole_warps = false);

// The same for the warp collectives that wait for the lanes of their warp (shfl, vote, match, redux,
// bar.warp.sync; not activemask): "" when none can be reached while lanes of its warp that have not exited wait
// elsewhere — but at a label that leads straight to an exit or ret (such lanes run nothing more: the interpreter's
// collective waits for them to leave, warp code counts them gone). The warp-wide matrix instructions (mma.sync,
// ldmatrix, wmma.mma) are not counted: they need all 32 lanes at once and fault without them, in warp code as
// interpreted (uniformity.cpp, sync_point, says why that is the same for every correct program).
std::string collective_under_divergence(const ptx::ast::Function& f, bool whole_warps = false);

} // namespace d4r::jit
