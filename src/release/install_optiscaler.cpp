// d4r release: the OptiScaler.ini an install leaves in the game folder (install_optiscaler.h).
#include "install_optiscaler.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "core/env.h"
#include "core/files.h"
#include "core/sha256.h"
#include "core/strings.h"
#include "game_profiles.h"
#include "optiscaler_routing.h"

namespace d4r::release {

namespace fs = std::filesystem;

namespace {

constexpr uint64_t kMaxIniBytes = 16 << 20;

} // namespace

StagingFolder::~StagingFolder() {
    if (m_dir.empty()) return;
    std::error_code ec;
    fs::remove_all(m_dir, ec);
}

Expected<fs::path> StagingFolder::write(const std::string& name, std::string_view text) {
    if (m_dir.empty()) {
        std::error_code ec;
        fs::path base = fs::temp_directory_path(ec);
        if (ec) base = "/tmp";
        std::string templ = (base / "d4r-install-XXXXXX").string();
        if (!::mkdtemp(templ.data()))
            return make_error(ErrorCode::Io, "cannot create a temporary folder {}: {}", templ, std::strerror(errno));
        m_dir = templ;
    }
    D4R_TRY(write_file_atomic(m_dir / name, text));
    return m_dir / name;
}

Status route_installed_optiscaler(const fs::path& folder, const std::string& exe, const fs::path& release,
                                  InstallPlan& plan, std::vector<fs::path>& copy_from, StagingFolder& staging,
                                  const Say& say) {
    std::optional<size_t> ini;
    bool dlss = false;
    std::optional<fs::path> shim;
    for (size_t i = 0; i < plan.files.size(); ++i) {
        const std::string& p = plan.files[i].path;
        if (iequals(p, kOptiScalerIniName)) ini = i;
        dlss |= iequals(p, "nvngx_dlss.dll");
        for (const char* s : shim_paths())
            if (!shim && p == s) shim = folder / p;
    }
    if (!shim) shim = find_shim(folder);

    // The ini that will be in the folder: the release's, else the game's own.
    fs::path source;
    std::string name = kOptiScalerIniName;
    if (ini) {
        source = copy_from[*ini];
    } else {
        for (const char* n : {kOptiScalerIniName, "optiscaler.ini"})
            if (is_file(folder / n)) {
                source = folder / n;
                name = n;
                break;
            }
    }
    if (source.empty()) {
        say(fmt::format("no OptiScaler.ini in the release or in {}: no OptiScaler keys written (without OptiScaler "
                        "the game's DLSS calls do not reach d4r)",
                        folder.string()));
        return ok_status();
    }
    const std::string text = D4R_TRY(read_text_file(source, kMaxIniBytes));

    // The OptiScaler DLL that will be beside it: the release's when it brings one, else the game's.
    GameRoutingInputs in;
    in.exe_folder = folder;
    in.ini_text = text;
    in.dll = find_optiscaler_dll(release);
    if (!in.dll) in.dll = find_optiscaler_dll(folder);
    in.shim = shim;
    in.dlss_beside_exe = dlss;
    std::string why;
    if (std::optional<GameProfile> profile = game_profile_for(process_environment(), exe, why)) {
        say("game profile: " + profile->describe());
        in.overrides = profile->optiscaler_settings();
    } else if (why.starts_with("error: ")) {
        say("warning: " + why.substr(7));
    }
    const GameRouting routing = plan_game_routing(in);
    for (const std::string& note : routing.notes) say(note);
    const std::string edited = apply_routing(text, routing.edit);
    const fs::path staged = D4R_TRY(staging.write(name, edited));

    if (ini) {
        copy_from[*ini] = staged;
        plan.files[*ini].sha256 = sha256_hex(edited);
        return ok_status();
    }
    if (edited == text) return ok_status(); // already routed: nothing to replace
    PlannedFile f;
    f.path = name;
    f.source = source.string();
    f.sha256 = sha256_hex(edited);
    f.action = FileAction::Replace;
    f.backup = (fs::path(kBackupFolder) / name).generic_string();
    f.original_sha256 = sha256_hex(text);
    plan.files.push_back(std::move(f));
    copy_from.push_back(staged);
    return ok_status();
}

} // namespace d4r::release
