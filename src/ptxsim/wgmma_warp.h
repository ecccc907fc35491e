// ptxsim internals: one warp's part of a wgmma.mma_async (ptx/instr_wgmma.h, ops_wgmma.cpp), shared by the
// interpreter's handler and the helpers of compiled warp code (compiled_warp_ops.cpp).
#pragma once

#include <cstdint>

#include "ptxsim/exec.h"

namespace d4r::ptxsim {

struct WgmmaForm {
    unsigned n = 8;                          // N of m64nNk16
    bool acc16 = false, bf16 = false;        // f16 accumulators; bf16 inputs
    bool negate_a = false, negate_b = false; // imm-scale -1
};

// Warp W's 16 rows (RANK = its warp % 4) of D = A B + (SCALE_D ? D : 0): D[r] is register r's 32 lanes (N / 2 or N / 4
// registers); A is four registers' lanes (A_REGS) or, when A_REGS is null, the 32 lanes' descriptors A_DESC; B_DESC
// the lanes' descriptors of B. SCALE_D: every lane's scale-d (kFullMask or 0; anything else faults). False after a
// fault (descriptors that differ between lanes, a swizzled one, an address outside shared memory).
bool wgmma_warp(Warp& w, const WgmmaForm& f, uint32_t* const* d, const uint32_t* const* a_regs, const uint64_t* a_desc,
                const uint64_t* b_desc, uint32_t scale_d, unsigned rank);

} // namespace d4r::ptxsim
