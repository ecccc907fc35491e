// d4r config: messages about a d4r.ini, each tied to a file and line.
//
// Promise: a Diagnostic's text() reads "FILE:LINE: message" with FILE as the user gave or found it,
// so an editor or a terminal can jump to it. Errors make a file invalid (exit status 2); warnings
// (unknown keys, duplicates) do not.
#pragma once

#include <string>
#include <vector>

namespace d4r::config {

enum class Severity { Warning, Error };

struct Diagnostic {
    Severity severity = Severity::Error;
    std::string file; // as given; empty for messages that concern no file
    int line = 0;     // 1-based; 0 when the message concerns the whole file
    std::string message;

    // "FILE:LINE: message" (or "FILE: message" without a line).
    std::string text() const;
};

bool has_errors(const std::vector<Diagnostic>& diagnostics);

} // namespace d4r::config
