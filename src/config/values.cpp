#include "values.h"

#include <array>
#include <cctype>
#include <charconv>

#include <fmt/format.h>

#include "core/env_vars.h"
#include "core/strings.h"

namespace d4r::config {

namespace {

constexpr std::array<ModelPreset, 11> kPresets{{
    {"A", 1},
    {"B", 2},
    {"C", 3},
    {"D", 4},
    {"E", 5},
    {"F", 6},
    {"G", 7},
    {"J", 10},
    {"K", 11},
    {"L", 12},
    {"M", 13},
}};

// CNN/DLSS3: the last convolutional model; DLSS4/TRANSFORMER: the first transformer; DLSS4.5: its successor.
constexpr std::array<ModelAlias, 5> kAliases{{
    {"CNN", "E"},
    {"DLSS3", "E"},
    {"DLSS4", "K"},
    {"TRANSFORMER", "K"},
    {"DLSS4.5", "M"},
}};

// A plain decimal: digits with at most one '.', at least one digit before it (no sign, exponent, inf, nan).
std::optional<double> parse_plain_decimal(std::string_view text) {
    if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))) return std::nullopt;
    size_t dots = 0;
    for (char c : text) {
        if (c == '.')
            ++dots;
        else if (!std::isdigit(static_cast<unsigned char>(c)))
            return std::nullopt;
    }
    if (dots > 1 || text.back() == '.') return std::nullopt;
    double value = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
    return value;
}

std::string join_model_values() {
    std::string out;
    for (const ModelPreset& p : kPresets) out += fmt::format("{}, ", p.letter);
    for (size_t i = 0; i < kAliases.size(); ++i) {
        out += kAliases[i].alias;
        out += i + 2 < kAliases.size() ? ", " : (i + 1 < kAliases.size() ? " or " : "");
    }
    return out;
}

} // namespace

std::optional<bool> parse_bool(std::string_view text) {
    return parse_bool_word(text); // d4r's one boolean rule, shared with the environment readers
}

bool is_auto(std::string_view text) { return text.empty() || iequals(text, "auto"); }

std::span<const ModelPreset> model_presets() { return kPresets; }
std::span<const ModelAlias> model_aliases() { return kAliases; }

std::optional<std::string> parse_model(std::string_view text) {
    for (const ModelPreset& p : kPresets) {
        if (iequals(text, p.letter)) return std::string(p.letter);
    }
    for (const ModelAlias& a : kAliases) {
        if (iequals(text, a.alias)) return std::string(a.letter);
    }
    return std::nullopt;
}

std::optional<int> model_preset_number(std::string_view letter) {
    for (const ModelPreset& p : kPresets) {
        if (iequals(letter, p.letter)) return p.preset;
    }
    return std::nullopt;
}

std::optional<std::string> model_letter_for_preset(std::string_view number) {
    std::optional<int64_t> n = parse_i64(number);
    if (!n) return std::nullopt;
    for (const ModelPreset& p : kPresets) {
        if (p.preset == *n) return std::string(p.letter);
    }
    return std::nullopt;
}

std::string format_bound(const KeyInfo& key, double bound) {
    if (key.type == ValueType::Ratio) return fmt::format("{:.1f}", bound);
    return fmt::format("{}", static_cast<int64_t>(bound));
}

std::string accepted_values(const KeyInfo& key) {
    switch (key.type) {
    case ValueType::Bool:
        return "true or false (true/on/yes/1, false/off/no/0)";
    case ValueType::Integer:
        return fmt::format("an integer from {} to {}", format_bound(key, key.min), format_bound(key, key.max));
    case ValueType::Ratio:
        return fmt::format("auto or a number from {} to {}", format_bound(key, key.min), format_bound(key, key.max));
    case ValueType::Model:
        return "one of " + join_model_values();
    case ValueType::NativeKernels:
        return "on, fast, exact or off";
    case ValueType::Path:
        return "a path, or auto or empty for none";
    case ValueType::String:
        return "any text, or empty or auto for none";
    }
    return "";
}

Expected<std::string> canonical_value(const KeyInfo& key, std::string_view raw) {
    auto reject = [&] {
        // Booleans keep "must be true or false, not 'X'" in one piece (what users grep for); the spellings follow.
        if (key.type == ValueType::Bool)
            return make_error(ErrorCode::Invalid,
                              "must be true or false, not '{}' (accepted: true/on/yes/1, "
                              "false/off/no/0, any case)",
                              raw);
        return make_error(ErrorCode::Invalid, "must be {}, not '{}'", accepted_values(key), raw);
    };
    switch (key.type) {
    case ValueType::Bool: {
        std::optional<bool> b = parse_bool(raw);
        if (!b) return reject();
        return std::string(*b ? "true" : "false");
    }
    case ValueType::Integer: {
        std::optional<int64_t> n = parse_i64(raw);
        if (!n || static_cast<double>(*n) < key.min || static_cast<double>(*n) > key.max) return reject();
        return fmt::format("{}", *n);
    }
    case ValueType::Ratio: {
        if (iequals(raw, "auto")) return std::string("auto");
        std::optional<double> r = parse_plain_decimal(raw);
        if (!r || *r < key.min || *r > key.max) return reject();
        return std::string(raw);
    }
    case ValueType::Model: {
        std::optional<std::string> letter = parse_model(raw);
        if (!letter) return reject();
        return *letter;
    }
    case ValueType::NativeKernels: {
        if (iequals(raw, "on") || iequals(raw, "fast")) return std::string("on");
        if (iequals(raw, "exact")) return std::string("exact");
        if (iequals(raw, "off")) return std::string("off");
        return reject();
    }
    case ValueType::Path:
    case ValueType::String:
        if (iequals(raw, "auto")) return std::string("auto");
        return std::string(raw);
    }
    return reject();
}

} // namespace d4r::config
