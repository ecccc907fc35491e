// libd4rcuda: the native kernel set the process uses, and the code objects in it.
//
// Promise: load_native_set() applies docs/kernel-sets.md once (root from D4R_NATIVE_KERNEL_DIR, architecture,
// accuracy, fp8) and explains the outcome in its notes; `lookup(NAME)` says whether NAME.<ext> exists
// for the backend's code-object kind, and `allowed(NAME, hashes)` applies docs/runtime.md's hash rule (a
// developer set serves every kernel; a release set only those whose module hash its manifest lists).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/env.h"
#include "core/status.h"
#include "kernelset/kernel_set.h"
#include "ptx/manifest.h"

namespace d4r::runtime {

struct NativeSet {
    kernels::KernelSetKind kind = kernels::KernelSetKind::None;
    std::filesystem::path path;
    std::string extension;                 // "cubin", "hsaco" or "cpu"
    std::optional<ptx::Manifest> manifest; // release sets
    std::vector<std::string> notes;        // why this set (or none) was chosen

    bool active() const { return kind != kernels::KernelSetKind::None; }
    // PATH/NAME.EXT when it exists.
    std::optional<std::filesystem::path> lookup(std::string_view name) const;
    // docs/runtime.md, "Native-kernel overrides": developer sets always; release sets when the manifest lists one of
    // HASHES for NAME.
    bool allowed(std::string_view name, const std::vector<uint64_t>& hashes) const;
};

// EXTENSION: the code objects the backend runs; ARCH: the device architecture ("sm_90", "gfx1101",
// "cpu"), as native_target_for() chose it (with a valid D4R_GPU_ARCH applied there). Without
// D4R_NATIVE_KERNEL_DIR (or its deprecated alias D4R_ZLUDA_NATIVE_DIR) the set is inactive (not an error).
Expected<NativeSet> load_native_set(const Environment& env, std::string extension, std::string arch);

} // namespace d4r::runtime
