#include "optiscaler_ini.h"

#include <optional>

#include <cctype>

namespace d4r::release {

namespace {

struct Line {
    std::string_view text;   // without the line ending
    std::string_view ending; // "\n", "\r\n" or "" (last line)
};

std::vector<Line> split_lines(std::string_view text) {
    std::vector<Line> lines;
    size_t pos = 0;
    while (pos < text.size()) {
        size_t nl = text.find('\n', pos);
        if (nl == std::string_view::npos) {
            lines.push_back({text.substr(pos), ""});
            break;
        }
        size_t end = nl;
        if (end > pos && text[end - 1] == '\r') --end;
        lines.push_back({text.substr(pos, end - pos), text.substr(end, nl + 1 - end)});
        pos = nl + 1;
    }
    return lines;
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
    return s;
}

bool iequal(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i])))
            return false;
    return true;
}

// "[Name]" gives Name; anything else nullopt.
std::optional<std::string_view> section_of(std::string_view line) {
    line = trim(line);
    if (line.size() < 2 || line.front() != '[') return std::nullopt;
    size_t close = line.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    return trim(line.substr(1, close - 1));
}

struct KeyLine {
    std::string_view key;
    std::string_view value;
    size_t value_begin = 0; // offsets in the line
    size_t value_end = 0;
};

std::optional<KeyLine> key_of(std::string_view line) {
    std::string_view t = trim(line);
    if (t.empty() || t.front() == ';' || t.front() == '#' || t.front() == '[') return std::nullopt;
    size_t eq = line.find('=');
    if (eq == std::string_view::npos) return std::nullopt;
    KeyLine k;
    k.key = trim(line.substr(0, eq));
    if (k.key.empty()) return std::nullopt;
    size_t begin = eq + 1;
    while (begin < line.size() && (line[begin] == ' ' || line[begin] == '\t')) ++begin;
    size_t end = line.size();
    // A trailing "; comment" after the value stays where it is.
    for (size_t i = begin; i < line.size(); ++i) {
        if (line[i] == ';' && i > begin && (line[i - 1] == ' ' || line[i - 1] == '\t')) {
            end = i;
            break;
        }
    }
    while (end > begin && (line[end - 1] == ' ' || line[end - 1] == '\t')) --end;
    k.value_begin = begin;
    k.value_end = end;
    k.value = line.substr(begin, end - begin);
    return k;
}

std::string_view detect_ending(const std::vector<Line>& lines) {
    for (const Line& l : lines)
        if (!l.ending.empty()) return l.ending;
    return "\n";
}

// The lines that carry S's key: those in S's section when it has the key there (another section may use
// the same name for something else), else every line with the key (the file keeps it elsewhere).
template <typename Text>
std::vector<size_t> key_lines(const std::vector<Text>& lines, const IniSetting& s, auto text_of) {
    std::vector<size_t> in_section, anywhere;
    bool in_preferred = false;
    for (size_t i = 0; i < lines.size(); ++i) {
        std::string_view line = text_of(lines[i]);
        if (std::optional<std::string_view> sec = section_of(line)) {
            in_preferred = iequal(*sec, s.section);
            continue;
        }
        std::optional<KeyLine> k = key_of(line);
        if (!k || !iequal(k->key, s.key)) continue;
        anywhere.push_back(i);
        if (in_preferred) in_section.push_back(i);
    }
    return in_section.empty() ? anywhere : in_section;
}

} // namespace

std::string apply_ini_settings(std::string_view text, const std::vector<IniSetting>& settings) {
    std::vector<Line> lines = split_lines(text);
    std::vector<std::string> out;
    std::vector<std::string> endings;
    for (const Line& l : lines) {
        out.emplace_back(l.text);
        endings.emplace_back(l.ending);
    }
    const std::string eol(detect_ending(lines));
    for (const IniSetting& s : settings) {
        std::vector<size_t> found = key_lines(out, s, [](const std::string& l) { return std::string_view(l); });
        for (size_t i : found) {
            std::optional<KeyLine> k = key_of(out[i]);
            out[i] = out[i].substr(0, k->value_begin) + s.value + out[i].substr(k->value_end);
        }
        if (!found.empty()) continue;
        // The end of the preferred section: after its last non-blank line.
        std::optional<size_t> insert_at;
        bool in_section = false;
        for (size_t i = 0; i < out.size(); ++i) {
            if (std::optional<std::string_view> sec = section_of(out[i])) {
                in_section = iequal(*sec, s.section);
                if (in_section) insert_at = i + 1;
                continue;
            }
            if (in_section && !trim(out[i]).empty()) insert_at = i + 1;
        }
        std::string line = s.key + "=" + s.value;
        if (insert_at) {
            out.insert(out.begin() + static_cast<std::ptrdiff_t>(*insert_at), line);
            endings.insert(endings.begin() + static_cast<std::ptrdiff_t>(*insert_at), eol);
            // The line before may have been the last one, without an ending.
            if (*insert_at > 0 && endings[*insert_at - 1].empty()) endings[*insert_at - 1] = eol;
            if (*insert_at + 1 == out.size()) endings.back() = eol;
        } else {
            if (!endings.empty() && endings.back().empty()) endings.back() = eol;
            if (!out.empty()) {
                out.emplace_back("");
                endings.push_back(eol);
            }
            out.push_back("[" + s.section + "]");
            endings.push_back(eol);
            out.push_back(line);
            endings.push_back(eol);
        }
    }
    std::string result;
    for (size_t i = 0; i < out.size(); ++i) result += out[i] + endings[i];
    return result;
}

bool ini_settings_hold(std::string_view text, const std::vector<IniSetting>& settings) {
    std::vector<Line> lines = split_lines(text);
    for (const IniSetting& s : settings) {
        std::vector<size_t> found = key_lines(lines, s, [](const Line& l) { return l.text; });
        if (found.empty()) return false;
        for (size_t i : found)
            if (key_of(lines[i].text)->value != s.value) return false;
    }
    return true;
}

Expected<std::vector<IniSetting>> parse_cvars(std::string_view cvars) {
    std::vector<IniSetting> result;
    size_t pos = 0;
    while (pos <= cvars.size()) {
        size_t end = cvars.find_first_of(";,", pos);
        if (end == std::string_view::npos) end = cvars.size();
        std::string_view entry = trim(cvars.substr(pos, end - pos));
        pos = end + 1;
        if (entry.empty()) continue;
        size_t eq = entry.find('=');
        std::string_view name = eq == std::string_view::npos ? entry : trim(entry.substr(0, eq));
        if (eq == std::string_view::npos || name.empty())
            return make_error(
                ErrorCode::Invalid,
                "[Game] Cvars: '{}' is not NAME=VALUE (accepted: 'r.A=1; r.B=2', separated by ';' or ',')", entry);
        result.push_back({"SystemSettings", std::string(name), std::string(trim(entry.substr(eq + 1)))});
    }
    return result;
}

} // namespace d4r::release
