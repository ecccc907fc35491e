// d4r release: the game launcher behind `d4r play -- COMMAND...` (docs/play.md).
//
// Promise: run_game() refuses to start while a wineserver runs for the prefix (exit 2, naming the
// prefix and the server's pid); completes a restore left behind by a d4r that was killed; writes the
// restore journal (with a backup of every file it may change) BEFORE changing anything; writes d4r's
// keys into OptiScaler.ini and the cvars into Engine.ini; runs COMMAND as a child with the planned
// environment, copying its output to the log folder; re-applies the OptiScaler keys (checked every
// second) whenever the file is rewritten; forwards SIGINT/SIGTERM/SIGHUP to the child and waits; and
// restores every file before returning the child's exit status (128 + signal when it was killed).
// A dry run prints the plan and changes nothing.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "optiscaler_ini.h"
#include "restore_journal.h"

namespace d4r::release {

namespace fs = std::filesystem;

struct EnvChange {
    std::string name;
    std::optional<std::string> value; // nullopt: unset
    std::string why;                  // "d4r.ini:12", "NVAPI (Proton DLSS)", ...
};

struct LaunchPlan {
    std::vector<std::string> command;
    std::vector<EnvChange> env;
    std::optional<fs::path> prefix; // the Wine prefix (…/pfx); nullopt: none
    std::string prefix_reason;
    fs::path target;      // what the journal key is made from (prefix, else game folder)
    std::string exe_name; // for the log folder name
    std::optional<fs::path> optiscaler_ini;
    std::vector<IniSetting> optiscaler_settings;
    std::vector<IniRemoval> optiscaler_removals; // keys d4r wrote for another OptiScaler version
    std::optional<fs::path> engine_ini;
    std::vector<IniSetting> engine_settings;
    fs::path journal_dir;
    fs::path log_root;           // the log folder is log_root/game-<exe>-<stamp>
    std::string config_text;     // `d4r config show`, the log folder's first file
    fs::path wine_root = "/tmp"; // where Wine's server sockets live
    int watch_interval_ms = 1000;
    bool dry_run = false;
};

// Runs the plan; the result is the exit status for d4r (the child's, or 2 when refused).
int run_game(const LaunchPlan& plan, const Say& say);

// The exe in COMMAND: the last argument ending in .exe (any case), else nullopt.
std::optional<std::string> find_game_exe(const std::vector<std::string>& command);

} // namespace d4r::release
