// d4r release: the libraries a release's ELF files may need (docs/packaging.md, "Dependencies of the
// release files").
//
// Promise: audit_elf_dependencies() checks every DT_NEEDED library of every ELF file of a release. A
// library is allowed when it is on the base-system list (glibc's libraries, the dynamic loader,
// libgcc_s, libstdc++, zlib: present on every desktop Linux), when the release bundles a file of that
// name in the same folder as the file that needs it, or, for a file from --zluda or --rocm only, when
// it belongs to ROCm (libamdhip64, libhsa-runtime64, ...) or is one of the few system libraries
// ROCm's own packages depend on: ZLUDA and ROCm run only where ROCm is installed. Every other need is a
// finding naming the file, where it came from, the library and the fix. Needs met by the system's ROCm
// are listed apart, so the caller can say so. It also returns the highest GLIBCXX_ and CXXABI_ version
// (libstdc++) any file asks, with the file. It reads nothing: the caller passes each file's needs.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "release/elf_glibc.h"

namespace d4r::release {

// The base-system libraries every release file may need, by soname.
const std::vector<std::string_view>& base_system_libraries();
bool is_base_system_library(std::string_view soname);
// A ROCm library or a system library ROCm's packages bring (libdrm_amdgpu.so.1, libnuma.so.1, ...).
bool is_rocm_system_library(std::string_view soname);

struct ReleaseElf {
    std::string path;   // in the release: "d4r/rocm/libamdhip64.so.6"
    std::string input;  // the option it came from ("--rocm"), "" for d4r's own files
    std::string source; // the file it was copied from, for messages
    GlibcNeeds needs;
};

struct DependencyFinding {
    std::string path;    // the release file that needs it
    std::string library; // "libfmt.so.9"
    std::string message; // one line: the file, its source, the library and the fix
};

struct LibstdcxxNeed {
    HighestVersion highest;
    std::string path; // the release file that asks it
};

struct DependencyAudit {
    std::vector<DependencyFinding> outside;   // errors: needs neither bundled nor allowed
    std::vector<DependencyFinding> from_rocm; // allowed: met by the system's ROCm installation
    std::optional<LibstdcxxNeed> glibcxx;     // the highest GLIBCXX_ version asked, if any
    std::optional<LibstdcxxNeed> cxxabi;      // the highest CXXABI_ version asked, if any
};

// RELEASE_FILES: every file's path in the release ("d4r/zluda/libcuda.so"), to find bundled libraries.
DependencyAudit audit_elf_dependencies(const std::vector<ReleaseElf>& elfs, const std::set<std::string>& release_files);

} // namespace d4r::release
