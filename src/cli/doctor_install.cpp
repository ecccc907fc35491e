// d4r doctor: the checks of a real install (doctor_install.h).
#include "doctor_install.h"
#include "doctor_optiscaler.h"

#include <gnu/libc-version.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/env_vars.h"
#include "core/files.h"
#include "core/sha256.h"
#include "core/strings.h"
#include "release/elf_glibc.h"
#include "release/game_layout.h"
#include "release/install_manifest.h"
#include "release/install_nvidia.h"
#include "release/pe_version.h"
#include "release/restore_journal.h"

namespace d4r::cli {

namespace {

namespace fs = std::filesystem;
using config::KeyId;

constexpr uint64_t kMaxLibraryBytes = uint64_t(2) << 30;

std::optional<std::string> configured(const config::ResolvedConfig* cfg, KeyId id) {
    if (!cfg) return std::nullopt;
    const config::ResolvedValue& v = cfg->get(id);
    if (v.is_auto() || v.value.empty()) return std::nullopt;
    return v.value;
}

std::string lower(std::string_view text) { return to_lower(text); }

// ---- install -----------------------------------------------------------------------------------------

void check_manifest(const fs::path& folder, std::vector<CheckLine>& out) {
    const std::string game = folder.string();
    if (is_file(folder / release::kJournalName)) {
        out.push_back(check_line(
            CheckStatus::Fail, "install",
            fmt::format("{}: an install or uninstall was interrupted ({} is there)", game, release::kJournalName),
            "run 'd4r install --repair GAME_DIR' to finish or undo it"));
        return;
    }
    auto plan = release::load_manifest(folder / release::kManifestName);
    if (!plan) {
        if (!is_file(folder / release::kManifestName))
            out.push_back(check_line(CheckStatus::Fail, "install", fmt::format("no d4r install in {}", game),
                                     "install with 'd4r install GAME_DIR'"));
        else
            out.push_back(check_line(CheckStatus::Fail, "install", plan.error().text(),
                                     "reinstall with 'd4r install --force GAME_DIR'"));
        return;
    }
    size_t missing = 0, changed = 0;
    std::string first_missing, first_changed;
    bool ini_edited = false;
    for (const release::PlannedFile& f : plan->files) {
        const fs::path path = folder / f.path;
        if (!is_file(path)) {
            if (missing++ == 0) first_missing = f.path;
            continue;
        }
        auto hash = sha256_file_hex(path);
        if (hash && *hash == f.sha256) continue;
        const std::string name = lower(fs::path(f.path).filename().string());
        if (name == "d4r.ini") {
            ini_edited = true;
            continue;
        }
        if (name == "optiscaler.ini") continue; // OptiScaler's "Save INI" rewrites it; its keys are checked below
        if (changed++ == 0) first_changed = f.path;
    }
    const std::string version = plan->d4r_version.empty() ? "" : " (d4r " + plan->d4r_version + ")";
    if (missing)
        out.push_back(
            check_line(CheckStatus::Fail, "install",
                       fmt::format("{}: {} of {} installed files are missing, first {}", game, missing,
                                   plan->files.size(), first_missing),
                       "reinstall with 'd4r install --force GAME_DIR' (a game update may have removed them)"));
    else if (changed)
        out.push_back(check_line(CheckStatus::Warn, "install",
                                 fmt::format("{}: {} of {} installed files changed since the install, first {}", game,
                                             changed, plan->files.size(), first_changed),
                                 "a game update or another mod may have replaced them; 'd4r install --force GAME_DIR' "
                                 "puts d4r's back"));
    else
        out.push_back(check_line(CheckStatus::Ok, "install",
                                 fmt::format("{}: {} files as installed{}{}", game, plan->files.size(), version,
                                             ini_edited ? ", d4r.ini edited by you" : "")));
}

void check_nvidia_files(const fs::path& folder, std::vector<CheckLine>& out) {
    const fs::path dlss = folder / release::kDlssName;
    if (!is_file(dlss)) {
        out.push_back(
            check_line(CheckStatus::Warn, "nvidia",
                       fmt::format("no {} beside the game's exe in {}", release::kDlssName, folder.string()),
                       "DLSS needs your own copy of NVIDIA's DLL: 'd4r install --force --nvidia DIR GAME_DIR'"));
        return;
    }
    auto check = release::check_nvidia_files(folder, folder);
    if (!check) {
        out.push_back(
            check_line(CheckStatus::Fail, "nvidia", check.error().text(),
                       "replace it with a genuine nvngx_dlss.dll: 'd4r install --force --nvidia DIR GAME_DIR'"));
        return;
    }
    std::string version;
    for (const release::NvidiaFile& f : check->files)
        if (f.target.ends_with(release::kDlssName) && !f.version.empty()) version = " " + f.version;
    size_t best = 0, best_total = 0;
    std::string best_set;
    for (const release::KernelSetMatch& s : check->sets)
        if (s.matched > best || best_set.empty()) {
            best = s.matched;
            best_total = s.kernels;
            best_set = s.set;
        }
    if (best > 0)
        out.push_back(check_line(CheckStatus::Ok, "nvidia",
                                 fmt::format("{}{}: {} PTX modules; {} of {} native kernels of {} would be served",
                                             release::kDlssName, version, check->modules, best, best_total, best_set)));
    else
        out.push_back(check_line(CheckStatus::Warn, "nvidia",
                                 fmt::format("{}{}: {} PTX modules; no kernel set matches them", release::kDlssName,
                                             version, check->modules),
                                 check->warnings.empty() ? "native kernels will be refused and DLSS runs slower"
                                                         : check->warnings.front()));
}

// ---- prefix, cache, glibc ----------------------------------------------------------------------------

fs::path cache_base(const Environment& env) { return user_cache_dir(env).value_or("/tmp"); }

void check_prefix(const InstallCheckOptions& o, const Environment& env, std::vector<CheckLine>& out) {
    std::optional<fs::path> compat = o.prefix;
    std::string source = "--prefix";
    if (!compat)
        if (auto v = env.get("STEAM_COMPAT_DATA_PATH"); v && !v->empty()) {
            compat = *v;
            source = "STEAM_COMPAT_DATA_PATH";
        }
    // Restores `d4r play` could not finish (it was killed): their journals stay until `d4r restore`. A
    // journal whose d4r is still running belongs to a game being played, not to a crash.
    size_t leftovers = 0;
    std::string journals = "the restore folder";
    if (auto dir = release::journal_dir(env)) {
        journals = dir->string();
        auto found = release::list_journals(*dir);
        if (!found) {
            out.push_back(check_line(CheckStatus::Fail, "prefix", "restore journals: " + found.error().text(),
                                     "run 'd4r restore' before starting the game"));
            return;
        }
        for (const fs::path& p : *found) {
            auto j = release::read_journal(p);
            leftovers += !j || !release::journal_owner_alive(*j);
        }
    }
    if (leftovers)
        out.push_back(
            check_line(CheckStatus::Fail, "prefix",
                       fmt::format("{} restore journal(s) in {}: 'd4r play' was stopped before it could put the "
                                   "prefix back",
                                   leftovers, journals),
                       "run 'd4r restore' before starting the game"));
    if (!compat) {
        if (!leftovers)
            out.push_back(check_line(CheckStatus::Ok, "prefix",
                                     "not checked (no --prefix, no STEAM_COMPAT_DATA_PATH); no unfinished restores"));
        return;
    }
    if (!is_dir(*compat / "pfx")) {
        out.push_back(check_line(CheckStatus::Warn, "prefix",
                                 fmt::format("{} ({}) has no pfx/ prefix yet", compat->string(), source),
                                 "start the game once with Proton to create it"));
        return;
    }
    const std::string proton = proton_version_text(*compat);
    out.push_back(check_line(CheckStatus::Ok, "prefix",
                             fmt::format("{} ({}), made by {}{}", (*compat / "pfx").string(), source, proton,
                                         leftovers ? "" : "; no unfinished restores")));
}

void check_cache(const Environment& env, std::vector<CheckLine>& out) {
    fs::path base = cache_base(env);
    std::string source = "the user's cache folder";
    if (auto v = env_text(env, EnvVar::ZludaCacheHome)) {
        base = *v;
        source = env_name(EnvVar::ZludaCacheHome);
    }
    std::error_code ec;
    fs::create_directories(base, ec);
    const fs::path probe = base / fmt::format(".d4r-doctor-{}", ::getpid());
    bool writable = false;
    {
        std::ofstream f(probe);
        writable = bool(f << "probe");
    }
    fs::remove(probe, ec);
    if (!writable) {
        out.push_back(
            check_line(CheckStatus::Fail, "cache", fmt::format("{} ({}) is not writable", base.string(), source),
                       "compiled kernels cannot be kept: every start compiles them again (a long first frame); "
                       "fix the folder's permissions or set [Paths] CacheDir"));
        return;
    }
    size_t files = 0;
    for (const char* sub : {"ZLUDA", "d4r-accuracy"}) {
        for (auto it = fs::recursive_directory_iterator(base / sub, ec);
             !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
            files += it->is_regular_file(ec);
        ec.clear();
    }
    if (files)
        out.push_back(check_line(CheckStatus::Ok, "cache",
                                 fmt::format("{} ({}): writable, warm ({} files)", base.string(), source, files)));
    else
        out.push_back(
            check_line(CheckStatus::Ok, "cache",
                       fmt::format("{} ({}): writable, cold: the first start compiles the kernels (it may pause "
                                   "for a while)",
                                   base.string(), source)));
}

void check_library_glibc(const std::string& what, const std::vector<fs::path>& candidates,
                         const release::GlibcVersion& system, std::vector<CheckLine>& out) {
    for (const fs::path& lib : candidates) {
        if (!is_file(lib)) continue;
        auto bytes = read_file(lib, kMaxLibraryBytes);
        auto needs = bytes ? release::read_glibc_needs(*bytes) : Expected<release::GlibcNeeds>(bytes.error());
        if (!needs) {
            out.push_back(check_line(CheckStatus::Fail, "glibc",
                                     fmt::format("{} {}: {}", what, lib.string(), needs.error().text()),
                                     "replace it with a Linux x86-64 build"));
        } else if (needs->highest && *needs->highest > system) {
            out.push_back(check_line(CheckStatus::Fail, "glibc",
                                     fmt::format("{} {} needs GLIBC {}; this system has {}", what, lib.string(),
                                                 needs->highest->text(), system.text()),
                                     "use a build made for an older distribution, or update this system"));
        } else {
            out.push_back(check_line(CheckStatus::Ok, "glibc",
                                     fmt::format("{} {} needs GLIBC {} (this system has {})", what, lib.string(),
                                                 needs->highest ? needs->highest->text() : "none", system.text())));
        }
        return;
    }
}

void check_glibc(const InstallCheckOptions& o, const config::ResolvedConfig* cfg, std::vector<CheckLine>& out) {
    auto system = release::parse_glibc_version(o.system_glibc.value_or(gnu_get_libc_version()));
    if (!system) {
        out.push_back(check_line(CheckStatus::Fail, "glibc", "--glibc: " + system.error().text()));
        return;
    }
    std::vector<fs::path> zluda;
    if (auto dir = configured(cfg, KeyId::PathsZludaDir))
        zluda = {fs::path(*dir) / "libcuda.so", fs::path(*dir) / "libcuda.so.1"};
    else if (auto rt = configured(cfg, KeyId::PathsRuntimeDir))
        zluda = {fs::path(*rt) / "zluda" / "libcuda.so", fs::path(*rt) / "zluda" / "libcuda.so.1"};
    check_library_glibc("ZLUDA", zluda, *system, out);
    if (auto rocm = configured(cfg, KeyId::PathsRocmDir))
        check_library_glibc("ROCm", {fs::path(*rocm) / "lib" / "libamdhip64.so", fs::path(*rocm) / "libamdhip64.so"},
                            *system, out);
}

} // namespace

std::string proton_version_text(const fs::path& compat) {
    if (auto v = read_text_file(compat / "version", 4096)) return "Proton " + std::string(trim(*v));
    return "unknown Proton";
}

void check_install(const InstallCheckOptions& options, const config::ResolvedConfig* cfg, const Environment& env,
                   std::vector<CheckLine>& out) {
    if (options.game_dir) {
        auto folder = release::find_exe_folder(*options.game_dir);
        if (!folder) {
            out.push_back(check_line(CheckStatus::Fail, "install", folder.error().text(),
                                     "give the folder that holds the game's exe as --game"));
        } else {
            check_manifest(folder->folder, out);
            check_nvidia_files(folder->folder, out);
            check_optiscaler(folder->folder, folder->exe, env, out);
        }
    }
    if (options.game_dir || options.prefix || options.launch_options) check_nvapi(options, env, out);
    check_prefix(options, env, out);
    check_cache(env, out);
    check_glibc(options, cfg, out);
}

} // namespace d4r::cli
