#include "process.h"

#include <cerrno>
#include <climits>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "env.h"
#include "strings.h"

extern char** environ;

namespace d4r {

namespace {

using Clock = std::chrono::steady_clock;

// Reads FD until EOF or DEADLINE; false on timeout.
bool read_until_eof(int fd, std::string& out, size_t max_output, Clock::time_point deadline) {
    char buffer[4096];
    for (;;) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
        if (left <= 0) return false;
        pollfd p{fd, POLLIN, 0};
        int ready = ::poll(&p, 1, static_cast<int>(left));
        if (ready < 0 && errno == EINTR) continue;
        if (ready <= 0) return false;
        ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return true;
        size_t room = max_output > out.size() ? max_output - out.size() : 0;
        out.append(buffer, std::min(room, static_cast<size_t>(n)));
    }
}

int wait_exit_code(pid_t pid) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

} // namespace

std::string executable_path() {
    char buf[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0) return {};
    buf[n] = 0;
    return buf;
}

std::string find_in_path(const std::string& name) {
    if (name.find('/') != std::string::npos) return ::access(name.c_str(), X_OK) == 0 ? name : "";
    auto path = get_env("PATH");
    if (!path) return "";
    for (std::string_view dir : split(*path, ':')) {
        if (dir.empty()) continue;
        std::string candidate = std::string(dir) + "/" + name;
        if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    return "";
}

Expected<ProcessResult> run_process(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                                    size_t max_output) {
    if (argv.empty()) return make_error(ErrorCode::Internal, "run_process: empty command");
    std::string program = find_in_path(argv[0]);
    if (program.empty()) return make_error(ErrorCode::NotFound, "'{}' not found in PATH", argv[0]);

    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return make_error(ErrorCode::Io, "pipe: {}", std::strerror(errno));
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
    std::vector<std::string> args = argv;
    std::vector<char*> c_args;
    for (auto& a : args) c_args.push_back(a.data());
    c_args.push_back(nullptr);
    pid_t pid = 0;
    int rc = ::posix_spawn(&pid, program.c_str(), &actions, nullptr, c_args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(fds[1]);
    if (rc != 0) {
        ::close(fds[0]);
        return make_error(ErrorCode::Io, "cannot start '{}': {}", program, std::strerror(rc));
    }
    ProcessResult result;
    bool finished = read_until_eof(fds[0], result.output, max_output, Clock::now() + timeout);
    ::close(fds[0]);
    if (!finished) {
        ::kill(pid, SIGKILL);
        wait_exit_code(pid);
        return make_error(ErrorCode::Io, "'{}' did not finish within {} ms", program, timeout.count());
    }
    result.exit_code = wait_exit_code(pid);
    return result;
}

Expected<std::string> run_isolated(const std::function<std::string()>& fn, std::chrono::milliseconds timeout) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return make_error(ErrorCode::Io, "pipe: {}", std::strerror(errno));
    pid_t pid = ::fork();
    if (pid < 0) {
        ::close(fds[0]);
        ::close(fds[1]);
        return make_error(ErrorCode::Io, "fork: {}", std::strerror(errno));
    }
    if (pid == 0) {
        ::close(fds[0]);
        std::string text = fn();
        const char* p = text.data();
        size_t left = text.size();
        while (left > 0) {
            ssize_t n = ::write(fds[1], p, left);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) break;
            p += n;
            left -= static_cast<size_t>(n);
        }
        ::_exit(0); // no atexit handlers or static destructors of the parent's state in the child
    }
    ::close(fds[1]);
    std::string out;
    bool finished = read_until_eof(fds[0], out, 1 << 20, Clock::now() + timeout);
    ::close(fds[0]);
    if (!finished) {
        ::kill(pid, SIGKILL);
        wait_exit_code(pid);
        return make_error(ErrorCode::Io, "probe did not finish within {} ms", timeout.count());
    }
    int code = wait_exit_code(pid);
    if (code != 0) {
        if (code > 128) return make_error(ErrorCode::Io, "probe crashed ({})", strsignal(code - 128));
        return make_error(ErrorCode::Io, "probe exited with status {}", code);
    }
    return out;
}

} // namespace d4r
