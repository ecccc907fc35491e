// d4r config env|check|show|schema|vars|template: the d4r.ini as the rest of d4r sees it (docs/configuration.md).
//
// Diagnostics go to stderr and stdout carries only the verb's result, so that
// `eval "$(d4r config env)"` stays safe when the file has warnings.
#include <filesystem>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "cli_common.h"
#include "config/config_file.h"
#include "config/env_table.h"
#include "config/locate.h"
#include "config/render.h"
#include "config/resolve.h"
#include "core/env.h"
#include "core/env_vars.h"
#include "core/strings.h"
#include "game_profile.h"
#include "verbs.h"

namespace d4r::cli {

namespace {

namespace fs = std::filesystem;
using namespace d4r::config;

struct ConfigOptions {
    std::string file;
    std::string exe; // show --exe: apply this game's profile
    bool release = false;
};

struct Loaded {
    ConfigLocation location;
    ParsedConfig parsed;
};

Expected<Loaded> load(const std::string& explicit_file) {
    std::error_code ec;
    fs::path cwd = fs::current_path(ec);
    if (ec) return make_error(ErrorCode::Io, "cannot read the working folder: {}", ec.message());
    std::optional<fs::path> explicit_path;
    if (!explicit_file.empty()) explicit_path = explicit_file;
    ConfigLocation location = D4R_TRY(locate_config_file(process_environment(), explicit_path, cwd));
    ConfigSource source = D4R_TRY(read_config_source(location));
    return Loaded{location, parse_config(source)};
}

void print_diagnostics(const std::vector<Diagnostic>& diagnostics) {
    for (const Diagnostic& d : diagnostics)
        fmt::print(stderr, "d4r: {}: {}\n", d.severity == Severity::Error ? "error" : "warning", d.text());
}

// Loads, prints the diagnostics, and resolves; nullopt (after reporting) when the file is unusable.
// With EXE, the game's profile (game_profile.h) fills in what the file does not set, unless the file turns it
// off; PROFILE_OUT receives it.
std::optional<ResolvedConfig> load_resolved(const std::string& explicit_file, int& status, Loaded* loaded_out = nullptr,
                                            const std::string& exe = "",
                                            std::optional<release::GameProfile>* profile_out = nullptr) {
    Expected<Loaded> loaded = load(explicit_file);
    if (!loaded) {
        status = report_error(loaded.error());
        return std::nullopt;
    }
    print_diagnostics(loaded->parsed.diagnostics);
    Expected<ResolvedConfig> resolved = resolve_parsed(loaded->parsed, process_environment());
    if (!resolved) {
        status = kExitUsage;
        return std::nullopt;
    }
    if (!exe.empty() && resolved->get(KeyId::LaunchGameProfile).as_bool().value_or(true)) {
        std::string why;
        std::optional<release::GameProfile> profile = release::game_profile_for(process_environment(), exe, why);
        if (profile) {
            if (Status s = inject_game_profile(loaded->parsed, *profile); !s) {
                status = report_error(s.error());
                return std::nullopt;
            }
            resolved = resolve_parsed(loaded->parsed, process_environment());
            if (!resolved) {
                status = kExitUsage;
                return std::nullopt;
            }
        }
        if (profile_out) *profile_out = std::move(profile);
    }
    if (loaded_out) *loaded_out = std::move(*loaded);
    return std::move(*resolved);
}

int run_env(const ConfigOptions& o) {
    int status = kExitOk;
    std::optional<ResolvedConfig> resolved = load_resolved(o.file, status);
    if (!resolved) return status;
    for (const EnvExport& e : compute_exports(*resolved)) fmt::print("{}\n", e.shell());
    return kExitOk;
}

int run_check(const ConfigOptions& o) {
    Expected<Loaded> loaded = load(o.file);
    if (!loaded) return report_error(loaded.error());
    const ParsedConfig& parsed = loaded->parsed;
    print_diagnostics(parsed.diagnostics);
    if (!loaded->location.path) {
        fmt::print("no config file ({}): ok, built-in defaults\n", loaded->location.reason);
        return kExitOk;
    }
    if (parsed.has_errors()) {
        size_t errors = 0;
        for (const Diagnostic& d : parsed.diagnostics) errors += d.severity == Severity::Error;
        fmt::print(stderr, "d4r: {}: {} error{}\n", parsed.file_name, errors, errors == 1 ? "" : "s");
        return kExitUsage;
    }
    fmt::print("{}: ok\n", parsed.file_name);
    return kExitOk;
}

std::string describe_variable(const VariablePlan& p) {
    switch (p.state) {
    case VariableState::Export:
        return fmt::format("{}={}", p.name, shell_quote(p.value));
    case VariableState::Unset:
        return fmt::format("unset {}", p.name);
    case VariableState::NotExported:
        return fmt::format("{} not exported: {}", p.name, p.note);
    case VariableState::FromEnvironment:
        return fmt::format("{}={} ({}; not exported)", p.name, shell_quote(p.value), p.note);
    case VariableState::ReplacedByEnv:
        return fmt::format("{}={} ({})", p.name, shell_quote(p.value), p.note);
    }
    return p.name;
}

void print_entry(const std::string& assignment, const std::string& origin) {
    fmt::print("{:<48} ({})\n", assignment, origin);
}

// Every variable of the table (core/env_vars.h), as a process the launcher starts would see it.
void print_variables(const Environment& env, const ResolvedConfig* resolved) {
    fmt::print("environment variables (every one d4r reads; 'd4r config vars' explains them):\n");
    for (const EnvVarInfo& v : env_vars()) {
        VariableSource s = variable_source(v, env, resolved);
        std::string assignment =
            s.set ? fmt::format("{}={}", v.name, shell_quote(s.value)) : fmt::format("{} unset", v.name);
        if (!s.set) {
            assignment += v.default_value.empty() ? std::string(" (nothing)") : fmt::format(" (= {})", v.default_value);
        }
        if (v.test_only) s.source += ", tests only";
        fmt::print("    {:<52} ({})\n", assignment, s.source);
    }
}

int run_show(const ConfigOptions& o) {
    int status = kExitOk;
    Loaded loaded;
    std::optional<release::GameProfile> profile;
    std::optional<ResolvedConfig> resolved = load_resolved(o.file, status, &loaded, o.exe, &profile);
    if (!resolved) return status;
    fmt::print("config file: {}\n", loaded.location.describe());
    if (!o.exe.empty()) {
        const ResolvedValue& use = resolved->get(KeyId::LaunchGameProfile);
        if (!use.as_bool().value_or(true))
            fmt::print("game profile: off ([Launch] GameProfile = false, {})\n", use.origin_text);
        else if (profile)
            fmt::print("game profile: {}\n", profile->describe());
        else
            fmt::print("game profile: none for {}\n", fs::path(o.exe).filename().string());
    }
    for (const KeyInfo& key : schema_keys()) {
        const ResolvedValue& v = resolved->get(key.id);
        std::string assignment = fmt::format("[{}] {} =", key.section, key.name);
        if (!v.value.empty()) assignment += " " + v.value;
        print_entry(assignment, v.origin_text);
        const std::vector<VariablePlan>& plans = resolved->variables(key.id);
        if (plans.empty()) fmt::print("    (no variable: read by the launcher)\n");
        for (const VariablePlan& p : plans) fmt::print("    {}\n", describe_variable(p));
    }
    for (const ResolvedEnvLine& l : resolved->env_lines()) {
        std::string file_origin = fmt::format("{}:{}", resolved->file_name(), l.line.line);
        if (l.environment_value) {
            print_entry(fmt::format("[{}] {} = {}", kEnvSection, l.line.name, *l.environment_value),
                        fmt::format("environment {}", l.line.name));
            fmt::print("    {} not exported: {} sets {}, but the environment wins\n", l.line.name, file_origin,
                       shell_quote(l.line.value));
        } else {
            print_entry(fmt::format("[{}] {} = {}", kEnvSection, l.line.name, l.line.value), file_origin);
            fmt::print("    {}={}\n", l.line.name, shell_quote(l.line.value));
        }
    }
    if (profile)
        for (const release::ProfileValue& v : profile->env) {
            const std::optional<std::string> own = process_environment().get(v.key);
            print_entry(fmt::format("{} = {}", v.key, v.value), profile->origin(v.line));
            fmt::print("    {}\n", own ? fmt::format("{} not exported: the environment sets it", v.key)
                                       : fmt::format("{}={} (for the game, by d4r play)", v.key, shell_quote(v.value)));
        }
    print_variables(process_environment(), &*resolved);
    return kExitOk;
}

CLI::App* add_verb(CLI::App& parent, const std::shared_ptr<ConfigOptions>& options, const char* name,
                   const char* description, bool takes_file) {
    CLI::App* sub = parent.add_subcommand(name, description);
    if (takes_file) {
        sub->add_option("--config", options->file,
                        "read this file (default: D4R_CONFIG, else ./d4r.ini, else $XDG_CONFIG_HOME/d4r/d4r.ini or "
                        "~/.config/d4r/d4r.ini; D4R_NO_CONFIG=1 reads none)");
    }
    return sub;
}

} // namespace

void register_config_verbs(CLI::App& root) {
    auto options = std::make_shared<ConfigOptions>();
    CLI::App* config = root.add_subcommand("config", "the d4r.ini configuration: check it, show it, turn it into "
                                                     "environment variables (docs/configuration.md)");
    config->require_subcommand(1);

    CLI::App* env = add_verb(*config, options, "env",
                             "print 'export NAME=VALUE' lines for the configuration (for eval \"$(d4r config env)\"); "
                             "variables already set in the environment are left out; exit 2 if the file is invalid",
                             true);
    set_action(env, [options] { return run_env(*options); });

    CLI::App* check = add_verb(*config, options, "check",
                               "check the config file: every error and warning to stderr with file and line; "
                               "print 'FILE: ok' and exit 0 when valid, exit 2 otherwise",
                               true);
    set_action(check, [options] { return run_check(*options); });

    CLI::App* show = add_verb(*config, options, "show",
                              "show which file is used, every key's effective value and where it came from "
                              "(default, FILE:LINE or environment), the variables it maps to, then every "
                              "environment variable d4r reads with its value and source",
                              true);
    show->add_option("--exe", options->exe,
                     "also apply the game profile of this exe (as d4r play does): its d4r.ini values where the file "
                     "sets none, shown with their origin, and its environment variables");
    set_action(show, [options] { return run_show(*options); });

    CLI::App* schema = add_verb(*config, options, "schema",
                                "print the table of every key (section, key, values, default, environment "
                                "variables, meaning) as markdown",
                                false);
    set_action(schema, [] {
        fmt::print("{}", schema_markdown());
        return kExitOk;
    });

    CLI::App* vars = add_verb(*config, options, "vars",
                              "print the table of every environment variable d4r reads (variable, values, default, "
                              "component that reads it, d4r.ini key, meaning) as markdown",
                              false);
    set_action(vars, [] {
        fmt::print("{}", env_vars_markdown());
        return kExitOk;
    });

    CLI::App* templ = add_verb(*config, options, "template",
                               "print a complete d4r.ini with every key at its default and a comment above each "
                               "(the developer default, config/d4r.ini.default)",
                               false);
    templ->add_flag("--release", options->release,
                    "the release's per-game file instead (packaging/d4r.ini: "
                    "NativeKernels = on)");
    set_action(templ, [options] {
        fmt::print("{}", ini_template(options->release ? TemplateFlavor::Release : TemplateFlavor::Developer));
        return kExitOk;
    });
}

} // namespace d4r::cli
