// d4r release: what OptiScaler's own log says about its DLSS backend (read by d4r doctor).
//
// Promise: read_optiscaler_log() reads the text of an OptiScaler.log as OptiScaler 0.9.4 writes it (one line
// per message, "[HH:MM:SS.ffffff] [L] message", L a level letter; most messages start with the function that
// logged them) and reports the lines d4r cares about: whether OptiScaler saw an NVIDIA GPU ("Running on
// Nvidia" / "Not running on Nvidia, disabling DLSS"), whether it found nvngx_dlss.dll ("nvngx_dlss.dll not
// found"), and the NGX core it loaded ("... loaded from PATH"). The last such line wins (a log may hold several
// starts when OptiScaler writes one file). find_optiscaler_log() picks the log of the latest start in a folder.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace d4r::release {

struct OptiScalerLogFindings {
    std::optional<bool> nvidia; // nullopt: the log does not say
    std::string nvidia_line;    // the line that said it
    bool dlss_missing = false;  // "nvngx_dlss.dll not found"
    std::string dlss_line;
    std::optional<std::string> core; // the NGX core it loaded (as the log names it)
    std::string core_line;
};

OptiScalerLogFindings read_optiscaler_log(std::string_view text);

// OptiScaler's log in FOLDER: [Log] LogFileName of INI_TEXT when set (its stem, with or without OptiScaler's
// _<ticks> suffix), else OptiScaler.log or OptiScaler_<ticks>.log; the newest by modification time.
std::optional<std::filesystem::path> find_optiscaler_log(const std::filesystem::path& folder,
                                                         std::string_view ini_text);

} // namespace d4r::release
