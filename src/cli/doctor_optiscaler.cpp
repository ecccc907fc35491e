// d4r doctor: OptiScaler in a game folder and Proton's NVIDIA identity (doctor_optiscaler.h).
#include "doctor_optiscaler.h"

#include <cstring>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/files.h"
#include "core/strings.h"
#include "game_profile.h"
#include "release/optiscaler_ini.h"
#include "release/optiscaler_keys.h"
#include "release/optiscaler_log.h"
#include "release/optiscaler_routing.h"

namespace d4r::cli {

namespace {

namespace fs = std::filesystem;
using release::OptiScalerKey;
using release::OptiScalerVersion;
using release::RoutingKey;

constexpr uint64_t kMaxIniBytes = 1 << 20;
constexpr uint64_t kMaxLogBytes = uint64_t(64) << 20;

std::string named(const OptiScalerKey& k) { return fmt::format("[{}] {}", k.section, k.key); }

bool same_key(const OptiScalerKey& a, const OptiScalerKey& b) {
    return iequals(a.section, b.section) && iequals(a.key, b.key);
}

std::string version_text(const std::optional<OptiScalerVersion>& v) {
    return v ? "OptiScaler " + v->text() : "the newest OptiScaler";
}

bool is_unset(const std::optional<std::string>& v) { return !v || v->empty() || iequals(*v, "auto"); }

// The NGX core path key of VERSION (KEY, its VALUE) as OptiScaler resolves it; what is wrong goes to WRONG.
void check_core_path(const fs::path& folder, const RoutingKey& key, const std::optional<std::string>& value,
                     std::string_view text, const std::optional<OptiScalerVersion>& version,
                     std::vector<std::string>& wrong) {
    const std::string name = named(key.key);
    if (is_unset(value)) {
        std::string line =
            fmt::format("{} is not set, so OptiScaler loads the driver's NGX core, not d4r's shim", name);
        // The other version's key, set instead of this one.
        for (const RoutingKey& other : release::routing_keys())
            if (other.kind == release::RoutingValue::Shim && !same_key(other.key, key.key))
                if (auto v = release::ini_value(text, other.key.section, other.key.key); !is_unset(v))
                    line += fmt::format("; {} is set, but {} does not read it (it is read {})", named(other.key),
                                        version_text(version), release::routing_key_versions(other));
        wrong.push_back(line);
        return;
    }
    const fs::path unix_path = release::unix_path_of(folder, *value);
    if (unix_path.empty()) return; // another drive: d4r cannot map it without the prefix
    // 0.9.1 and later try the path as a file, then as a folder; older ones take a trailing slash as a folder.
    const bool as_folder =
        same_key(key.key, release::kNvngxPath) ? is_dir(unix_path) : (value->back() == '\\' || value->back() == '/');
    if (!as_folder) {
        if (!is_file(unix_path)) {
            wrong.push_back(fmt::format("{} {} names no file", name, *value));
            return;
        }
        const std::optional<fs::path> shim = release::find_shim(folder);
        std::error_code ec;
        if (!release::names_d4r_shim(*value) && !(shim && fs::equivalent(*shim, unix_path, ec)))
            wrong.push_back(fmt::format("{} {} is not d4r's shim (d4r\\nvngx.dll)", name, *value));
        return;
    }
    if (is_file(unix_path / "_nvngx.dll"))
        wrong.push_back(fmt::format("{} {} is a folder: OptiScaler loads its _nvngx.dll (NVIDIA's NGX core), not "
                                    "d4r's shim; name the shim's file",
                                    name, *value));
    else if (!is_file(unix_path / "nvngx.dll"))
        wrong.push_back(fmt::format("{} {} is a folder without nvngx.dll or _nvngx.dll", name, *value));
}

void check_log(const fs::path& folder, std::string_view text, std::vector<CheckLine>& out) {
    const std::optional<fs::path> log = release::find_optiscaler_log(folder, text);
    if (!log) {
        out.push_back(check_line(CheckStatus::Ok, "optiscaler",
                                 fmt::format("no OptiScaler log in {} yet (OptiScaler writes it at the game's start "
                                             "with [Log] LogToFile=true, which d4r writes)",
                                             folder.string())));
        return;
    }
    Expected<std::string> body = read_text_file(*log, kMaxLogBytes);
    if (!body) {
        out.push_back(check_line(CheckStatus::Warn, "optiscaler", body.error().text()));
        return;
    }
    const release::OptiScalerLogFindings f = release::read_optiscaler_log(*body);
    const std::string where = log->string();
    bool said = false;
    if (f.nvidia && !*f.nvidia) {
        out.push_back(check_line(CheckStatus::Fail, "optiscaler",
                                 fmt::format("{}: \"{}\": at its last start OptiScaler saw no NVIDIA GPU and turned "
                                             "its DLSS backend off",
                                             where, f.nvidia_line),
                                 "start the game with 'd4r play -- %command%' in its launch options, or add "
                                 "PROTON_FORCE_NVAPI=1 before %command%"));
        said = true;
    }
    if (f.dlss_missing) {
        out.push_back(check_line(CheckStatus::Fail, "optiscaler",
                                 fmt::format("{}: \"{}\": OptiScaler turned DLSS off", where, f.dlss_line),
                                 "put your nvngx_dlss.dll beside the game's exe ('d4r install --force --nvidia DIR "
                                 "GAME_DIR') or name its folder in [Libraries] NvngxDlssPath"));
        said = true;
    }
    if (f.core) {
        if (release::names_d4r_shim(*f.core))
            out.push_back(check_line(CheckStatus::Ok, "optiscaler",
                                     fmt::format("{}: OptiScaler loaded d4r's shim ({})", where, *f.core)));
        else
            out.push_back(
                check_line(CheckStatus::Fail, "optiscaler",
                           fmt::format("{}: OptiScaler loaded {} as its NGX core, not d4r's shim", where, *f.core),
                           "'d4r play' writes the NGX core path; check it with this doctor after the ini "
                           "step"));
        said = true;
    }
    if (f.nvidia && *f.nvidia && !said) {
        out.push_back(check_line(CheckStatus::Ok, "optiscaler",
                                 fmt::format("{}: \"{}\" (no NGX core loaded yet)", where, f.nvidia_line)));
        said = true;
    }
    if (!said)
        out.push_back(check_line(CheckStatus::Warn, "optiscaler",
                                 fmt::format("{}: none of OptiScaler's DLSS lines (Running on Nvidia, nvngx_dlss.dll "
                                             "not found, ... loaded from) is in it",
                                             where),
                                 "OptiScaler logs them at [Log] LogLevel 2 (info) or lower"));
}

// Splits Steam launch options at spaces, quotes kept together ("a b" is one word, without the quotes).
std::vector<std::string> words_of(std::string_view text) {
    std::vector<std::string> words;
    std::string cur;
    bool any = false;
    char quote = 0;
    for (char c : text) {
        if (quote) {
            if (c == quote)
                quote = 0;
            else
                cur += c;
        } else if (c == '"' || c == '\'') {
            quote = c;
            any = true;
        } else if (c == ' ' || c == '\t') {
            if (any || !cur.empty()) words.push_back(cur);
            cur.clear();
            any = false;
        } else {
            cur += c;
        }
    }
    if (any || !cur.empty()) words.push_back(cur);
    return words;
}

} // namespace

void check_optiscaler(const fs::path& folder, const std::string& exe, const Environment& env,
                      std::vector<CheckLine>& out) {
    // The game's profile, whose OptiScaler values replace d4r's.
    std::string why;
    const std::optional<release::GameProfile> profile = release::game_profile_for(env, exe, why);
    if (profile)
        out.push_back(check_line(CheckStatus::Ok, "profile", profile->describe()));
    else
        out.push_back(check_line(why.starts_with("error: ") ? CheckStatus::Fail : CheckStatus::Ok, "profile", why));
    auto expected = [&](const RoutingKey& r) -> std::string {
        if (profile)
            for (const release::ProfileValue& v : profile->optiscaler)
                if (iequals(v.section, r.key.section) && iequals(v.key, r.key.key)) return v.value;
        return r.value;
    };

    fs::path ini_path = folder / release::kOptiScalerIniName;
    if (!is_file(ini_path) && is_file(folder / "optiscaler.ini")) ini_path = folder / "optiscaler.ini";
    auto text = read_text_file(ini_path, kMaxIniBytes);
    if (!text) {
        const bool old_name = is_file(folder / "nvngx.ini");
        out.push_back(check_line(
            CheckStatus::Warn, "optiscaler",
            fmt::format("no OptiScaler.ini in {}{}", folder.string(),
                        old_name ? " (an nvngx.ini is there, the name old OptiScaler releases read; d4r writes only "
                                   "OptiScaler.ini)"
                                 : ""),
            "without OptiScaler the game's DLSS calls do not reach d4r's shim; install the full release ('d4r install')"));
        return;
    }

    // The DLL, and so the keys this OptiScaler reads.
    const std::optional<release::OptiScalerDll> dll = release::find_optiscaler_dll(folder);
    const std::optional<OptiScalerVersion> version = dll ? dll->version : std::nullopt;
    const bool libraries = !version || *version >= release::kLibrariesKeysFrom;
    const OptiScalerKey& core_key = libraries ? release::kNvngxPath : release::kDlssLibraryPath;
    if (!dll)
        out.push_back(check_line(CheckStatus::Warn, "optiscaler",
                                 fmt::format("no OptiScaler DLL ({}) in {}: OptiScaler.ini checked as the newest "
                                             "OptiScaler (0.9.1 and later) reads it",
                                             fmt::join(release::optiscaler_dll_names(), ", "), folder.string()),
                                 "install the full release ('d4r install'), or put OptiScaler's DLL beside the exe"));
    else if (!version)
        out.push_back(check_line(CheckStatus::Warn, "optiscaler",
                                 fmt::format("{}: OptiScaler's version is unknown ({}): OptiScaler.ini checked as the "
                                             "newest OptiScaler (0.9.1 and later) reads it",
                                             dll->path.string(), dll->why_unknown),
                                 "use an OptiScaler release whose DLL declares its version (0.7.7 or later)"));
    else
        out.push_back(check_line(CheckStatus::Ok, "optiscaler",
                                 fmt::format("OptiScaler {} ({}): its NGX core path is {}", version->text(),
                                             dll->path.filename().string(), named(core_key))));

    // The routing keys, as this version reads them.
    auto value = [&](const OptiScalerKey& k) { return release::ini_value(*text, k.section, k.key); };
    std::vector<std::string> wrong, odd;
    std::optional<std::string> core_value;
    for (const RoutingKey& r : release::routing_keys()) {
        const std::optional<std::string> v = value(r.key);
        if (!release::routing_key_applies(r, version)) {
            if (r.kind == release::RoutingValue::Shim && !is_unset(v))
                odd.push_back(fmt::format("{} is set, but {} does not read it (read {}; d4r play removes d4r's)",
                                          named(r.key), version_text(version), release::routing_key_versions(r)));
            continue;
        }
        switch (r.kind) {
        case release::RoutingValue::Shim:
            core_value = v;
            check_core_path(folder, r, v, *text, version, wrong);
            break;
        case release::RoutingValue::DlssFolder:
            break; // below
        case release::RoutingValue::Fixed:
            if (same_key(r.key, release::kDx12Upscaler) || same_key(r.key, release::kHookOriginalNvngxOnly)) {
                if (!v || !iequals(*v, r.value))
                    wrong.push_back(fmt::format("{} is {}, not {}", named(r.key), v.value_or("unset"), r.value));
            } else if (same_key(r.key, release::kDlssEnabled)) {
                if (v && iequals(*v, "false"))
                    wrong.push_back(named(r.key) + " is false (OptiScaler's DLSS backend is off)");
            } else if (v && !iequals(*v, "auto") && !iequals(*v, expected(r))) {
                odd.push_back(fmt::format("{} is {} (d4r writes {}: {})", named(r.key), *v, expected(r), r.purpose));
            }
            break;
        }
    }
    // Keys an older d4r wrote where OptiScaler never reads them.
    if (value({"DLSS", "NvngxPath"}))
        wrong.push_back("[DLSS] NvngxPath is not an OptiScaler key (an older d4r wrote it)");
    if (!wrong.empty()) {
        out.push_back(check_line(CheckStatus::Fail, "optiscaler",
                                 fmt::format("{}: {}", ini_path.string(), fmt::join(wrong, "; ")),
                                 "'d4r play' writes the keys this OptiScaler reads; or set them by hand in "
                                 "OptiScaler.ini (docs/optiscaler.md)"));
    } else {
        out.push_back(check_line(
            CheckStatus::Ok, "optiscaler",
            fmt::format("{}: DLSS routed to {} ({})", ini_path.string(), core_value.value_or("?"), named(core_key))));
    }
    if (!odd.empty())
        out.push_back(check_line(CheckStatus::Warn, "optiscaler",
                                 fmt::format("{}: {}", ini_path.string(), fmt::join(odd, "; ")),
                                 "'d4r play' writes d4r's values at each start unless a game profile says otherwise "
                                 "(docs/optiscaler.md)"));

    // nvngx_dlss.dll, which OptiScaler 0.9.1 and later need to keep DLSS on.
    if (libraries) {
        if (std::optional<fs::path> dlss = release::find_dlss_as_optiscaler(folder, *text)) {
            out.push_back(
                check_line(CheckStatus::Ok, "optiscaler",
                           fmt::format("{} finds nvngx_dlss.dll at {}", version_text(version), dlss->string())));
        } else {
            const std::optional<std::string> dir = value(release::kNvngxDlssPath);
            out.push_back(check_line(
                CheckStatus::Fail, "optiscaler",
                fmt::format("{} finds no nvngx_dlss.dll ({} {}; none under {}) and turns its DLSS backend off",
                            version_text(version), named(release::kNvngxDlssPath),
                            is_unset(dir) ? "is not set" : *dir + " holds none", folder.string()),
                "put your nvngx_dlss.dll beside the game's exe ('d4r install --force --nvidia DIR GAME_DIR'), or name "
                "its folder in [Libraries] NvngxDlssPath"));
        }
    }
    check_log(folder, *text, out);
}

void check_nvapi(const InstallCheckOptions& options, const Environment& env, std::vector<CheckLine>& out) {
    constexpr const char* kForce = "PROTON_FORCE_NVAPI";
    const std::optional<std::string> own = env.get(kForce);
    std::optional<bool> forced;
    std::string how;
    if (options.launch_options) {
        const std::vector<std::string> words = words_of(*options.launch_options);
        std::optional<std::string> explicit_value;
        bool play = false;
        for (size_t i = 0; i < words.size() && words[i] != "%command%"; ++i) {
            if (words[i].starts_with(std::string(kForce) + "="))
                explicit_value = words[i].substr(std::strlen(kForce) + 1);
            if (fs::path(words[i]).filename() == "d4r" && i + 1 < words.size() && words[i + 1] == "play") play = true;
        }
        if (explicit_value) {
            forced = *explicit_value == "1";
            how = fmt::format("the launch options set {}={}", kForce, *explicit_value);
        } else if (play && own && *own != "1") {
            forced = false;
            how = fmt::format("d4r play keeps your {}={}", kForce, *own);
        } else if (play) {
            forced = true;
            how = fmt::format("d4r play in the launch options sets {}=1", kForce);
        } else {
            forced = false;
            how = fmt::format("the launch options '{}' set no {} and do not run d4r play", *options.launch_options,
                              kForce);
        }
    } else if (own) {
        forced = *own == "1";
        how = fmt::format("{}={} in this environment (d4r play keeps a value you set)", kForce, *own);
    } else {
        how = fmt::format("d4r play sets {}=1; the game's launch options were not given (--launch-options)", kForce);
    }

    // The prefix: Proton's version and dxvk-nvapi.
    std::optional<fs::path> compat = options.prefix;
    if (!compat)
        if (auto v = env.get("STEAM_COMPAT_DATA_PATH"); v && !v->empty()) compat = fs::path(*v);
    std::string prefix_text = "prefix not given";
    if (compat) {
        const std::string proton = proton_version_text(*compat);
        const bool nvapi = is_file(*compat / "pfx/drive_c/windows/system32/nvapi64.dll");
        prefix_text = fmt::format("{}; {}", proton,
                                  nvapi ? "dxvk-nvapi (nvapi64.dll) is in the prefix"
                                        : "no nvapi64.dll in the prefix yet (Proton puts dxvk-nvapi there at the next "
                                          "start with PROTON_FORCE_NVAPI=1)");
    }
    if (forced && !*forced)
        out.push_back(check_line(CheckStatus::Fail, "nvapi",
                                 fmt::format("OptiScaler would see no NVIDIA GPU and turn its DLSS backend off: {} "
                                             "({})",
                                             how, prefix_text),
                                 "launch options: d4r play -- %command% (or PROTON_FORCE_NVAPI=1 "
                                 "DXVK_NVAPI_GPU_ARCH=AD100 %command%)"));
    else if (forced)
        out.push_back(check_line(CheckStatus::Ok, "nvapi",
                                 fmt::format("OptiScaler sees an NVIDIA GPU: {} ({})", how, prefix_text)));
    else
        out.push_back(check_line(CheckStatus::Warn, "nvapi", fmt::format("{} ({})", how, prefix_text),
                                 "give the game's launch options with --launch-options '...' to check them"));
}

} // namespace d4r::cli
