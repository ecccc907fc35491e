// d4r release: editing an INI file in place (OptiScaler.ini, an Unreal Engine.ini) without losing anything.
//
// Promise: the file is read as OptiScaler reads its ini (the SimpleIni library): section and key names
// compared without case, a key belonging to the section above it (a section may appear more than once),
// a value running from after '=' to the end of its line with the spaces around it trimmed (a ';' there is
// part of the value), lines starting with ';' or '#' comments, a UTF-8 byte-order mark skipped.
// apply_ini_settings() sets each KEY = VALUE while keeping every other byte of the file: comments, blank
// lines, other keys and their order, the spaces around '=', the line endings. Every line carrying the key
// in its section gets its value replaced; the same name in another section is another key and is left
// alone; a missing key is added after the last key of its section, and a missing section is appended.
// ini_settings_hold() says whether a text already carries every setting, which is how the launcher notices
// that OptiScaler's "Save INI" rewrote the file; ini_value() is the value OptiScaler reads (the last line
// of the key in its section wins). remove_ini_keys() takes out every line of a key in its section whose
// value a removal accepts (line ending included), every other byte kept. Nothing here touches the disk.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace d4r::release {

struct IniSetting {
    std::string section; // the key's section (without brackets)
    std::string key;
    std::string value;
    bool operator==(const IniSetting&) const = default;
};

// A key to take out: every line of SECTION's KEY whose value MATCHES accepts.
struct IniRemoval {
    std::string section;
    std::string key;
    std::function<bool(std::string_view value)> matches;
};

// TEXT with every setting applied.
std::string apply_ini_settings(std::string_view text, const std::vector<IniSetting>& settings);
// TEXT without the lines REMOVALS accept.
std::string remove_ini_keys(std::string_view text, const std::vector<IniRemoval>& removals);
// True when no line of TEXT is one REMOVALS accept.
bool ini_removals_hold(std::string_view text, const std::vector<IniRemoval>& removals);
// Every KEY = VALUE line of TEXT with its section, in file order.
std::vector<IniSetting> ini_settings_in(std::string_view text);
// True when every setting's key is present in its section with exactly its value.
bool ini_settings_hold(std::string_view text, const std::vector<IniSetting>& settings);
// The value of SECTION's KEY as OptiScaler reads it (the last line wins); nullopt when the section has no such key.
std::optional<std::string> ini_value(std::string_view text, std::string_view section, std::string_view key);

// [Game] Cvars ("r.A=1; r.B=2", separated by ';' or ',') as settings of Engine.ini's [SystemSettings].
// An entry without '=' or with an empty name is an error naming it.
Expected<std::vector<IniSetting>> parse_cvars(std::string_view cvars);

} // namespace d4r::release
