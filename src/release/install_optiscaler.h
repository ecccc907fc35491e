// d4r release: the OptiScaler.ini an install leaves in the game folder (d4r install).
//
// Promise: route_installed_optiscaler() adds to an install plan the OptiScaler.ini that will be beside the
// game's exe, with the routing keys (optiscaler_routing.h) of the OptiScaler DLL that will be there: the
// release's OptiScaler when the release brings one, else the game's own. The release's OptiScaler.ini is
// installed edited; the game's own one (when the release has none) is backed up and edited like any file the
// install replaces, so uninstall puts it back byte for byte. The edited text is staged in a temporary folder
// (removed with the StagingFolder) and recorded with its SHA-256. Without any OptiScaler.ini it only says so.
#pragma once

#include <filesystem>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "install.h"
#include "install_manifest.h"

namespace d4r::release {

// A temporary folder, removed with the object.
class StagingFolder {
public:
    StagingFolder() = default;
    StagingFolder(const StagingFolder&) = delete;
    StagingFolder& operator=(const StagingFolder&) = delete;
    ~StagingFolder();
    // Writes NAME with TEXT into the folder (made on first use); its path.
    Expected<std::filesystem::path> write(const std::string& name, std::string_view text);

private:
    std::filesystem::path m_dir;
};

// FOLDER is the exe folder installed into, EXE the game's exe there (its game profile's OptiScaler keys are
// applied), RELEASE the release folder; COPY_FROM[i] is what is copied to PLAN.files[i].
Status route_installed_optiscaler(const std::filesystem::path& folder, const std::string& exe,
                                  const std::filesystem::path& release, InstallPlan& plan,
                                  std::vector<std::filesystem::path>& copy_from, StagingFolder& staging,
                                  const Say& say);

} // namespace d4r::release
