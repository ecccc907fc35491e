#include "ini_parser.h"

#include <fmt/format.h>

#include "core/strings.h"

namespace d4r::config {

namespace {

constexpr std::string_view kBom = "\xEF\xBB\xBF";

// Quotes a piece of a bad line for a message, bounded so a megabyte line cannot flood the terminal.
std::string excerpt(std::string_view text) {
    constexpr size_t kMax = 60;
    if (text.size() <= kMax) return std::string(text);
    return std::string(text.substr(0, kMax)) + "...";
}

} // namespace

IniDocument parse_ini(std::string_view text, std::string_view file_name) {
    IniDocument doc;
    auto error = [&](int line, std::string message) {
        doc.diagnostics.push_back({Severity::Error, std::string(file_name), line, std::move(message)});
    };

    if (starts_with(text, kBom)) text.remove_prefix(kBom.size());

    std::string current_section;
    int line_number = 0;
    size_t pos = 0;
    while (pos < text.size()) {
        size_t end = text.find('\n', pos);
        std::string_view raw = text.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
        pos = end == std::string_view::npos ? text.size() : end + 1;
        ++line_number;

        if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
        std::string_view line = trim(raw);
        if (line.empty() || line[0] == ';' || line[0] == '#') continue;

        // Control characters cannot be carried into the environment (NUL) or are invisible in an
        // editor (a lone CR of an old Mac file): refuse them rather than guess.
        bool bad_byte = false;
        for (char c : line) {
            auto byte = static_cast<unsigned char>(c);
            if (byte < 0x20 && c != '\t') {
                error(line_number, fmt::format("control character 0x{:02x} in the line", byte));
                bad_byte = true;
                break;
            }
        }
        if (bad_byte) continue;

        if (line[0] == '[') {
            if (line.back() != ']') {
                error(line_number,
                      fmt::format("unterminated section header '{}' (expected '[Section]')", excerpt(line)));
                continue;
            }
            std::string_view name = trim(line.substr(1, line.size() - 2));
            if (name.empty() || name.find_first_of("[]") != std::string_view::npos) {
                error(line_number, fmt::format("bad section header '{}' (expected '[Section]')", excerpt(line)));
                continue;
            }
            current_section = std::string(name);
            doc.sections.push_back({current_section, line_number});
            continue;
        }

        size_t eq = line.find('=');
        if (eq == std::string_view::npos) {
            error(line_number,
                  fmt::format("expected 'Key = value', '[Section]' or a comment, not '{}'", excerpt(line)));
            continue;
        }
        std::string_view key = trim(line.substr(0, eq));
        if (key.empty()) {
            error(line_number, fmt::format("missing key before '=' in '{}'", excerpt(line)));
            continue;
        }
        doc.entries.push_back({current_section, std::string(key), std::string(trim(line.substr(eq + 1))), line_number});
    }
    return doc;
}

} // namespace d4r::config
