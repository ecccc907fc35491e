// d4r gpu: the GPUs d4r sees in the KFD topology and the one it would use.
#include <fmt/format.h>

#include "cli_common.h"
#include "core/env.h"
#include "core/env_vars.h"
#include "kernelset/gpu_topology.h"
#include "verbs.h"

namespace d4r::cli {

namespace {

int run_gpu(const std::string& kfd_root) {
    auto decision = kernels::decide_gpu_arch(process_environment(), kfd_root);
    if (!decision) return report_error(decision.error());
    for (const std::string& w : decision->warnings) fmt::print(stderr, "d4r: warning: {}\n", w);

    if (decision->gpus.empty()) {
        fmt::print("no GPU found in {} (the amdgpu driver publishes AMD GPUs there)\n", kfd_root);
    } else {
        fmt::print("{:<6}{:<10}{:>6}  {}\n", "node", "target", "simds", "device");
        for (const kernels::GpuNode& g : decision->gpus) {
            bool used = decision->chosen && decision->chosen->node == g.node;
            fmt::print("{:<6}{:<10}{:>6}  0x{:04x}{}\n", g.node, g.arch, g.simd_count, g.device_id,
                       used ? "  <- most SIMDs" : "");
        }
    }
    if (decision->arch.empty()) {
        fmt::print("d4r would use: none (set {} to force an architecture)\n", env_name(EnvVar::GpuArch));
        return kExitFailed;
    }
    fmt::print("d4r would use: {} (from {})\n", decision->arch, decision->source);
    return kExitOk;
}

} // namespace

void register_gpu_verb(CLI::App& root) {
    auto kfd_root = std::make_shared<std::string>(kernels::kDefaultKfdTopology);
    CLI::App* sub = root.add_subcommand(
        "gpu", "list the GPUs in the KFD topology (node, gfx target, SIMDs) and the one d4r would use; exit 1 if none");
    sub->add_option("--kfd-root", *kfd_root, "KFD topology folder")->capture_default_str();
    set_action(sub, [kfd_root] { return run_gpu(*kfd_root); });
}

} // namespace d4r::cli
