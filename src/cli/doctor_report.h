// d4r doctor --report FILE.zip: one file a user attaches to a bug report.
//
// Promise: write_doctor_report() writes a zip (release/zip_writer.h, never half-written) holding
//   doctor.txt / doctor.json  the report just made, as text and as JSON;
//   config.txt                `d4r config show` with the same --config (which file, every key, every variable);
//   system.txt                d4r's version, the kernel (uname), the C library, the command line;
//   logs/<folder>/...         the newest game log folder `d4r play` wrote (~/.cache/d4r/logs/game-*), files
//                             above 16 MiB cut to their last 16 MiB (the end of a log is what matters);
//   MANIFEST.txt              what is in the zip and what was left out and why.
// Nothing outside these is read; the report holds paths and environment variable values the user can
// read before sending it.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/env.h"
#include "core/status.h"

namespace d4r::cli {

struct ReportInputs {
    std::string doctor_text;
    std::string doctor_json;
    std::optional<std::string> config_file; // --config given to doctor
    std::string command_line;
};

Status write_doctor_report(const std::filesystem::path& out, const ReportInputs& inputs, const Environment& env);

} // namespace d4r::cli
