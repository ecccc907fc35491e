// d4r doctor: the checks of a real install (a game folder d4r was installed into, its Proton prefix,
// the libraries d4r loads there).
//
// Promise: check_install() appends one line per check, never changing anything:
//   install     GAME_DIR's exe folder (release/game_layout.h) holds d4r-install.json; no interrupted
//               install or uninstall (a journal); every installed file present with its recorded SHA-256
//               (a changed d4r.ini is the user's edit, fine; other changed files warn; missing ones fail)
//   nvidia      nvngx_dlss.dll beside the exe, its version, and how many native kernels of each kernel set
//               its PTX modules match (none: native kernels are refused, DLSS runs slower)
//   optiscaler  OptiScaler's DLL and version, its OptiScaler.ini read as that version reads it, with the
//               keys that route DLSS to d4r's shim, where it would find nvngx_dlss.dll, and what its last
//               log says (doctor_optiscaler.h)
//   nvapi       whether OptiScaler would see an NVIDIA GPU with this launch (doctor_optiscaler.h)
//   prefix      the Proton prefix (--prefix, else $STEAM_COMPAT_DATA_PATH): pfx/ present, the Proton
//               version that made it, and restore journals `d4r play` left behind after a crash
//   cache       the kernel cache folder: writable, and warm (holds compiled kernels) or cold
//   glibc       ZLUDA's libcuda.so and ROCm's libamdhip64.so need no newer GLIBC than this system's
// Without a game folder only the prefix, cache and glibc checks run.
#pragma once

#include <filesystem>
#include <optional>
#include <vector>

#include "config/resolve.h"
#include "core/env.h"
#include "doctor.h"

namespace d4r::cli {

struct InstallCheckOptions {
    std::optional<std::filesystem::path> game_dir; // --game
    std::optional<std::filesystem::path> prefix;   // --prefix: a Steam compatdata/<appid> folder
    std::optional<std::string> system_glibc;       // --glibc; else the running glibc's version
    std::optional<std::string> launch_options;     // --launch-options: the game's Steam launch options
};

// "Proton <the compatdata folder's version file>", or "unknown Proton" without one.
std::string proton_version_text(const std::filesystem::path& compat);

void check_install(const InstallCheckOptions& options, const config::ResolvedConfig* cfg, const Environment& env,
                   std::vector<CheckLine>& out);

} // namespace d4r::cli
