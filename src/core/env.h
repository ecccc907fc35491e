// d4r core: environment access.
//
// Promise: one way to read the environment. Code that decides things from variables takes an
// `Environment&` so tests can hand it a MapEnvironment instead of mutating the process.
#pragma once

#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace d4r {

class Environment {
public:
    virtual ~Environment() = default;
    virtual std::optional<std::string> get(std::string_view name) const = 0;
    bool has(std::string_view name) const { return get(name).has_value(); }
};

// The process environment (getenv).
class ProcessEnvironment final : public Environment {
public:
    std::optional<std::string> get(std::string_view name) const override;
};

// A fixed set of variables, for tests and for computing exports.
class MapEnvironment final : public Environment {
public:
    MapEnvironment() = default;
    explicit MapEnvironment(std::map<std::string, std::string> vars) : m_vars(std::move(vars)) {}
    MapEnvironment(std::initializer_list<std::pair<const std::string, std::string>> vars) : m_vars(vars) {}
    std::optional<std::string> get(std::string_view name) const override;
    void set(std::string name, std::string value) { m_vars[std::move(name)] = std::move(value); }
    void unset(const std::string& name) { m_vars.erase(name); }
    const std::map<std::string, std::string>& vars() const { return m_vars; }

private:
    std::map<std::string, std::string> m_vars;
};

const Environment& process_environment();

// The user's cache folder as the XDG base-directory rules give it: $XDG_CACHE_HOME when it is an absolute
// path (a relative one is invalid and ignored), else $HOME/.cache when HOME is set and not empty; nothing
// when neither. Every d4r folder under it (d4r/logs, d4r/restore, the JIT and accuracy caches) starts
// here; each caller says what it does without one (a folder under /tmp, or an error).
std::optional<std::string> user_cache_dir(const Environment& env);

std::optional<std::string> get_env(std::string_view name);
// setenv/unsetenv on the process (used by the accuracy policy before a backend loads).
void set_env(const std::string& name, const std::string& value);
void unset_env(const std::string& name);

} // namespace d4r
