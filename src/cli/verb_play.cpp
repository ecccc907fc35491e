// d4r play / d4r restore: start a game with the configuration applied, and put the Proton prefix back
// (docs/play.md).
//
// This file turns the configuration into a release::LaunchPlan (environment, prefix, the ini keys to
// write, where logs and the restore journal go); release/launcher.cpp runs it.
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "cli_common.h"
#include "config/config_file.h"
#include "config/locate.h"
#include "config/resolve.h"
#include "core/env.h"
#include "core/env_vars.h"
#include "core/files.h"
#include "core/log.h"
#include "core/process.h"
#include "game_profile.h"
#include "release/launcher.h"
#include "release/optiscaler_keys.h"
#include "release/optiscaler_routing.h"
#include "release/restore_journal.h"
#include "verbs.h"

namespace d4r::cli {

namespace {

namespace fs = std::filesystem;
using namespace d4r::config;

struct PlayArgs {
    std::string config;
    std::string prefix;
    bool dry_run = false;
    std::vector<std::string> command;
};

struct RestoreArgs {
    bool dry_run = false;
};

void say(std::string_view line) {
    fmt::print("d4r: {}\n", line);
    std::fflush(stdout);
}

// The folder a prefix is in: X/pfx when X holds one (a compatdata folder), else X.
fs::path prefix_in(const fs::path& dir) { return is_dir(dir / "pfx") ? dir / "pfx" : dir; }

// d4r's folder in the user's cache (/tmp/d4r without one); doctor_report.cpp reads the logs from the same place.
fs::path cache_root(const Environment& env) { return fs::path(user_cache_dir(env).value_or("/tmp")) / "d4r"; }

std::string value_of(const ResolvedConfig& r, KeyId id) {
    const ResolvedValue& v = r.get(id);
    return v.is_auto() ? std::string() : v.value;
}

// d4r's [OptiScaler] settings of d4r.ini as OptiScaler keys (release/optiscaler_keys.h).
std::vector<release::IniSetting> optiscaler_preferences(const ResolvedConfig& r) {
    using namespace release;
    std::vector<IniSetting> s;
    const ResolvedValue& fps = r.get(KeyId::OptiScalerFpsOverlay);
    s.push_back(optiscaler_setting(kShowFps, fps.as_bool().value_or(true) ? "true" : "false"));
    s.push_back(optiscaler_setting(kLogLevel, r.get(KeyId::OptiScalerLogLevel).value));
    const std::pair<KeyId, const char*> ratios[] = {
        {KeyId::OptiScalerQualityRatioUltraQuality, "QualityRatioUltraQuality"},
        {KeyId::OptiScalerQualityRatioQuality, "QualityRatioQuality"},
        {KeyId::OptiScalerQualityRatioBalanced, "QualityRatioBalanced"},
        {KeyId::OptiScalerQualityRatioPerformance, "QualityRatioPerformance"},
        {KeyId::OptiScalerQualityRatioUltraPerformance, "QualityRatioUltraPerformance"},
    };
    bool any_ratio = false;
    for (const auto& [id, name] : ratios) {
        std::string v = value_of(r, id);
        if (v.empty()) continue;
        if (!any_ratio) s.push_back(optiscaler_setting(kQualityRatioOverrideEnabled, "true"));
        any_ratio = true;
        s.push_back({kQualityOverridesSection, name, v});
    }
    return s;
}

// The OptiScaler.ini edit for the game in GAME_DIR: the routing keys its OptiScaler version reads
// (release/optiscaler_routing.h), then d4r's [OptiScaler] preferences.
void plan_optiscaler(const ResolvedConfig& r, const fs::path& game_dir,
                     const std::optional<release::GameProfile>& profile, release::LaunchPlan& plan) {
    Expected<std::string> text = read_text_file(*plan.optiscaler_ini, 16 << 20);
    release::GameRoutingInputs in;
    in.exe_folder = game_dir;
    in.ini_text = text ? *text : std::string();
    in.dll = release::find_optiscaler_dll(game_dir);
    in.shim = release::find_shim(game_dir);
    if (profile) in.overrides = profile->optiscaler_settings();
    release::GameRouting routing = release::plan_game_routing(in);
    for (const std::string& note : routing.notes) say(note);
    plan.optiscaler_settings = std::move(routing.edit.set);
    plan.optiscaler_removals = std::move(routing.edit.remove);
    for (release::IniSetting& s : optiscaler_preferences(r)) plan.optiscaler_settings.push_back(std::move(s));
}

// `d4r config show` for the located file, as that verb prints it.
std::string config_show_text(const ConfigLocation& location, const std::string& exe) {
    const std::string self = executable_path();
    if (self.empty()) return "d4r config show: cannot find the running d4r\n";
    std::vector<std::string> argv;
    if (location.path)
        argv = {self, "config", "show", "--config", location.path->string()};
    else
        argv = {"env", fmt::format("{}=1", env_name(EnvVar::NoConfig)), self, "config", "show"};
    if (!exe.empty()) argv.insert(argv.end(), {"--exe", exe});
    Expected<ProcessResult> r = run_process(argv, std::chrono::seconds(20));
    if (!r) return fmt::format("d4r config show failed: {}\n", r.error().text());
    // Its first line names the file the way it was given to it; say why play chose it instead.
    std::string text = r->output;
    const std::string first = "config file: ";
    if (size_t eol = text.find('\n'); text.starts_with(first) && eol != std::string::npos)
        text = first + location.describe() + text.substr(eol);
    return text;
}

int run_play(const PlayArgs& a) {
    const Environment& env = process_environment();
    release::LaunchPlan plan;
    plan.command = a.command;
    plan.dry_run = a.dry_run;
    if (plan.command.empty())
        return report_error(Error(ErrorCode::Invalid, "no command: d4r play [OPTIONS] -- COMMAND... "
                                                      "(in Steam's launch options: d4r play -- %command%)"));

    // The game's exe and folder, from the command (its d4r.ini is the game folder's).
    std::error_code ec;
    const fs::path cwd = fs::current_path(ec);
    std::optional<std::string> exe = release::find_game_exe(plan.command);
    fs::path game_dir = exe ? fs::absolute(fs::path(*exe), ec).parent_path() : cwd;

    // The configuration.
    std::optional<fs::path> explicit_path;
    std::string found_reason;
    if (!a.config.empty()) {
        explicit_path = a.config;
    } else if (!env.has(env_name(EnvVar::Config)) && !env.has(env_name(EnvVar::NoConfig))) {
        for (const fs::path& candidate : {game_dir / "d4r.ini", game_dir / "d4r" / "d4r.ini"}) {
            if (is_file(candidate)) {
                explicit_path = candidate;
                found_reason = "found in the game folder";
                break;
            }
        }
    }
    Expected<ConfigLocation> location = locate_config_file(env, explicit_path, cwd);
    if (!location) return report_error(location.error());
    if (!found_reason.empty()) location->reason = found_reason;
    Expected<ConfigSource> source = read_config_source(*location);
    if (!source) return report_error(source.error());
    ParsedConfig parsed = parse_config(*source);
    for (const Diagnostic& d : parsed.diagnostics)
        fmt::print(stderr, "d4r: {}: {}\n", d.severity == Severity::Error ? "error" : "warning", d.text());
    Expected<ResolvedConfig> resolved_or = resolve_parsed(parsed, env);
    if (!resolved_or) return kExitUsage;
    say(fmt::format("config: {}", location->describe()));

    if (std::string game_exe = value_of(*resolved_or, KeyId::LaunchGameExe); !game_exe.empty()) {
        exe = game_exe;
        game_dir = fs::path(game_exe).parent_path();
    }

    // The game's profile (packaging/game-profiles.ini): its d4r.ini values where the file sets none.
    std::optional<release::GameProfile> profile;
    const std::string exe_file =
        exe ? fs::path(*exe).filename().string() : fs::path(plan.command[0]).filename().string();
    if (const ResolvedValue& use = resolved_or->get(KeyId::LaunchGameProfile); !use.as_bool().value_or(true)) {
        say(fmt::format("game profile: off ([Launch] GameProfile = false, {})", use.origin_text));
    } else {
        std::string why;
        profile = release::game_profile_for(env, exe_file, why);
        if (!profile && why.starts_with("error: ")) say("warning: " + why.substr(7));
        if (profile) {
            say("game profile: " + profile->describe());
            if (Status s = inject_game_profile(parsed, *profile); !s) return report_error(s.error());
            resolved_or = resolve_parsed(parsed, env);
            if (!resolved_or) return kExitUsage;
        }
    }
    const ResolvedConfig& r = *resolved_or;
    plan.exe_name = exe ? fs::path(*exe).stem().string() : fs::path(plan.command[0]).filename().string();

    // The environment: the configuration's exports, then the NVAPI variables Proton needs for DLSS.
    for (const EnvExport& e : compute_exports(r)) plan.env.push_back({e.name, e.value, "configuration"});
    auto exported = [&](std::string_view name) {
        for (const release::EnvChange& c : plan.env)
            if (c.name == name) return true;
        return false;
    };
    if (profile)
        for (const release::ProfileValue& v : profile->env)
            if (!env.has(v.key) && !exported(v.key)) plan.env.push_back({v.key, v.value, profile->origin(v.line)});

    // Proton's NVIDIA identity (docs/proton.md): OptiScaler keeps its DLSS backend only when it sees an NVIDIA
    // GPU, which under Proton means PROTON_FORCE_NVAPI=1 (Proton then hides the AMD GPU behind NVIDIA's vendor id).
    struct NvapiVariable {
        const char* name;
        const char* value;
        const char* why;
    };
    const NvapiVariable nvapi[] = {
        {"PROTON_ENABLE_NVAPI", "1", "Proton loads dxvk-nvapi (nvapi64.dll), which DLSS needs"},
        {"PROTON_FORCE_NVAPI", "1",
         "Proton reports the GPU with NVIDIA's vendor id, so OptiScaler's NVIDIA check passes and its DLSS "
         "backend stays on"},
        {"DXVK_NVAPI_GPU_ARCH", "AD100", "dxvk-nvapi reports an Ada GPU, which the game's DLSS options expect"},
    };
    for (const NvapiVariable& v : nvapi) {
        if (env.has(v.name) || exported(v.name)) continue;
        plan.env.push_back({v.name, std::string(v.value), v.why});
    }
    // The value the game gets: the environment's, else what the configuration or the profile sets.
    std::optional<std::string> force = env.get("PROTON_FORCE_NVAPI");
    std::string force_from = "the environment";
    for (const release::EnvChange& c : plan.env)
        if (!force && c.name == "PROTON_FORCE_NVAPI" && c.value && c.why != nvapi[1].why) {
            force = c.value;
            force_from = c.why;
        }
    if (force && *force != "1")
        say(fmt::format("warning: PROTON_FORCE_NVAPI={} ({}) is kept: OptiScaler will see no NVIDIA GPU and turn its "
                        "DLSS backend off",
                        *force, force_from));
    else
        say("for OptiScaler: PROTON_FORCE_NVAPI=1, so Proton reports the GPU as NVIDIA's and OptiScaler keeps DLSS on");

    // The prefix.
    if (!a.prefix.empty()) {
        if (!is_dir(a.prefix))
            return report_error(Error(ErrorCode::NotFound, fmt::format("--prefix {}: no such folder", a.prefix)));
        plan.prefix = prefix_in(fs::absolute(a.prefix, ec));
        plan.prefix_reason = "--prefix";
    } else if (auto compat = env.get("STEAM_COMPAT_DATA_PATH"); compat && !compat->empty()) {
        plan.prefix = fs::path(*compat) / "pfx";
        plan.prefix_reason = "STEAM_COMPAT_DATA_PATH";
    } else if (std::string dir = value_of(r, KeyId::LaunchCompatDataDir); !dir.empty()) {
        plan.prefix = prefix_in(dir);
        plan.prefix_reason = fmt::format("[Launch] CompatDataDir ({})", r.get(KeyId::LaunchCompatDataDir).origin_text);
    } else if (auto wp = env.get("WINEPREFIX"); wp && !wp->empty()) {
        plan.prefix = fs::path(*wp);
        plan.prefix_reason = "WINEPREFIX";
    } else {
        plan.prefix_reason = "no --prefix, STEAM_COMPAT_DATA_PATH, [Launch] CompatDataDir or WINEPREFIX";
    }
    plan.target = plan.prefix ? *plan.prefix : game_dir;

    // OptiScaler.ini beside the exe (d4r never creates one: OptiScaler is not installed without it).
    for (const char* name : {release::kOptiScalerIniName, "optiscaler.ini"}) {
        if (is_file(game_dir / name)) {
            plan.optiscaler_ini = game_dir / name;
            plan_optiscaler(r, game_dir, profile, plan);
            break;
        }
    }
    if (!plan.optiscaler_ini)
        say(fmt::format("no OptiScaler.ini in {}: OptiScaler keys not written", game_dir.string()));

    // Engine.ini when cvars are configured.
    if (std::string cvars = value_of(r, KeyId::GameCvars); !cvars.empty()) {
        std::string ini = value_of(r, KeyId::GameEngineIni);
        if (ini.empty())
            return report_error(Error(ErrorCode::Invalid,
                                      fmt::format("[Game] Cvars is set ({}) but [Game] EngineIni is empty: give the "
                                                  "path of the game's Engine.ini",
                                                  r.get(KeyId::GameCvars).origin_text)));
        Expected<std::vector<release::IniSetting>> settings = release::parse_cvars(cvars);
        if (!settings) return report_error(settings.error());
        fs::path path = ini;
        if (path.is_relative()) path = game_dir / path;
        plan.engine_ini = path;
        plan.engine_settings = std::move(*settings);
    }

    Expected<fs::path> journal_dir = release::journal_dir(env);
    if (!journal_dir) return report_error(journal_dir.error());
    plan.journal_dir = *journal_dir;
    std::string log_dir = value_of(r, KeyId::DebugLogDir);
    plan.log_root = log_dir.empty() ? cache_root(env) / "logs" : fs::path(log_dir);
    if (!plan.dry_run) plan.config_text = config_show_text(*location, exe_file);
    return release::run_game(plan, say);
}

int run_restore(const RestoreArgs& a) {
    Expected<fs::path> dir = release::journal_dir(process_environment());
    if (!dir) return report_error(dir.error());
    Expected<std::vector<fs::path>> journals = release::list_journals(*dir);
    if (!journals) return report_error(journals.error());
    int done = 0;
    for (const fs::path& path : *journals) {
        Expected<release::RestoreJournal> j = release::read_journal(path);
        if (!j) return report_error(j.error());
        if (release::journal_owner_alive(*j)) {
            say(fmt::format("{}: d4r play (pid {}) still runs for {}; it restores when the game exits", path.string(),
                            j->pid, j->target));
            continue;
        }
        if (a.dry_run) {
            say(fmt::format("would restore {} (left by d4r pid {}):", j->target, j->pid));
            for (const release::TrackedFile& f : j->files)
                say(fmt::format("  {} ({}): {}", f.path, f.what,
                                f.existed ? "back to the copy " + f.backup
                                          : (f.remove_if_new ? "removed if present" : "left alone")));
            continue;
        }
        say(fmt::format("restoring {} (left by d4r pid {})", j->target, j->pid));
        if (Status s = release::restore_journal(path, say); !s) return report_error(s.error());
        ++done;
    }
    if (done == 0 && !a.dry_run) say(fmt::format("nothing to restore ({})", dir->string()));
    return kExitOk;
}

// Nothing below main may end d4r with an exception: one that escapes anyway is reported as an error.
int guarded(const char* verb, const std::function<int()>& run) {
    try {
        return run();
    } catch (const std::exception& e) {
        return report_error(Error(ErrorCode::Internal, fmt::format("d4r {}: {}", verb, e.what())));
    }
}

} // namespace

void register_play_verbs(CLI::App& root) {
    auto p = std::make_shared<PlayArgs>();
    CLI::App* play = root.add_subcommand(
        "play", "run a game with d4r's configuration (Steam launch option: d4r play -- %command%): sets the "
                "environment (with Proton's NVAPI variables), writes d4r's OptiScaler.ini keys and Engine.ini "
                "cvars after backing up what it touches, and restores it all when the game exits (docs/play.md)");
    play->add_option("--config", p->config,
                     "read this d4r.ini (default: D4R_CONFIG, else d4r.ini or d4r/d4r.ini in the game exe's folder, "
                     "else as `d4r config` looks for it)");
    play->add_option("--prefix", p->prefix,
                     "the Wine prefix (or a compatdata folder holding pfx/); default: $STEAM_COMPAT_DATA_PATH/pfx, "
                     "else [Launch] CompatDataDir, else WINEPREFIX");
    play->add_flag("--dry-run", p->dry_run, "print what would be set, backed up, written and run; change nothing");
    play->add_option("COMMAND", p->command, "the game's command line, after --")->required();
    set_action(play, [p] { return guarded("play", [&] { return run_play(*p); }); });

    auto r = std::make_shared<RestoreArgs>();
    CLI::App* restore = root.add_subcommand(
        "restore", "put back what a d4r play that was killed left changed (its restore journal under "
                   "~/.cache/d4r/restore); a journal whose d4r still runs is left alone");
    restore->add_flag("--dry-run", r->dry_run, "print what would be restored; change nothing");
    set_action(restore, [r] { return guarded("restore", [&] { return run_restore(*r); }); });
}

} // namespace d4r::cli
