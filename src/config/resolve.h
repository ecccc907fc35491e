// d4r config: effective values and the environment they become.
//
// Promise: resolve_config() gives every schema key its effective value and where it came from:
// the built-in default, FILE:LINE, or the process environment (a variable already set there wins
// over the file), or "forced by" another key (NativeKernels = exact forces PreferAccuracy).
// compute_exports() lists the variables to export, in schema order then the [Env] lines in file
// order, never one that is already set in the environment. doctor, `d4r config` and the launcher
// all go through here, so they cannot disagree about what a file means.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config_file.h"
#include "core/env.h"
#include "core/status.h"
#include "schema.h"

namespace d4r::config {

enum class Origin { Default, File, Environment, Implied };

struct ResolvedValue {
    const KeyInfo* key = nullptr;
    // Canonical (values.h). When the environment holds something the key's type cannot read, the
    // raw assignments ("D4R_SHIM_WATERMARK=maybe") and decoded = false.
    std::string value;
    bool decoded = true;
    Origin origin = Origin::Default;
    // "default", "d4r.ini:12", "environment D4R_SHIM_WATERMARK",
    // "forced by [Kernels] NativeKernels = exact (d4r.ini:5)".
    std::string origin_text;
    int line = 0;                       // Origin::File
    std::vector<std::string> variables; // Origin::Environment: which of the key's variables are set

    bool is_auto() const;                  // auto or empty: not set
    std::optional<bool> as_bool() const;   // Bool keys
    std::optional<int64_t> as_int() const; // Integer keys
};

enum class VariableState {
    Export,          // exported with `value`
    Unset,           // to be removed from the environment (NativeKernels = off)
    NotExported,     // the value means "nothing to export"; `note` says why
    FromEnvironment, // already set in the environment, which wins; `value` is the environment's
    ReplacedByEnv,   // an [Env] line sets it instead; `note` says where
};

struct VariablePlan {
    std::string name;
    std::string value;
    VariableState state = VariableState::NotExported;
    std::string note;
};

struct ResolvedEnvLine {
    EnvLine line;
    std::optional<std::string> environment_value; // set: the environment wins and the line is not exported
};

struct EnvExport {
    std::string name;
    std::optional<std::string> value; // nullopt: unset the variable

    // "export NAME=VALUE" (value through shell_quote) or "unset NAME".
    std::string shell() const;
    bool operator==(const EnvExport&) const = default;
};

class ResolvedConfig {
public:
    const std::string& file_name() const { return m_file_name; } // empty: no file
    const std::vector<Diagnostic>& warnings() const { return m_warnings; }

    const ResolvedValue& get(KeyId id) const { return m_values[static_cast<size_t>(id)]; }
    // Case-insensitive; nullptr for an unknown key.
    const ResolvedValue* find(std::string_view section, std::string_view key) const;

    // What KEY's variables become (Launcher keys: none).
    const std::vector<VariablePlan>& variables(KeyId id) const { return m_plans[static_cast<size_t>(id)]; }
    const std::vector<ResolvedEnvLine>& env_lines() const { return m_env_lines; }

    // The kernel root NativeKernels exports: NativeKernelDir, else RuntimeDir/kernels, else none.
    std::optional<std::string> kernel_root() const;

private:
    friend Expected<ResolvedConfig> resolve_parsed(const ParsedConfig& parsed, const Environment& env);

    std::string m_file_name;
    std::vector<Diagnostic> m_warnings;
    std::array<ResolvedValue, kKeyCount> m_values;
    std::array<std::vector<VariablePlan>, kKeyCount> m_plans;
    std::vector<ResolvedEnvLine> m_env_lines;
};

// Fails (ErrorCode::Invalid, every error on its own line) when the file has errors.
Expected<ResolvedConfig> resolve_parsed(const ParsedConfig& parsed, const Environment& env);
Expected<ResolvedConfig> resolve_config(const ConfigSource& source, const Environment& env);

std::vector<EnvExport> compute_exports(const ResolvedConfig& resolved);

} // namespace d4r::config
