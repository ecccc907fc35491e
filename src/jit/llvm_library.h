// d4r's PTX JIT (issue 29; docs/ptx-front-end.md, "The PTX JIT"): the libLLVM it compiles with, found at
// run time. libd4rcuda keeps no link-time dependency on LLVM: it loads a system libLLVM and resolves LLVM's C API
// from it (abi/llvm_c.h).
//
// Promise: load_llvm_library() opens the first of CANDIDATES that loads and exports every function of
// D4R_LLVM_C_FUNCTIONS, initialises LLVM's x86-64 target once, and returns its table (with the library's version);
// otherwise an error naming each candidate and why it was not taken (not found, or the first function it lacks). The
// table and the library stay loaded for the process.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "abi/llvm_c.h"
#include "core/status.h"

namespace d4r::jit {

struct LlvmLibrary {
#define D4R_LLVM_MEMBER(name, ret, params) abi::PFN_##name name = nullptr;
    D4R_LLVM_C_FUNCTIONS(D4R_LLVM_MEMBER)
#undef D4R_LLVM_MEMBER
    std::string path;       // as it was opened
    std::string version;    // "19.1.7" (LLVMGetVersion), or the path where the library does not say (before LLVM 16)
    void* handle = nullptr; // dlopen's, for the functions only some libraries export (the NVPTX target's)
};

// The libLLVM names d4r tries, newest first (the soname Debian and Ubuntu ship, then the older spellings).
std::vector<std::string> default_llvm_candidates();

Expected<const LlvmLibrary*> load_llvm_library(std::span<const std::string> candidates);

// LLVM's message for ERROR, which is consumed; "" for a null error.
// Makes LIBRARY's symbols global (dlopen's RTLD_GLOBAL, the library already loaded): some builds' LLJIT looks its own
// runtime functions up in the process's global scope (Ubuntu 24.04's LLVM 17: "Symbols not found:
// [ llvm_orc_registerEHFrameSectionWrapper ]"), where a library opened RTLD_LOCAL, as load_llvm_library opens it so
// that another LLVM in the process (Mesa's) keeps its own symbols, is not. False when dlopen refuses.
bool make_llvm_library_global(const LlvmLibrary& library);

std::string take_error_message(const LlvmLibrary& llvm, abi::LLVMErrorRef error);

} // namespace d4r::jit
