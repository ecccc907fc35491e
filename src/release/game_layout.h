// d4r release: which folder of a game holds the game's exe (where `d4r install` writes the release).
//
// Promise: given a game folder, the folder holding the game's exe and a sentence saying why it was
// chosen, by fixed rules (docs/install.md, "Which folder"):
//   1. Unreal Engine: folders <Project>/Binaries/Win64 holding an .exe, <Project> not "Engine"; one
//      such folder wins; among several, the only one with a *-Shipping.exe wins.
//   2. An .exe directly in the game folder: the game folder.
//   3. Only one folder holds an .exe: that folder.
//   4. The folder of the largest .exe, when it is more than twice the largest .exe of every other folder.
// Helper programs (crash reporters, uninstallers, redistributable installers, anti-cheat) and
// d4r's own folders are ignored. Anything else is an Invalid error listing every candidate folder
// with its largest .exe and asking for the folder itself. The search is bounded (8 levels, symbolic
// links to folders not followed) and never changes anything.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/status.h"

namespace d4r::release {

struct ExeFolderChoice {
    std::filesystem::path folder; // absolute
    std::string exe;              // the exe that decided (file name)
    std::string reason;           // one sentence: which rule chose it
};

inline constexpr int kMaxSearchDepth = 8;

// True for an .exe that is not the game (crash reporter, uninstaller, redistributable installer, ...).
bool is_helper_exe(const std::filesystem::path& relative);

Expected<ExeFolderChoice> find_exe_folder(const std::filesystem::path& game_dir);

} // namespace d4r::release
