// d4r config: the schema as text, for people.
//
// Promise: schema_markdown() is the reference table of docs/configuration.md and ini_template()
// is the text of the shipped files (config/d4r.ini.default, packaging/d4r.ini); tests compare both
// with the committed files, so documentation and shipped files cannot drift from the schema.
#pragma once

#include <string>

#include "schema.h"

namespace d4r::config {

// How KEY maps to the environment, in words; MARKDOWN puts variable names in backticks.
std::string mapping_text(const KeyInfo& key, bool markdown);

// The markdown table: one row per key, in schema order, then the [Env] row.
std::string schema_markdown();

enum class TemplateFlavor {
    Developer, // config/d4r.ini.default: the schema's defaults (NativeKernels = off)
    Release,   // packaging/d4r.ini: NativeKernels = on
};

// A complete d4r.ini with a comment above every key.
std::string ini_template(TemplateFlavor flavor);

} // namespace d4r::config
