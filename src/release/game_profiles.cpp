// d4r release: per-game profiles (game_profiles.h).
#include "game_profiles.h"

#include <filesystem>

#include <fmt/format.h>

#include "core/env_vars.h"
#include "core/files.h"
#include "core/strings.h"

namespace d4r::release {

extern const char* const kGameProfilesText; // game_profiles_data.cpp, made by the build from the packaging file

namespace {

Error line_error(std::string_view file, int line, std::string_view what) {
    return Error(ErrorCode::Invalid, fmt::format("{}:{}: {}", file, line, what));
}

} // namespace

std::vector<IniSetting> GameProfile::optiscaler_settings() const {
    std::vector<IniSetting> out;
    for (const ProfileValue& v : optiscaler) out.push_back({v.section, v.key, v.value});
    return out;
}

std::string GameProfile::origin(int value_line) const {
    return fmt::format("game profile {} ({}:{})", exe, file, value_line);
}

std::string GameProfile::describe() const {
    std::string out;
    auto add = [&](const std::string& text) { out += (out.empty() ? "" : ", ") + text; };
    for (const ProfileValue& v : optiscaler) add(fmt::format("OptiScaler [{}] {}={}", v.section, v.key, v.value));
    for (const ProfileValue& v : d4r) add(fmt::format("d4r.ini [{}] {}={}", v.section, v.key, v.value));
    for (const ProfileValue& v : env) add(fmt::format("{}={}", v.key, v.value));
    return fmt::format("{} ({}; {})", out.empty() ? "no values" : out, source, origin(line));
}

Expected<std::vector<GameProfile>> parse_game_profiles(std::string_view text, std::string_view file) {
    std::vector<GameProfile> out;
    int line_no = 0;
    size_t pos = 0;
    auto finish = [&]() -> Status {
        if (!out.empty() && out.back().source.empty())
            return line_error(file, out.back().line,
                              fmt::format("[{}] has no source (where the entry comes from)", out.back().exe));
        return ok_status();
    };
    while (pos <= text.size()) {
        size_t end = text.find('\n', pos);
        if (end == std::string_view::npos) end = text.size();
        const std::string_view line = trim(text.substr(pos, end - pos));
        pos = end + 1;
        ++line_no;
        if (line.empty() || line.front() == ';' || line.front() == '#') {
            if (end == text.size()) break;
            continue;
        }
        if (line.front() == '[') {
            if (line.back() != ']' || line.size() < 3) return line_error(file, line_no, "a section is [EXE NAME]");
            D4R_TRY(finish());
            const std::string exe(trim(line.substr(1, line.size() - 2)));
            for (const GameProfile& p : out)
                if (iequals(p.exe, exe))
                    return line_error(file, line_no, fmt::format("[{}] is already a profile (line {})", exe, p.line));
            out.push_back({std::string(file), exe, "", line_no, {}, {}, {}});
        } else {
            const size_t eq = line.find('=');
            if (eq == std::string_view::npos) return line_error(file, line_no, "expected KEY = VALUE");
            if (out.empty()) return line_error(file, line_no, "a value before the first [EXE NAME] section");
            const std::string key(trim(line.substr(0, eq)));
            const std::string value(trim(line.substr(eq + 1)));
            GameProfile& p = out.back();
            if (iequals(key, "source")) {
                p.source = value;
            } else if (key.starts_with("OptiScaler.") || key.starts_with("d4r.")) {
                const bool opti = key.starts_with("OptiScaler.");
                const std::string rest = key.substr(opti ? 11 : 4);
                const size_t dot = rest.find('.');
                if (dot == std::string::npos || dot == 0 || dot + 1 == rest.size())
                    return line_error(
                        file, line_no,
                        fmt::format("'{}': expected {}.<Section>.<Key>", key, opti ? "OptiScaler" : "d4r"));
                (opti ? p.optiscaler : p.d4r).push_back({rest.substr(0, dot), rest.substr(dot + 1), value, line_no});
            } else if (key.starts_with("env.") && key.size() > 4) {
                p.env.push_back({"", key.substr(4), value, line_no});
            } else {
                return line_error(file, line_no,
                                  fmt::format("unknown key '{}' (accepted: source, OptiScaler.<Section>.<Key>, "
                                              "d4r.<Section>.<Key>, env.<NAME>)",
                                              key));
            }
        }
        if (end == text.size()) break;
    }
    D4R_TRY(finish());
    return out;
}

std::optional<GameProfile> find_game_profile(const std::vector<GameProfile>& profiles, std::string_view exe) {
    const std::string name = std::filesystem::path(std::string(exe)).filename().string();
    for (const GameProfile& p : profiles)
        if (iequals(p.exe, name)) return p;
    return std::nullopt;
}

std::string_view builtin_game_profiles_text() { return kGameProfilesText; }

const Expected<std::vector<GameProfile>>& builtin_game_profiles() {
    static const Expected<std::vector<GameProfile>> parsed = parse_game_profiles(kGameProfilesText);
    return parsed;
}

std::optional<GameProfile> game_profile_for(const Environment& env, std::string_view exe, std::string& why) {
    Expected<std::vector<GameProfile>> custom = std::vector<GameProfile>{};
    const Expected<std::vector<GameProfile>>* table = &builtin_game_profiles();
    if (std::optional<std::string> path = env_text(env, EnvVar::GameProfiles); path && !path->empty()) {
        Expected<std::string> text = read_text_file(*path, 1 << 20);
        custom = text ? parse_game_profiles(*text, *path) : Expected<std::vector<GameProfile>>(text.error());
        table = &custom;
    }
    if (!*table) {
        why = "error: the game profile table cannot be used: " + table->error().text();
        return std::nullopt;
    }
    std::optional<GameProfile> p = find_game_profile(**table, exe);
    if (!p) why = fmt::format("no game profile for {}", std::filesystem::path(std::string(exe)).filename().string());
    return p;
}

} // namespace d4r::release
