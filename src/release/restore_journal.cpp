#include "restore_journal.h"

#include <unistd.h>

#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/files.h"
#include "core/log.h"
#include "core/sha256.h"

namespace d4r::release {

namespace {

using json = nlohmann::json;

Status copy_to(const fs::path& from, const fs::path& to) {
    Expected<std::vector<uint8_t>> bytes = read_file(from);
    if (!bytes) return std::move(bytes).error();
    return write_file_atomic(to, std::span<const uint8_t>(*bytes));
}

json to_json(const RestoreJournal& j) {
    json files = json::array();
    for (const TrackedFile& f : j.files)
        files.push_back({{"path", f.path},
                         {"what", f.what},
                         {"existed", f.existed},
                         {"remove_if_new", f.remove_if_new},
                         {"backup", f.backup},
                         {"sha256", f.sha256}});
    return {{"format", "d4r-restore-journal 1"},
            {"key", j.key},
            {"target", j.target},
            {"command", j.command},
            {"pid", j.pid},
            {"pid_start", j.pid_start},
            {"files", files}};
}

} // namespace

Expected<fs::path> journal_dir(const Environment& env) {
    if (std::optional<std::string> cache = user_cache_dir(env)) return fs::path(*cache) / "d4r" / "restore";
    return make_error(ErrorCode::NotFound, "neither XDG_CACHE_HOME nor HOME is set: no folder for the restore journal");
}

std::string journal_key(const std::string& target) { return sha256_hex(std::string_view(target)).substr(0, 16); }

fs::path journal_path(const fs::path& dir, const std::string& key) { return dir / (key + ".json"); }

uint64_t process_start_time(int64_t pid) {
    if (pid <= 0) return 0;
    std::ifstream in(fmt::format("/proc/{}/stat", pid));
    std::string stat;
    if (!std::getline(in, stat)) return 0;
    // The command name may hold spaces and parentheses: fields count from the last ')'.
    size_t close = stat.rfind(')');
    if (close == std::string::npos) return 0;
    std::istringstream fields(stat.substr(close + 1));
    std::string field;
    // Field 3 (state) is the first after ')'; the start time is field 22.
    for (int i = 3; i <= 22; ++i) {
        if (!(fields >> field)) return 0;
        if (i == 3 && field == "Z") return 0; // a zombie no longer runs
    }
    try {
        return std::stoull(field);
    } catch (...) {
        return 0;
    }
}

bool journal_owner_alive(const RestoreJournal& j) {
    if (j.pid == static_cast<int64_t>(::getpid())) return true;
    uint64_t start = process_start_time(j.pid);
    return start != 0 && start == j.pid_start;
}

Expected<RestoreJournal> begin_journal(const fs::path& dir, const std::string& target, const std::string& command,
                                       std::vector<TrackedFile> files) {
    RestoreJournal j;
    j.key = journal_key(target);
    j.target = target;
    j.command = command;
    j.pid = ::getpid();
    j.pid_start = process_start_time(j.pid);
    const fs::path copies = dir / j.key;
    std::error_code ec;
    fs::create_directories(copies, ec);
    if (ec) return make_error(ErrorCode::Io, "cannot create {}: {}", copies.string(), ec.message());
    for (size_t i = 0; i < files.size(); ++i) {
        TrackedFile& f = files[i];
        f.existed = is_file(f.path);
        if (!f.existed) continue;
        f.backup = (copies / fmt::format("{}-{}", i, fs::path(f.path).filename().string())).string();
        if (Status s = copy_to(f.path, f.backup); !s)
            return make_error(ErrorCode::Io, "cannot back up {} ({}): {}", f.path, f.what, s.error().text());
        f.sha256 = D4R_TRY(sha256_file_hex(f.backup));
    }
    j.files = std::move(files);
    std::string text;
    try {
        // A path that is not UTF-8 cannot go into the JSON journal: the launch is refused before any change.
        text = to_json(j).dump(2) + "\n";
    } catch (const std::exception& e) {
        return make_error(ErrorCode::Internal, "cannot write the restore journal for {}: {}", target, e.what());
    }
    D4R_TRY(write_file_atomic(journal_path(dir, j.key), std::string_view(text)));
    return j;
}

Expected<RestoreJournal> read_journal(const fs::path& path) {
    Expected<std::string> text = read_text_file(path, 16 << 20);
    if (!text) return std::move(text).error();
    try {
        json doc = json::parse(*text);
        if (doc.value("format", "") != "d4r-restore-journal 1")
            return make_error(ErrorCode::Invalid, "{}: not a d4r restore journal (format: {})", path.string(),
                              doc.value("format", "missing"));
        RestoreJournal j;
        j.key = doc.at("key").get<std::string>();
        j.target = doc.at("target").get<std::string>();
        j.command = doc.value("command", "");
        j.pid = doc.at("pid").get<int64_t>();
        j.pid_start = doc.at("pid_start").get<uint64_t>();
        for (const json& f : doc.at("files")) {
            TrackedFile t;
            t.path = f.at("path").get<std::string>();
            t.what = f.value("what", "");
            t.existed = f.at("existed").get<bool>();
            t.remove_if_new = f.value("remove_if_new", true);
            t.backup = f.value("backup", "");
            t.sha256 = f.value("sha256", "");
            if (t.path.empty() || t.path[0] != '/')
                return make_error(ErrorCode::Invalid, "{}: files: path '{}' is not absolute", path.string(), t.path);
            if (t.existed && t.backup.empty())
                return make_error(ErrorCode::Invalid, "{}: files: {} existed but has no backup", path.string(), t.path);
            j.files.push_back(std::move(t));
        }
        return j;
    } catch (const std::exception& e) {
        return make_error(ErrorCode::Invalid, "{}: malformed restore journal: {}", path.string(), e.what());
    }
}

Expected<std::vector<fs::path>> list_journals(const fs::path& dir) {
    std::vector<fs::path> result;
    if (!is_dir(dir)) return result;
    for (const fs::path& p : D4R_TRY(list_directory(dir)))
        if (p.extension() == ".json" && is_file(p)) result.push_back(p);
    return result;
}

Status restore_journal(const fs::path& path, const Say& say) {
    RestoreJournal j = D4R_TRY(read_journal(path));
    std::optional<Error> first;
    for (const TrackedFile& f : j.files) {
        if (f.existed) {
            Expected<std::string> now = sha256_file_hex(f.path);
            if (now && *now == f.sha256) continue;
            if (Status s = copy_to(f.backup, f.path); !s) {
                log::warn("restore: {} ({}): {}", f.path, f.what, s.error().text());
                if (!first) first = std::move(s).error();
                continue;
            }
            say(fmt::format("restored {} ({})", f.path, f.what));
        } else if (f.remove_if_new && path_exists(f.path)) {
            std::error_code ec;
            fs::remove(f.path, ec);
            if (ec) {
                if (!first) first = Error(ErrorCode::Io, fmt::format("cannot remove {}: {}", f.path, ec.message()));
                continue;
            }
            say(fmt::format("removed {} ({}: d4r created it)", f.path, f.what));
        }
    }
    if (first) return std::move(*first);
    std::error_code ec;
    fs::remove_all(path.parent_path() / j.key, ec);
    fs::remove(path, ec);
    if (ec) return make_error(ErrorCode::Io, "cannot remove the restore journal {}: {}", path.string(), ec.message());
    return ok_status();
}

} // namespace d4r::release
