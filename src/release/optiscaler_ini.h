// d4r release: editing an INI file in place (OptiScaler.ini, an Unreal Engine.ini) without losing anything.
//
// Promise: apply_ini_settings() sets each KEY = VALUE while keeping every other byte of the file:
// comments, blank lines, other keys and their order, the line endings. A key already present (compared
// case-insensitively) gets its value replaced where it is: in its preferred section when it is there (the
// same name elsewhere is left alone), else wherever the file has it; a missing key is added at the end of
// its preferred section, and a missing section is appended. ini_settings_hold() says whether a
// text already carries every setting, which is how the launcher notices that OptiScaler's "Save INI"
// rewrote the file. Nothing here touches the disk.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace d4r::release {

struct IniSetting {
    std::string section; // where a missing key is added (without brackets)
    std::string key;
    std::string value;
    bool operator==(const IniSetting&) const = default;
};

// TEXT with every setting applied.
std::string apply_ini_settings(std::string_view text, const std::vector<IniSetting>& settings);
// True when every setting's key is present with exactly its value.
bool ini_settings_hold(std::string_view text, const std::vector<IniSetting>& settings);

// [Game] Cvars ("r.A=1; r.B=2", separated by ';' or ',') as settings of Engine.ini's [SystemSettings].
// An entry without '=' or with an empty name is an error naming it.
Expected<std::vector<IniSetting>> parse_cvars(std::string_view cvars);

} // namespace d4r::release
