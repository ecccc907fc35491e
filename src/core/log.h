// d4r core: logging.
//
// Promise: one logger per process. The level comes from D4R_LOG (off, error, warn, info, debug,
// trace, or 0-5; default warn) and the destination from D4R_LOG_FILE (default stderr). Inside a
// game nothing may write to stderr, so shipped libraries set a file. Thread-safe. `once(key)` lets a
// caller log a fallback or refusal a single time per process (d4r never falls back silently).
#pragma once

#include <string>
#include <string_view>

#include <fmt/format.h>

#include "status.h"

namespace d4r::log {

enum class Level { Off = 0, Error = 1, Warn = 2, Info = 3, Debug = 4, Trace = 5 };

const char* level_name(Level level);
// Parses a level name or digit ("warn", "WARN", "2"); an empty optional for anything else.
Expected<Level> parse_level(std::string_view text);

// Reads D4R_LOG and D4R_LOG_FILE. Safe to call more than once; a bad value is reported once.
void init_from_env();
void set_level(Level level);
Level level();
inline bool enabled(Level l) { return l != Level::Off && static_cast<int>(l) <= static_cast<int>(level()); }
// Appends to PATH instead of stderr; an error leaves the current destination in place.
Status set_file(const std::string& path);
void set_stderr();

void write(Level level, std::string_view message);

// True the first time KEY is seen in this process, false afterwards.
bool once(std::string_view key);

template <typename... Args>
void error(fmt::format_string<Args...> f, Args&&... args) {
    if (enabled(Level::Error)) write(Level::Error, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
void warn(fmt::format_string<Args...> f, Args&&... args) {
    if (enabled(Level::Warn)) write(Level::Warn, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
void info(fmt::format_string<Args...> f, Args&&... args) {
    if (enabled(Level::Info)) write(Level::Info, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
void debug(fmt::format_string<Args...> f, Args&&... args) {
    if (enabled(Level::Debug)) write(Level::Debug, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
void trace(fmt::format_string<Args...> f, Args&&... args) {
    if (enabled(Level::Trace)) write(Level::Trace, fmt::format(f, std::forward<Args>(args)...));
}

} // namespace d4r::log
