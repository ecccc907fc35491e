// d4r's PTX JIT: the key of a compiled kernel in the compile cache (kernel_cache.h; docs/ptx-front-end.md, "The
// compile cache").
//
// Promise: a key names everything the code the JIT generates for a kernel depends on, so that two compiles with the
// same key give the same code: the kernel (its module's PTX text, the entry, the layout ptxsim gave its memory), the
// code asked for (warp code or a thread function), the target (LLVM's triple, CPU name and features), the libLLVM
// version, and the JIT's own version: the cache's entry format and the digest of the sources that decide the code
// (jit_version.h, generated at build time from src/jit, src/ptx, src/ptxsim and abi/llvm_c.h, so a change to the
// lowering needs no hand-kept number). The key's text keeps each part on a line of its own; its digest (SHA-256, 64
// hex digits) names the entry.
#pragma once

#include <string>
#include <string_view>

#include "ptxsim/compiled.h"

namespace d4r::jit {

struct KeyParts {
    std::string jit;      // the JIT's version (jit_version())
    std::string llvm;     // libLLVM's version
    std::string triple;   // LLVM's target triple
    std::string cpu;      // the CPU LLVM generates code for
    std::string features; // its features as LLVM spells them ("+avx2,+fma,...")
    std::string code;     // what is compiled: "warp" or "thread", and the optimisation level
    std::string kernel;   // kernel_text()
};

struct CacheKey {
    std::string text;   // the parts, one "name value" line each
    std::string digest; // SHA-256 of the text, 64 hex digits
};

CacheKey make_key(const KeyParts& parts);

// The version of the JIT's output: the entry format and the digest of the JIT's sources (jit_version.h).
std::string jit_version();

// What of SOURCE the lowering reads, as text: the SHA-256 of its module's PTX, the entry's name and index, its
// parameters, and the place of each variable of the module and of its functions (the host address of a .global or
// .const variable left out: compiled code reads it at run time, CompiledThread::variables). Empty when the module's
// text is unknown (KernelSource::module_text): such a kernel is not cached.
std::string kernel_text(const ptxsim::KernelSource& source);

} // namespace d4r::jit
