// The round trip (issue 29; docs/ptx-front-end.md, "The round trip"): a PTX module read by d4r's front end, its
// kernels lowered from the typed instructions to LLVM IR for LLVM's NVPTX back end (jit/lower.h,
// lower_kernel_nvptx) and printed back as PTX by that back end. Run on an NVIDIA GPU, the new PTX must compute what
// the original computes: that checks the front end's reading of every instruction against the hardware, with no
// ptxsim in between.
//
// Promises:
// - round_trip_ptx() lowers every defined .entry and .func of the module, or none: a construct the lowering does not
//   handle is an Unsupported error naming the kernel or function, line and instruction (each one's first, one per
//   line), never a different computation. The entries keep their names and parameter blocks (each parameter a .u32
//   or .u64 of the same offset), the module's .global and .const variables their names, sizes and initial bytes.
// - LLVM's code generation runs in a child process, so an abort inside the back end (LLVM reports a form it cannot
//   select by aborting) is an Internal error with LLVM's message, not the end of the caller.
// - Deterministic: the same module and options give the same text.
#pragma once

#include <string>
#include <string_view>

#include "core/status.h"
#include "jit/llvm_library.h"

namespace d4r::jit {

struct NvptxOptions {
    std::string cpu = "sm_90"; // the .target of the output (the H200's)
    // The .version LLVM prints (PTX ISA 8.0: what sm_90 needs); the output says the input's where that is higher.
    std::string features = "+ptx80";
    // An instruction LLVM 19 has no intrinsic for as one inline PTX instruction (jit/lower.h, NvptxObjects);
    // false refuses it.
    bool inline_ptx = true;
};

// Whether LIBRARY has LLVM's NVPTX back end (its target initialised once), or why not.
Status init_nvptx_target(const LlvmLibrary& library);

// PTX in, PTX out; NAME is for messages ("int_addsub.ptx").
Expected<std::string> round_trip_ptx(const LlvmLibrary& library, std::string_view ptx, std::string_view name,
                                     const NvptxOptions& options = {});

} // namespace d4r::jit
