#include "env_table.h"

#include <fmt/format.h>

namespace d4r::config {

namespace {

std::string key_name(const KeyInfo& key) { return fmt::format("[{}] {}", key.section, key.name); }

std::string type_cell(const EnvVarInfo& v) {
    if (v.type == EnvType::Path) return "a path";
    return v.accepted_text();
}

std::string default_cell(const EnvVarInfo& v) {
    if (v.default_value.empty()) return "(unset)";
    return std::string(v.default_value);
}

std::string name_cell(const EnvVarInfo& v) {
    std::string out = fmt::format("`{}`", v.name);
    if (!v.alias.empty()) out += fmt::format(" (formerly `{}`: still read, with a deprecation warning)", v.alias);
    if (v.test_only) out += " (tests only)";
    return out;
}

std::string keys_cell(const EnvVarInfo& v) {
    std::vector<const KeyInfo*> keys = keys_setting(v.name);
    if (keys.empty()) return "(none)";
    std::string out;
    for (const KeyInfo* key : keys) {
        if (!out.empty()) out += ", ";
        out += key_name(*key);
    }
    return out;
}

} // namespace

std::vector<const KeyInfo*> keys_setting(std::string_view variable) {
    std::vector<const KeyInfo*> keys;
    for (const KeyInfo& key : schema_keys()) {
        if (key.mapping == Mapping::KernelRoot) continue; // exported only through NativeKernels
        for (std::string_view name : key.variables()) {
            if (name == variable) keys.push_back(&key);
        }
    }
    return keys;
}

std::string env_vars_markdown() {
    std::string out = "| Variable | Values | Default | Read by | d4r.ini key | Meaning |\n|---|---|---|---|---|---|\n";
    for (const EnvVarInfo& v : env_vars()) {
        out += fmt::format("| {} | {} | {} | {} | {} | {} |\n", name_cell(v), type_cell(v), default_cell(v), v.reader,
                           keys_cell(v), v.help);
    }
    return out;
}

VariableSource variable_source(const EnvVarInfo& variable, const Environment& env, const ResolvedConfig* resolved) {
    if (auto raw = env.get(variable.name)) {
        if (!env_value_valid(variable, *raw))
            return {
                *raw, true,
                fmt::format("environment; not valid: expected {}, so the default is used", variable.accepted_text())};
        return {*raw, true, "environment"};
    }
    if (!variable.alias.empty()) {
        if (auto raw = env.get(variable.alias))
            return {*raw, true, fmt::format("environment, deprecated alias {}", variable.alias)};
    }
    if (resolved) {
        for (const ResolvedEnvLine& l : resolved->env_lines()) {
            if (l.line.name == variable.name)
                return {l.line.value, true,
                        fmt::format("d4r.ini [{}] ({}:{})", kEnvSection, resolved->file_name(), l.line.line)};
        }
        for (const KeyInfo& key : schema_keys()) {
            for (const VariablePlan& p : resolved->variables(key.id)) {
                if (p.name != variable.name) continue;
                const ResolvedValue& r = resolved->get(key.id);
                if (p.state == VariableState::Export)
                    return {p.value, true, fmt::format("d4r.ini {} = {} ({})", key_name(key), r.value, r.origin_text)};
                if (p.state == VariableState::Unset)
                    return {
                        "", false,
                        fmt::format("unset by d4r.ini {} = {} ({}); default", key_name(key), r.value, r.origin_text)};
            }
        }
    }
    return {"", false, "default"};
}

} // namespace d4r::config
