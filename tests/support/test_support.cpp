#include "test_support.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

#include "core/sha256.h"

extern char** environ;

namespace d4r::test {

TempDir::TempDir() {
    std::string pattern = (fs::temp_directory_path() / "d4r-test-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    m_path = pattern;
}

TempDir::~TempDir() {
    std::error_code ec;
    fs::remove_all(m_path, ec);
}

fs::path TempDir::write(const fs::path& relative, const std::string& text) const {
    fs::path full = m_path / relative;
    fs::create_directories(full.parent_path());
    std::ofstream out(full, std::ios::binary);
    out << text;
    if (!out) throw std::runtime_error("cannot write " + full.string());
    return full;
}

fs::path TempDir::mkdir(const fs::path& relative) const {
    fs::path full = m_path / relative;
    fs::create_directories(full);
    return full;
}

fs::path fixture_dir() { return D4R_TEST_FIXTURE_DIR; }
fs::path source_dir() { return D4R_TEST_SOURCE_DIR; }
fs::path d4r_binary() { return fs::path(D4R_TEST_BIN_DIR) / "d4r"; }

std::string read_file_text(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + path.string());
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

namespace {

std::string slurp_fd(int fd) {
    std::string text;
    char buffer[4096];
    for (;;) {
        ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n <= 0) break;
        text.append(buffer, static_cast<size_t>(n));
    }
    return text;
}

} // namespace

RunResult run_command(const std::vector<std::string>& args, const std::map<std::string, std::string>& env,
                      const std::optional<fs::path>& cwd) {
    // stdout and stderr go to temp files (not pipes) so a chatty child can never deadlock us.
    TempDir scratch;
    fs::path out_path = scratch.path() / "stdout";
    fs::path err_path = scratch.path() / "stderr";

    std::map<std::string, std::string> vars;
    if (const char* path = std::getenv("PATH")) vars["PATH"] = path;
    vars["HOME"] = scratch.path().string();
    // The PTX JIT's compile cache, where the test run names one (the test presets do: every d4r a test starts would
    // otherwise compile its kernels again in its own HOME).
    for (const char* keep : {"ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS", "D4R_CPU_JIT_CACHE_DIR"}) {
        if (const char* v = std::getenv(keep)) vars[keep] = v;
    }
    for (const auto& [k, v] : env) vars[k] = v;
    std::vector<std::string> env_strings;
    for (const auto& [k, v] : vars) env_strings.push_back(k + "=" + v);
    std::vector<char*> envp;
    for (auto& s : env_strings) envp.push_back(s.data());
    envp.push_back(nullptr);
    std::vector<std::string> argv_strings = args;
    std::vector<char*> argv;
    for (auto& s : argv_strings) argv.push_back(s.data());
    argv.push_back(nullptr);

    pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
        int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int in = ::open("/dev/null", O_RDONLY);
        ::dup2(in, 0);
        ::dup2(out, 1);
        ::dup2(err, 2);
        if (cwd && ::chdir(cwd->c_str()) != 0) ::_exit(126);
        ::execve(argv[0], argv.data(), envp.data());
        ::_exit(127);
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0) {
    }
    RunResult result;
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    int out_fd = ::open(out_path.c_str(), O_RDONLY);
    int err_fd = ::open(err_path.c_str(), O_RDONLY);
    result.out = slurp_fd(out_fd);
    result.err = slurp_fd(err_fd);
    ::close(out_fd);
    ::close(err_fd);
    return result;
}

RunResult run_d4r(const std::vector<std::string>& args, const std::map<std::string, std::string>& env,
                  const std::optional<fs::path>& cwd) {
    std::vector<std::string> full{d4r_binary().string()};
    full.insert(full.end(), args.begin(), args.end());
    return run_command(full, env, cwd);
}

std::vector<std::string> stale_ptx_sources(const fs::path& record, std::vector<std::string>* named) {
    std::vector<std::string> stale;
    std::istringstream lines(read_file_text(record));
    for (std::string line; std::getline(lines, line);) {
        if (line.starts_with("nvcc:")) continue;
        const size_t gap = line.find("  ");
        if (gap == std::string::npos) {
            stale.push_back(record.filename().string() + ": not a record line: '" + line + "'");
            continue;
        }
        const std::string file = line.substr(gap + 2);
        if (named) named->push_back(file);
        auto now = sha256_file_hex(record.parent_path() / file);
        if (!now)
            stale.push_back(file + ": " + now.error().text());
        else if (*now != line.substr(0, gap))
            stale.push_back(file);
    }
    return stale;
}

} // namespace d4r::test
