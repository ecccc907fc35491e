#include "resolve.h"

#include <algorithm>
#include <functional>

#include <fmt/format.h>

#include "core/env_vars.h"
#include "core/strings.h"
#include "values.h"

namespace d4r::config {

namespace {

using Values = std::array<ResolvedValue, kKeyCount>;

const ResolvedValue& at(const Values& values, KeyId id) { return values[static_cast<size_t>(id)]; }
ResolvedValue& at(Values& values, KeyId id) { return values[static_cast<size_t>(id)]; }

std::optional<std::string> kernel_root_of(const Values& values) {
    const ResolvedValue& dir = at(values, KeyId::PathsNativeKernelDir);
    if (!dir.is_auto()) return dir.value;
    const ResolvedValue& runtime = at(values, KeyId::PathsRuntimeDir);
    if (runtime.is_auto()) return std::nullopt;
    return runtime.value.back() == '/' ? runtime.value + "kernels" : runtime.value + "/kernels";
}

VariablePlan exported(std::string_view name, std::string value) {
    return {std::string(name), std::move(value), VariableState::Export, ""};
}
VariablePlan not_exported(std::string_view name, std::string note) {
    return {std::string(name), "", VariableState::NotExported, std::move(note)};
}

// What KEY's current value exports, before the environment and [Env] are taken into account.
std::vector<VariablePlan> plan_key(const KeyInfo& key, const Values& values) {
    const ResolvedValue& r = values[key.index()];
    std::vector<VariablePlan> plans;
    if (!r.decoded) {
        for (std::string_view name : key.variables())
            plans.push_back(not_exported(name, "the environment's value is not understood"));
        return plans;
    }
    switch (key.mapping) {
    case Mapping::Flag:
        plans.push_back(exported(key.variable, r.as_bool().value_or(false) ? "1" : "0"));
        break;
    case Mapping::FlagOnlyFalse:
        if (r.origin == Origin::File && r.as_bool() == false)
            plans.push_back(exported(key.variable, "0"));
        else
            plans.push_back(not_exported(key.variable, "exported only when the file sets it to false"));
        break;
    case Mapping::Number:
        plans.push_back(exported(key.variable, r.value));
        break;
    case Mapping::Verbatim:
        if (r.is_auto())
            plans.push_back(not_exported(key.variable, r.value.empty() ? "empty" : "auto"));
        else
            plans.push_back(exported(key.variable, r.value));
        break;
    case Mapping::Preset:
        plans.push_back(exported(key.variable, fmt::format("{}", model_preset_number(r.value).value_or(0))));
        break;
    case Mapping::FrameAge:
        if (r.value == "0") {
            plans.push_back(exported(key.variable, "1"));
            plans.push_back(not_exported(key.second_variable, "only for FrameAge 1 to 3"));
        } else {
            plans.push_back(exported(key.variable, "0"));
            plans.push_back(exported(key.second_variable, r.value));
        }
        break;
    case Mapping::KernelSwitch:
        if (r.value == "off") {
            plans.push_back({std::string(key.variable), "", VariableState::Unset, "NativeKernels = off"});
        } else if (std::optional<std::string> root = kernel_root_of(values)) {
            plans.push_back(exported(key.variable, *root));
        } else {
            plans.push_back(
                not_exported(key.variable, "no kernel root ([Paths] NativeKernelDir and RuntimeDir are auto)"));
        }
        break;
    case Mapping::KernelRoot:
        plans.push_back(not_exported(key.variable, "exported through [Kernels] NativeKernels"));
        break;
    case Mapping::Launcher:
        break;
    }
    return plans;
}

// The key's value as the environment states it. EFFECTIVE gives each of the key's variables as the
// process would see it (the environment's value, else what the file or default would export).
std::optional<std::string>
decode_environment(const KeyInfo& key, const ResolvedValue& base,
                   const std::function<std::optional<std::string>(std::string_view)>& effective) {
    std::optional<std::string> first = effective(key.variable);
    switch (key.mapping) {
    case Mapping::Flag:
    case Mapping::FlagOnlyFalse: {
        std::optional<bool> b = first ? parse_bool(*first) : std::nullopt;
        if (!b) return std::nullopt;
        return std::string(*b ? "true" : "false");
    }
    case Mapping::Number:
    case Mapping::Verbatim:
    case Mapping::KernelRoot: {
        if (!first) return std::nullopt;
        Expected<std::string> value = canonical_value(key, *first);
        return value ? std::optional<std::string>(*value) : std::nullopt;
    }
    case Mapping::Preset:
        if (!first) return std::nullopt;
        if (auto letter = model_letter_for_preset(*first)) return letter;
        return parse_model(*first);
    case Mapping::FrameAge: {
        std::optional<bool> split = first ? parse_bool(*first) : std::nullopt;
        if (split == true) return std::string("0");
        std::optional<std::string> in_flight = effective(key.second_variable);
        if (split != false || !in_flight) return std::nullopt;
        Expected<std::string> value = canonical_value(key, *in_flight);
        if (!value || *value == "0") return std::nullopt;
        return *value;
    }
    case Mapping::KernelSwitch:
        // A root in the environment turns native kernels on; which set (fast or exact) is still the file's.
        if (first && first->empty()) return std::string("off");
        return base.value == "off" ? std::string("on") : base.value;
    case Mapping::Launcher:
        return std::nullopt;
    }
    return std::nullopt;
}

} // namespace

bool ResolvedValue::is_auto() const { return decoded && config::is_auto(value); }
std::optional<bool> ResolvedValue::as_bool() const { return decoded ? parse_bool(value) : std::nullopt; }
std::optional<int64_t> ResolvedValue::as_int() const { return decoded ? parse_i64(value) : std::nullopt; }

std::string EnvExport::shell() const {
    if (!value) return fmt::format("unset {}", name);
    return fmt::format("export {}={}", name, shell_quote(*value));
}

const ResolvedValue* ResolvedConfig::find(std::string_view section, std::string_view key) const {
    const KeyInfo* info = find_key(section, key);
    return info ? &m_values[info->index()] : nullptr;
}

std::optional<std::string> ResolvedConfig::kernel_root() const { return kernel_root_of(m_values); }

Expected<ResolvedConfig> resolve_parsed(const ParsedConfig& parsed, const Environment& process_env) {
    // A deprecated alias in the environment (D4R_ZLUDA_NATIVE_DIR) counts as its variable being set.
    const AliasedEnvironment env(process_env);
    if (parsed.has_errors()) {
        std::vector<std::string> errors;
        for (const Diagnostic& d : parsed.diagnostics) {
            if (d.severity == Severity::Error) errors.push_back(d.text());
        }
        return make_error(ErrorCode::Invalid, "{}", fmt::join(errors, "\n"));
    }

    ResolvedConfig resolved;
    resolved.m_file_name = parsed.file_name;
    resolved.m_warnings = parsed.diagnostics;
    Values& values = resolved.m_values;

    // 1. The file, else the default.
    for (const KeyInfo& key : schema_keys()) {
        ResolvedValue& r = values[key.index()];
        r.key = &key;
        if (const std::optional<FileValue>& f = parsed.value(key.id)) {
            r.value = f->value;
            r.origin = Origin::File;
            r.line = f->line;
            r.origin_text = f->origin.empty() ? fmt::format("{}:{}", parsed.file_name, f->line) : f->origin;
        } else {
            r.value = std::string(key.default_value);
            r.origin_text = "default";
        }
    }

    // 2. A variable already set in the environment wins over the file.
    for (const KeyInfo& key : schema_keys()) {
        std::vector<std::string> set;
        for (std::string_view name : key.variables()) {
            if (env.has(name)) set.emplace_back(name);
        }
        if (set.empty()) continue;
        ResolvedValue& r = values[key.index()];
        std::vector<VariablePlan> base_plan = plan_key(key, values);
        auto effective = [&](std::string_view name) -> std::optional<std::string> {
            if (std::optional<std::string> v = env.get(name)) return v;
            for (const VariablePlan& p : base_plan) {
                if (p.name == name && p.state == VariableState::Export) return p.value;
            }
            return std::nullopt;
        };
        std::optional<std::string> decoded = decode_environment(key, r, effective);
        std::vector<std::string> assignments;
        for (const std::string& name : set) assignments.push_back(fmt::format("{}={}", name, *env.get(name)));
        r.decoded = decoded.has_value();
        r.value = decoded ? *decoded : fmt::format("{}", fmt::join(assignments, " "));
        r.origin = Origin::Environment;
        r.line = 0;
        r.variables = set;
        r.origin_text = fmt::format("environment {}", fmt::join(set, ", "));
    }

    // 3. Exact native kernels are the accuracy set: they only make sense in accuracy mode (docs/kernel-sets.md).
    const ResolvedValue& kernels = at(values, KeyId::KernelsNativeKernels);
    ResolvedValue& accuracy = at(values, KeyId::KernelsPreferAccuracy);
    if (kernels.value == "exact" && accuracy.origin != Origin::Environment && accuracy.value == "false") {
        accuracy.value = "true";
        accuracy.origin = Origin::Implied;
        accuracy.origin_text =
            fmt::format("forced by [{}] {} = exact ({})", kernels.key->section, kernels.key->name, kernels.origin_text);
    }

    // 4. What each key exports, less what the environment or an [Env] line already sets.
    for (const EnvLine& line : parsed.env) resolved.m_env_lines.push_back({line, env.get(line.name)});
    for (const KeyInfo& key : schema_keys()) {
        std::vector<VariablePlan> plans = plan_key(key, values);
        for (VariablePlan& p : plans) {
            auto shadow =
                std::find_if(parsed.env.begin(), parsed.env.end(), [&](const EnvLine& l) { return l.name == p.name; });
            if (std::optional<std::string> v = env.get(p.name)) {
                p = {p.name, *v, VariableState::FromEnvironment, "set in the environment, which wins"};
            } else if (shadow != parsed.env.end() && key.mapping != Mapping::KernelRoot) {
                p = {p.name, shadow->value, VariableState::ReplacedByEnv,
                     fmt::format("set by [{}] at line {} instead", kEnvSection, shadow->line)};
            }
        }
        resolved.m_plans[key.index()] = std::move(plans);
    }
    return resolved;
}

Expected<ResolvedConfig> resolve_config(const ConfigSource& source, const Environment& env) {
    return resolve_parsed(parse_config(source), env);
}

std::vector<EnvExport> compute_exports(const ResolvedConfig& resolved) {
    std::vector<EnvExport> exports;
    for (const KeyInfo& key : schema_keys()) {
        for (const VariablePlan& p : resolved.variables(key.id)) {
            if (p.state == VariableState::Export) exports.push_back({p.name, p.value});
            if (p.state == VariableState::Unset) exports.push_back({p.name, std::nullopt});
        }
    }
    for (const ResolvedEnvLine& l : resolved.env_lines()) {
        if (!l.environment_value) exports.push_back({l.line.name, l.line.value});
    }
    return exports;
}

} // namespace d4r::config
