// What the corpus tests share beside corpus.h (which the device's golden runner compiles too, so it stays free of
// d4r's libraries): the case names for a parameterised suite, and the case lists of status.md and nvptx-status.md
// (lines "- `case`: reason"; anything else is prose).
#pragma once

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "core/files.h"
#include "corpus.h"

namespace d4r::corpus {

inline std::map<std::string, std::string> parse_case_list(const std::string& text) {
    std::map<std::string, std::string> out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("- `", 0) != 0) continue;
        const size_t end = line.find('`', 3);
        if (end == std::string::npos) continue;
        std::string reason = line.substr(end + 1);
        if (!reason.empty() && reason[0] == ':') reason.erase(0, 1);
        while (!reason.empty() && reason[0] == ' ') reason.erase(0, 1);
        out[line.substr(3, end - 3)] = reason;
    }
    return out;
}

// The list in PATH (empty when it cannot be read: the tests then fail on each listed case as unlisted).
inline std::map<std::string, std::string> read_case_list(const std::string& path) {
    auto text = read_text_file(path, 1 << 20);
    return text ? parse_case_list(*text) : std::map<std::string, std::string>{};
}

inline std::vector<std::string> case_names() {
    std::vector<std::string> names;
    for (const Case& c : all_cases()) names.push_back(c.name);
    return names;
}

} // namespace d4r::corpus
