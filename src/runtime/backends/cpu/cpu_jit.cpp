// cpu backend: kernels compiled by the PTX JIT (src/jit), D4R_CPU_EXEC=jit (the default; interp turns it off). A
// kernel is compiled at its first launch, or loaded from the JIT's compile cache when an earlier process compiled it;
// one the JIT does not handle yet runs interpreted, and so does every kernel when libLLVM cannot be loaded — each
// said once in the log with the reason.
#include <fmt/format.h>

#include "core/env_vars.h"
#include "core/log.h"
#include "core/strings.h"
#include "jit/kernel_compiler.h"
#include "ptxsim/compiled.h"
#include "runtime/backends/cpu/cpu_state.h"

namespace d4r::runtime::cpu {

bool jit_enabled() {
    static const bool jit = [] {
        const EnvVarInfo& var = env_var_info(EnvVar::CpuExec);
        const std::string mode =
            to_lower(env_text(process_environment(), EnvVar::CpuExec).value_or(std::string(var.default_value)));
        if (mode == "jit")
            log::info("cpu backend: {}=jit: kernels run compiled by the PTX JIT where it can", var.name);
        else
            log::info("cpu backend: {}={}: kernels run interpreted", var.name, mode);
        return mode == "jit";
    }();
    return jit;
}

std::shared_ptr<const ptxsim::CompiledKernel> compiled_kernel(Function& f) {
    if (!jit_enabled()) return nullptr;
    std::call_once(f.compile_once, [&f] {
        static std::once_flag no_llvm;
        auto compiler = jit::KernelCompiler::instance();
        if (!compiler) {
            // A warning: the default asked for compiled kernels (say how to get them, or to ask for the interpreter).
            std::call_once(no_llvm, [&] {
                log::warn(
                    "cpu backend: no PTX JIT, kernels run interpreted (install libLLVM 15 or later, e.g. Debian's "
                    "libllvm19, or set {}=interp): {}",
                    env_name(EnvVar::CpuExec), compiler.error().message());
            });
            return;
        }
        auto compiled = (*compiler)->compile(ptxsim::kernel_source(*f.kernel));
        if (!compiled) {
            log::info("cpu backend: kernel '{}' runs interpreted: {}", f.kernel->name(), compiled.error().message());
            return;
        }
        if ((*compiled)->warp)
            log::debug("cpu backend: kernel '{}' compiled by the PTX JIT to warp code{}", f.kernel->name(),
                       (*compiled)->whole_warps_in_x ? " for blocks of whole warps in x" : "");
        else
            log::info("cpu backend: kernel '{}' compiled by the PTX JIT one thread at a time: {}", f.kernel->name(),
                      (*compiled)->why_not_warp);
        f.compiled = *compiled;
    });
    return f.compiled;
}

} // namespace d4r::runtime::cpu
