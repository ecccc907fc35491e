// cpu backend: kernels compiled by the PTX JIT (src/jit) when D4R_CPU_EXEC=jit. A kernel is compiled at its first
// launch; one the JIT does not handle yet runs interpreted, and so does every kernel when libLLVM cannot be loaded —
// each said once in the log with the reason.
#include <fmt/format.h>

#include "core/env_vars.h"
#include "core/log.h"
#include "core/strings.h"
#include "jit/kernel_compiler.h"
#include "ptxsim/compiled.h"
#include "runtime/backends/cpu/cpu_state.h"

namespace d4r::runtime::cpu {

namespace {

bool jit_wanted() {
    static const bool jit = [] {
        const std::optional<std::string> mode = env_text(process_environment(), EnvVar::CpuExec);
        // Chosen, not the default yet: compiled code runs 6-19x faster than interpreted (docs/performance.md, "The PTX
        // JIT: warp code"), but each process compiles its kernels at their first launch and there is no compile
        // cache: with jit as the default the test suite took 4.6x longer and the shim's first evaluations passed its
        // 5 s timeout (docs/ptx-front-end.md).
        const bool on = mode && to_lower(*mode) == "jit";
        if (on)
            log::info("cpu backend: {}=jit: kernels run compiled by the PTX JIT where it can",
                      env_name(EnvVar::CpuExec));
        return on;
    }();
    return jit;
}

} // namespace

std::shared_ptr<const ptxsim::CompiledKernel> compiled_kernel(Function& f) {
    if (!jit_wanted()) return nullptr;
    std::call_once(f.compile_once, [&f] {
        static std::once_flag no_llvm;
        auto compiler = jit::KernelCompiler::instance();
        if (!compiler) {
            std::call_once(no_llvm, [&] {
                log::info("cpu backend: no PTX JIT, kernels run interpreted: {}", compiler.error().message());
            });
            return;
        }
        auto compiled = (*compiler)->compile(ptxsim::kernel_source(*f.kernel));
        if (!compiled) {
            log::info("cpu backend: kernel '{}' runs interpreted: {}", f.kernel->name(), compiled.error().message());
            return;
        }
        if ((*compiled)->warp)
            log::debug("cpu backend: kernel '{}' compiled by the PTX JIT to warp code", f.kernel->name());
        else
            log::info("cpu backend: kernel '{}' compiled by the PTX JIT one thread at a time: {}", f.kernel->name(),
                      (*compiled)->why_not_warp);
        f.compiled = *compiled;
    });
    return f.compiled;
}

} // namespace d4r::runtime::cpu
