// Build-time tool: writes the native kernel set that the kernel families of src/kernels generate
// (cmake/D4rKernels.cmake; docs/kernel-sets.md, "Where kernels live"). Run by the build, not installed.
//
//   d4r_make_kernel_set cpu SET_DIR [--accuracy ACCURACY_DIR] --family NAME PTX... KERNEL... [--family ...]...
//   d4r_make_kernel_set hsaco SET_DIR OBJECT_DIR [--accuracy ACCURACY_DIR ACCURACY_OBJECT_DIR] --family ...
//   d4r_make_kernel_set cubin SET_DIR OBJECT_DIR [--accuracy ACCURACY_DIR ACCURACY_OBJECT_DIR] --family ...
//
// Promise: SET_DIR/d4r-kernels.txt lists, for every KERNEL of every family, the hash (FNV-1a 64 of the module
// text without trailing NULs, ptx/module_hash.h) of each PTX module of that family's PTX files that defines
// `.entry KERNEL` (a family's PTX files are the arguments after NAME whose names end in .ptx, one or more: a
// kernel name never has a dot; the refine family has two, docs/network.md), and SET_DIR/KERNEL.cpu exists for
// every KERNEL: "1", or "1 VARIANT" for a KERNEL given as NAME:VARIANT (the fast set serves the registry's
// NAME@VARIANT). With --accuracy, ACCURACY_DIR gets the same manifest, "1" for every kernel (the exact kernels)
// and, last, the accuracy marker d4r-accuracy.txt.
// Every other *.cpu of a set folder is removed: the folder is the build's, and a kernel dropped from a family
// must not stay behind.
// hsaco: the same manifests, and SET_DIR/KERNEL.hsaco copied from OBJECT_DIR/KERNEL.hsaco (the AMD code objects
// the build compiled, cmake/D4rKernels.cmake), each checked to be an AMDGPU ELF file, all read before anything is
// written; variants do not apply. The accuracy folder must pass check_accuracy_build_output (kernelset/kernel_set.h)
// first. Other *.hsaco of a set folder are removed. cubin: the same with NVIDIA code objects (KERNEL.cubin, each
// checked to be an ELF file for EM_CUDA).
// Refused (exit 1, nothing written): a KERNEL that none of its family's PTX files defines, a KERNEL named twice
// (the set has one NAME.cpu per name), a PTX file that cannot be read or indexed. Bad usage: exit 2.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "core/files.h"
#include "kernelset/kernel_set.h"
#include "ptx/manifest.h"
#include "ptx/module_index.h"

namespace {

namespace fs = std::filesystem;
using namespace d4r;

struct Family {
    std::string name;
    std::vector<fs::path> ptx;
    std::vector<std::string> kernels;
    std::map<std::string, std::string> variants; // kernel -> the fast set's variant
};

constexpr const char* kUsage =
    "usage: d4r_make_kernel_set cpu SET_DIR [--accuracy ACCURACY_DIR] --family NAME PTX... "
    "KERNEL[:VARIANT]... [--family NAME PTX... KERNEL[:VARIANT]...]...\n"
    "       d4r_make_kernel_set hsaco|cubin SET_DIR OBJECT_DIR [--accuracy ACCURACY_DIR ACCURACY_OBJECT_DIR] "
    "--family NAME PTX... KERNEL... [--family ...]...\n"
    "  (PTX: one or more files named *.ptx)\n";

// An AMDGPU code object: ELF64, little-endian, e_machine EM_AMDGPU (224).
bool is_amdgpu_elf(const std::string& bytes) {
    return bytes.size() >= 20 &&
           bytes.compare(0, 4,
                         "\x7f"
                         "ELF") == 0 &&
           bytes[4] == 2 && bytes[5] == 1 && static_cast<uint8_t>(bytes[18]) == 224 && bytes[19] == 0;
}

// An NVIDIA code object: ELF64, little-endian, e_machine EM_CUDA (190).
bool is_cuda_elf(const std::string& bytes) {
    return bytes.size() >= 20 &&
           bytes.compare(0, 4,
                         "\x7f"
                         "ELF") == 0 &&
           bytes[4] == 2 && bytes[5] == 1 && static_cast<uint8_t>(bytes[18]) == 190 && bytes[19] == 0;
}

int fail(const std::string& what) {
    fmt::print(stderr, "d4r_make_kernel_set: {}\n", what);
    return 1;
}

// The families of ARGS (from the first --family on); empty on bad usage.
std::vector<Family> parse_families(const std::vector<std::string_view>& args) {
    std::vector<Family> families;
    for (size_t i = 0; i < args.size();) {
        if (args[i] != "--family" || i + 2 >= args.size()) return {};
        Family f{std::string(args[i + 1]), {}, {}, {}};
        for (i += 2; i < args.size() && args[i].ends_with(".ptx"); ++i) f.ptx.emplace_back(args[i]);
        if (f.ptx.empty()) return {};
        for (; i < args.size() && args[i] != "--family"; ++i) {
            std::string_view token = args[i];
            size_t colon = token.find(':');
            f.kernels.emplace_back(token.substr(0, colon));
            if (colon != std::string_view::npos) {
                if (colon + 1 == token.size()) return {};
                f.variants[f.kernels.back()] = std::string(token.substr(colon + 1));
            }
        }
        if (f.kernels.empty()) return {};
        families.push_back(std::move(f));
    }
    return families;
}

} // namespace

int main(int argc, char** argv) {
    std::vector<std::string_view> args(argv + 1, argv + argc);
    // hsaco and cubin sets copy code objects the build compiled (`copies`); a cpu set names the registry's kernels.
    const bool cubin = !args.empty() && args[0] == "cubin";
    const bool copies = !args.empty() && (args[0] == "hsaco" || cubin);
    if (args.size() < (copies ? 3u : 2u) || (args[0] != "cpu" && !copies)) {
        fmt::print(stderr, "{}", kUsage);
        return 2;
    }
    const fs::path set_dir(args[1]);
    size_t first = 2;
    fs::path objects, accuracy_dir, accuracy_objects;
    if (copies) objects = fs::path(args[first++]);
    if (args.size() > first + 1 && args[first] == "--accuracy") {
        accuracy_dir = fs::path(args[first + 1]);
        first += 2;
        if (copies) {
            if (args.size() <= first) {
                fmt::print(stderr, "{}", kUsage);
                return 2;
            }
            accuracy_objects = fs::path(args[first++]);
        }
    }
    std::vector<Family> families = parse_families({args.begin() + static_cast<ptrdiff_t>(first), args.end()});
    if (families.empty() || (copies && std::any_of(families.begin(), families.end(),
                                                   [](const Family& f) { return !f.variants.empty(); }))) {
        fmt::print(stderr, "{}", kUsage);
        return 2;
    }

    ptx::Manifest manifest;
    std::map<std::string, std::string> family_of;  // kernel -> the family that named it first
    std::map<std::string, std::string> variant_of; // kernel -> its fast variant
    std::string names;
    for (const Family& f : families) {
        names += (names.empty() ? "" : ", ") + f.name;
        std::vector<ptx::PtxFile> files;
        for (const fs::path& path : f.ptx) {
            Expected<ptx::PtxFile> file = ptx::index_ptx_file(path);
            if (!file) return fail(fmt::format("family {}: {}", f.name, file.error().text()));
            files.push_back(std::move(*file));
        }
        for (const auto& [kernel, variant] : f.variants) variant_of[kernel] = variant;
        for (const std::string& kernel : f.kernels) {
            if (auto [it, fresh] = family_of.emplace(kernel, f.name); !fresh)
                return fail(
                    fmt::format("kernel {} is named by family {} and by family {}", kernel, it->second, f.name));
            size_t defined = 0;
            for (const ptx::PtxFile& file : files)
                for (const ptx::IndexedModule& m : file.modules) {
                    if (!m.index.find_entry(kernel)) continue;
                    Status added = manifest.add(kernel, m.hash);
                    if (!added) return fail(fmt::format("family {}: {}", f.name, added.error().text()));
                    ++defined;
                }
            if (defined == 0) {
                std::string paths;
                for (const fs::path& path : f.ptx) paths += (paths.empty() ? "" : ", ") + path.string();
                return fail(fmt::format("family {}: {} defines no '.entry {}': a set must never vouch for a kernel "
                                        "its PTX does not have",
                                        f.name, paths, kernel));
            }
        }
    }

    const std::string origin =
        fmt::format("the build (d4r_make_kernel_set; kernel families of src/kernels: {})", names);
    // One set folder: the manifest, NAME.cpu per kernel (with or without the variants) or NAME.hsaco copied from
    // `from`, no stale code object of the set's kind.
    const std::string ext = cubin ? ".cubin" : copies ? ".hsaco" : ".cpu";
    auto write_set = [&](const fs::path& dir, bool variants, const fs::path& from) -> int {
        std::map<std::string, std::string> contents;
        for (const auto& [kernel, family] : family_of) {
            if (copies) {
                const fs::path object = from / (kernel + ext);
                Expected<std::vector<uint8_t>> bytes = read_file(object);
                if (!bytes) return fail(bytes.error().text());
                std::string text(bytes->begin(), bytes->end());
                if (cubin ? !is_cuda_elf(text) : !is_amdgpu_elf(text))
                    return fail(
                        fmt::format("{}: not an {} ELF code object", object.string(), cubin ? "NVIDIA" : "AMDGPU"));
                contents[kernel] = std::move(text);
                continue;
            }
            auto v = variant_of.find(kernel);
            contents[kernel] = variants && v != variant_of.end() ? "1 " + v->second + "\n" : std::string("1\n");
        }
        std::error_code ec;
        fs::create_directories(dir, ec);
        if (ec) return fail(fmt::format("{}: {}", dir.string(), ec.message()));
        Expected<std::vector<fs::path>> listing = list_directory(dir);
        if (!listing) return fail(listing.error().text());
        for (const fs::path& p : *listing) {
            if (p.extension() != ext || family_of.count(p.stem().string()) != 0) continue;
            if (!fs::remove(p, ec) || ec) return fail(fmt::format("{}: cannot remove: {}", p.string(), ec.message()));
        }
        for (const auto& [kernel, text] : contents) {
            Status written = write_file_atomic(dir / (kernel + ext), std::string_view(text));
            if (!written) return fail(written.error().text());
        }
        Status saved = manifest.save(dir / std::string(ptx::kManifestFileName), origin);
        if (!saved) return fail(saved.error().text());
        return 0;
    };
    if (int r = write_set(set_dir, true, objects)) return r;
    if (!accuracy_dir.empty()) {
        if (copies) {
            Status allowed = kernels::check_accuracy_build_output(accuracy_dir);
            if (!allowed) return fail(allowed.error().text());
        }
        if (int r = write_set(accuracy_dir, false, accuracy_objects)) return r;
        // The marker last: a half-written accuracy set is never used (docs/kernel-sets.md).
        Status marked = write_file_atomic(accuracy_dir / "d4r-accuracy.txt", std::string_view("1\n"));
        if (!marked) return fail(marked.error().text());
    }
    return 0;
}
