#include "config_file.h"

#include <algorithm>
#include <cctype>
#include <unordered_map>

#include <fmt/format.h>

#include "core/strings.h"
#include "ini_parser.h"
#include "retired_keys.h"
#include "values.h"

namespace d4r::config {

namespace {

class Checker {
public:
    explicit Checker(ParsedConfig& parsed) : m_parsed(parsed) { m_seen_line.fill(0); }

    void check_sections(const std::vector<IniSection>& sections) {
        for (const IniSection& s : sections) {
            if (!canonical_section(s.name).empty()) continue;
            std::string message = fmt::format("unknown section [{}] (its keys are ignored)", s.name);
            std::vector<std::string> known;
            for (std::string_view k : schema_sections()) known.emplace_back(k);
            if (auto near = closest_match(s.name, known))
                message += fmt::format("; did you mean [{}]?", *near);
            else
                message += fmt::format("; known sections: {}", fmt::join(known, ", "));
            warn(s.line, std::move(message));
        }
    }

    void check_entry(const IniEntry& e) {
        if (e.section.empty()) return outside_section(e);
        std::string_view section = canonical_section(e.section);
        if (section.empty()) return; // reported once, at the header
        if (section == kEnvSection) return env_line(e);

        const KeyInfo* key = find_key(section, e.key);
        if (!key) {
            if (const RetiredKey* retired = find_retired_key(section, e.key))
                return warn(e.line, fmt::format("[{}] {} was removed and has no effect ({}); delete the line",
                                                retired->section, retired->name, retired->why));
            return unknown_key(section, e);
        }

        std::string where = fmt::format("[{}] {}", key->section, key->name);
        int& seen = m_seen_line[key->index()];
        if (seen != 0) {
            warn(e.line, fmt::format("{} set again (first at line {}); the last value wins", where, seen));
        }
        seen = e.line;

        Expected<std::string> value = canonical_value(*key, e.value);
        if (!value) {
            std::string message = fmt::format("{} {}", where, value.error().message());
            // A trailing "; comment" is the likeliest reason a good value was refused.
            if (e.value.find(" ;") != std::string::npos || e.value.find(" #") != std::string::npos)
                message += " (comments must be on a line of their own)";
            return error(e.line, std::move(message));
        }
        m_parsed.values[key->index()] = FileValue{std::move(*value), e.value, e.line, {}};
    }

private:
    void warn(int line, std::string message) {
        m_parsed.diagnostics.push_back({Severity::Warning, m_parsed.file_name, line, std::move(message)});
    }
    void error(int line, std::string message) {
        m_parsed.diagnostics.push_back({Severity::Error, m_parsed.file_name, line, std::move(message)});
    }

    void outside_section(const IniEntry& e) {
        std::string message = fmt::format("'{} = {}' is outside any section", e.key, e.value);
        auto owner = std::find_if(schema_keys().begin(), schema_keys().end(),
                                  [&](const KeyInfo& k) { return iequals(k.name, e.key); });
        if (owner != schema_keys().end())
            message += fmt::format("; put it under [{}]", owner->section);
        else
            message += " (keys go under a [Section] header)";
        error(e.line, std::move(message));
    }

    void unknown_key(std::string_view section, const IniEntry& e) {
        std::string message = fmt::format("unknown key [{}] {}", section, e.key);
        std::vector<std::string> same_section;
        for (const KeyInfo& k : schema_keys()) {
            if (k.section == section) same_section.emplace_back(k.name);
        }
        auto elsewhere = std::find_if(schema_keys().begin(), schema_keys().end(),
                                      [&](const KeyInfo& k) { return iequals(k.name, e.key); });
        if (auto near = closest_match(e.key, same_section)) {
            message += fmt::format("; did you mean {}?", *near);
        } else if (elsewhere != schema_keys().end()) {
            message += fmt::format("; {} belongs in [{}]", elsewhere->name, elsewhere->section);
        } else {
            message += fmt::format("; known keys of [{}]: {}", section, fmt::join(same_section, ", "));
        }
        warn(e.line, std::move(message));
    }

    void env_line(const IniEntry& e) {
        if (!is_valid_variable_name(e.key)) {
            return error(e.line, fmt::format("[{}] '{}' is not a valid variable name (letters, digits and _, "
                                             "not starting with a digit)",
                                             kEnvSection, e.key));
        }
        if (auto same = m_env_index.find(e.key); same != m_env_index.end()) {
            EnvLine& first = m_parsed.env[same->second];
            warn(e.line, fmt::format("[{}] {} set again (first at line {}); the last value wins", kEnvSection, e.key,
                                     first.line));
            first.value = e.value;
            return;
        }
        m_env_index.emplace(e.key, m_parsed.env.size());
        if (const RetiredKey* retired = find_retired_variable(e.key))
            warn(e.line, fmt::format("[{}] {} has no effect: nothing in d4r reads it (the key [{}] {} that exported it "
                                     "was removed)",
                                     kEnvSection, e.key, retired->section, retired->name));
        if (is_schema_variable(e.key)) {
            auto owner = std::find_if(schema_keys().begin(), schema_keys().end(), [&](const KeyInfo& k) {
                return k.variable == e.key || k.second_variable == e.key;
            });
            warn(e.line, fmt::format("[{}] {} replaces the value [{}] {} would export; prefer setting that key",
                                     kEnvSection, e.key, owner->section, owner->name));
        }
        m_parsed.env.push_back({e.key, e.value, e.line});
    }

    ParsedConfig& m_parsed;
    std::array<int, kKeyCount> m_seen_line{};
    std::unordered_map<std::string, size_t> m_env_index; // [Env] name -> index in m_parsed.env
};

} // namespace

bool is_valid_variable_name(std::string_view name) {
    if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
    return std::all_of(name.begin(), name.end(), [](char c) {
        auto b = static_cast<unsigned char>(c);
        return b < 0x80 && (std::isalnum(b) || c == '_');
    });
}

ParsedConfig parse_config(const ConfigSource& source) {
    ParsedConfig parsed;
    if (!source.present()) return parsed;
    parsed.file_name = *source.name;

    IniDocument doc = parse_ini(source.text, parsed.file_name);
    parsed.diagnostics = std::move(doc.diagnostics);
    Checker checker(parsed);
    checker.check_sections(doc.sections);
    for (const IniEntry& e : doc.entries) checker.check_entry(e);

    // Read top to bottom, whichever pass found them; same-line messages keep their order. (Sorting
    // indices rather than std::stable_sort, whose libstdc++ 12 buffer clang 19 flags as deprecated.)
    std::vector<std::pair<int, size_t>> order;
    for (size_t i = 0; i < parsed.diagnostics.size(); ++i) order.emplace_back(parsed.diagnostics[i].line, i);
    std::sort(order.begin(), order.end());
    std::vector<Diagnostic> sorted;
    sorted.reserve(order.size());
    for (const auto& [line, i] : order) sorted.push_back(std::move(parsed.diagnostics[i]));
    parsed.diagnostics = std::move(sorted);
    return parsed;
}

} // namespace d4r::config
