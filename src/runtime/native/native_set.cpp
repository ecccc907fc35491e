// Choosing the native kernel set (docs/kernel-sets.md) and the hash rule (docs/runtime.md, "Native-kernel overrides").
#include "runtime/native/native_set.h"

#include <fmt/format.h>

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
    auto root = env.get("D4R_ZLUDA_NATIVE_DIR");
    if (!root || root->empty()) {
        set.notes.push_back("D4R_ZLUDA_NATIVE_DIR is not set: native kernels are off");
        return set;
    }
    if (auto forced = env.get("D4R_GPU_ARCH"); forced && !forced->empty()) arch = *forced;
    kernels::SelectionRequest request;
    request.root = *root;
    request.arch = arch;
    request.accuracy = kernels::accuracy_preferred(env);
    auto fp8 = env.get("D4R_ZLUDA_WMMA_FP8_NATIVE");
    request.fp8 = !(fp8 && *fp8 == "0");
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
