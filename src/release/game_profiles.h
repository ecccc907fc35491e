// d4r release: per-game profiles (packaging/game-profiles.ini, carried in d4r's binary).
//
// Promise: parse_game_profiles() reads the profile file's format (its header documents it): one section per
// exe name, a required `source`, and `OptiScaler.<Section>.<Key>`, `d4r.<Section>.<Key>` and `env.<NAME>` keys.
// Anything else, a section without source, an exe named twice or a key line outside a section is an error
// naming the line. find_game_profile() finds a game's profile by its exe's file name without case.
// builtin_game_profiles() is the table d4r was built with, parsed once (a broken table fails the build's tests,
// and is reported, not thrown, at run time).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/env.h"
#include "core/status.h"
#include "optiscaler_ini.h"

namespace d4r::release {

inline constexpr const char* kGameProfilesName = "game-profiles.ini";

struct ProfileValue {
    std::string section; // d4r.ini or OptiScaler.ini section; empty for env
    std::string key;     // the key, or the variable's name
    std::string value;
    int line = 0;
};

struct GameProfile {
    std::string file = kGameProfilesName; // the table it is from (for origins)
    std::string exe;                      // as the file names it
    std::string source;                   // where the entry comes from
    int line = 0;                         // of the section header
    std::vector<ProfileValue> optiscaler, d4r, env;

    std::vector<IniSetting> optiscaler_settings() const;
    // "game profile rdr2.exe (game-profiles.ini:17)"
    std::string origin(int value_line) const;
    std::string describe() const; // one line: every value, for doctor and logs
};

// FILE names the table in errors and origins.
Expected<std::vector<GameProfile>> parse_game_profiles(std::string_view text,
                                                       std::string_view file = kGameProfilesName);

// The profile of EXE (a file name or a path; compared without case), or nullopt.
std::optional<GameProfile> find_game_profile(const std::vector<GameProfile>& profiles, std::string_view exe);

// The table d4r was built with (packaging/game-profiles.ini).
std::string_view builtin_game_profiles_text();
const Expected<std::vector<GameProfile>>& builtin_game_profiles();

// The profile of EXE in the table ENV selects: the file D4R_GAME_PROFILES names, else the built-in one.
// nullopt with WHY set when there is none, or when the table cannot be read (WHY then starts with "error: ").
std::optional<GameProfile> game_profile_for(const Environment& env, std::string_view exe, std::string& why);

} // namespace d4r::release
