// d4r release: the user's NVIDIA files for an install (`d4r install --nvidia DIR`).
//
// Promise: finds nvngx_dlss.dll (required) and _nvngx.dll (optional) in the user's folder, refuses
// anything that is not a PE file, reads their file versions (version resource), and checks the PTX modules of
// nvngx_dlss.dll against every kernel manifest (d4r-kernels.txt) of the release: how many kernels of each set the DLL's
// module hashes match. No match, no manifest or unreadable PTX is a warning (native kernels will be refused and DLSS
// runs slower), never an error. d4r never downloads these files.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/status.h"

namespace d4r::release {

inline constexpr const char* kDlssName = "nvngx_dlss.dll";
inline constexpr const char* kNvidiaCoreName = "_nvngx.dll";

struct NvidiaFile {
    std::filesystem::path source; // in the user's folder
    std::string target;           // relative to the install folder
    std::string version;          // the DLL's file version ("310.2.1.0"), "" when it declares none
};

struct KernelSetMatch {
    std::string set; // the manifest's folder, relative to the release
    size_t kernels = 0;
    size_t matched = 0; // kernels with a hash among the DLL's modules
};

struct NvidiaCheck {
    std::vector<NvidiaFile> files;
    size_t modules = 0; // PTX modules in nvngx_dlss.dll
    std::vector<KernelSetMatch> sets;
    std::vector<std::string> warnings; // each a full sentence for the user
};

Expected<NvidiaCheck> check_nvidia_files(const std::filesystem::path& nvidia_dir, const std::filesystem::path& release);

} // namespace d4r::release
