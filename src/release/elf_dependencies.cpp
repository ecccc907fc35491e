// The libraries a release's ELF files may need (elf_dependencies.h).
#include "release/elf_dependencies.h"

#include <algorithm>
#include <array>

#include <fmt/format.h>

namespace d4r::release {

namespace {

// ROCm's own libraries, by soname prefix (libamdhip64.so.6, libhsa-runtime64.so.1, libamd_comgr.so.2,
// librocprofiler-register.so.0, ...).
constexpr std::array<std::string_view, 5> kRocmPrefixes = {"libamd", "libhsa", "libhip", "libroc", "libMIOpen"};
// The distribution libraries ROCm's runtime packages depend on (hsa-rocr: libdrm, libdrm_amdgpu, libnuma,
// libelf; comgr: libzstd, libtinfo): present wherever ROCm is installed.
constexpr std::array<std::string_view, 6> kRocmSystem = {"libdrm.so.2", "libdrm_amdgpu.so.1", "libnuma.so.1",
                                                         "libelf.so.1", "libzstd.so.1",       "libtinfo.so.6"};

std::string folder_of(const std::string& path) {
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

bool from_rocm_input(const ReleaseElf& e) { return e.input == "--zluda" || e.input == "--rocm"; }

std::string fix_for(const ReleaseElf& e, const std::string& library) {
    if (e.input.empty())
        return fmt::format("link {} statically into d4r's file, or stop using it (d4r's own files may need only the "
                           "base system)",
                           library);
    return fmt::format("put {} into the {} folder so that it is bundled beside {}, or use a build of that input "
                       "that does not need it",
                       library, e.input, e.path.substr(e.path.rfind('/') + 1));
}

void raise(std::optional<LibstdcxxNeed>& best, std::optional<HighestVersion> v, const std::string& path) {
    if (v && (!best || v->version > best->highest.version)) best = LibstdcxxNeed{std::move(*v), path};
}

} // namespace

const std::vector<std::string_view>& base_system_libraries() {
    // glibc (libdl, libpthread and librt are folded into libc since 2.34 but remain as stubs), the
    // x86-64 dynamic loader, GCC's runtime libraries and zlib.
    static const std::vector<std::string_view> list = {"libc.so.6",       "libm.so.6",      "libdl.so.2",
                                                       "libpthread.so.0", "librt.so.1",     "ld-linux-x86-64.so.2",
                                                       "libgcc_s.so.1",   "libstdc++.so.6", "libz.so.1"};
    return list;
}

bool is_base_system_library(std::string_view soname) {
    const auto& list = base_system_libraries();
    return std::find(list.begin(), list.end(), soname) != list.end();
}

bool is_rocm_system_library(std::string_view soname) {
    if (std::find(kRocmSystem.begin(), kRocmSystem.end(), soname) != kRocmSystem.end()) return true;
    return std::any_of(kRocmPrefixes.begin(), kRocmPrefixes.end(),
                       [&](std::string_view p) { return soname.starts_with(p) && soname.find(".so") != soname.npos; });
}

DependencyAudit audit_elf_dependencies(const std::vector<ReleaseElf>& elfs,
                                       const std::set<std::string>& release_files) {
    DependencyAudit out;
    for (const ReleaseElf& e : elfs) {
        raise(out.glibcxx, highest_version(e.needs, "GLIBCXX_"), e.path);
        raise(out.cxxabi, highest_version(e.needs, "CXXABI_"), e.path);
        for (const std::string& library : e.needs.needed) {
            if (is_base_system_library(library) || release_files.count(folder_of(e.path) + library)) continue;
            const std::string from = e.source.empty() ? std::string() : fmt::format(" (from {})", e.source);
            if (from_rocm_input(e) && is_rocm_system_library(library)) {
                out.from_rocm.push_back(
                    {e.path, library, fmt::format("{}{} needs {} from the system's ROCm", e.path, from, library)});
                continue;
            }
            out.outside.push_back({e.path, library,
                                   fmt::format("{}{} needs {}, which is neither in the release beside it nor part of "
                                               "the base system: {}",
                                               e.path, from, library, fix_for(e, library))});
        }
    }
    return out;
}

} // namespace d4r::release
