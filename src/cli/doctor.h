// d4r doctor: a health report of this machine for d4r.
//
// Promise: run_doctor() checks, in a fixed order, the configuration file, the GPU (KFD), the kernel
// root and the set the runtime would select, the backends (NVIDIA's libcuda with a device, ZLUDA at
// the configured path, HIP for AMD code objects), Wine (wine64 or wine in PATH, else /usr/lib/wine/wine64),
// the Windows side (doctor_windows.h: bridge, D4R_RUNTIME_DIR, shim, open core, libd4rcuda as the bridge
// loads it), the configured Proton folders, and a real install (doctor_install.h: the game folder's
// install, NVIDIA files, OptiScaler routing, the Proton prefix, the kernel cache, GLIBC needs). Each check
// gives one line: ok, warn or fail, and a hint where there is something to do. Nothing here fails
// hard on a machine without a GPU: a missing GPU or driver is a warning saying what is missing.
// Driver probes run in a child process, so a crashing or hanging driver cannot take d4r down.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/env.h"

namespace d4r::cli {

enum class CheckStatus { Ok, Warn, Fail };
const char* check_status_name(CheckStatus status);

struct CheckLine {
    CheckStatus status = CheckStatus::Ok;
    std::string check; // short name: config, gpu, kernels, nvidia, zluda, hip, wine, bridge, runtime, shim,
                       // ngxcore, d4rcuda, proton, install, optiscaler, nvapi, prefix, cache, glibc
    std::string message;
    std::string hint; // empty when there is nothing to do
};

// One line of the report (every check file builds them the same way).
inline CheckLine check_line(CheckStatus status, std::string check, std::string message, std::string hint = "") {
    return {status, std::move(check), std::move(message), std::move(hint)};
}

struct DoctorOptions {
    std::optional<std::filesystem::path> config; // --config
    std::filesystem::path kfd_root;
    std::filesystem::path cwd;
    std::filesystem::path lib_dir; // d4r's lib folder (beside the binary's bin/): the bridge's default place
    std::vector<std::filesystem::path> wine_fallbacks = {"/usr/lib/wine/wine64"}; // when PATH has no Wine
    std::optional<std::filesystem::path> game_dir; // --game: check an install (doctor_install.h)
    std::optional<std::filesystem::path> prefix;   // --prefix: a Steam compatdata/<appid> folder
    std::optional<std::string> system_glibc;       // --glibc: the GLIBC version to compare libraries with
    std::optional<std::string> launch_options;     // --launch-options: the game's Steam launch options
};

std::vector<CheckLine> run_doctor(const DoctorOptions& options, const Environment& env);

} // namespace d4r::cli
