// d4r config: which d4r.ini a command reads.
//
// Promise: one rule, used by every verb, doctor and (later) the launcher:
//   1. an explicit file (--config FILE): always read; missing is an error;
//   2. D4R_NO_CONFIG=1 (any true spelling): no file, built-in defaults;
//   3. D4R_CONFIG=FILE (non-empty): that file; missing is an error;
//   4. ./d4r.ini in the working folder, if present;
//   5. $XDG_CONFIG_HOME/d4r/d4r.ini (XDG_CONFIG_HOME set and absolute), else $HOME/.config/d4r/d4r.ini, if present;
//   6. no file: built-in defaults.
// Relative paths are taken from CWD. The result says which rule chose the file, for `show` and doctor.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "config_file.h"
#include "core/env.h"
#include "core/status.h"

namespace d4r::config {

namespace fs = std::filesystem;

inline constexpr std::string_view kConfigFileName = "d4r.ini";

struct ConfigLocation {
    std::optional<fs::path> path; // the file to read; nullopt: none (built-in defaults)
    std::string name;             // the file as given or found, for messages ("d4r.ini", "/x/d4r.ini")
    std::string reason;           // why this file, or why none ("--config", "D4R_NO_CONFIG=1", ...)

    // "d4r.ini (found in the working folder)" or "none (D4R_NO_CONFIG=1): built-in defaults".
    std::string describe() const;
};

Expected<ConfigLocation> locate_config_file(const Environment& env, const std::optional<fs::path>& explicit_path,
                                            const fs::path& cwd);

// Reads the located file (at most 1 MiB); no file gives ConfigSource::none().
Expected<ConfigSource> read_config_source(const ConfigLocation& location);

} // namespace d4r::config
