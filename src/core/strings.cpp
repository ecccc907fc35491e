#include "strings.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include <fmt/format.h>

namespace d4r {

std::string_view trim(std::string_view text) {
    size_t begin = 0;
    size_t end = text.size();
    while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
    while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
    return text.substr(begin, end - begin);
}

std::string to_lower(std::string_view text) {
    std::string out(text);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

bool iequals(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
        if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i])))
            return false;
    }
    return true;
}

bool starts_with(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

std::vector<std::string_view> split(std::string_view text, char separator) {
    std::vector<std::string_view> parts;
    size_t start = 0;
    for (;;) {
        size_t pos = text.find(separator, start);
        if (pos == std::string_view::npos) {
            parts.push_back(text.substr(start));
            return parts;
        }
        parts.push_back(text.substr(start, pos - start));
        start = pos + 1;
    }
}

std::optional<int64_t> parse_i64(std::string_view text) {
    if (text.empty()) return std::nullopt;
    if (text[0] == '+') text.remove_prefix(1);
    int64_t value = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || ptr != text.data() + text.size() || text.empty()) return std::nullopt;
    return value;
}

std::optional<uint64_t> parse_u64(std::string_view text) {
    if (text.empty() || text[0] == '-') return std::nullopt;
    if (text[0] == '+') text.remove_prefix(1);
    uint64_t value = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || ptr != text.data() + text.size() || text.empty()) return std::nullopt;
    return value;
}

std::optional<uint64_t> parse_byte_size(std::string_view text) {
    constexpr uint64_t kMax = UINT64_MAX;
    size_t i = 0;
    uint64_t value = 0;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
        if (value > (kMax - 9) / 10) return std::nullopt;
        value = value * 10 + uint64_t(text[i++] - '0');
    }
    if (i == 0) return std::nullopt;
    std::string suffix;
    for (; i < text.size(); ++i) suffix += char(std::toupper(static_cast<unsigned char>(text[i])));
    unsigned shift = 0;
    if (suffix.empty() || suffix == "B")
        shift = 0;
    else if (suffix == "K" || suffix == "KB" || suffix == "KIB")
        shift = 10;
    else if (suffix == "M" || suffix == "MB" || suffix == "MIB")
        shift = 20;
    else if (suffix == "G" || suffix == "GB" || suffix == "GIB")
        shift = 30;
    else if (suffix == "T" || suffix == "TB" || suffix == "TIB")
        shift = 40;
    else
        return std::nullopt;
    if (value > (kMax >> shift)) return std::nullopt;
    return value << shift;
}

std::optional<uint64_t> parse_u64_any_base(std::string_view text) {
    if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
        std::string_view digits = text.substr(2);
        uint64_t value = 0;
        auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value, 16);
        if (ec != std::errc() || ptr != digits.data() + digits.size()) return std::nullopt;
        return value;
    }
    return parse_u64(text);
}

std::string shell_quote(std::string_view value) {
    bool plain = !value.empty() && std::all_of(value.begin(), value.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) ||
               std::string_view("_-./:,+=@%").find(c) != std::string_view::npos;
    });
    if (plain) return std::string(value);
    std::string out = "'";
    for (char c : value) {
        if (c == '\'')
            out += "'\\''";
        else
            out += c;
    }
    out += "'";
    return out;
}

size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        cur[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) {
            bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                        std::tolower(static_cast<unsigned char>(b[j - 1]));
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (same ? 0 : 1)});
        }
        std::swap(prev, cur);
    }
    return prev[b.size()];
}

std::optional<std::string> closest_match(std::string_view word, std::span<const std::string> candidates) {
    std::optional<std::string> best;
    size_t best_distance = SIZE_MAX;
    for (const std::string& candidate : candidates) {
        size_t d = edit_distance(word, candidate);
        if (d < best_distance) {
            best_distance = d;
            best = candidate;
        }
    }
    // A suggestion must be plausibly the same word: at most a third of it changed (at least 2 edits).
    size_t limit = std::max<size_t>(2, word.size() / 3);
    if (!best || best_distance > limit) return std::nullopt;
    return best;
}

std::string hex64(uint64_t value) { return fmt::format("{:016x}", value); }

} // namespace d4r
