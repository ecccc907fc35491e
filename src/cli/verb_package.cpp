// d4r package: assembles a release folder and its reproducible zip (docs/packaging.md).
#include <cstdlib>
#include <memory>

#include <fmt/format.h>

#include "cli_common.h"
#include "core/files.h"
#include "release/package.h"
#include "verbs.h"

#ifndef D4R_VERSION
#define D4R_VERSION "0.0.0"
#endif

namespace d4r::cli {

namespace {

struct PackageArgs {
    std::string out_dir;
    std::string variant = "full";
    bool dev = false;
    std::string build, source, optiscaler, vkd3d, zluda, rocm, kernels, nvidia;
    std::string glibc_max = "2.41";
};

std::optional<fs::path> optional_path(const std::string& s) {
    if (s.empty()) return std::nullopt;
    return fs::path(s);
}

int run_package(const PackageArgs& a) {
    release::PackageOptions o;
    auto variant = release::parse_variant(a.variant);
    if (!variant) return report_error(variant.error());
    o.variant = *variant;
    o.out_dir = a.out_dir;
    o.dev = a.dev;
    if (!a.build.empty()) {
        o.build_dir = a.build;
    } else {
        // The build this d4r belongs to: BUILD/bin/d4r.
        std::error_code ec;
        const fs::path self = fs::read_symlink("/proc/self/exe", ec);
        if (ec)
            return report_error(Error(ErrorCode::Io, "cannot find the running d4r (/proc/self/exe); give --build DIR"));
        o.build_dir = self.parent_path().parent_path();
    }
    if (!a.source.empty()) {
        o.source_dir = a.source;
    } else if (auto s = release::source_dir_of_build(o.build_dir)) {
        o.source_dir = *s;
    } else {
        return report_error(
            Error(ErrorCode::Invalid,
                  fmt::format("--build {}: has no CMakeCache.txt naming the source folder; give --source DIR "
                              "(the d4r checkout holding packaging/)",
                              o.build_dir.string())));
    }
    o.optiscaler = optional_path(a.optiscaler);
    o.vkd3d = optional_path(a.vkd3d);
    o.zluda = optional_path(a.zluda);
    o.rocm = optional_path(a.rocm);
    o.kernels = optional_path(a.kernels);
    o.nvidia = optional_path(a.nvidia);
    o.glibc_max = a.glibc_max;
    o.d4r_version = D4R_VERSION;
    if (const char* e = std::getenv("SOURCE_DATE_EPOCH")) o.source_date_epoch = std::string(e);
    auto r = release::package_release(o, [](std::string_view line) { fmt::print(stderr, "{}\n", line); });
    if (!r) return report_error(r.error());
    fmt::print("release folder: {}\n", r->folder.string());
    fmt::print("zip: {} ({} files, timestamp {})\n", r->zip.string(), r->files, r->timestamp);
    fmt::print("sha256: {}  ({})\n", r->sha256, r->sha256_file.string());
    return kExitOk;
}

} // namespace

void register_package_verb(CLI::App& root) {
    auto a = std::make_shared<PackageArgs>();
    CLI::App* p = root.add_subcommand(
        "package",
        "build a release: OUT_DIR/d4r-VERSION-VARIANT/, its reproducible .zip and .zip.sha256 (maintainers; "
        "docs/packaging.md). Exit 2 on a missing input, a GLIBC need above --glibc-max, an ELF file needing a "
        "library that is neither bundled nor part of the base system, or NVIDIA content in the nonvidia "
        "variant; nothing is written then");
    p->add_option("OUT_DIR", a->out_dir, "folder to write the release folder, zip and .sha256 into")->required();
    p->add_option("--variant", a->variant, "full, or nonvidia (no NVIDIA file, PTX or kernel built from NVIDIA code)")
        ->capture_default_str();
    p->add_flag("--dev", a->dev, "leave missing inputs out with a warning each instead of failing");
    p->add_option("--build", a->build, "the d4r build folder (default: the build this d4r belongs to)");
    p->add_option(
        "--source", a->source,
        "the d4r source folder holding packaging/, LICENSE, NOTICE (default: the one --build's CMakeCache.txt names)");
    p->add_option("--optiscaler", a->optiscaler,
                  "folder with OptiScaler's dxgi.dll (or OptiScaler.dll) and OptiScaler.ini");
    p->add_option("--vkd3d", a->vkd3d, "folder with vkd3d-proton's d3d12.dll and d3d12core.dll (or x64/ with them)");
    p->add_option("--zluda", a->zluda, "folder with ZLUDA's libcuda.so (every lib*.so* there is bundled)");
    p->add_option("--rocm", a->rocm,
                  "folder with the ROCm runtime libraries (libamdhip64.so* required; every lib*.so*)");
    p->add_option("--kernels", a->kernels, "kernel root (gfx*/ folders with d4r-kernels.txt); required for full");
    p->add_option("--nvidia", a->nvidia, "full variant only: folder with nvngx_dlss.dll (and _nvngx.dll) to bundle");
    p->add_option("--glibc-max", a->glibc_max, "the oldest GLIBC every bundled ELF file must load on")
        ->capture_default_str();
    set_action(p, [a] { return run_package(*a); });
}

} // namespace d4r::cli
