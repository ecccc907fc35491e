// d4r config: the table of environment variables (core/env_vars.h) joined with the d4r.ini schema.
//
// Promise: env_vars_markdown() is the environment-variable table of docs/configuration.md (a test
// compares them), with the d4r.ini key of each variable derived from the schema, never stored twice;
// variable_source() says what value a variable has and where it comes from (the environment, a d4r.ini
// key or [Env] line, or the reader's default), for `d4r config show`.
#pragma once

#include <string>
#include <vector>

#include "core/env.h"
#include "core/env_vars.h"
#include "resolve.h"
#include "schema.h"

namespace d4r::config {

// The keys whose value becomes VARIABLE (schema order); empty when no key sets it.
std::vector<const KeyInfo*> keys_setting(std::string_view variable);

// The markdown table: one row per variable, in table order.
std::string env_vars_markdown();

struct VariableSource {
    std::string value;  // the value the readers see; empty when unset
    bool set = false;   // false: the reader's default applies
    std::string source; // "environment", "environment (deprecated alias OLD)", "d4r.ini [S] K = V (FILE:LINE)",
                        // "d4r.ini [Env] (FILE:LINE)", "unset by d4r.ini ...", or "default"
};

// VARIABLE as a process started by the launcher would see it: ENV first, then what RESOLVED exports
// (nullptr: no configuration), else the default.
VariableSource variable_source(const EnvVarInfo& variable, const Environment& env, const ResolvedConfig* resolved);

} // namespace d4r::config
