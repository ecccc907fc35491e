// Build-time tool: writes the native kernel set that the kernel families of src/kernels generate
// (cmake/D4rKernels.cmake; docs/kernel-sets.md, "Where kernels live"). Run by the build, not installed.
//
//   d4r_make_kernel_set cpu SET_DIR --family NAME PTX KERNEL... [--family NAME PTX KERNEL...]...
//
// Promise: SET_DIR/d4r-kernels.txt lists, for every KERNEL of every family, the hash (FNV-1a 64 of the module
// text without trailing NULs, ptx/module_hash.h) of each PTX module of that family's PTX file that defines
// `.entry KERNEL`, and SET_DIR/KERNEL.cpu (the version line "1") exists for every KERNEL. Every other *.cpu
// of SET_DIR is removed: the folder is the build's, and a kernel dropped from a family must not stay behind.
// Refused (exit 1, nothing written): a KERNEL that its PTX does not define, a KERNEL named twice (the set
// has one NAME.cpu per name), a PTX file that cannot be read or indexed. Bad usage: exit 2.
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "core/files.h"
#include "ptx/manifest.h"
#include "ptx/module_index.h"

namespace {

namespace fs = std::filesystem;
using namespace d4r;

struct Family {
    std::string name;
    fs::path ptx;
    std::vector<std::string> kernels;
};

constexpr const char* kUsage = "usage: d4r_make_kernel_set cpu SET_DIR --family NAME PTX KERNEL... "
                               "[--family NAME PTX KERNEL...]...\n";

int fail(const std::string& what) {
    fmt::print(stderr, "d4r_make_kernel_set: {}\n", what);
    return 1;
}

// The families of ARGS (from the first --family on); empty on bad usage.
std::vector<Family> parse_families(const std::vector<std::string_view>& args) {
    std::vector<Family> families;
    for (size_t i = 0; i < args.size();) {
        if (args[i] != "--family" || i + 2 >= args.size()) return {};
        Family f{std::string(args[i + 1]), fs::path(args[i + 2]), {}};
        for (i += 3; i < args.size() && args[i] != "--family"; ++i) f.kernels.emplace_back(args[i]);
        if (f.kernels.empty()) return {};
        families.push_back(std::move(f));
    }
    return families;
}

} // namespace

int main(int argc, char** argv) {
    std::vector<std::string_view> args(argv + 1, argv + argc);
    if (args.size() < 2 || args[0] != "cpu") {
        fmt::print(stderr, "{}", kUsage);
        return 2;
    }
    const fs::path set_dir(args[1]);
    std::vector<Family> families = parse_families({args.begin() + 2, args.end()});
    if (families.empty()) {
        fmt::print(stderr, "{}", kUsage);
        return 2;
    }

    ptx::Manifest manifest;
    std::map<std::string, std::string> family_of; // kernel -> the family that named it first
    std::string names;
    for (const Family& f : families) {
        names += (names.empty() ? "" : ", ") + f.name;
        Expected<ptx::PtxFile> file = ptx::index_ptx_file(f.ptx);
        if (!file) return fail(fmt::format("family {}: {}", f.name, file.error().text()));
        for (const std::string& kernel : f.kernels) {
            if (auto [it, fresh] = family_of.emplace(kernel, f.name); !fresh)
                return fail(
                    fmt::format("kernel {} is named by family {} and by family {}", kernel, it->second, f.name));
            size_t defined = 0;
            for (const ptx::IndexedModule& m : file->modules) {
                if (!m.index.find_entry(kernel)) continue;
                Status added = manifest.add(kernel, m.hash);
                if (!added) return fail(fmt::format("family {}: {}", f.name, added.error().text()));
                ++defined;
            }
            if (defined == 0)
                return fail(fmt::format("family {}: {} defines no '.entry {}': a set must never vouch for a kernel "
                                        "its PTX does not have",
                                        f.name, f.ptx.string(), kernel));
        }
    }

    std::error_code ec;
    fs::create_directories(set_dir, ec);
    if (ec) return fail(fmt::format("{}: {}", set_dir.string(), ec.message()));
    Expected<std::vector<fs::path>> listing = list_directory(set_dir);
    if (!listing) return fail(listing.error().text());
    for (const fs::path& p : *listing) {
        if (p.extension() != ".cpu" || family_of.count(p.stem().string()) != 0) continue;
        if (!fs::remove(p, ec) || ec) return fail(fmt::format("{}: cannot remove: {}", p.string(), ec.message()));
    }
    for (const auto& [kernel, family] : family_of) {
        Status written = write_file_atomic(set_dir / (kernel + ".cpu"), std::string_view("1\n"));
        if (!written) return fail(written.error().text());
    }
    Status saved =
        manifest.save(set_dir / std::string(ptx::kManifestFileName),
                      fmt::format("the build (d4r_make_kernel_set; kernel families of src/kernels: {})", names));
    if (!saved) return fail(saved.error().text());
    return 0;
}
