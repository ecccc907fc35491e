// d4r config: the value syntax of each schema type.
//
// Promise: canonical_value() accepts exactly the spellings docs/configuration.md lists for a type
// and returns one canonical spelling (booleans "true"/"false", model letters upper case,
// NativeKernels "on"/"exact"/"off", integers in plain decimal), or an error message of the form
// "must be <accepted values>, not '<value>'" that the caller prefixes with file, line and key.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "core/status.h"
#include "schema.h"

namespace d4r::config {

// true/on/yes/1 and false/off/no/0, any case.
std::optional<bool> parse_bool(std::string_view text);

// "auto" (any case) or empty: the value is not set and nothing is exported.
bool is_auto(std::string_view text);

struct ModelPreset {
    std::string_view letter;
    int preset; // the number D4R_DLSS_PRESET carries
};
struct ModelAlias {
    std::string_view alias;
    std::string_view letter;
};
std::span<const ModelPreset> model_presets();
std::span<const ModelAlias> model_aliases();
// A letter or alias (any case) → the canonical letter.
std::optional<std::string> parse_model(std::string_view text);
std::optional<int> model_preset_number(std::string_view letter);
// A preset number ("11") → its letter ("K").
std::optional<std::string> model_letter_for_preset(std::string_view number);

// The values KEY accepts, in words ("true or false (...)", "an integer from 0 to 3", ...).
std::string accepted_values(const KeyInfo& key);

// Validates RAW (already trimmed) for KEY. The error message has no file/key prefix:
// "must be an integer from 0 to 3, not '7'".
Expected<std::string> canonical_value(const KeyInfo& key, std::string_view raw);

// Formats a range bound of KEY as the docs write it ("1.0", "1024").
std::string format_bound(const KeyInfo& key, double bound);

} // namespace d4r::config
