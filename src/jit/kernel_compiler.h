// d4r's PTX JIT: kernels of loaded PTX modules compiled to x86-64 code through ORC's LLJIT (docs/ptx-front-end.md,
// "The JIT").
//
// Promise: KernelCompiler::instance() loads the system's libLLVM once per process (jit/llvm_library.h) and names
// why when it cannot; its compile cache is the one the environment sets (kernel_cache.h: cache_settings). compile()
// lowers one kernel (jit/lower.h), checks the IR with LLVM's verifier, optimises it and generates an object file for
// the host CPU (LLVM's fast code generator for the largest warp code), which it links into the process; the result runs
// in ptxsim's launches (LaunchConfig::compiled) and stays valid while the compiler lives (the process, for instance()).
// A kernel is compiled to warp code where it qualifies, else to a thread function; one the lowering does not handle yet
// either way is an Unsupported error naming the line and instruction. A kernel compiled before — in this process, or by
// any process into the compile cache — is not compiled again: the object file is loaded instead (the same code).
// Thread-safe: compiles are serialised.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "core/status.h"
#include "jit/kernel_cache.h"
#include "jit/kernel_record.h"
#include "jit/llvm_library.h"
#include "ptxsim/compiled.h"

namespace d4r::jit {

// Warp code of more instructions than this (after LLVM's optimiser) goes through LLVM's fast code generator (no
// optimisation: fast instruction selection and register allocation). LLVM's code generation grows faster than the
// function it compiles: the shim's conversion kernels, 8 200 and 14 300 instructions of memory accesses for 32 lanes,
// took it 1.6 and 2.3 s at its default level against 0.5 and 0.7 s fast, and straight-line memory-bound code like
// theirs runs no faster for it (the upscaler's kernels measured both ways: the same time a frame), while loops of
// arithmetic lose half their speed without it (the tiled GEMM, 4 400 instructions, stays below). docs/performance.md,
// "The PTX JIT's compile cache and `jit` as the default". So a kernel whose PTX is at least kFastCodegenFloatShare
// floating-point arithmetic is optimised up to kOptimisedCodegenInstructions: the refinement network's attention (17%
// of its instructions) and pixel features (63%) ran 2.6-2.8x slower through the fast generator, which saved about 60%
// of their compile time (docs/performance.md, "The network's translated frame"); the shim's conversion kernels are 2%.
// Above that the fast generator is used whatever the kernel does: the network's fused block as warp code (254 000
// instructions) took 46 s in the optimising code generator (and 54 s in the optimiser).
// And the largest lowered code (more instructions than kLightPipelineInstructions before the optimiser, so fast code
// generation follows) gets a lighter optimiser, kLightPipeline: promotion to SSA values, common subexpressions and the
// CFG's clean-up, not O2's instcombine, GVN and loop passes, which took 18 of the 22 s O2 spent on the fused refine
// block's warp code (436 000 lowered instructions; the compile 31 -> 16 s, its test's run time 0.9 -> 1.0 s;
// docs/performance.md, "The cold CI run and the PTX JIT's register slots").
inline constexpr uint64_t kFastCodegenInstructions = 6144;
inline constexpr uint64_t kLightPipelineInstructions = 131072;
inline constexpr double kFastCodegenFloatShare = 0.1;
inline constexpr uint64_t kOptimisedCodegenInstructions = 65536;

class KernelCompiler : public std::enable_shared_from_this<KernelCompiler> {
public:
    // The process's compiler, with the compile cache of the environment (a cache the environment gets wrong is
    // logged once and left out).
    static Expected<KernelCompiler*> instance();
    // A compiler of its own (its own LLJIT) with CACHE (settings with no folder: none), which generates warp code of
    // more than FAST_CODEGEN_ABOVE instructions with LLVM's fast code generator (but for floating-point arithmetic,
    // kFastCodegenFloatShare); for tests and tools. Its kernels keep
    // it alive (CompiledKernel::owner).
    static Expected<std::shared_ptr<KernelCompiler>> create(const CacheSettings& cache,
                                                            uint64_t fast_codegen_above = kFastCodegenInstructions);
    ~KernelCompiler();
    KernelCompiler(const KernelCompiler&) = delete;
    KernelCompiler& operator=(const KernelCompiler&) = delete;

    // Warp code (lower.h) when the kernel qualifies and WARP allows it, otherwise a thread function whose
    // CompiledKernel::why_not_warp says why not.
    Expected<std::shared_ptr<const ptxsim::CompiledKernel>> compile(const ptxsim::KernelSource& source,
                                                                    bool warp = true);
    // What compile() answers when it needs no compiling — the kernel linked before by this compiler, or loaded from
    // the compile cache — and nullptr when it would compile.
    Expected<std::shared_ptr<const ptxsim::CompiledKernel>> find(const ptxsim::KernelSource& source, bool warp = true);
    const LlvmLibrary& llvm() const { return m_llvm; }

    struct Counters {
        uint64_t compiled = 0;     // kernels compiled (lowered, optimised, code generated)
        uint64_t loaded = 0;       // taken from the compile cache on disk
        uint64_t reused = 0;       // compiled or loaded before by this compiler
        uint64_t fast_codegen = 0; // of the compiled: through LLVM's fast code generator (the largest warp code)
        // Time spent, in milliseconds: lowering to IR (with the verifier), LLVM's optimiser, its code generation,
        // linking objects into the process, reading and checking cache entries.
        double lowering_ms = 0, optimiser_ms = 0, codegen_ms = 0, link_ms = 0, cache_ms = 0;
    };
    Counters counters() const;
    // The compile cache (nullptr: none).
    KernelCache* cache() const { return m_cache.get(); }
    // The cache key of SOURCE compiled with WARP; nullopt when the kernel cannot be cached (kernel_key.h).
    std::optional<CacheKey> key(const ptxsim::KernelSource& source, bool warp) const;

private:
    struct Target {
        std::string triple, cpu, features;
    };
    // LLVM's code generation for the target: optimising, and fast (for the largest warp code: kernel_compiler.cpp).
    struct Machines {
        abi::LLVMTargetMachineRef full = nullptr, fast = nullptr;
    };
    KernelCompiler(const LlvmLibrary& llvm, abi::LLVMOrcLLJITRef jit, Machines machines, Target target,
                   std::unique_ptr<KernelCache> cache, uint64_t fast_codegen_above);
    Expected<std::shared_ptr<const ptxsim::CompiledKernel>> find_locked(const ptxsim::KernelSource& source,
                                                                        const std::optional<CacheKey>& cache_key);
    // Lowers, optimises and generates the object of SOURCE, named SYMBOL: warp code when WARP and the kernel
    // qualifies, else a thread function.
    Expected<KernelRecord> build(const ptxsim::KernelSource& source, bool warp, const std::string& symbol);
    Expected<KernelRecord> build_as(const ptxsim::KernelSource& source, bool warp, const std::string& symbol,
                                    bool whole_warps = false);
    // Links RECORD's object into the JIT: the function's address.
    Expected<ptxsim::CompiledThreadFn> link(const KernelRecord& record);
    // RECORD's kernel for SOURCE: the function FN, the addresses of the variables it reads.
    Expected<std::shared_ptr<const ptxsim::CompiledKernel>>
    bind(const KernelRecord& record, ptxsim::CompiledThreadFn fn, const ptxsim::KernelSource& source);
    // A symbol no object of this JIT defines yet: NAME, else NAME with a number.
    std::string fresh_symbol(const std::string& name);

    const LlvmLibrary& m_llvm;
    abi::LLVMOrcLLJITRef m_jit;
    Machines m_machines;
    Target m_target;
    std::unique_ptr<KernelCache> m_cache;
    const uint64_t m_fast_codegen_above;
    mutable std::mutex m_mutex;
    Counters m_counters;
    // What this compiler linked, by cache key digest: each kernel is linked once.
    struct Linked {
        KernelRecord record; // its object dropped
        ptxsim::CompiledThreadFn fn = nullptr;
    };
    std::map<std::string, Linked, std::less<>> m_linked;
    std::set<std::string, std::less<>> m_symbols; // every symbol given to the JIT
};

} // namespace d4r::jit
