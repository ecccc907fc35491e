// d4r config: INI syntax, knowing nothing of the schema.
//
// Promise: parse_ini() accepts any bytes and never fails as a whole: it returns every well-formed
// entry with its line number and one error Diagnostic per malformed line. Syntax (docs/configuration.md):
//   - lines end with LF or CRLF; a UTF-8 byte order mark at the start is skipped;
//   - a line whose first non-blank character is ';' or '#' is a comment; there are no trailing
//     comments: everything after '=' is the value (paths and cvar lists may contain ';' and '#');
//   - "[Section]" starts a section (the whole trimmed line must be the header);
//   - "Key = value" splits at the first '='; key and value are trimmed; the value may be empty;
//   - anything else, and control characters other than tab, are errors.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "diagnostic.h"

namespace d4r::config {

struct IniEntry {
    std::string section; // as written; empty for an entry before any section header
    std::string key;     // as written (trimmed)
    std::string value;   // trimmed
    int line = 0;
};

struct IniSection {
    std::string name; // as written (trimmed)
    int line = 0;
};

struct IniDocument {
    std::vector<IniSection> sections; // every header, in file order (a name may repeat)
    std::vector<IniEntry> entries;    // in file order
    std::vector<Diagnostic> diagnostics;
};

// FILE_NAME only labels the diagnostics.
IniDocument parse_ini(std::string_view text, std::string_view file_name);

} // namespace d4r::config
