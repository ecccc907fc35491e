// d4r kernels select: which kernel set the runtime would use (docs/kernel-sets.md).
#include <fmt/format.h>

#include "cli_common.h"
#include "core/env.h"
#include "core/log.h"
#include "kernelset/gpu_topology.h"
#include "kernelset/kernel_set.h"
#include "verbs.h"

namespace d4r::cli {

namespace {

struct SelectOptions {
    std::string root;
    std::string arch;
    std::string kfd_root = kernels::kDefaultKfdTopology;
    bool accuracy = false;
    bool fp8 = false;
    bool explain = false;
};

int run_select(const SelectOptions& o) {
    std::optional<std::string> explicit_arch;
    if (!o.arch.empty()) explicit_arch = o.arch;
    auto decision = kernels::decide_gpu_arch(process_environment(), o.kfd_root, explicit_arch);
    if (!decision) return report_error(decision.error());
    for (const std::string& w : decision->warnings) fmt::print(stderr, "d4r: warning: {}\n", w);

    kernels::SelectionRequest request{o.root, decision->arch, o.accuracy, o.fp8};
    kernels::Selection selection = kernels::select_kernel_set(request);
    if (o.explain || log::enabled(log::Level::Info)) {
        fmt::print(stderr, "arch: {} (from {})\n", decision->arch.empty() ? "unknown" : decision->arch,
                   decision->source);
        for (const std::string& note : selection.notes) fmt::print(stderr, "  {}\n", note);
    }
    // "KIND PATH"; for kind 0 the path is empty and the line is just "0".
    if (selection.path.empty())
        fmt::print("{}\n", static_cast<int>(selection.kind));
    else
        fmt::print("{} {}\n", static_cast<int>(selection.kind), selection.path.string());
    return kExitOk;
}

} // namespace

void register_kernels_select_verb(CLI::App& kernels) {
    auto options = std::make_shared<SelectOptions>();
    CLI::App* sub = kernels.add_subcommand(
        "select", "print the kernel set the runtime would use, as 'KIND PATH' (KIND 1 = hash-checked release set, "
                  "2 = developer set, 0 = none: PATH empty, every kernel compiles from PTX)");
    sub->add_option("--root", options->root,
                    "the kernel root (the folder with gfx*/ and accuracy/ folders, or a flat set)")
        ->required();
    sub->add_option(
        "--arch", options->arch,
        "GPU architecture, e.g. gfx1101 (default: D4R_GPU_ARCH, else the GPU with the most SIMDs in the KFD topology)");
    sub->add_option("--kfd-root", options->kfd_root, "KFD topology folder to detect the GPU from")
        ->capture_default_str();
    sub->add_flag("--accuracy", options->accuracy,
                  "accuracy mode: only marked accuracy sets (ROOT/accuracy/...), never fast kernels");
    sub->add_flag("--fp8", options->fp8, "prefer native FP8 WMMA folders (<arch>-fp8, gfx12 only)");
    sub->add_flag("--explain", options->explain,
                  "print the detected architecture and every candidate considered to stderr");
    set_action(sub, [options] { return run_select(*options); });
}

} // namespace d4r::cli
