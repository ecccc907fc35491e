// d4r's PTX JIT: kernels of loaded PTX modules compiled to x86-64 code through ORC's LLJIT (docs/ptx-front-end.md,
// "The JIT").
//
// Promise: KernelCompiler::instance() loads the system's libLLVM once per process (jit/llvm_library.h) and names
// why when it cannot. compile() lowers one kernel (jit/lower.h), checks the IR with LLVM's verifier, optimises it
// and compiles it; the result runs in ptxsim's launches (LaunchConfig::compiled) and stays valid for the process.
// A kernel is compiled to warp code where it qualifies, else to a thread function; one the lowering does not handle
// yet either way is an Unsupported error naming the line and instruction. Thread-safe:
// compiles are serialised.
#pragma once

#include <memory>
#include <mutex>

#include "core/status.h"
#include "jit/llvm_library.h"
#include "ptxsim/compiled.h"

namespace d4r::jit {

class KernelCompiler {
public:
    static Expected<KernelCompiler*> instance();
    ~KernelCompiler();
    KernelCompiler(const KernelCompiler&) = delete;
    KernelCompiler& operator=(const KernelCompiler&) = delete;

    // Warp code (lower.h) when the kernel qualifies and WARP allows it, otherwise a thread function whose
    // CompiledKernel::why_not_warp says why not.
    Expected<std::shared_ptr<const ptxsim::CompiledKernel>> compile(const ptxsim::KernelSource& source,
                                                                    bool warp = true);
    const LlvmLibrary& llvm() const { return m_llvm; }

private:
    Expected<std::shared_ptr<ptxsim::CompiledKernel>> compile_as(const ptxsim::KernelSource& source, bool warp);
    KernelCompiler(const LlvmLibrary& llvm, abi::LLVMOrcLLJITRef jit) : m_llvm(llvm), m_jit(jit) {}

    const LlvmLibrary& m_llvm;
    abi::LLVMOrcLLJITRef m_jit;
    std::mutex m_mutex;
    uint64_t m_count = 0; // kernels compiled (each gets its own symbol name)
};

} // namespace d4r::jit
