// d4r release: installing a release into a game folder and undoing it (`d4r install`, `d4r uninstall`).
//
// Promise: install writes every file of the release (a folder, or a zip unpacked into a temporary folder
// that is removed whatever happens; install_zip.h) and the user's NVIDIA files into the
// folder holding the game's exe, backs up each file it replaces under d4r-backup/, and records what it
// did in d4r-install.json (every file with its SHA-256, the backups, the folders it created, the d4r
// version). Before changing anything it writes the whole plan to d4r-install.journal; the journal is
// removed last. An install found interrupted (a journal and no matching manifest) is rolled back; an
// interrupted uninstall is completed; both before anything else is done. uninstall restores the state
// before the install: created files removed, replaced files restored from their backups, created
// folders removed when empty, d4r.ini kept when its content differs from what was installed (unless
// purge). Every file is written through a temporary in the same folder and renamed, so no file is
// ever half-written. Messages for the user go through SAY; errors name the path.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "core/status.h"
#include "install_manifest.h"

namespace d4r::release {

using Say = std::function<void(std::string_view)>;

struct InstallOptions {
    std::filesystem::path game_dir;
    std::optional<std::filesystem::path> release; // a folder or a zip; else the release around the running d4r
    std::optional<std::filesystem::path> nvidia;
    bool dry_run = false;
    bool force = false; // re-install over an existing install (uninstalled first, so backups stay the originals)
    std::string d4r_version;
};

// Test hook, documented as test-only in docs/install.md: with D4R_TEST_INSTALL_STOP_AFTER=N
// (EnvVar::TestInstallStopAfter) the process kills itself (SIGKILL) after N file operations of an install or
// uninstall.

// The release folder around the running d4r: the parent of the nearest ancestor folder named "d4r".
Expected<std::filesystem::path> default_release_dir();

// The folder holding d4r-install.json or d4r-install.journal under GAME_DIR (searched 8 levels deep);
// nullopt when there is none; an error when several folders hold one.
Expected<std::optional<std::filesystem::path>> find_install_folder(const std::filesystem::path& game_dir);

// Completes or rolls back an interrupted install/uninstall under GAME_DIR. True when there was one.
Expected<bool> repair(const std::filesystem::path& game_dir, const Say& say);

Status install(const InstallOptions& options, const Say& say);

// NotFound when GAME_DIR holds no install manifest.
Status uninstall(const std::filesystem::path& game_dir, bool purge, bool dry_run, const Say& say);

} // namespace d4r::release
