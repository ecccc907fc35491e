// d4r release: the redistribution guard of the `nonvidia` release variant.
//
// Promise: find_nvidia_content() reads every regular file under ROOT and reports, by content and never
// by file name, each file that is or carries NVIDIA code:
//   - a PE file (MZ) whose version resource names NVIDIA (case-insensitive "nvidia") in CompanyName,
//     ProductName or LegalCopyright;
//   - a file carrying PTX: anything ptx::find_ptx_modules() finds (PTX text, fatbins, fatbin sections
//     of ELF and PE files, fatbins anywhere in other files); a file whose container is malformed is
//     reported too (it cannot be shown clean);
//   - a kernel manifest (a file named d4r-kernels.txt, or any file that parses as one with at least one
//     line) that lists a kernel: listed kernels replace NVIDIA's PTX modules, so they are built from
//     NVIDIA code. The code objects (.hsaco, .cubin, .cpu) in the folder of such a manifest are
//     reported with it. Code objects under no manifest (d4r's own open-core kernels) are not.
// Findings come sorted by path, one per file, with the reason. A file that cannot be read is an Io
// error naming it. Nothing is changed.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/status.h"

namespace d4r::release {

struct GuardFinding {
    std::string path;   // relative to the root, '/' separators
    std::string reason; // "version resource: CompanyName 'NVIDIA Corporation'"
};

Expected<std::vector<GuardFinding>> find_nvidia_content(const std::filesystem::path& root);

} // namespace d4r::release
