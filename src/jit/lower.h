// d4r's PTX JIT: one kernel of a loaded PTX module lowered to LLVM IR (docs/ptx-front-end.md, "The JIT").
//
// Promise: lower_kernel() builds NAME, a function `uint32_t NAME(CompiledThread*)` (ptxsim/compiled.h) that runs one
// thread of the kernel exactly as ptxsim's interpreter runs it, from the front end's typed instructions
// (ptx::decode_instruction): registers become stack slots (zero at the start, as the interpreter's), labels blocks,
// a guard a branch around its instruction; memory goes through ptxsim's translation (inline for the common cases,
// the runtime's translate() otherwise) so bounds, windows and faults are the interpreter's; numerics are the
// interpreter's rules (docs/numerics.md); atomics, cp.async, the clock registers and trap are the interpreter's own
// per-lane code through ptxsim's runtime helpers. Threads run one after the other (block barriers aside), so only
// kernels whose threads do not wait for each other are lowered: anything else — warp collectives, an atom inside a
// loop, volatile or ordered loads and stores, calls, and every instruction or form not lowered yet — is refused
// with Unsupported naming the line and instruction, and the kernel runs interpreted.
//
// The compile cache (kernel_cache.h) keeps what this lowering generated across processes. Its keys carry the digest
// of the JIT's sources (src/jit, src/ptx, src/ptxsim: generated at build time, kernel_key.h), so a change to the
// lowering makes new keys by itself; a change to what a kernel keeps beside its code (LoweredKernel, CompiledKernel)
// goes into kernel_record.cpp with a new kEntryFormat (kernel_key.cpp). Generated code must not hold an address of
// this process (a host address would be wrong in the next): a .global or .const variable's address is read at run
// time (variable_address, CompiledThread::variables).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/status.h"
#include "jit/ir_builder.h"
#include "ptxsim/compiled.h"

namespace d4r::jit {

struct LoweredKernel {
    std::vector<ptxsim::CompiledKernel::Site> sites; // the instructions that may fault, by fault_site
    uint32_t state_bytes = 0;                        // per thread, for a kernel with stops (compiled.h)
    std::vector<ptxsim::CollectiveSite> collectives; // its warp collectives
    // The module variables whose host address the code reads from CompiledThread::variables, in that order.
    std::vector<std::string> variables;
};

// WARP: warp code instead, `uint32_t NAME(CompiledThread*)` running the 32 lanes of one warp (ptxsim/compiled.h,
// CompiledKernel::warp): every register a <32 x T>, executed in body order under an active mask that reproduces the
// interpreter's min-pc schedule statically. Each label and each fall-through of a branch back has a mask of lanes
// waiting there; reaching it in body order merges them into the active ones. A forward branch moves its taking lanes
// to the label's waiting mask; a branch back loops with its taking lanes while the others wait at its fall-through,
// so every waiting lane is at a later pc than the active ones and the active lanes are always the interpreter's
// lowest-pc group (brx.idx: the same for each of its labels). Exit removes lanes, a guard narrows the lanes an
// instruction writes. Memory: one check of every lane's address against the window (then a gather or scatter), the
// runtime's translate lane by lane in lane order otherwise (the first faulting lane reports); runtime numerics
// helpers are called lane by lane. The warp collectives and the tensor-core instructions (mma.sync, ldmatrix, wmma)
// run with the interpreter's rules and numerics through the runtime's warp helpers (compiled.h), for the lanes that
// reach them together. Refused (Unsupported, the kernel then compiles per thread): bar.red, a barrier or a collective
// that may be reached while lanes wait elsewhere (uniformity.h; not the matrix instructions that need all 32 lanes,
// which fault without them as interpreted), a guarded collective or wmma, a clock read in a loop.
// Atomics, textures and cp.async run lane by lane in lane order.
// WHOLE_WARPS (warp code only): analyse the lanes as uniformity.h's WHOLE_WARPS says, for launches whose block's x
// dimension is a multiple of 32 (the caller runs other launches another way: CompiledKernel::whole_warps_in_x).
Expected<LoweredKernel> lower_kernel(IrBuilder& ir, const ptxsim::KernelSource& source, const char* name,
                                     bool warp = false, bool whole_warps = false);

// The same typed instructions for LLVM's NVPTX back end (docs/ptx-front-end.md, "The round trip"; nvptx/
// nvptx_module.h drives it): NAME is a `ptx_kernel` function taking the entry's parameters, one GPU thread per PTX
// thread. The families' IR is the host's (the same rules: no shift as wide as its value, division by zero spelled
// out, NaNs and .ftz spelled out); what the host lowering asks ptxsim's runtime for is the GPU's own here: special
// registers, barriers, warp collectives, the clocks and the rounding modes IR cannot spell are NVVM intrinsics,
// memory is LLVM's address spaces (no checks: the GPU faults by itself), atomics are atomicrmw and cmpxchg. Anything
// without such a spelling in LLVM 19 is refused with Unsupported naming the line and instruction, never lowered
// approximately. OBJECTS: the module variables' LLVM globals, by the index each one's VariablePlace::address holds
// in source.layout->module_variables; the kernel's own .shared and .local variables are made here.
// INLINE_PTX: an instruction LLVM 19 has no intrinsic for (tanh.approx, div.full, bar.arrive, the FP8
// conversions and FP8 mma, ...) becomes that one PTX instruction as inline assembly, rebuilt from its typed form
// (never copied from the source); without it, such an instruction is refused.
// FUNCTIONS: the module's device functions (.func), declared before any body is lowered, by name: `void NAME(ptr,
// ...)` taking one pointer per return parameter, then one per parameter, each to that parameter's bytes (the caller's
// .param variables of the call); a .func is lowered into its declaration like a kernel (lower_kernel_nvptx).
struct NvptxObjects {
    std::vector<LLVMValueRef> globals;
    std::map<std::string, LLVMValueRef, std::less<>> functions;
    bool inline_ptx = true;
};
Expected<LoweredKernel> lower_kernel_nvptx(IrBuilder& ir, const ptxsim::KernelSource& source, const char* name,
                                           const NvptxObjects& objects);

} // namespace d4r::jit
