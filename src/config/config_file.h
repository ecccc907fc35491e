// d4r config: a d4r.ini checked against the schema.
//
// Promise: parse_config() turns any text into the typed values of the keys it sets (canonical
// spelling, line number) and the [Env] lines, with every problem as a Diagnostic: invalid values,
// malformed lines, entries outside a section and bad [Env] names are errors (all of them reported,
// not just the first); unknown sections and keys (with the closest known name), retired keys (removed,
// no effect: retired_keys.h), repeated keys (the last one wins) and [Env] lines that shadow a schema
// variable or set a retired key's variable are warnings.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "diagnostic.h"
#include "schema.h"

namespace d4r::config {

// The text of a config file, or no file at all (built-in defaults).
struct ConfigSource {
    std::optional<std::string> name; // as given or found, for messages; nullopt: no file
    std::string text;

    static ConfigSource none() { return {}; }
    static ConfigSource from_text(std::string name, std::string text) { return {std::move(name), std::move(text)}; }
    bool present() const { return name.has_value(); }
};

struct FileValue {
    std::string value; // canonical (values.h)
    std::string raw;   // as written
    int line = 0;
    std::string origin; // set when the value is not the file's (a game profile): where it comes from
};

struct EnvLine {
    std::string name; // verbatim (case-sensitive)
    std::string value;
    int line = 0;
};

struct ParsedConfig {
    std::string file_name; // empty when there is no file
    std::array<std::optional<FileValue>, kKeyCount> values;
    std::vector<EnvLine> env; // [Env], file order, one per name (the position of the first, the value of the last)
    std::vector<Diagnostic> diagnostics;

    const std::optional<FileValue>& value(KeyId id) const { return values[static_cast<size_t>(id)]; }
    bool has_errors() const { return config::has_errors(diagnostics); }
};

ParsedConfig parse_config(const ConfigSource& source);

// [A-Za-z_][A-Za-z0-9_]*
bool is_valid_variable_name(std::string_view name);

} // namespace d4r::config
