#include "env.h"

#include <cstdlib>

namespace d4r {

std::optional<std::string> ProcessEnvironment::get(std::string_view name) const {
    const char* value = std::getenv(std::string(name).c_str());
    if (!value) return std::nullopt;
    return std::string(value);
}

std::optional<std::string> MapEnvironment::get(std::string_view name) const {
    auto it = m_vars.find(std::string(name));
    if (it == m_vars.end()) return std::nullopt;
    return it->second;
}

const Environment& process_environment() {
    static const ProcessEnvironment env;
    return env;
}

std::optional<std::string> user_cache_dir(const Environment& env) {
    if (auto xdg = env.get("XDG_CACHE_HOME"); xdg && !xdg->empty() && (*xdg)[0] == '/') return *xdg;
    if (auto home = env.get("HOME"); home && !home->empty()) return *home + "/.cache";
    return std::nullopt;
}

std::optional<std::string> get_env(std::string_view name) { return process_environment().get(name); }

void set_env(const std::string& name, const std::string& value) { ::setenv(name.c_str(), value.c_str(), 1); }

void unset_env(const std::string& name) { ::unsetenv(name.c_str()); }

} // namespace d4r
