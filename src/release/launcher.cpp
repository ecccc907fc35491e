#include "launcher.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <fstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/env_vars.h"
#include "core/files.h"
#include "core/log.h"
#include "core/strings.h"
#include "wineserver.h"

extern char** environ;

namespace d4r::release {

namespace {

volatile sig_atomic_t g_child = 0;
volatile sig_atomic_t g_signal = 0;

void forward_signal(int sig) {
    g_signal = sig;
    if (g_child > 0) ::kill(static_cast<pid_t>(g_child), sig);
}

// The signal handlers of the launch, restored when it ends.
class SignalForwarding {
public:
    SignalForwarding() {
        struct sigaction sa{};
        sa.sa_handler = forward_signal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = 0; // no SA_RESTART: poll() returns so the loop sees the signal
        for (size_t i = 0; i < kSignals.size(); ++i) ::sigaction(kSignals[i], &sa, &m_old[i]);
    }
    ~SignalForwarding() {
        for (size_t i = 0; i < kSignals.size(); ++i) ::sigaction(kSignals[i], &m_old[i], nullptr);
        g_child = 0;
    }

private:
    static constexpr std::array<int, 3> kSignals{SIGINT, SIGTERM, SIGHUP};
    std::array<struct sigaction, 3> m_old{};
};

std::string timestamp() {
    std::time_t now = std::time(nullptr);
    std::tm tm{};
    ::localtime_r(&now, &tm);
    char buf[32];
    std::strftime(buf, sizeof(buf), "%Y%m%d-%H%M%S", &tm);
    return buf;
}

std::string safe_name(std::string name) {
    for (char& c : name)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) c = '_';
    return name.empty() ? "game" : name;
}

Expected<fs::path> make_log_folder(const fs::path& root, const std::string& exe) {
    const std::string base = fmt::format("game-{}-{}", safe_name(exe), timestamp());
    std::error_code ec;
    fs::create_directories(root, ec);
    if (ec) return make_error(ErrorCode::Io, "cannot create the log folder {}: {}", root.string(), ec.message());
    for (int n = 1; n < 100; ++n) {
        fs::path dir = root / (n == 1 ? base : fmt::format("{}-{}", base, n));
        if (fs::create_directory(dir, ec)) return dir;
        if (ec) return make_error(ErrorCode::Io, "cannot create the log folder {}: {}", dir.string(), ec.message());
    }
    return make_error(ErrorCode::Io, "cannot create a log folder {} under {}: all names taken", base, root.string());
}

// Applies SETTINGS to the ini at PATH (created when missing); true when the file changed.
Expected<bool> apply_ini_file(const fs::path& path, const std::vector<IniSetting>& settings,
                              const std::vector<IniRemoval>& removals = {}) {
    std::string text;
    if (path_exists(path)) text = D4R_TRY(read_text_file(path, 16 << 20));
    if (path_exists(path) && ini_settings_hold(text, settings) && ini_removals_hold(text, removals)) return false;
    D4R_TRY(write_file_atomic(path, std::string_view(apply_ini_settings(remove_ini_keys(text, removals), settings))));
    return true;
}

std::string describe_settings(const std::vector<IniSetting>& settings) {
    std::string out;
    for (const IniSetting& s : settings)
        out += fmt::format("{}[{}] {}={}", out.empty() ? "" : ", ", s.section, s.key, s.value);
    return out;
}

std::vector<std::string> child_environment(const std::vector<EnvChange>& changes) {
    std::vector<std::string> env;
    for (char** e = environ; e && *e; ++e) env.emplace_back(*e);
    for (const EnvChange& c : changes) {
        const std::string prefix = c.name + "=";
        std::erase_if(env, [&](const std::string& s) { return s.starts_with(prefix); });
        if (c.value) env.push_back(prefix + *c.value);
    }
    return env;
}

struct Child {
    pid_t pid = -1;
    int out = -1;
    int err = -1;
};

Expected<Child> start_child(const std::vector<std::string>& command, const std::vector<std::string>& env) {
    int out[2], err[2];
    if (::pipe2(out, O_CLOEXEC) != 0) return make_error(ErrorCode::Io, "pipe: {}", std::strerror(errno));
    if (::pipe2(err, O_CLOEXEC) != 0) {
        ::close(out[0]);
        ::close(out[1]);
        return make_error(ErrorCode::Io, "pipe: {}", std::strerror(errno));
    }
    std::vector<char*> argv, envp;
    for (const std::string& a : command) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    for (const std::string& e : env) envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);
    pid_t pid = ::fork();
    if (pid < 0) return make_error(ErrorCode::Io, "fork: {}", std::strerror(errno));
    if (pid == 0) {
        ::dup2(out[1], STDOUT_FILENO);
        ::dup2(err[1], STDERR_FILENO);
        ::signal(SIGINT, SIG_DFL);
        ::signal(SIGTERM, SIG_DFL);
        ::signal(SIGHUP, SIG_DFL);
        environ = envp.data();
        ::execvp(argv[0], argv.data());
        const std::string msg = fmt::format("d4r: error: cannot run {}: {}\n", command[0], std::strerror(errno));
        (void)!::write(STDERR_FILENO, msg.data(), msg.size());
        ::_exit(127);
    }
    ::close(out[1]);
    ::close(err[1]);
    return Child{pid, out[0], err[0]};
}

void write_all(int fd, const char* data, size_t size) {
    while (size > 0) {
        ssize_t n = ::write(fd, data, size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        data += n;
        size -= static_cast<size_t>(n);
    }
}

// Copies what is readable on FD to TERMINAL and LOG; false at end of file.
bool pump(int fd, int terminal, std::ofstream& log) {
    char buf[8192];
    ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) return true;
    if (n <= 0) return false;
    write_all(terminal, buf, static_cast<size_t>(n));
    log.write(buf, n);
    log.flush();
    return true;
}

int exit_status_of(int status) {
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return 1;
}

} // namespace

std::optional<std::string> find_game_exe(const std::vector<std::string>& command) {
    for (auto it = command.rbegin(); it != command.rend(); ++it) {
        if (it->size() > 4 && iequals(std::string_view(*it).substr(it->size() - 4), ".exe")) return *it;
    }
    return std::nullopt;
}

namespace {
int run_game_impl(const LaunchPlan& plan, const Say& say);
}

int run_game(const LaunchPlan& plan, const Say& say) {
    try {
        return run_game_impl(plan, say);
    } catch (const std::exception& e) {
        // Not expected (allocation failure, a filesystem error thrown by the library); the journal, if
        // written, stays for d4r restore.
        fmt::print(stderr, "d4r: error: d4r play stopped: {}; run d4r restore to put back what it changed\n", e.what());
        return 1;
    }
}

namespace {

int run_game_impl(const LaunchPlan& plan, const Say& say) {
    auto refuse = [](const std::string& why) {
        log::debug("play refused: {}", why);
        fmt::print(stderr, "d4r: error: {}\n", why);
        return 2;
    };
    if (plan.command.empty()) return refuse("no command to run: give it after --, e.g. d4r play -- %command%");

    // 1. Another d4r play for this prefix, or a restore left by a killed one.
    const std::string key = journal_key(plan.target.string());
    Expected<std::vector<fs::path>> journals = list_journals(plan.journal_dir);
    if (!journals) return refuse(journals.error().text());
    for (const fs::path& path : *journals) {
        Expected<RestoreJournal> j = read_journal(path);
        if (!j) return refuse(fmt::format("{} (remove it if the files it lists are fine)", j.error().text()));
        if (journal_owner_alive(*j)) {
            if (j->key == key)
                return refuse(fmt::format("d4r play (pid {}) is already running for {}", j->pid, j->target));
            continue;
        }
        if (plan.dry_run) {
            say(fmt::format("would first complete the restore of {} left by d4r pid {} ({})", j->target, j->pid,
                            path.string()));
            continue;
        }
        say(fmt::format("completing the restore of {} left by d4r pid {} ({})", j->target, j->pid, path.string()));
        if (Status s = restore_journal(path, say); !s)
            return refuse(fmt::format("cannot complete the restore of {}: {}", path.string(), s.error().text()));
    }

    // 2. A wineserver already running for the prefix would keep the old files mapped.
    if (plan.prefix) {
        if (std::optional<Wineserver> w = find_wineserver(*plan.prefix, plan.wine_root)) {
            return refuse(fmt::format("a wineserver (pid {}) is running for the prefix {} (socket {}): quit what "
                                      "runs in it, or stop it with WINEPREFIX={} wineserver -k, then start again",
                                      w->pid, plan.prefix->string(), w->socket, shell_quote(plan.prefix->string())));
        }
    }

    // 3. What will be touched.
    std::vector<TrackedFile> tracked;
    if (plan.optiscaler_ini) tracked.push_back({plan.optiscaler_ini->string(), "OptiScaler.ini", false, true, "", ""});
    if (plan.engine_ini) tracked.push_back({plan.engine_ini->string(), "Engine.ini", false, true, "", ""});
    if (plan.prefix) {
        const fs::path sys32 = *plan.prefix / "drive_c" / "windows" / "system32";
        for (const char* dll : {"d3d12.dll", "d3d12core.dll"})
            tracked.push_back({(sys32 / dll).string(), fmt::format("prefix {}", dll), false, false, "", ""});
    }

    std::vector<EnvChange> env = plan.env;
    const std::string command_text = fmt::format("{}", fmt::join(plan.command, " "));
    if (plan.dry_run) {
        say(fmt::format("prefix: {}", plan.prefix ? plan.prefix->string() + " (" + plan.prefix_reason + ")"
                                                  : "none (" + plan.prefix_reason + ")"));
        say(fmt::format("would write logs to {}/game-{}-<YYYYmmdd-HHMMSS>/", plan.log_root.string(),
                        safe_name(plan.exe_name)));
        say(fmt::format("would back up to {} (journal {}):", plan.journal_dir.string(),
                        journal_path(plan.journal_dir, key).string()));
        for (const TrackedFile& t : tracked)
            say(fmt::format("  {} ({}{})", t.path, t.what, is_file(t.path) ? "" : ", absent"));
        if (plan.optiscaler_ini)
            say(fmt::format("would set in {}: {}", plan.optiscaler_ini->string(),
                            describe_settings(plan.optiscaler_settings)));
        if (plan.engine_ini)
            say(fmt::format("would set in {}: {}", plan.engine_ini->string(), describe_settings(plan.engine_settings)));
        for (const EnvChange& c : env)
            say(c.value ? fmt::format("env {}={} ({})", c.name, shell_quote(*c.value), c.why)
                        : fmt::format("env unset {} ({})", c.name, c.why));
        say(fmt::format("would run: {}", command_text));
        return 0;
    }

    // 4. Logs, then the journal, then the changes.
    Expected<fs::path> log_dir = make_log_folder(plan.log_root, plan.exe_name);
    if (!log_dir) return refuse(log_dir.error().text());
    if (Status s = write_file_atomic(*log_dir / "config.txt", std::string_view(plan.config_text)); !s)
        return refuse(s.error().text());
    std::ofstream d4r_log(*log_dir / "d4r.log", std::ios::app);
    auto note = [&](std::string_view line) {
        say(line);
        d4r_log << line << '\n';
        d4r_log.flush();
    };
    note(fmt::format("logs: {}", log_dir->string()));
    if (!get_env(env_name(EnvVar::LogFile)))
        env.push_back({env_name(EnvVar::LogFile), (*log_dir / "runtime.log").string(), "the log folder"});
    for (const EnvChange& c : env)
        d4r_log << (c.value ? fmt::format("env {}={} ({})\n", c.name, shell_quote(*c.value), c.why)
                            : fmt::format("env unset {} ({})\n", c.name, c.why));

    std::error_code ec;
    fs::create_directories(plan.journal_dir, ec);
    Expected<RestoreJournal> journal = begin_journal(plan.journal_dir, plan.target.string(), command_text, tracked);
    if (!journal) return refuse(fmt::format("cannot write the restore journal: {}", journal.error().text()));
    const fs::path jpath = journal_path(plan.journal_dir, key);
    note(fmt::format("backed up {} file(s); journal {}", tracked.size(), jpath.string()));
    auto restore = [&] {
        Status s = restore_journal(jpath, note);
        if (!s) {
            note(fmt::format("restore failed: {}; run d4r restore to try again", s.error().text()));
            return false;
        }
        note("restored");
        return true;
    };

    auto apply_optiscaler = [&](bool watching) {
        if (!plan.optiscaler_ini || !path_exists(*plan.optiscaler_ini)) return;
        Expected<bool> changed =
            apply_ini_file(*plan.optiscaler_ini, plan.optiscaler_settings, plan.optiscaler_removals);
        if (!changed)
            note(fmt::format("cannot write d4r's keys into {}: {}", plan.optiscaler_ini->string(),
                             changed.error().text()));
        else if (*changed && watching)
            note(fmt::format("{} was rewritten (OptiScaler's Save INI?): d4r's keys re-applied",
                             plan.optiscaler_ini->string()));
        else if (*changed)
            note(fmt::format("set in {}: {}", plan.optiscaler_ini->string(),
                             describe_settings(plan.optiscaler_settings)));
    };
    apply_optiscaler(false);
    if (plan.engine_ini) {
        Expected<bool> changed = apply_ini_file(*plan.engine_ini, plan.engine_settings);
        if (!changed) {
            note(fmt::format("cannot write the cvars into {}: {}", plan.engine_ini->string(), changed.error().text()));
            restore();
            return 1;
        }
        note(fmt::format("set in {}: {}", plan.engine_ini->string(), describe_settings(plan.engine_settings)));
    }

    // 5. The game.
    std::ofstream out_log(*log_dir / "game-stdout.log"), err_log(*log_dir / "game-stderr.log");
    SignalForwarding forwarding;
    g_signal = 0;
    Expected<Child> child = start_child(plan.command, child_environment(env));
    if (!child) {
        note(fmt::format("cannot start {}: {}", plan.command[0], child.error().text()));
        restore();
        return 1;
    }
    g_child = child->pid;
    // A signal that came while the child was being started was not forwarded yet.
    if (g_signal != 0) ::kill(child->pid, g_signal);
    note(fmt::format("started pid {}: {}", child->pid, command_text));

    bool out_open = true, err_open = true;
    int status = 0;
    bool exited = false;
    int forwarded = 0;
    auto last_check = std::chrono::steady_clock::now();
    while (!exited) {
        pollfd fds[2] = {{out_open ? child->out : -1, POLLIN, 0}, {err_open ? child->err : -1, POLLIN, 0}};
        int n = ::poll(fds, 2, 200);
        if (n > 0) {
            if (out_open && (fds[0].revents & (POLLIN | POLLHUP | POLLERR)))
                out_open = pump(child->out, STDOUT_FILENO, out_log);
            if (err_open && (fds[1].revents & (POLLIN | POLLHUP | POLLERR)))
                err_open = pump(child->err, STDERR_FILENO, err_log);
        }
        if (g_signal != forwarded && g_signal != 0) {
            forwarded = g_signal;
            note(fmt::format("got signal {}: forwarded to pid {}, waiting for it to exit", forwarded, child->pid));
        }
        pid_t w = ::waitpid(child->pid, &status, WNOHANG);
        if (w == child->pid) exited = true;
        auto now = std::chrono::steady_clock::now();
        if (now - last_check >= std::chrono::milliseconds(plan.watch_interval_ms)) {
            last_check = now;
            apply_optiscaler(true);
        }
    }
    g_child = 0;
    // What the game wrote before it exited; programs it left running (a wineserver) may keep the pipes
    // open, so only what is ready now.
    for (bool more = true; more;) {
        more = false;
        pollfd fds[2] = {{out_open ? child->out : -1, POLLIN, 0}, {err_open ? child->err : -1, POLLIN, 0}};
        if (::poll(fds, 2, 0) <= 0) break;
        if (out_open && (fds[0].revents & (POLLIN | POLLHUP | POLLERR)))
            more |= out_open = pump(child->out, STDOUT_FILENO, out_log);
        if (err_open && (fds[1].revents & (POLLIN | POLLHUP | POLLERR)))
            more |= err_open = pump(child->err, STDERR_FILENO, err_log);
    }
    ::close(child->out);
    ::close(child->err);
    const int code = exit_status_of(status);
    note(fmt::format("pid {} exited with status {}", child->pid, code));
    restore();
    return code;
}

} // namespace

} // namespace d4r::release
