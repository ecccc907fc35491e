// d4r kernels manifest DIR FILE...: writes DIR/d4r-kernels.txt, the list of PTX module hashes each native
// kernel of DIR may replace (docs/runtime.md, "Native-kernel overrides"), from the libraries the kernels were written
// against.
//
// Every code object NAME.<ext> of DIR (extensions: kernelset/code_objects.h) must be an .entry of some
// module of the given FILEs; the manifest lists, for each NAME, the hash of every such module. A code
// object no FILE defines is refused (exit 2) and nothing is written: a manifest must never vouch for a
// kernel nobody checked against its PTX.
#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli_common.h"
#include "core/files.h"
#include "core/strings.h"
#include "kernelset/code_objects.h"
#include "ptx/manifest.h"
#include "ptx/module_index.h"
#include "verbs.h"

#ifndef D4R_VERSION
#define D4R_VERSION "0.0.0"
#endif

namespace d4r::cli {

namespace {

namespace fs = std::filesystem;

struct ManifestOptions {
    std::string dir;
    std::vector<std::string> files;
    bool dry_run = false;
};

std::string code_object_extensions() {
    std::string out;
    for (const kernels::CodeObjectKind& kind : kernels::kCodeObjectKinds)
        out += fmt::format("{}*.{}", out.empty() ? "" : ", ", kind.extension);
    return out;
}

int run_manifest(const ManifestOptions& o) {
    if (!is_dir(o.dir)) {
        ErrorCode code = path_exists(o.dir) ? ErrorCode::Invalid : ErrorCode::NotFound;
        return report_error(Error(code, fmt::format("{}: not a folder", o.dir)));
    }
    Expected<std::vector<fs::path>> listing = list_directory(o.dir);
    if (!listing) return report_error(listing.error());

    // Kernel name -> its code object files (NAME.hsaco and NAME.cubin may sit side by side).
    std::map<std::string, std::vector<std::string>> kernels;
    int status = kExitOk;
    for (const fs::path& path : *listing) {
        std::optional<std::string> name = kernels::code_object_kernel_name(path);
        if (!name || !is_file(path)) continue;
        if (!ptx::is_kernel_name(*name)) {
            status = report_error(make_error(ErrorCode::Invalid,
                                             "{}: '{}' cannot be a kernel name (.entry names are PTX "
                                             "identifiers)",
                                             path.string(), *name));
            continue;
        }
        kernels[*name].push_back(path.filename().string());
    }
    if (status != kExitOk) return status;
    if (kernels.empty())
        return report_error(make_error(ErrorCode::Invalid, "{}: no code objects ({}) to write a manifest for", o.dir,
                                       code_object_extensions()));

    ptx::Manifest manifest;
    std::map<std::string, size_t> modules_per_kernel;
    size_t module_count = 0;
    for (const std::string& path : o.files) {
        Expected<ptx::PtxFile> file = ptx::index_ptx_file(path);
        if (!file) {
            status = std::max(status, report_error(file.error()));
            continue;
        }
        if (file->modules.empty())
            fmt::print(stderr, "d4r: warning: {}: no PTX found ({})\n", path, ptx::container_kind_name(file->kind));
        module_count += file->modules.size();
        for (const ptx::IndexedModule& m : file->modules) {
            for (const ptx::EntryInfo& e : m.index.entries) {
                if (kernels.count(e.name) == 0) continue;
                Status added = manifest.add(e.name, m.hash);
                if (!added) return report_error(added.error()); // cannot happen: e.name is a code object name
                ++modules_per_kernel[e.name];
            }
        }
    }
    if (status != kExitOk) {
        fmt::print(stderr, "d4r: nothing written\n");
        return status;
    }

    std::string searched;
    for (const std::string& f : o.files) searched += (searched.empty() ? "" : ", ") + f;
    for (const auto& [name, objects] : kernels) {
        if (manifest.hashes_for(name).empty()) {
            fmt::print(stderr, "d4r: error: kernel '{}' ({}) is defined by no given file (searched: {})\n", name,
                       (fs::path(o.dir) / objects.front()).string(), searched);
            status = kExitUsage;
        }
    }
    if (status != kExitOk) {
        fmt::print(stderr, "d4r: nothing written: every code object must replace an .entry of a given file\n");
        return status;
    }

    std::string writer = fmt::format("d4r kernels manifest (d4r {})", D4R_VERSION);
    if (o.dry_run) {
        fmt::print("{}", manifest.to_text(writer));
        return kExitOk;
    }
    fs::path target = fs::path(o.dir) / std::string(ptx::kManifestFileName);
    Status saved = manifest.save(target, writer);
    if (!saved) return report_error(saved.error());
    for (const std::string& name : manifest.names()) {
        size_t hashes = manifest.hashes_for(name).size();
        fmt::print("{}: {} hash{} ({} module{})\n", name, hashes, hashes == 1 ? "" : "es", modules_per_kernel[name],
                   modules_per_kernel[name] == 1 ? "" : "s");
    }
    fmt::print("wrote {}: {} kernel{}, {} hash{} (from {} file{}, {} PTX module{})\n", target.string(),
               manifest.kernel_count(), manifest.kernel_count() == 1 ? "" : "s", manifest.entry_count(),
               manifest.entry_count() == 1 ? "" : "es", o.files.size(), o.files.size() == 1 ? "" : "s", module_count,
               module_count == 1 ? "" : "s");
    return kExitOk;
}

} // namespace

void register_kernels_manifest_verb(CLI::App& kernels) {
    auto options = std::make_shared<ManifestOptions>();
    CLI::App* sub = kernels.add_subcommand(
        "manifest",
        "write DIR/d4r-kernels.txt: for every native kernel NAME.<ext> in DIR, the hash of every PTX module "
        "of the given FILEs that defines '.entry NAME' (what makes DIR a hash-checked release set)");
    sub->add_option("DIR", options->dir, "kernel folder holding code objects (" + code_object_extensions() + ")")
        ->required();
    sub->add_option("FILE", options->files,
                    "libraries or PTX the kernels replace (PTX text, fatbin, ELF .so, PE .dll); give every library "
                    "version the set should accept")
        ->required();
    sub->add_flag("--dry-run", options->dry_run, "print the manifest to stdout instead of writing it");
    sub->footer("The file is replaced atomically. A code object that no FILE defines as an .entry is refused: the "
                "error names the kernel and the files searched, and nothing is written.\n"
                "Exit status: 0 written, 2 bad usage, an unreadable or malformed FILE, or a refused kernel.");
    set_action(sub, [options] { return run_manifest(*options); });
}

} // namespace d4r::cli
