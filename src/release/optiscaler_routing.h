// d4r release: the OptiScaler in a game folder, and the OptiScaler.ini keys that send its DLSS to d4r's shim.
//
// Promise:
// - find_optiscaler_dll() finds OptiScaler's DLL in a folder among the names OptiScaler is installed under
//   (dxgi.dll, winmm.dll, version.dll, ...) by its version resource (ProductName, InternalName or
//   FileDescription starting with "OptiScaler") and reads its file version. A dxgi.dll, OptiScaler.dll or
//   OptiScaler.asi beside an OptiScaler.ini whose version cannot be read is OptiScaler of unknown version.
// - routing_keys() is the one table of the keys d4r writes, each with the OptiScaler versions that read it;
//   routing_edit() turns it into the settings for one version (an unknown version gets the newest set) and
//   the removals of other versions' keys that hold exactly what d4r writes (so a key d4r wrote for another
//   version goes, and a key the user wrote stays).
// - find_dlss_as_optiscaler() looks for nvngx_dlss.dll where OptiScaler 0.9.1 and later look for it.
// Nothing here changes a file.
#pragma once

#include <compare>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "optiscaler_ini.h"
#include "optiscaler_keys.h"

namespace d4r::release {

struct OptiScalerVersion {
    uint32_t major = 0, minor = 0, patch = 0, build = 0;
    auto operator<=>(const OptiScalerVersion&) const = default;
    std::string text() const; // "0.9.4.3"
};

// "0.9.4.3" (or "0.9.4"); nullopt for anything else.
std::optional<OptiScalerVersion> parse_optiscaler_version(std::string_view text);

struct OptiScalerDll {
    std::filesystem::path path;
    std::optional<OptiScalerVersion> version; // nullopt: unknown (why_unknown says why)
    std::string why_unknown;
};

// The file names OptiScaler is installed under, in the order d4r looks at them.
std::span<const char* const> optiscaler_dll_names();

// OptiScaler's DLL in FOLDER (not searched below it); nullopt when there is none.
std::optional<OptiScalerDll> find_optiscaler_dll(const std::filesystem::path& folder);

// What a routing key's value is.
enum class RoutingValue {
    Fixed,      // the table's value
    Shim,       // d4r's shim as OptiScaler loads it
    DlssFolder, // the folder of nvngx_dlss.dll, written only when OptiScaler's own search would not find it
};

struct RoutingKey {
    OptiScalerKey key;
    RoutingValue kind;
    const char* value;                       // Fixed: the value written
    OptiScalerVersion from;                  // the first version that reads the key ({} = every version)
    std::optional<OptiScalerVersion> before; // the first version that no longer reads it (nullopt = still read)
    const char* purpose;                     // why d4r writes it (docs, doctor)
};

std::span<const RoutingKey> routing_keys();
// Whether KEY is read by VERSION; an unknown version is taken as the newest.
bool routing_key_applies(const RoutingKey& key, const std::optional<OptiScalerVersion>& version);
// "0.9.1 and later", "before 0.9.1", "every version".
std::string routing_key_versions(const RoutingKey& key);

// The first version that reads [Libraries] NvngxPath (and no longer [DLSS] LibraryPath).
inline constexpr OptiScalerVersion kLibrariesKeysFrom{0, 9, 1, 0};

struct RoutingInputs {
    std::optional<OptiScalerVersion> version;
    std::string shim;        // the shim as a path OptiScaler can load; empty: the path keys are not written
    std::string dlss_folder; // nvngx_dlss.dll's folder when OptiScaler would not find it; empty: not written
    // A game profile's OptiScaler keys: each replaces a routing key's value, or is added.
    std::vector<IniSetting> overrides;
};

struct RoutingEdit {
    std::vector<IniSetting> set;    // what d4r writes
    std::vector<IniRemoval> remove; // other versions' keys holding what d4r writes there
};

RoutingEdit routing_edit(const RoutingInputs& inputs);

// TEXT with EDIT applied (removals first), every other byte kept.
std::string apply_routing(std::string_view text, const RoutingEdit& edit);

// True when VALUE names one of d4r's shims (…\d4r\nvngx.dll, …d4r_nvngx.dll; any case, either slash).
bool names_d4r_shim(std::string_view value);

// A Linux path as Wine shows it to Windows programs (its Z: drive).
std::string windows_path(const std::filesystem::path& path);

// The Linux file a Windows path in OptiScaler.ini names: relative to FOLDER (OptiScaler resolves it against
// the working folder, which for a game is its exe folder), or under Z:\; empty for another drive.
std::filesystem::path unix_path_of(const std::filesystem::path& folder, std::string value);

// Where d4r's shim is in an exe folder, in the order d4r looks: d4r/nvngx.dll, d4r/d4r_nvngx.dll, d4r_nvngx.dll.
std::span<const char* const> shim_paths();
// The first of shim_paths() in EXE_FOLDER; nullopt when none.
std::optional<std::filesystem::path> find_shim(const std::filesystem::path& exe_folder);

// Where OptiScaler 0.9.1 and later find nvngx_dlss.dll, given its ini TEXT: [Libraries] NvngxDlssPath when it
// is an existing folder holding it, else a search of [Libraries] OptiDllPath's tree (default the exe folder),
// then of the exe folder's (names compared without case; d4r bounds the search at 12 folder levels).
std::optional<std::filesystem::path> find_dlss_as_optiscaler(const std::filesystem::path& exe_folder,
                                                             std::string_view ini_text);

// nvngx_dlss.dll for a game whose exe is in EXE_FOLDER: under the exe folder, else, for an Unreal game
// (…/<Project>/Binaries/Win64), under the game's root, where Unreal keeps its DLSS plugin.
std::optional<std::filesystem::path> find_game_dlss(const std::filesystem::path& exe_folder);

// Everything install and play decide for one game's OptiScaler.ini.
struct GameRouting {
    RoutingEdit edit;
    std::vector<std::string> notes; // one line each: the version and key set used, warnings, what was not written
};

struct GameRoutingInputs {
    std::filesystem::path exe_folder;
    std::string ini_text;                      // the OptiScaler.ini the edit is for
    std::optional<OptiScalerDll> dll;          // nullopt: none found (the newest keys are used)
    std::optional<std::filesystem::path> shim; // a Linux path; nullopt: the path keys are not written
    std::vector<IniSetting> overrides;         // a game profile's OptiScaler keys
    bool dlss_beside_exe = false;              // an install is about to put nvngx_dlss.dll beside the exe
};

// The routing for one game's OptiScaler.ini.
GameRouting plan_game_routing(const GameRoutingInputs& inputs);

} // namespace d4r::release
