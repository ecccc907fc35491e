// d4r release: the OptiScaler in a game folder and the keys that route its DLSS to d4r (optiscaler_routing.h).
#include "optiscaler_routing.h"

#include <algorithm>
#include <array>
#include <charconv>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/files.h"
#include "core/strings.h"
#include "pe_version.h"

namespace d4r::release {

namespace fs = std::filesystem;

namespace {

// OptiScaler's DLL is 20-60 MB; a bigger file under one of its names is not read.
constexpr uint64_t kMaxDllBytes = uint64_t(256) << 20;
constexpr int kMaxDlssSearchDepth = 12; // Unreal keeps nvngx_dlss.dll 8 folders below the game root
constexpr const char* kDlssName = "nvngx_dlss.dll";

// The table (docs/optiscaler.md, "The keys"). Versions were read from OptiScaler's Config.cpp at 0.7.7.13,
// 0.8.0.1, 0.9.0.2, 0.9.0.10 and 0.9.4.3; [Libraries] from the 0.9.1 LoadLibrary rework.
constexpr OptiScalerVersion kAny{};
constexpr OptiScalerVersion kFrameGenSplit{0, 8, 0, 0};  // FGType became FGInput/FGOutput
constexpr OptiScalerVersion kFrameGenEnable{0, 9, 0, 2}; // [FrameGen] Enabled came back

const std::array kRouting = {
    RoutingKey{kDx12Upscaler, RoutingValue::Fixed, "dlss", kAny, std::nullopt,
               "the game's D3D12 upscaling goes to OptiScaler's DLSS backend"},
    RoutingKey{kDlssEnabled, RoutingValue::Fixed, "true", kAny, std::nullopt, "the DLSS backend is on"},
    RoutingKey{kNvngxPath, RoutingValue::Shim, "", kLibrariesKeysFrom, std::nullopt,
               "the DLSS backend loads d4r's shim as its NGX core"},
    RoutingKey{kDlssLibraryPath, RoutingValue::Shim, "", kAny, kLibrariesKeysFrom,
               "the DLSS backend loads d4r's shim as its NGX core"},
    RoutingKey{kNvngxDlssPath, RoutingValue::DlssFolder, "", kLibrariesKeysFrom, std::nullopt,
               "OptiScaler finds nvngx_dlss.dll (else it turns DLSS off); written only when its own search would "
               "miss it"},
    RoutingKey{kEnableDlssInputs, RoutingValue::Fixed, "true", kAny, std::nullopt, "the game's DLSS inputs are used"},
    RoutingKey{kHookOriginalNvngxOnly, RoutingValue::Fixed, "true", kAny, std::nullopt,
               "the shim's own load of NVIDIA's NGX core is not answered with OptiScaler itself"},
    RoutingKey{kOverrideNvapiDll, RoutingValue::Fixed, "false", kAny, std::nullopt,
               "Proton's nvapi64.dll (dxvk-nvapi) stays, so the game sees the GPU Proton reports"},
    RoutingKey{kDxgiSpoofing, RoutingValue::Fixed, "true", kAny, std::nullopt,
               "DXGI reports an NVIDIA GPU, so the game offers DLSS"},
    RoutingKey{kFrameGenEnabled, RoutingValue::Fixed, "false", kFrameGenEnable, std::nullopt,
               "no frame generation: d4r runs upscaling only"},
    RoutingKey{kFgInput, RoutingValue::Fixed, "nofg", kFrameGenSplit, std::nullopt, "no frame generation input"},
    RoutingKey{kFgOutput, RoutingValue::Fixed, "nofg", kFrameGenSplit, std::nullopt, "no frame generation output"},
    RoutingKey{kFgType, RoutingValue::Fixed, "nofg", kAny, kFrameGenSplit, "no frame generation"},
    RoutingKey{kLogToFile, RoutingValue::Fixed, "true", kAny, std::nullopt,
               "OptiScaler writes OptiScaler.log, which d4r doctor reads"},
};

constexpr std::array<const char*, 10> kDllNames = {"dxgi.dll",    "OptiScaler.dll", "OptiScaler.asi", "winmm.dll",
                                                   "version.dll", "dbghelp.dll",    "d3d12.dll",      "wininet.dll",
                                                   "winhttp.dll", "nvngx.dll"};

// FOLDER's entry named NAME without case (Windows names files without case; a Linux folder may hold any).
std::optional<fs::path> entry_named(const fs::path& folder, std::string_view name) {
    if (is_file(folder / name)) return folder / name;
    std::error_code ec;
    for (auto it = fs::directory_iterator(folder, ec); !ec && it != fs::directory_iterator(); it.increment(ec))
        if (iequals(it->path().filename().string(), name) && it->is_regular_file(ec)) return it->path();
    return std::nullopt;
}

bool says_optiscaler(std::span<const uint8_t> bytes) {
    for (const char* field : {"ProductName", "InternalName", "FileDescription"})
        if (auto v = pe_version_string(bytes, field); v && starts_with(to_lower(*v), "optiscaler")) return true;
    return false;
}

std::optional<fs::path> search_tree(const fs::path& root, std::string_view name) {
    if (!is_dir(root)) return std::nullopt;
    std::vector<fs::path> found;
    std::error_code ec;
    auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied, ec);
    for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        std::error_code e2;
        if (it->is_directory(e2)) {
            if (it->is_symlink(e2) || it.depth() + 1 >= kMaxDlssSearchDepth) it.disable_recursion_pending();
            continue;
        }
        if (iequals(it->path().filename().string(), name)) found.push_back(it->path());
    }
    if (found.empty()) return std::nullopt;
    // The shallowest, then the first by name: the same answer on every file system.
    std::sort(found.begin(), found.end(), [](const fs::path& a, const fs::path& b) {
        const auto da = std::distance(a.begin(), a.end()), db = std::distance(b.begin(), b.end());
        return da != db ? da < db : a < b;
    });
    return found.front();
}

std::string lower_slashes(std::string_view value) {
    std::string p = to_lower(value);
    std::replace(p.begin(), p.end(), '\\', '/');
    return p;
}

} // namespace

std::string OptiScalerVersion::text() const { return fmt::format("{}.{}.{}.{}", major, minor, patch, build); }

std::optional<OptiScalerVersion> parse_optiscaler_version(std::string_view text) {
    std::array<uint32_t, 4> parts{};
    size_t n = 0;
    const char* p = text.data();
    const char* end = text.data() + text.size();
    while (p < end && n < parts.size()) {
        auto [next, ec] = std::from_chars(p, end, parts[n]);
        if (ec != std::errc()) return std::nullopt;
        ++n;
        p = next;
        if (p == end) break;
        if (*p != '.') return std::nullopt;
        ++p;
        if (p == end) return std::nullopt;
    }
    if (p != end || n < 3) return std::nullopt;
    return OptiScalerVersion{parts[0], parts[1], parts[2], parts[3]};
}

std::span<const char* const> optiscaler_dll_names() { return kDllNames; }

std::optional<OptiScalerDll> find_optiscaler_dll(const fs::path& folder) {
    std::optional<OptiScalerDll> unknown;
    const bool has_ini = entry_named(folder, kOptiScalerIniName).has_value();
    for (const char* name : kDllNames) {
        std::optional<fs::path> path = entry_named(folder, name);
        if (!path) continue;
        Expected<std::vector<uint8_t>> bytes = read_file(*path, kMaxDllBytes);
        if (bytes && says_optiscaler(*bytes)) {
            OptiScalerDll dll{*path, std::nullopt, ""};
            if (auto v = pe_file_version(*bytes)) dll.version = parse_optiscaler_version(*v);
            if (!dll.version) dll.why_unknown = "its version resource declares no file version d4r can read";
            return dll;
        }
        // OptiScaler's usual names beside its ini, without a version resource d4r can read.
        const std::string lname = to_lower(name);
        if (!unknown && has_ini && (lname == "dxgi.dll" || lname == "optiscaler.dll" || lname == "optiscaler.asi"))
            unknown = OptiScalerDll{*path, std::nullopt,
                                    bytes ? "it has no version resource naming OptiScaler"
                                          : "it cannot be read: " + bytes.error().text()};
    }
    return unknown;
}

std::span<const RoutingKey> routing_keys() { return kRouting; }

bool routing_key_applies(const RoutingKey& key, const std::optional<OptiScalerVersion>& version) {
    if (!version) return !key.before.has_value();
    return *version >= key.from && (!key.before || *version < *key.before);
}

std::string routing_key_versions(const RoutingKey& key) {
    auto short_text = [](const OptiScalerVersion& v) {
        return v.build ? v.text() : fmt::format("{}.{}.{}", v.major, v.minor, v.patch);
    };
    if (key.from == kAny && !key.before) return "every version";
    if (key.from == kAny) return "before " + short_text(*key.before);
    if (!key.before) return short_text(key.from) + " and later";
    return fmt::format("{} to before {}", short_text(key.from), short_text(*key.before));
}

RoutingEdit routing_edit(const RoutingInputs& in) {
    RoutingEdit edit;
    auto overridden = [&](const OptiScalerKey& k) -> const IniSetting* {
        for (const IniSetting& o : in.overrides)
            if (iequals(o.section, k.section) && iequals(o.key, k.key)) return &o;
        return nullptr;
    };
    for (const RoutingKey& r : kRouting) {
        if (!routing_key_applies(r, in.version)) {
            // Another version's key: taken out where it holds what d4r would write there.
            switch (r.kind) {
            case RoutingValue::Fixed: {
                const std::string mine = r.value;
                edit.remove.push_back({r.key.section, r.key.key, [mine](std::string_view v) { return v == mine; }});
                break;
            }
            case RoutingValue::Shim:
                edit.remove.push_back({r.key.section, r.key.key, names_d4r_shim});
                break;
            case RoutingValue::DlssFolder:
                break; // d4r cannot tell its own from the user's
            }
            continue;
        }
        std::string value;
        switch (r.kind) {
        case RoutingValue::Fixed:
            value = r.value;
            break;
        case RoutingValue::Shim:
            value = in.shim;
            break;
        case RoutingValue::DlssFolder:
            value = in.dlss_folder;
            break;
        }
        if (const IniSetting* o = overridden(r.key)) value = o->value;
        if (value.empty()) continue;
        edit.set.push_back(optiscaler_setting(r.key, value));
    }
    for (const IniSetting& o : in.overrides) {
        bool in_table = false;
        for (const IniSetting& s : edit.set) in_table |= iequals(s.section, o.section) && iequals(s.key, o.key);
        if (!in_table) edit.set.push_back(o);
    }
    // An older d4r wrote the shim into [DLSS] NvngxPath, which no OptiScaler reads.
    edit.remove.push_back({"DLSS", "NvngxPath", names_d4r_shim});
    return edit;
}

std::string apply_routing(std::string_view text, const RoutingEdit& edit) {
    return apply_ini_settings(remove_ini_keys(text, edit.remove), edit.set);
}

bool names_d4r_shim(std::string_view value) {
    const std::string p = lower_slashes(value);
    auto ends = [&](std::string_view tail) {
        return p == tail || (p.ends_with(tail) && p[p.size() - tail.size() - 1] == '/');
    };
    return ends("d4r/nvngx.dll") || ends("d4r/d4r_nvngx.dll") || ends("d4r_nvngx.dll");
}

std::string windows_path(const fs::path& path) {
    std::string s = "Z:" + path.string();
    std::replace(s.begin(), s.end(), '/', '\\');
    return s;
}

fs::path unix_path_of(const fs::path& folder, std::string p) {
    std::replace(p.begin(), p.end(), '\\', '/');
    const bool drive = p.size() > 1 && p[1] == ':';
    if (drive && (p[0] == 'Z' || p[0] == 'z')) return fs::path(p.substr(2));
    if (drive) return {};
    return fs::path(p).is_absolute() ? fs::path(p) : folder / p;
}

std::span<const char* const> shim_paths() {
    static constexpr std::array<const char*, 3> kShims = {"d4r/nvngx.dll", "d4r/d4r_nvngx.dll", "d4r_nvngx.dll"};
    return kShims;
}

std::optional<fs::path> find_shim(const fs::path& exe_folder) {
    for (const char* shim : shim_paths())
        if (is_file(exe_folder / shim)) return exe_folder / shim;
    return std::nullopt;
}

std::optional<fs::path> find_dlss_as_optiscaler(const fs::path& exe_folder, std::string_view ini_text) {
    if (auto v = ini_value(ini_text, kNvngxDlssPath.section, kNvngxDlssPath.key); v && !v->empty() && *v != "auto") {
        const fs::path dir = unix_path_of(exe_folder, *v);
        if (!dir.empty() && is_dir(dir))
            if (auto f = entry_named(dir, kDlssName)) return f;
    }
    fs::path opti = exe_folder;
    if (auto v = ini_value(ini_text, kOptiDllPath.section, kOptiDllPath.key); v && !v->empty() && *v != "auto")
        if (fs::path dir = unix_path_of(exe_folder, *v); !dir.empty()) opti = dir;
    if (auto f = search_tree(opti, kDlssName)) return f;
    return search_tree(exe_folder, kDlssName);
}

std::optional<fs::path> find_game_dlss(const fs::path& exe_folder) {
    if (auto f = search_tree(exe_folder, kDlssName)) return f;
    const fs::path win64 = exe_folder.lexically_normal();
    const fs::path binaries = win64.parent_path();
    if (iequals(win64.filename().string(), "Win64") && iequals(binaries.filename().string(), "Binaries"))
        return search_tree(binaries.parent_path().parent_path(), kDlssName);
    return std::nullopt;
}

GameRouting plan_game_routing(const GameRoutingInputs& g) {
    const fs::path& exe_folder = g.exe_folder;
    const std::optional<OptiScalerDll>& dll = g.dll;
    const std::optional<fs::path>& shim = g.shim;
    GameRouting out;
    RoutingInputs in;
    in.overrides = g.overrides;
    if (!dll) {
        out.notes.push_back(fmt::format("warning: no OptiScaler DLL ({}) in {}: writing the keys of the newest "
                                        "OptiScaler ({} and later)",
                                        fmt::join(kDllNames, ", "), exe_folder.string(), "0.9.1"));
    } else if (!dll->version) {
        out.notes.push_back(fmt::format("warning: {}: OptiScaler's version is unknown ({}); writing the keys of the "
                                        "newest OptiScaler (0.9.1 and later)",
                                        dll->path.string(), dll->why_unknown));
    } else {
        in.version = dll->version;
        out.notes.push_back(
            fmt::format("OptiScaler {} ({}): writing the keys it reads ({} {})", dll->version->text(),
                        dll->path.filename().string(),
                        *dll->version >= kLibrariesKeysFrom ? "[Libraries] NvngxPath, for" : "[DLSS] LibraryPath, for",
                        *dll->version >= kLibrariesKeysFrom ? "0.9.1 and later" : "before 0.9.1"));
    }
    if (shim) {
        in.shim = windows_path(*shim);
    } else {
        out.notes.push_back(fmt::format("warning: no d4r shim (d4r/nvngx.dll or d4r_nvngx.dll) in {}: OptiScaler's "
                                        "NGX core path left as it is",
                                        exe_folder.string()));
    }
    if (!g.dlss_beside_exe && (!in.version || *in.version >= kLibrariesKeysFrom)) {
        if (!find_dlss_as_optiscaler(exe_folder, g.ini_text)) {
            if (std::optional<fs::path> dlss = find_game_dlss(exe_folder)) {
                in.dlss_folder = windows_path(dlss->parent_path());
                out.notes.push_back(fmt::format("{} is outside OptiScaler's search: [{}] {} names its folder",
                                                dlss->string(), kNvngxDlssPath.section, kNvngxDlssPath.key));
            } else {
                out.notes.push_back(fmt::format("warning: no {} under {}: OptiScaler turns its DLSS backend off "
                                                "without it (install your NVIDIA files: d4r install --nvidia DIR)",
                                                kDlssName, exe_folder.string()));
            }
        }
    }
    out.edit = routing_edit(in);
    return out;
}

} // namespace d4r::release
