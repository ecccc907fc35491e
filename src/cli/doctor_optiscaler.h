// d4r doctor: OptiScaler in a game folder and Proton's NVIDIA identity (the game route of docs/optiscaler.md).
//
// Promise: each function appends check lines and changes nothing.
//   check_optiscaler  (check "optiscaler") OptiScaler's DLL in the exe folder and its version (unknown: the
//                     newest key set, with a warning naming the file); OptiScaler.ini read as that version reads
//                     it: the routing keys of release/optiscaler_routing.h, the NGX core path resolved as
//                     OptiScaler resolves it and naming d4r's shim; for 0.9.1 and later where OptiScaler would
//                     find nvngx_dlss.dll; and, after a run, what OptiScaler's log says (NVIDIA seen or not,
//                     nvngx_dlss.dll missing, the NGX core it loaded). Each failing line names the key, the
//                     file and the fix.
//   check_nvapi       (check "nvapi") whether OptiScaler would see an NVIDIA GPU with this launch:
//                     PROTON_FORCE_NVAPI from --launch-options (set there, or by d4r play) or this
//                     environment, the Proton version of the prefix, and dxvk-nvapi's nvapi64.dll in it.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/env.h"
#include "doctor.h"
#include "doctor_install.h"

namespace d4r::cli {

// EXE is the game's exe in FOLDER: its game profile is shown (check "profile") and its OptiScaler values are
// the ones expected.
void check_optiscaler(const std::filesystem::path& folder, const std::string& exe, const Environment& env,
                      std::vector<CheckLine>& out);

void check_nvapi(const InstallCheckOptions& options, const Environment& env, std::vector<CheckLine>& out);

} // namespace d4r::cli
