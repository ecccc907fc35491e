// d4r release: installing a release into a game folder and undoing it.
#include "install.h"

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <set>

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

#include "core/env_vars.h"
#include "core/files.h"
#include "core/log.h"
#include "core/sha256.h"
#include "game_layout.h"
#include "install_nvidia.h"
#include "install_optiscaler.h"
#include "install_zip.h"

namespace d4r::release {

namespace fs = std::filesystem;

namespace {

constexpr const char* kTempSuffix = ".d4r-tmp";

// Counts file operations for the test hook (EnvVar::TestInstallStopAfter).
void count_operation() {
    static long remaining = [] {
        const char* v = std::getenv(env_name(EnvVar::TestInstallStopAfter));
        return v && *v ? std::strtol(v, nullptr, 10) : -1L;
    }();
    if (remaining < 0) return;
    if (--remaining <= 0) ::kill(::getpid(), SIGKILL); // test-only: simulates a kill half-way
}

Status sync_path(const fs::path& path, int flags) {
    const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
    if (fd < 0) return make_error(ErrorCode::Io, "{}: cannot open to flush: {}", path.string(), std::strerror(errno));
    const int rc = ::fsync(fd);
    ::close(fd);
    if (rc != 0) return make_error(ErrorCode::Io, "{}: cannot flush to disk: {}", path.string(), std::strerror(errno));
    return ok_status();
}

// Copies SRC to DST through DST.d4r-tmp (flushed, then renamed over DST): DST is never half-written.
Status copy_atomic(const fs::path& src, const fs::path& dst) {
    const fs::path tmp = dst.string() + kTempSuffix;
    std::error_code ec;
    fs::copy_file(src, tmp, fs::copy_options::overwrite_existing, ec);
    if (ec) {
        fs::remove(tmp, ec);
        return make_error(ErrorCode::Io, "cannot copy {} to {}: {}", src.string(), dst.string(), ec.message());
    }
    if (Status s = sync_path(tmp, O_RDONLY); !s) {
        fs::remove(tmp, ec);
        return s;
    }
    fs::rename(tmp, dst, ec);
    if (ec) {
        std::error_code ignored;
        fs::remove(tmp, ignored);
        return make_error(ErrorCode::Io, "cannot rename {} to {}: {}", tmp.string(), dst.string(), ec.message());
    }
    count_operation();
    return ok_status();
}

Status remove_file(const fs::path& path) {
    std::error_code ec;
    if (fs::remove(path, ec)) count_operation();
    if (ec) return make_error(ErrorCode::Io, "cannot remove {}: {}", path.string(), ec.message());
    return ok_status();
}

// Removes FOLDER when it is empty; a folder that is not empty stays (the user put something there).
void remove_if_empty(const fs::path& folder) {
    std::error_code ec;
    if (fs::is_directory(folder, ec) && fs::is_empty(folder, ec)) fs::remove(folder, ec);
}

// Removes the empty folders of d4r-backup/, bottom up, and d4r-backup itself when empty.
void prune_backup_folder(const fs::path& folder) {
    const fs::path backup = folder / kBackupFolder;
    std::error_code ec;
    if (!fs::is_directory(backup, ec)) return;
    std::vector<fs::path> dirs;
    for (auto it = fs::recursive_directory_iterator(backup, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec))
        if (it->is_directory(ec) && !it->is_symlink(ec)) dirs.push_back(it->path());
    std::sort(dirs.begin(), dirs.end(), [](const fs::path& a, const fs::path& b) { return a.string() > b.string(); });
    for (const fs::path& d : dirs) remove_if_empty(d);
    remove_if_empty(backup);
}

Status write_text(const fs::path& path, const std::string& text) {
    D4R_TRY(write_file_atomic(path, std::string_view(text)));
    count_operation();
    return ok_status();
}

bool same_plan(const InstallPlan& a, const InstallPlan& b) { return plan_to_json(a) == plan_to_json(b); }

bool is_d4r_ini(const std::string& relative) {
    std::string name = fs::path(relative).filename().string();
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return name == "d4r.ini";
}

// Puts every file of the plan back as it was before the install (also half-done ones) and removes
// the folders the install created. Idempotent: a second run after a kill finishes the job.
Status undo_files(const fs::path& folder, const InstallPlan& plan, const std::set<std::string>& keep, const Say& say) {
    for (auto f = plan.files.rbegin(); f != plan.files.rend(); ++f) {
        const fs::path target = folder / f->path;
        std::error_code ec;
        fs::remove(target.string() + kTempSuffix, ec);
        if (f->action == FileAction::Replace) fs::remove((folder / f->backup).string() + kTempSuffix, ec);
        if (keep.count(f->path)) continue;
        if (f->action == FileAction::Replace) {
            const fs::path backup = folder / f->backup;
            if (!path_exists(backup)) {
                // Not backed up yet (the original was never touched) or already restored: either way the
                // target holds the original. Anything else means the backup was deleted by someone.
                auto now = sha256_file_hex(target);
                if (!now || *now != f->original_sha256)
                    say(fmt::format("warning: {}: its backup {} is missing; the file stays as it is", target.string(),
                                    (folder / f->backup).string()));
                continue;
            }
            D4R_TRY(copy_atomic(backup, target));
            D4R_TRY(remove_file(backup));
        } else {
            D4R_TRY(remove_file(target));
        }
    }
    for (auto d = plan.created_folders.rbegin(); d != plan.created_folders.rend(); ++d) remove_if_empty(folder / *d);
    prune_backup_folder(folder);
    return ok_status();
}

// Runs the uninstall recorded in JOURNAL (from the start, or again after a kill).
Status run_uninstall(const fs::path& folder, const Journal& journal, const Say& say) {
    const std::set<std::string> keep(journal.keep.begin(), journal.keep.end());
    D4R_TRY(undo_files(folder, journal.plan, keep, say));
    if (path_exists(folder / kManifestName)) D4R_TRY(remove_file(folder / kManifestName));
    D4R_TRY(remove_file(folder / kJournalName));
    return ok_status();
}

// Completes or rolls back what the journal in FOLDER records.
Status recover(const fs::path& folder, const Say& say) {
    const Journal journal = D4R_TRY(load_journal(folder / kJournalName));
    if (journal.op == JournalOp::Uninstall) {
        say(fmt::format("completing an interrupted uninstall in {}", folder.string()));
        return run_uninstall(folder, journal, say);
    }
    const fs::path manifest = folder / kManifestName;
    if (path_exists(manifest)) {
        auto installed = load_manifest(manifest);
        if (installed && same_plan(*installed, journal.plan)) {
            say(fmt::format("an install in {} had finished but not removed its journal: removing it", folder.string()));
            return remove_file(folder / kJournalName);
        }
    }
    say(fmt::format("rolling back an interrupted install in {}", folder.string()));
    D4R_TRY(undo_files(folder, journal.plan, {}, say));
    if (path_exists(manifest)) D4R_TRY(remove_file(manifest));
    return remove_file(folder / kJournalName);
}

// Every regular file under RELEASE, relative, '/' separators, sorted.
Expected<std::vector<std::string>> release_files(const fs::path& release) {
    std::vector<std::string> out;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(release, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
        if (it->is_directory(ec)) continue;
        const std::string rel = it->path().lexically_relative(release).generic_string();
        if (!it->is_regular_file(ec))
            return make_error(ErrorCode::Invalid, "{}: not a regular file (a release holds only files and folders)",
                              it->path().string());
        out.push_back(rel);
    }
    if (ec) return make_error(ErrorCode::Io, "{}: cannot list the release: {}", release.string(), ec.message());
    std::sort(out.begin(), out.end());
    return out;
}

// Where the release's files come from: a folder, or a zip unpacked into a temporary folder.
struct ReleaseInput {
    fs::path folder;        // the files to copy
    std::string recorded;   // the release the manifest names: the folder, or the zip
    std::string sha256;     // the zip's; empty for a folder
    std::string zip_prefix; // a zip's "ZIP!/TOP/": the manifest names a file's source ZIP!/TOP/RELATIVE
};

// The checks every release folder passes, unpacked from a zip or not.
Expected<fs::path> check_release_folder(fs::path release) {
    std::error_code ec;
    release = fs::canonical(release, ec);
    if (ec) return make_error(ErrorCode::Io, "{}: {}", release.string(), ec.message());
    if (!is_dir(release / "d4r"))
        return make_error(ErrorCode::Invalid, "{}: not a d4r release folder (it has no d4r/ folder)", release.string());
    for (const char* reserved : {kManifestName, kJournalName, kBackupFolder})
        if (path_exists(release / reserved))
            return make_error(ErrorCode::Invalid, "{}: holds {}, which d4r install writes itself: not a release folder",
                              release.string(), reserved);
    return release;
}

// GIVEN as a folder (or the release around the running d4r without it); a zip is unpacked by the caller.
Expected<fs::path> resolve_release_folder(const std::optional<fs::path>& given) {
    fs::path release;
    if (given) {
        release = *given;
        if (!is_dir(release))
            return make_error(ErrorCode::NotFound, "--release {}: no such folder or zip file", release.string());
    } else {
        release = D4R_TRY(default_release_dir());
    }
    return check_release_folder(release);
}

// A release given as a file is a zip (the reader says so when it is not one).
bool is_release_zip(const std::optional<fs::path>& given) { return given && !is_dir(*given) && is_file(*given); }

// True when TEXT is valid UTF-8 (the manifest is JSON, which holds only UTF-8 text).
bool is_utf8(std::string_view text) {
    for (size_t i = 0; i < text.size();) {
        const unsigned char c = static_cast<unsigned char>(text[i]);
        const size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
        if (n == 0 || i + n > text.size()) return false;
        for (size_t k = 1; k < n; ++k)
            if ((static_cast<unsigned char>(text[i + k]) >> 6) != 0x2) return false;
        i += n;
    }
    return true;
}

// The plan, and in COPY_FROM the file to copy for each of its files (a zip's are in the unpacked folder).
Expected<InstallPlan> make_plan(const fs::path& folder, const ReleaseInput& release,
                                const std::vector<NvidiaFile>& nvidia, const InstallOptions& options,
                                const std::string& reason, std::vector<fs::path>& copy_from) {
    copy_from.clear();
    InstallPlan plan;
    plan.d4r_version = options.d4r_version;
    plan.release = release.recorded;
    plan.release_sha256 = release.sha256;
    plan.exe_reason = reason;
    struct Source {
        std::string target; // relative
        fs::path file;      // what is copied
        std::string named;  // what the manifest records
    };
    std::vector<Source> sources;
    const std::vector<std::string> files = D4R_TRY(release_files(release.folder));
    for (const std::string& rel : files) {
        const fs::path file = release.folder / rel;
        sources.push_back({rel, file, release.zip_prefix.empty() ? file.string() : release.zip_prefix + rel});
    }
    for (const NvidiaFile& n : nvidia) {
        std::erase_if(sources, [&](const Source& s) { return s.target == n.target; }); // the user's copy wins
        sources.push_back({n.target, n.source, n.source.string()});
    }
    std::set<std::string> created;
    for (const auto& [rel, source, named] : sources) {
        if (!is_utf8(rel) || !is_utf8(named))
            return make_error(ErrorCode::Invalid,
                              "{}: the name is not UTF-8 text, which the install manifest cannot "
                              "record; rename it",
                              named);
        PlannedFile f;
        f.path = rel;
        f.source = named;
        f.sha256 = D4R_TRY(sha256_file_hex(source));
        const fs::path target = folder / rel;
        // Folders to create, parents first.
        fs::path partial;
        for (const auto& part : fs::path(rel).parent_path()) {
            partial /= part;
            const fs::path p = folder / partial;
            if (path_exists(p) && !is_dir(p))
                return make_error(ErrorCode::Invalid, "{}: is a file, but the release needs a folder there",
                                  p.string());
            if (!path_exists(p) && created.insert(partial.generic_string()).second)
                plan.created_folders.push_back(partial.generic_string());
        }
        if (is_dir(target))
            return make_error(ErrorCode::Invalid, "{}: is a folder, but the release has a file there", target.string());
        if (path_exists(target)) {
            f.action = FileAction::Replace;
            f.backup = (fs::path(kBackupFolder) / rel).generic_string();
            f.original_sha256 = D4R_TRY(sha256_file_hex(target));
        }
        plan.files.push_back(std::move(f));
        copy_from.push_back(source);
    }
    return plan;
}

Status execute_install(const fs::path& folder, const InstallPlan& plan, const std::vector<fs::path>& copy_from) {
    if (copy_from.size() != plan.files.size())
        return make_error(ErrorCode::Internal, "install: {} files planned but {} to copy", plan.files.size(),
                          copy_from.size());
    for (const std::string& d : plan.created_folders) {
        std::error_code ec;
        fs::create_directory(folder / d, ec);
        if (ec)
            return make_error(ErrorCode::Io, "cannot create the folder {}: {}", (folder / d).string(), ec.message());
    }
    for (size_t i = 0; i < plan.files.size(); ++i) {
        const PlannedFile& f = plan.files[i];
        const fs::path target = folder / f.path;
        if (f.action == FileAction::Replace) {
            const fs::path backup = folder / f.backup;
            if (!path_exists(backup)) {
                std::error_code ec;
                fs::create_directories(backup.parent_path(), ec);
                if (ec)
                    return make_error(ErrorCode::Io, "cannot create the backup folder {}: {}",
                                      backup.parent_path().string(), ec.message());
                D4R_TRY(copy_atomic(target, backup));
            }
        }
        D4R_TRY(copy_atomic(copy_from[i], target));
    }
    return ok_status();
}

void say_plan(const InstallPlan& plan, const Say& say, bool dry_run) {
    size_t replaced = 0;
    for (const PlannedFile& f : plan.files) {
        if (f.action == FileAction::Replace) ++replaced;
        if (dry_run)
            say(fmt::format("  {} {}{}", f.action == FileAction::Create ? "create " : "replace", f.path,
                            f.action == FileAction::Replace ? fmt::format(" (original to {})", f.backup) : ""));
    }
    say(fmt::format("{} {} files ({} new, {} replaced, originals backed up under {}/), {} new folders",
                    dry_run ? "would write" : "wrote", plan.files.size(), plan.files.size() - replaced, replaced,
                    kBackupFolder, plan.created_folders.size()));
}

} // namespace

Expected<fs::path> default_release_dir() {
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (ec) return make_error(ErrorCode::Io, "cannot find the running d4r (/proc/self/exe): {}", ec.message());
    for (fs::path p = self.parent_path(); p.has_relative_path(); p = p.parent_path())
        if (p.filename() == "d4r") return p.parent_path();
    return make_error(ErrorCode::NotFound,
                      "no --release given and the running d4r ({}) is not inside a release folder (RELEASE/d4r/...): "
                      "give the release (its folder or its zip) with --release",
                      self.string());
}

Expected<std::optional<fs::path>> find_install_folder(const fs::path& game_dir_in) {
    if (!is_dir(game_dir_in)) return make_error(ErrorCode::NotFound, "{}: not a folder", game_dir_in.string());
    std::error_code abs_ec;
    const fs::path game_dir = fs::absolute(game_dir_in, abs_ec).lexically_normal();
    std::set<fs::path> found;
    std::error_code ec;
    auto it = fs::recursive_directory_iterator(game_dir, fs::directory_options::skip_permission_denied, ec);
    for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        std::error_code e2;
        if (it->is_directory(e2)) {
            if (it->is_symlink(e2) || it->path().filename() == kBackupFolder || it.depth() + 1 >= kMaxSearchDepth)
                it.disable_recursion_pending();
            continue;
        }
        const fs::path name = it->path().filename();
        if (name == kManifestName || name == kJournalName) found.insert(it->path().parent_path());
    }
    if (ec) return make_error(ErrorCode::Io, "{}: cannot list the folder: {}", game_dir.string(), ec.message());
    if (found.empty()) return std::optional<fs::path>();
    if (found.size() > 1) {
        std::string list;
        for (const fs::path& f : found) list += "\n  " + f.string();
        return make_error(ErrorCode::Invalid, "{}: several d4r installs found; give one of these folders:{}",
                          game_dir.string(), list);
    }
    return std::optional<fs::path>(*found.begin());
}

namespace {

Expected<bool> repair_impl(const fs::path& game_dir, const Say& say) {
    const std::optional<fs::path> folder = D4R_TRY(find_install_folder(game_dir));
    if (!folder || !path_exists(*folder / kJournalName)) return false;
    D4R_TRY(recover(*folder, say));
    return true;
}

Status uninstall_impl(const fs::path& game_dir, bool purge, bool dry_run, const Say& say);

Status install_impl(const InstallOptions& options, const Say& say) {
    if (!options.dry_run) D4R_TRY(repair_impl(options.game_dir, say));
    const std::optional<fs::path> existing = D4R_TRY(find_install_folder(options.game_dir));
    if (existing && !options.force)
        return make_error(ErrorCode::Invalid,
                          "{}: d4r is already installed here ({}); run d4r uninstall \"{}\" first, or d4r install "
                          "--force to re-install (the original backups are kept)",
                          existing->string(), (*existing / kManifestName).string(), options.game_dir.string());
    const ExeFolderChoice choice = D4R_TRY(find_exe_folder(options.game_dir));
    say(fmt::format("game folder: {} ({}; {})", choice.folder.string(), choice.exe, choice.reason));

    // The release is read (a zip unpacked and checked) before anything in the game folder changes, --force's
    // uninstall included. The unpacked zip's folder is removed when this function returns, whatever happens.
    std::optional<UnpackedRelease> unpacked;
    ReleaseInput input;
    if (is_release_zip(options.release)) {
        UnpackedRelease zip = D4R_TRY(unpack_release_zip(*options.release, say));
        unpacked.emplace(std::move(zip));
        input.folder = D4R_TRY_CTX(check_release_folder(unpacked->release()), "--release {}", unpacked->zip().string());
        input.recorded = unpacked->zip().string();
        input.sha256 = unpacked->sha256();
        input.zip_prefix = input.recorded + "!/" + unpacked->entry_name("");
    } else {
        input.folder = D4R_TRY(resolve_release_folder(options.release));
        input.recorded = input.folder.string();
        say(fmt::format("release: {}", input.folder.string()));
        std::error_code ec;
        if (fs::equivalent(input.folder, choice.folder, ec))
            return make_error(ErrorCode::Invalid,
                              "{}: the release is unpacked in the game folder itself; unpack it "
                              "elsewhere and give it with --release",
                              input.folder.string());
    }
    const fs::path& release = input.folder;

    if (existing) {
        if (options.dry_run) {
            say(fmt::format("would uninstall the install in {} first (--force)", existing->string()));
        } else {
            say(fmt::format("--force: uninstalling the install in {} first", existing->string()));
            D4R_TRY(uninstall_impl(options.game_dir, false, false, say));
        }
    }

    std::vector<NvidiaFile> nvidia;
    if (options.nvidia) {
        const NvidiaCheck check = D4R_TRY(check_nvidia_files(*options.nvidia, release));
        for (const NvidiaFile& n : check.files)
            say(fmt::format("NVIDIA file: {} ({}) -> {}", n.source.string(),
                            n.version.empty() ? "declares no version" : "version " + n.version, n.target));
        for (const KernelSetMatch& m : check.sets)
            say(fmt::format("kernel set {}: {} of {} kernels match {}'s {} PTX modules", m.set, m.matched, m.kernels,
                            kDlssName, check.modules));
        for (const std::string& w : check.warnings) say("warning: " + w);
        nvidia = check.files;
    }

    std::vector<fs::path> copy_from;
    InstallPlan plan = D4R_TRY(make_plan(choice.folder, input, nvidia, options, choice.reason, copy_from));
    StagingFolder staging; // the edited OptiScaler.ini, until it is copied
    D4R_TRY(route_installed_optiscaler(choice.folder, choice.exe, release, plan, copy_from, staging, say));
    if (options.dry_run) {
        say_plan(plan, say, true);
        return ok_status();
    }
    Journal journal{JournalOp::Install, plan, {}};
    D4R_TRY(write_text(choice.folder / kJournalName, journal_to_json(journal)));
    if (Status s = execute_install(choice.folder, plan, copy_from); !s) {
        // Roll back now; should that fail too, the journal stays for the next run.
        Say quiet = [](std::string_view) {};
        if (Status r = recover(choice.folder, quiet); !r)
            s.error().add_context(
                fmt::format("(rolling back failed too: {}; run d4r install --repair)", r.error().text()));
        else
            s.error().add_context("install rolled back");
        return s;
    }
    D4R_TRY(write_text(choice.folder / kManifestName, plan_to_json(plan)));
    D4R_TRY(remove_file(choice.folder / kJournalName));
    say_plan(plan, say, false);
    say(fmt::format("manifest: {}; undo with d4r uninstall \"{}\"", (choice.folder / kManifestName).string(),
                    options.game_dir.string()));
    return ok_status();
}

Status uninstall_impl(const fs::path& game_dir, bool purge, bool dry_run, const Say& say) {
    bool repaired = false;
    if (!dry_run) repaired = D4R_TRY(repair_impl(game_dir, say));
    const std::optional<fs::path> folder = D4R_TRY(find_install_folder(game_dir));
    if (repaired && !folder) {
        say("the game folder is back to its state before the install");
        return ok_status();
    }
    if (!folder || !path_exists(*folder / kManifestName))
        return make_error(ErrorCode::NotFound, "{}: no d4r install here (no {} found within {} levels)",
                          game_dir.string(), kManifestName, kMaxSearchDepth);
    const InstallPlan plan = D4R_TRY(load_manifest(*folder / kManifestName));
    Journal journal{JournalOp::Uninstall, plan, {}};
    for (const PlannedFile& f : plan.files) {
        const fs::path target = *folder / f.path;
        if (!is_d4r_ini(f.path) || !path_exists(target)) continue;
        const std::string now = D4R_TRY(sha256_file_hex(target));
        if (now == f.sha256) continue;
        if (purge) {
            say(fmt::format("{}: edited since the install; removed (--purge)", target.string()));
        } else {
            say(fmt::format(
                "{}: edited since the install; kept (--purge removes it){}", target.string(),
                f.action == FileAction::Replace ? fmt::format("; the file it replaced stays in {}", f.backup) : ""));
            journal.keep.push_back(f.path);
        }
    }
    size_t restored = 0, removed = 0;
    for (const PlannedFile& f : plan.files) {
        if (std::find(journal.keep.begin(), journal.keep.end(), f.path) != journal.keep.end()) continue;
        (f.action == FileAction::Replace ? restored : removed)++;
        if (dry_run) say(fmt::format("  {} {}", f.action == FileAction::Replace ? "restore" : "remove ", f.path));
    }
    if (!dry_run) {
        D4R_TRY(write_text(*folder / kJournalName, journal_to_json(journal)));
        D4R_TRY(run_uninstall(*folder, journal, say));
    }
    say(fmt::format("{}: {} {} files d4r created and {} {} files it replaced (from {}/){}", folder->string(),
                    dry_run ? "would remove" : "removed", removed, dry_run ? "would restore" : "restored", restored,
                    kBackupFolder, dry_run ? "" : "; the folders it created are gone where empty"));
    return ok_status();
}

} // namespace

// The entry points: no exception escapes (a bad_alloc, or a path the JSON writer cannot hold).
Expected<bool> repair(const fs::path& game_dir, const Say& say) {
    try {
        return repair_impl(game_dir, say);
    } catch (const std::exception& e) {
        return make_error(ErrorCode::Internal, "{}: repair failed: {}", game_dir.string(), e.what());
    }
}

Status install(const InstallOptions& options, const Say& say) {
    try {
        Status s = install_impl(options, say);
        if (!s) log::debug("install: refused or failed: {}", s.error().text());
        return s;
    } catch (const std::exception& e) {
        return make_error(ErrorCode::Internal, "{}: install failed: {} (run d4r install --repair \"{}\")",
                          options.game_dir.string(), e.what(), options.game_dir.string());
    }
}

Status uninstall(const fs::path& game_dir, bool purge, bool dry_run, const Say& say) {
    try {
        Status s = uninstall_impl(game_dir, purge, dry_run, say);
        if (!s) log::debug("uninstall: refused or failed: {}", s.error().text());
        return s;
    } catch (const std::exception& e) {
        return make_error(ErrorCode::Internal, "{}: uninstall failed: {} (run d4r install --repair \"{}\")",
                          game_dir.string(), e.what(), game_dir.string());
    }
}

} // namespace d4r::release
