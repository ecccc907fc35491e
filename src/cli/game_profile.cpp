// d4r command: a game's profile (game_profile.h).
#include "game_profile.h"

#include <fmt/format.h>

#include "config/values.h"

namespace d4r::cli {

Status inject_game_profile(config::ParsedConfig& parsed, const release::GameProfile& profile) {
    for (const release::ProfileValue& v : profile.d4r) {
        const config::KeyInfo* key = config::find_key(v.section, v.key);
        if (!key)
            return make_error(ErrorCode::Invalid, "{}: [{}] {} is not a d4r.ini key", profile.origin(v.line), v.section,
                              v.key);
        Expected<std::string> value = config::canonical_value(*key, v.value);
        if (!value)
            return make_error(ErrorCode::Invalid, "{}: [{}] {} = {}: {}", profile.origin(v.line), v.section, v.key,
                              v.value, value.error().text());
        std::optional<config::FileValue>& slot = parsed.values[key->index()];
        if (slot) continue; // the game's own d4r.ini wins
        slot = config::FileValue{*value, v.value, 0, profile.origin(v.line)};
    }
    return ok_status();
}

} // namespace d4r::cli
