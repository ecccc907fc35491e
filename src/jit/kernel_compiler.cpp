// Compiling kernels with ORC's LLJIT (see kernel_compiler.h).
#include "jit/kernel_compiler.h"

#include <fmt/format.h>

#include "jit/lower.h"

namespace d4r::jit {

Expected<KernelCompiler*> KernelCompiler::instance() {
    static std::mutex mutex;
    static KernelCompiler* compiler = nullptr; // lives for the process: compiled code points into it
    static std::string failure;
    std::lock_guard lock(mutex);
    if (compiler) return compiler;
    if (!failure.empty()) return make_error(ErrorCode::NotFound, "{}", failure);
    const std::vector<std::string> candidates = default_llvm_candidates();
    auto llvm = load_llvm_library(candidates);
    if (!llvm) {
        failure = llvm.error().message();
        return make_error(ErrorCode::NotFound, "{}", failure);
    }
    abi::LLVMOrcLLJITRef jit = nullptr;
    if (std::string e = take_error_message(**llvm, (*llvm)->LLVMOrcCreateLLJIT(&jit, nullptr)); !e.empty()) {
        failure = "LLVM's LLJIT did not start: " + e;
        return make_error(ErrorCode::NotFound, "{}", failure);
    }
    compiler = new KernelCompiler(**llvm, jit); // NOLINT(cppcoreguidelines-owning-memory): kept for the process
    return compiler;
}

KernelCompiler::~KernelCompiler() = default;

Expected<std::shared_ptr<const ptxsim::CompiledKernel>> KernelCompiler::compile(const ptxsim::KernelSource& source,
                                                                                bool warp) {
    std::lock_guard lock(m_mutex);
    std::string why_not_warp = "warp code not asked for";
    if (warp) {
        auto compiled = compile_as(source, true);
        if (compiled) return std::shared_ptr<const ptxsim::CompiledKernel>(std::move(*compiled));
        why_not_warp = compiled.error().message(); // Unsupported, or (a bug) invalid IR: per thread then
    }
    auto compiled = compile_as(source, false);
    if (!compiled) return std::move(compiled).error();
    (*compiled)->why_not_warp = std::move(why_not_warp);
    return std::shared_ptr<const ptxsim::CompiledKernel>(std::move(*compiled));
}

Expected<std::shared_ptr<ptxsim::CompiledKernel>> KernelCompiler::compile_as(const ptxsim::KernelSource& source,
                                                                             bool warp) {
    const LlvmLibrary& l = m_llvm;
    const std::string name = fmt::format("d4r_kernel_{}", m_count++);
    abi::LLVMOrcThreadSafeContextRef ts_context = l.LLVMOrcCreateNewThreadSafeContext();
    abi::LLVMContextRef context = l.LLVMOrcThreadSafeContextGetContext(ts_context);
    abi::LLVMModuleRef module = l.LLVMModuleCreateWithNameInContext(name.c_str(), context);
    l.LLVMSetTarget(module, l.LLVMOrcLLJITGetTripleString(m_jit));
    l.LLVMSetDataLayout(module, l.LLVMOrcLLJITGetDataLayoutStr(m_jit));
    auto fail = [&](Error e) {
        l.LLVMDisposeModule(module);
        l.LLVMOrcDisposeThreadSafeContext(ts_context);
        return e;
    };
    Expected<LoweredKernel> lowered = [&] {
        IrBuilder ir(l, context, module);
        return lower_kernel(ir, source, name.c_str(), warp);
    }();
    if (!lowered) return fail(std::move(lowered).error());
    char* message = nullptr;
    if (l.LLVMVerifyModule(module, abi::D4R_LLVMReturnStatusAction, &message)) {
        std::string text = message ? message : "?";
        if (message) l.LLVMDisposeMessage(message);
        return fail(Error(ErrorCode::Internal, "the JIT built invalid IR: " + text));
    }
    if (message) l.LLVMDisposeMessage(message);
    abi::LLVMPassBuilderOptionsRef options = l.LLVMCreatePassBuilderOptions();
    std::string e = take_error_message(l, l.LLVMRunPasses(module, "default<O2>", nullptr, options));
    l.LLVMDisposePassBuilderOptions(options);
    if (!e.empty()) return fail(Error(ErrorCode::Internal, "LLVM's optimiser failed: " + e));
    abi::LLVMOrcThreadSafeModuleRef ts_module = l.LLVMOrcCreateNewThreadSafeModule(module, ts_context);
    l.LLVMOrcDisposeThreadSafeContext(ts_context); // the module keeps the context
    e = take_error_message(l, l.LLVMOrcLLJITAddLLVMIRModule(m_jit, l.LLVMOrcLLJITGetMainJITDylib(m_jit), ts_module));
    if (!e.empty()) return make_error(ErrorCode::Internal, "LLVM did not take the kernel: {}", e);
    abi::LLVMOrcExecutorAddress address = 0;
    e = take_error_message(l, l.LLVMOrcLLJITLookup(m_jit, &address, name.c_str()));
    if (!e.empty() || address == 0) return make_error(ErrorCode::Internal, "LLVM did not compile the kernel: {}", e);
    auto kernel = std::make_shared<ptxsim::CompiledKernel>();
    kernel->fn = reinterpret_cast<ptxsim::CompiledThreadFn>(static_cast<uintptr_t>(address));
    kernel->sites = std::move(lowered->sites);
    kernel->state_bytes = lowered->state_bytes;
    kernel->collectives = std::move(lowered->collectives);
    kernel->warp = warp;
    return kernel;
}

} // namespace d4r::jit
