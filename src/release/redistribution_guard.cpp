// d4r release: the redistribution guard of the `nonvidia` release variant.
#include "redistribution_guard.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "core/files.h"
#include "core/log.h"
#include "pe_version.h"
#include "ptx/container.h"
#include "ptx/manifest.h"

namespace d4r::release {

namespace fs = std::filesystem;

namespace {

bool mentions_nvidia(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return text.find("nvidia") != std::string::npos;
}

bool is_code_object(const fs::path& p) {
    const std::string ext = p.extension().string();
    return ext == ".hsaco" || ext == ".cubin" || ext == ".cpu";
}

// A text file that parses as a manifest with at least one kernel line (any name, any extension).
bool is_listing_manifest(std::span<const uint8_t> bytes, size_t& kernels) {
    if (bytes.empty() || bytes.size() > ptx::kMaxManifestBytes) return false;
    if (std::find(bytes.begin(), bytes.end(), uint8_t(0)) != bytes.end()) return false;
    auto m = ptx::Manifest::parse(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
    if (!m || m->empty()) return false;
    kernels = m->kernel_count();
    return true;
}

std::string nvidia_in_pe(std::span<const uint8_t> bytes) {
    for (const char* key : {"CompanyName", "ProductName", "LegalCopyright"}) {
        auto v = pe_version_string(bytes, key);
        if (v && mentions_nvidia(*v)) return fmt::format("version resource: {} '{}'", key, *v);
    }
    return {};
}

std::string ptx_in(std::span<const uint8_t> bytes) {
    auto modules = ptx::find_ptx_modules(bytes);
    if (!modules)
        return fmt::format("its {} container is malformed, so it cannot be shown to hold no PTX: {}",
                           ptx::container_kind_name(ptx::detect_container(bytes)), modules.error().text());
    if (modules->empty()) return {};
    // A text file that merely starts with '.' is not PTX: PTX text declares .version and .target.
    if (ptx::detect_container(bytes) == ptx::ContainerKind::PtxText) {
        const std::string& t = modules->front().text;
        if (t.find(".version") == std::string::npos || t.find(".target") == std::string::npos) return {};
    }
    return fmt::format("carries {} PTX module{} ({})", modules->size(), modules->size() == 1 ? "" : "s",
                       modules->front().origin);
}

} // namespace

Expected<std::vector<GuardFinding>> find_nvidia_content(const fs::path& root) {
    std::map<std::string, std::string> found; // relative path -> reason
    std::set<fs::path> manifest_folders;
    std::vector<fs::path> code_objects;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
        if (!it->is_regular_file(ec) || it->is_symlink(ec)) continue;
        const fs::path& p = it->path();
        const std::string rel = p.lexically_relative(root).generic_string();
        if (is_code_object(p)) code_objects.push_back(p);
        auto bytes = read_file(p);
        if (!bytes) return std::move(bytes).error();
        std::string reason;
        if (bytes->size() >= 2 && (*bytes)[0] == 'M' && (*bytes)[1] == 'Z') reason = nvidia_in_pe(*bytes);
        if (reason.empty()) reason = ptx_in(*bytes);
        size_t kernels = 0;
        if (reason.empty() && is_listing_manifest(*bytes, kernels)) {
            reason =
                fmt::format("a kernel manifest listing {} kernel{} that replace NVIDIA's PTX (built from NVIDIA code)",
                            kernels, kernels == 1 ? "" : "s");
            manifest_folders.insert(p.parent_path());
        } else if (reason.empty() && p.filename() == ptx::kManifestFileName) {
            manifest_folders.insert(p.parent_path()); // an empty or unreadable one too: its set is a release set
            auto m = ptx::Manifest::load(p);
            if (!m)
                reason = "a kernel manifest that does not parse, so it cannot be shown to list no kernel: " +
                         m.error().text();
        }
        if (!reason.empty()) found.emplace(rel, std::move(reason));
    }
    if (ec) return make_error(ErrorCode::Io, "{}: cannot list the folder: {}", root.string(), ec.message());
    for (const fs::path& p : code_objects) {
        if (!manifest_folders.count(p.parent_path())) continue;
        auto m = ptx::Manifest::load(p.parent_path() / ptx::kManifestFileName);
        if (m && m->empty()) continue;
        found.emplace(p.lexically_relative(root).generic_string(),
                      "a kernel of a release set whose manifest lists NVIDIA PTX modules");
    }
    std::vector<GuardFinding> out;
    for (auto& [path, reason] : found) out.push_back({path, reason});
    log::debug("redistribution guard: {}: {} finding(s)", root.string(), out.size());
    return out;
}

} // namespace d4r::release
