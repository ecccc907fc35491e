// d4r command: a game's profile (release/game_profiles.h) as install, play, doctor and `config show --exe` use it.
//
// Promise: inject_game_profile() adds the profile's d4r.ini values that the parsed
// file does not set itself (the file wins), each with the profile as its origin, and returns an error naming
// the profile line for a value the schema refuses.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "config/config_file.h"
#include "core/status.h"
#include "release/game_profiles.h"

namespace d4r::cli {

Status inject_game_profile(config::ParsedConfig& parsed, const release::GameProfile& profile);

} // namespace d4r::cli
