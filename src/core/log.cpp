#include "log.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <set>

#include "env.h"
#include "env_vars.h"
#include "strings.h"

namespace d4r::log {
namespace {

struct LoggerState {
    std::mutex mutex;
    std::FILE* file = nullptr; // nullptr: stderr
    std::set<std::string, std::less<>> once_keys;
};

LoggerState& state() {
    static LoggerState* s = new LoggerState(); // never destroyed: logging may happen during exit
    return *s;
}

std::atomic<int> g_level{static_cast<int>(Level::Warn)};

} // namespace

const char* level_name(Level level) {
    switch (level) {
    case Level::Off:
        return "off";
    case Level::Error:
        return "error";
    case Level::Warn:
        return "warn";
    case Level::Info:
        return "info";
    case Level::Debug:
        return "debug";
    case Level::Trace:
        return "trace";
    }
    return "?";
}

Expected<Level> parse_level(std::string_view text) {
    std::string t = to_lower(trim(text));
    static constexpr Level kAll[] = {Level::Off, Level::Error, Level::Warn, Level::Info, Level::Debug, Level::Trace};
    for (Level l : kAll) {
        if (t == level_name(l) || t == std::to_string(static_cast<int>(l))) return l;
    }
    if (t == "warning") return Level::Warn;
    return make_error(ErrorCode::Invalid,
                      "log level must be one of off, error, warn, info, debug, trace or 0-5, not '{}'", text);
}

void init_from_env() {
    // D4R_LOG keeps its own message (parse_level's), so it is read raw rather than through env_text.
    if (auto value = env_raw(process_environment(), EnvVar::Log)) {
        auto parsed = parse_level(value->text);
        if (parsed) {
            set_level(*parsed);
        } else if (once("bad log level")) {
            write(Level::Warn, std::string(env_name(EnvVar::Log)) + ": " + parsed.error().text());
        }
    }
    if (auto path = env_text(process_environment(), EnvVar::LogFile)) {
        auto status = set_file(*path);
        if (!status && once("bad log file"))
            write(Level::Warn, std::string(env_name(EnvVar::LogFile)) + ": " + status.error().text());
    }
}

void set_level(Level level) { g_level.store(static_cast<int>(level)); }

Level level() { return static_cast<Level>(g_level.load(std::memory_order_relaxed)); }

Status set_file(const std::string& path) {
    std::FILE* f = std::fopen(path.c_str(), "a");
    if (!f) return make_error(ErrorCode::Io, "cannot open log file '{}': {}", path, std::strerror(errno));
    std::lock_guard lock(state().mutex);
    if (state().file) std::fclose(state().file);
    state().file = f;
    return ok_status();
}

void set_stderr() {
    std::lock_guard lock(state().mutex);
    if (state().file) std::fclose(state().file);
    state().file = nullptr;
}

void write(Level level, std::string_view message) {
    LoggerState& s = state();
    std::lock_guard lock(s.mutex);
    if (s.file) {
        auto now = std::chrono::system_clock::now().time_since_epoch();
        auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now).count();
        fmt::print(s.file, "{}.{:03d} d4r {}: {}\n", ms / 1000, static_cast<int>(ms % 1000), level_name(level),
                   message);
        std::fflush(s.file);
    } else {
        fmt::print(stderr, "d4r: {}: {}\n", level_name(level), message);
    }
}

bool once(std::string_view key) {
    LoggerState& s = state();
    std::lock_guard lock(s.mutex);
    return s.once_keys.emplace(key).second;
}

} // namespace d4r::log
