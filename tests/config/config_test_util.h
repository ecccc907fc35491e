// Helpers shared by the config tests.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "config/config_file.h"
#include "config/resolve.h"
#include "core/env.h"

namespace d4r::config::test {

inline ParsedConfig parse_text(const std::string& text, const std::string& name = "d4r.ini") {
    return parse_config(ConfigSource::from_text(name, text));
}

inline ResolvedConfig resolve_text(const std::string& text, const std::map<std::string, std::string>& env = {}) {
    MapEnvironment environment(env);
    Expected<ResolvedConfig> resolved = resolve_config(ConfigSource::from_text("d4r.ini", text), environment);
    if (!resolved) ADD_FAILURE() << "unexpected errors: " << resolved.error().text();
    return resolved ? std::move(*resolved) : ResolvedConfig{};
}

inline std::map<std::string, std::optional<std::string>> export_map(const ResolvedConfig& resolved) {
    std::map<std::string, std::optional<std::string>> out;
    for (const EnvExport& e : compute_exports(resolved)) out[e.name] = e.value;
    return out;
}

inline std::vector<std::string> diagnostic_texts(const ParsedConfig& parsed, Severity severity) {
    std::vector<std::string> out;
    for (const Diagnostic& d : parsed.diagnostics) {
        if (d.severity == severity) out.push_back(d.text());
    }
    return out;
}

} // namespace d4r::config::test
