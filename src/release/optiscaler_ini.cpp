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

// "KEY = VALUE": the value runs to the end of the line, as in SimpleIni (a ';' after it is part of it).
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
    while (end > begin && (line[end - 1] == ' ' || line[end - 1] == '\t' || line[end - 1] == '\r')) --end;
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

constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

// TEXT without a leading UTF-8 byte-order mark (SimpleIni skips it too).
std::string_view without_bom(std::string_view text) {
    if (text.starts_with(kUtf8Bom)) text.remove_prefix(kUtf8Bom.size());
    return text;
}

// Where SECTION's KEY is in LINES: every line carrying it (in each copy of the section), and the line after
// which a missing key goes (the section's last key, else its header; nullopt when there is no such section).
struct KeyPlace {
    std::vector<size_t> lines;
    std::optional<size_t> insert_after;
};

template <typename Text>
KeyPlace find_key(const std::vector<Text>& lines, std::string_view section, std::string_view key, auto text_of) {
    KeyPlace place;
    std::string_view current; // keys before the first header belong to the unnamed section
    for (size_t i = 0; i < lines.size(); ++i) {
        std::string_view line = text_of(lines[i]);
        if (std::optional<std::string_view> sec = section_of(line)) {
            current = *sec;
            if (iequal(current, section)) place.insert_after = i;
            continue;
        }
        if (!iequal(current, section)) continue;
        std::optional<KeyLine> k = key_of(line);
        if (!k) continue;
        place.insert_after = i;
        if (iequal(k->key, key)) place.lines.push_back(i);
    }
    return place;
}

std::string_view line_text(const Line& l) { return l.text; }

} // namespace

std::string apply_ini_settings(std::string_view text, const std::vector<IniSetting>& settings) {
    const std::string_view body = without_bom(text);
    std::vector<Line> lines = split_lines(body);
    std::vector<std::string> out;
    std::vector<std::string> endings;
    for (const Line& l : lines) {
        out.emplace_back(l.text);
        endings.emplace_back(l.ending);
    }
    const std::string eol(detect_ending(lines));
    for (const IniSetting& s : settings) {
        KeyPlace place = find_key(out, s.section, s.key, [](const std::string& l) { return std::string_view(l); });
        for (size_t i : place.lines) {
            std::optional<KeyLine> k = key_of(out[i]);
            out[i] = out[i].substr(0, k->value_begin) + s.value + out[i].substr(k->value_end);
        }
        if (!place.lines.empty()) continue;
        std::string line = s.key + "=" + s.value;
        if (place.insert_after) {
            const size_t at = *place.insert_after + 1;
            // The line before may have been the last one, without an ending.
            if (endings[at - 1].empty()) endings[at - 1] = eol;
            out.insert(out.begin() + static_cast<std::ptrdiff_t>(at), line);
            endings.insert(endings.begin() + static_cast<std::ptrdiff_t>(at), eol);
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
    std::string result(text.substr(0, text.size() - body.size()));
    for (size_t i = 0; i < out.size(); ++i) result += out[i] + endings[i];
    return result;
}

bool ini_settings_hold(std::string_view text, const std::vector<IniSetting>& settings) {
    std::vector<Line> lines = split_lines(without_bom(text));
    for (const IniSetting& s : settings) {
        KeyPlace place = find_key(lines, s.section, s.key, line_text);
        if (place.lines.empty()) return false;
        for (size_t i : place.lines)
            if (key_of(lines[i].text)->value != s.value) return false;
    }
    return true;
}

std::optional<std::string> ini_value(std::string_view text, std::string_view section, std::string_view key) {
    std::vector<Line> lines = split_lines(without_bom(text));
    KeyPlace place = find_key(lines, section, key, line_text);
    if (place.lines.empty()) return std::nullopt;
    return std::string(key_of(lines[place.lines.back()].text)->value);
}

namespace {

// The lines of TEXT that REMOVALS accept.
std::vector<bool> removed_lines(const std::vector<Line>& lines, const std::vector<IniRemoval>& removals) {
    std::vector<bool> removed(lines.size(), false);
    for (const IniRemoval& r : removals) {
        KeyPlace place = find_key(lines, r.section, r.key, line_text);
        for (size_t i : place.lines)
            if (!r.matches || r.matches(key_of(lines[i].text)->value)) removed[i] = true;
    }
    return removed;
}

} // namespace

std::vector<IniSetting> ini_settings_in(std::string_view text) {
    std::vector<IniSetting> out;
    std::string section;
    for (const Line& l : split_lines(without_bom(text))) {
        if (std::optional<std::string_view> sec = section_of(l.text)) {
            section = std::string(*sec);
            continue;
        }
        if (std::optional<KeyLine> k = key_of(l.text))
            out.push_back({section, std::string(k->key), std::string(k->value)});
    }
    return out;
}

std::string remove_ini_keys(std::string_view text, const std::vector<IniRemoval>& removals) {
    const std::string_view body = without_bom(text);
    std::vector<Line> lines = split_lines(body);
    std::vector<bool> removed = removed_lines(lines, removals);
    std::string result(text.substr(0, text.size() - body.size()));
    for (size_t i = 0; i < lines.size(); ++i)
        if (!removed[i]) result += std::string(lines[i].text) + std::string(lines[i].ending);
    return result;
}

bool ini_removals_hold(std::string_view text, const std::vector<IniRemoval>& removals) {
    std::vector<Line> lines = split_lines(without_bom(text));
    for (bool r : removed_lines(lines, removals))
        if (r) return false;
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
