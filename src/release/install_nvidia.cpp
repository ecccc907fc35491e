// d4r release: the user's NVIDIA files for an install.
#include "install_nvidia.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "core/files.h"
#include "core/log.h"
#include "pe_version.h"
#include "ptx/container.h"
#include "ptx/manifest.h"
#include "ptx/module_index.h"

namespace d4r::release {

namespace fs = std::filesystem;

namespace {

constexpr uint64_t kMaxDllBytes = 4ull << 30;

// The DLL's file version ("" when it declares none); an error when PATH is not a PE file.
Expected<std::string> require_pe(const fs::path& path) {
    const std::vector<uint8_t> bytes = D4R_TRY(read_file(path, kMaxDllBytes));
    if (ptx::detect_container(bytes) != ptx::ContainerKind::Pe)
        return make_error(ErrorCode::Invalid, "{}: not a Windows DLL (no PE header)", path.string());
    return pe_file_version(bytes).value_or("");
}

} // namespace

Expected<NvidiaCheck> check_nvidia_files(const fs::path& nvidia_dir, const fs::path& release) {
    if (!is_dir(nvidia_dir))
        return make_error(ErrorCode::NotFound, "--nvidia {}: not a folder (give the folder holding your {})",
                          nvidia_dir.string(), kDlssName);
    NvidiaCheck out;
    const fs::path dlss = nvidia_dir / kDlssName;
    if (!is_file(dlss))
        return make_error(ErrorCode::NotFound,
                          "--nvidia {}: no {} there (d4r never downloads it: copy it from a game "
                          "or NVIDIA's DLSS SDK)",
                          nvidia_dir.string(), kDlssName);
    // D4R_TRY returns from inside a statement expression: never inside a braced initializer, where GCC
    // would not destroy the members built before it (AddressSanitizer found that leak here).
    std::string dlss_version = D4R_TRY(require_pe(dlss));
    out.files.push_back({dlss, kDlssName, std::move(dlss_version)});
    const fs::path core = nvidia_dir / kNvidiaCoreName;
    if (is_file(core)) {
        // Beside the shim, where it looks for NVIDIA's core.
        std::string core_version = D4R_TRY(require_pe(core));
        out.files.push_back({core, std::string("d4r/") + kNvidiaCoreName, std::move(core_version)});
    }

    std::set<uint64_t> hashes;
    auto indexed = ptx::index_ptx_file(dlss);
    if (!indexed) {
        out.warnings.push_back(fmt::format("cannot read the PTX modules of {}: {}; native kernels will be refused and "
                                           "DLSS will run slower (its PTX is compiled at run time)",
                                           dlss.string(), indexed.error().text()));
        return out;
    }
    for (const ptx::IndexedModule& m : indexed->modules) hashes.insert(m.hash);
    out.modules = indexed->modules.size();

    std::error_code ec;
    std::vector<fs::path> manifests;
    for (auto it = fs::recursive_directory_iterator(release, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec))
        if (it->path().filename() == ptx::kManifestFileName && it->is_regular_file(ec)) manifests.push_back(it->path());
    if (ec) return make_error(ErrorCode::Io, "{}: cannot list the release: {}", release.string(), ec.message());
    std::sort(manifests.begin(), manifests.end());
    if (manifests.empty()) {
        out.warnings.push_back(fmt::format("the release {} holds no kernel manifest ({}): {} cannot be checked and "
                                           "native kernels will be refused; DLSS will run slower",
                                           release.string(), ptx::kManifestFileName, kDlssName));
        return out;
    }
    size_t matched_total = 0;
    for (const fs::path& path : manifests) {
        auto manifest = ptx::Manifest::load(path);
        if (!manifest) {
            out.warnings.push_back(fmt::format("skipping a malformed kernel manifest: {}", manifest.error().text()));
            continue;
        }
        KernelSetMatch match{path.parent_path().lexically_relative(release).generic_string(), manifest->kernel_count(),
                             0};
        for (const std::string& name : manifest->names()) {
            const std::vector<uint64_t> listed = manifest->hashes_for(name);
            if (std::any_of(listed.begin(), listed.end(), [&](uint64_t h) { return hashes.count(h) != 0; }))
                ++match.matched;
        }
        matched_total += match.matched;
        out.sets.push_back(std::move(match));
    }
    if (matched_total == 0)
        out.warnings.push_back(fmt::format("{} ({} PTX modules) matches no kernel set of the release: it is another "
                                           "version than the kernels were built for, so native kernels will be refused "
                                           "and DLSS will run slower (its PTX is compiled at run time)",
                                           dlss.string(), out.modules));
    log::debug("install: {} has {} PTX modules, {} kernels matched", dlss.string(), out.modules, matched_total);
    return out;
}

} // namespace d4r::release
