// Choosing the native kernel set (docs/kernel-sets.md) and the hash rule (docs/runtime.md, "Native-kernel overrides").
#include "runtime/native/native_set.h"

#include <fmt/format.h>

#include "core/env_vars.h"
#include "core/files.h"
#include "kernelset/accuracy_policy.h"

namespace d4r::runtime {

std::optional<std::filesystem::path> NativeSet::lookup(std::string_view name) const {
    if (!active()) return std::nullopt;
    std::filesystem::path p = path / fmt::format("{}.{}", name, extension);
    if (is_file(p)) return p;
    return std::nullopt;
}

bool NativeSet::allowed(std::string_view name, const std::vector<uint64_t>& hashes) const {
    if (kind == kernels::KernelSetKind::Developer) return true;
    if (kind != kernels::KernelSetKind::HashChecked || !manifest) return false;
    for (uint64_t h : hashes)
        if (manifest->allows(name, h)) return true;
    return false;
}

Expected<NativeSet> load_native_set(const Environment& env, std::string extension, std::string arch) {
    NativeSet set;
    set.extension = std::move(extension);
    auto root = env_text(env, EnvVar::NativeKernelDir);
    if (!root) {
        set.notes.push_back(fmt::format("{} is not set: native kernels are off", env_name(EnvVar::NativeKernelDir)));
        return set;
    }
    // ARCH comes from native_target_for(), which applies a valid D4R_GPU_ARCH (kernels::forced_gpu_arch).
    kernels::SelectionRequest request;
    request.root = *root;
    request.arch = arch;
    request.accuracy = kernels::accuracy_preferred(env);
    request.fp8 = env_bool(env, EnvVar::ZludaWmmaFp8Native);
    kernels::Selection selection = kernels::select_kernel_set(request);
    set.kind = selection.kind;
    set.path = selection.path;
    set.notes = std::move(selection.notes);
    if (set.kind == kernels::KernelSetKind::HashChecked) {
        auto manifest = ptx::Manifest::load(set.path / kernels::kManifestFileName);
        if (!manifest) {
            Error e = std::move(manifest).error();
            e.add_context(fmt::format("kernel set {}", set.path.string()));
            return e;
        }
        set.manifest = std::move(*manifest);
    }
    return set;
}

} // namespace d4r::runtime
