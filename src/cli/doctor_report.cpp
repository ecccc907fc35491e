// d4r doctor --report: the bug-report zip (doctor_report.h).
#include "doctor_report.h"

#include <gnu/libc-version.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>

#include <fmt/format.h>

#include "core/env_vars.h"
#include "core/files.h"
#include "core/process.h"
#include "release/zip_writer.h"

#ifndef D4R_VERSION
#define D4R_VERSION "0.0.0"
#endif

namespace d4r::cli {

namespace {

namespace fs = std::filesystem;

constexpr uintmax_t kMaxLogBytes = uintmax_t(16) << 20;

// Where `d4r play` puts its game logs (verb_play.cpp): [Debug] LogDir (D4R_GAME_LOG_DIR), else d4r/logs in the
// user's cache folder (/tmp/d4r/logs without one).
fs::path log_root(const Environment& env) {
    if (auto dir = env_text(env, EnvVar::GameLogDir)) return *dir;
    return fs::path(user_cache_dir(env).value_or("/tmp")) / "d4r" / "logs";
}

// The newest game-* folder under ROOT (the names end with a sortable time stamp).
std::optional<fs::path> newest_log_folder(const fs::path& root) {
    std::optional<fs::path> best;
    std::error_code ec;
    for (auto it = fs::directory_iterator(root, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (!name.starts_with("game-") || !it->is_directory(ec)) continue;
        auto stamp = [](const std::string& n) { return n.substr(n.size() >= 15 ? n.size() - 15 : 0); };
        if (!best || stamp(name) > stamp(best->filename().string())) best = it->path();
    }
    return best;
}

// Copies FROM to TO, keeping only the last kMaxLogBytes of a larger file. Returns what was done.
Expected<std::string> copy_log(const fs::path& from, const fs::path& to) {
    std::error_code ec;
    const uintmax_t size = fs::file_size(from, ec);
    if (ec) return make_error(ErrorCode::Io, "{}: {}", from.string(), ec.message());
    std::ifstream in(from, std::ios::binary);
    if (!in) return make_error(ErrorCode::Io, "{}: cannot be read", from.string());
    const uintmax_t keep = std::min(size, kMaxLogBytes);
    in.seekg(std::streamoff(size - keep));
    std::string bytes(keep, '\0');
    in.read(bytes.data(), std::streamsize(keep));
    bytes.resize(size_t(in.gcount()));
    if (Status s = write_file_atomic(to, std::string_view(bytes)); !s) return s.error();
    return size > keep ? fmt::format("its last {} of {} bytes", keep, size) : std::string("whole");
}

std::string system_text(const ReportInputs& in) {
    std::string out = fmt::format("d4r {}\n", D4R_VERSION);
    struct utsname u{};
    if (uname(&u) == 0) out += fmt::format("kernel: {} {} {} {}\n", u.sysname, u.release, u.version, u.machine);
    out += fmt::format("C library: glibc {}\n", gnu_get_libc_version());
    out += fmt::format("command: {}\n", in.command_line);
    return out;
}

} // namespace

Status write_doctor_report(const fs::path& out, const ReportInputs& in, const Environment& env) {
    std::error_code ec;
    const fs::path parent = fs::absolute(out, ec).parent_path();
    if (!is_dir(parent))
        return make_error(ErrorCode::NotFound, "--report {}: the folder {} does not exist", out.string(),
                          parent.string());
    // Assembled in a folder of its own beside the zip, removed afterwards whatever happens.
    const fs::path work = parent / fmt::format(".d4r-report-{}", ::getpid());
    fs::remove_all(work, ec);
    struct Cleanup {
        fs::path p;
        ~Cleanup() {
            std::error_code e;
            fs::remove_all(p, e);
        }
    } cleanup{work};
    const fs::path root = work / "d4r-report";
    fs::create_directories(root, ec);
    if (ec) return make_error(ErrorCode::Io, "{}: {}", root.string(), ec.message());

    std::vector<std::string> manifest = {"doctor.txt: the report as printed", "doctor.json: the same as JSON",
                                         "system.txt: d4r's version, the kernel, the C library, the command"};
    D4R_TRY(write_file_atomic(root / "doctor.txt", std::string_view(in.doctor_text)));
    D4R_TRY(write_file_atomic(root / "doctor.json", std::string_view(in.doctor_json)));
    D4R_TRY(write_file_atomic(root / "system.txt", std::string_view(system_text(in))));

    // The configuration as `d4r config show` explains it, from this very binary.
    std::vector<std::string> show = {executable_path(), "config", "show"};
    if (in.config_file) show.insert(show.end(), {"--config", *in.config_file});
    if (auto r = run_process(show, std::chrono::seconds(30))) {
        D4R_TRY(write_file_atomic(root / "config.txt", std::string_view(r->output)));
        manifest.push_back(fmt::format("config.txt: d4r config show (exit status {})", r->exit_code));
    } else {
        manifest.push_back("config.txt: left out: d4r config show did not run: " + r.error().text());
    }

    const fs::path logs = log_root(env);
    if (auto folder = newest_log_folder(logs)) {
        const fs::path to = root / "logs" / folder->filename();
        fs::create_directories(to, ec);
        for (auto it = fs::directory_iterator(*folder, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
            if (!it->is_regular_file(ec) || it->is_symlink(ec)) continue;
            const std::string name = it->path().filename().string();
            auto done = copy_log(it->path(), to / name);
            manifest.push_back(
                done ? fmt::format("logs/{}/{}: {}", folder->filename().string(), name, *done)
                     : fmt::format("logs/{}/{}: left out: {}", folder->filename().string(), name, done.error().text()));
        }
    } else {
        manifest.push_back(fmt::format("logs: none (no game-* folder in {}: 'd4r play' writes them)", logs.string()));
    }
    std::string manifest_text;
    for (const std::string& l : manifest) manifest_text += l + "\n";
    D4R_TRY(write_file_atomic(root / "MANIFEST.txt", std::string_view(manifest_text)));

    auto entries = release::zip_entries_of_tree(root, "d4r-report/");
    if (!entries) return entries.error();
    const int64_t now =
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
    return release::write_zip(out, std::move(*entries), now);
}

} // namespace d4r::cli
