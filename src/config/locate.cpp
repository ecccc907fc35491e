#include "locate.h"

#include <fmt/format.h>

#include "core/env_vars.h"
#include "core/files.h"
#include "values.h"

namespace d4r::config {

namespace {

// A d4r.ini is a page of text; anything this large is the wrong file.
constexpr uint64_t kMaxConfigBytes = 1 << 20;

fs::path under(const fs::path& cwd, const fs::path& path) { return path.is_absolute() ? path : cwd / path; }

} // namespace

std::string ConfigLocation::describe() const {
    if (!path) return fmt::format("none ({}): built-in defaults", reason);
    return fmt::format("{} ({})", name, reason);
}

Expected<ConfigLocation> locate_config_file(const Environment& env, const std::optional<fs::path>& explicit_path,
                                            const fs::path& cwd) {
    if (explicit_path) {
        fs::path full = under(cwd, *explicit_path);
        if (!path_exists(full))
            return make_error(ErrorCode::NotFound, "{}: no such config file (--config)", explicit_path->string());
        return ConfigLocation{full, explicit_path->string(), "--config"};
    }

    if (env_bool(env, EnvVar::NoConfig))
        return ConfigLocation{
            std::nullopt, "",
            fmt::format("{}={}", env_name(EnvVar::NoConfig), env.get(env_name(EnvVar::NoConfig)).value_or(""))};

    if (std::optional<std::string> chosen = env_text(env, EnvVar::Config)) {
        fs::path full = under(cwd, *chosen);
        if (!path_exists(full))
            return make_error(ErrorCode::NotFound, "{}: no such config file ({}={})", *chosen, env_name(EnvVar::Config),
                              *chosen);
        return ConfigLocation{full, *chosen, fmt::format("from {}", env_name(EnvVar::Config))};
    }

    std::vector<std::string> searched;
    fs::path local = cwd / kConfigFileName;
    if (path_exists(local)) return ConfigLocation{local, std::string(kConfigFileName), "found in the working folder"};
    searched.push_back(local.string());

    std::optional<fs::path> user;
    std::optional<std::string> xdg = env.get("XDG_CONFIG_HOME");
    if (xdg && !xdg->empty() && fs::path(*xdg).is_absolute()) {
        user = fs::path(*xdg) / "d4r" / kConfigFileName;
    } else if (std::optional<std::string> home = env.get("HOME"); home && !home->empty()) {
        user = fs::path(*home) / ".config" / "d4r" / kConfigFileName;
    }
    if (user) {
        if (path_exists(*user)) return ConfigLocation{*user, user->string(), "the user's config file"};
        searched.push_back(user->string());
    }
    return ConfigLocation{std::nullopt, "", fmt::format("no file at {}", fmt::join(searched, " or "))};
}

Expected<ConfigSource> read_config_source(const ConfigLocation& location) {
    if (!location.path) return ConfigSource::none();
    Expected<std::string> text = read_text_file(*location.path, kMaxConfigBytes);
    if (!text) {
        Error error = std::move(text).error();
        error.add_context(fmt::format("reading config file {}", location.name));
        return error;
    }
    return ConfigSource::from_text(location.name, std::move(*text));
}

} // namespace d4r::config
