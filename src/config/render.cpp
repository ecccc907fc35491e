#include "render.h"

#include <fmt/format.h>

#include "values.h"

namespace d4r::config {

namespace {

constexpr size_t kCommentWidth = 100;

std::string var(std::string_view name, bool markdown) {
    return markdown ? fmt::format("`{}`", name) : std::string(name);
}

std::string preset_list() {
    std::string out;
    for (const ModelPreset& p : model_presets())
        out += fmt::format("{}{}={}", out.empty() ? "" : " ", p.letter, p.preset);
    return out;
}

std::string alias_list() {
    std::string out;
    for (const ModelAlias& a : model_aliases())
        out += fmt::format("{}{} = {}", out.empty() ? "" : ", ", a.alias, a.letter);
    return out;
}

std::string shown_default(const KeyInfo& key) {
    return key.default_value.empty() ? "(empty)" : std::string(key.default_value);
}

// The keys the release file sets differently from the schema's (developer) defaults.
std::string_view template_value(const KeyInfo& key, TemplateFlavor flavor) {
    if (flavor == TemplateFlavor::Release && key.id == KeyId::KernelsNativeKernels) return "on";
    return key.default_value;
}

void append_comment(std::string& out, std::string_view text) {
    size_t line_start = out.size();
    out += ';';
    size_t start = 0;
    while (start < text.size()) {
        size_t end = text.find(' ', start);
        if (end == std::string_view::npos) end = text.size();
        std::string_view word = text.substr(start, end - start);
        size_t line_length = out.size() - line_start;
        if (line_length > 1 && line_length + 1 + word.size() > kCommentWidth) {
            out += "\n;";
            line_start = out.size() - 1;
        }
        out += ' ';
        out += word;
        start = end + 1;
    }
    out += '\n';
}

} // namespace

std::string mapping_text(const KeyInfo& key, bool markdown) {
    std::string v1 = var(key.variable, markdown);
    switch (key.mapping) {
    case Mapping::Flag:
        return fmt::format("{} = 1 or 0", v1);
    case Mapping::FlagOnlyFalse:
        return fmt::format("{} = 0 when false in the file; otherwise not exported", v1);
    case Mapping::Number:
        return fmt::format("{} = the number", v1);
    case Mapping::Verbatim:
        return fmt::format("{} = the value; not exported when {}", v1,
                           key.type == ValueType::Ratio ? "auto" : "auto or empty");
    case Mapping::Preset:
        return fmt::format("{} = the preset number ({}); aliases: {}", v1, preset_list(), alias_list());
    case Mapping::FrameAge:
        return fmt::format("0: {} = 1; N = 1 to 3: {} = 0 and {} = N", v1, v1, var(key.second_variable, markdown));
    case Mapping::KernelSwitch:
        return fmt::format("on, exact: {} = the kernel root (not exported when there is none); off: {} is unset; "
                           "exact also exports PreferAccuracy as 1",
                           v1, v1);
    case Mapping::KernelRoot:
        return fmt::format("{}, through NativeKernels", v1);
    case Mapping::Launcher:
        return "none (read by the launcher)";
    }
    return "";
}

std::string schema_markdown() {
    std::string out = "| Section | Key | Values | Default | Environment | Meaning |\n|---|---|---|---|---|---|\n";
    for (const KeyInfo& key : schema_keys()) {
        out += fmt::format("| {} | {} | {} | {} | {} | {} |\n", key.section, key.name, accepted_values(key),
                           shown_default(key), mapping_text(key, true), key.help);
    }
    out += fmt::format("| {} | any `NAME` | any text | (none) | `NAME` = the value, verbatim, after the variables "
                       "above, in file order | Extra environment variables. |\n",
                       kEnvSection);
    return out;
}

std::string ini_template(TemplateFlavor flavor) {
    std::string out;
    bool release = flavor == TemplateFlavor::Release;
    append_comment(out, release ? "d4r.ini: the d4r configuration of this game (release: native kernels on)."
                                : "d4r.ini: the d4r configuration (developer default: native kernels off).");
    out += ";\n";
    append_comment(out, "Generated from the schema by 'd4r config template'; docs/configuration.md explains every "
                        "key. Syntax: [Section] headers and Key = value lines; section and key names are "
                        "case-insensitive. Comments are whole lines starting with ; or # (a ; after a value is "
                        "part of the value). A variable already set in the environment wins over this file.");
    std::string_view section;
    for (const KeyInfo& key : schema_keys()) {
        if (key.section != section) {
            section = key.section;
            out += fmt::format("\n[{}]\n", section);
        } else {
            out += "\n";
        }
        append_comment(out, key.help);
        append_comment(out, fmt::format("Values: {}. Default: {}.", accepted_values(key), shown_default(key)));
        append_comment(out, fmt::format("Environment: {}.", mapping_text(key, false)));
        std::string_view value = template_value(key, flavor);
        out += value.empty() ? fmt::format("{} =\n", key.name) : fmt::format("{} = {}\n", key.name, value);
    }
    out += fmt::format("\n[{}]\n", kEnvSection);
    append_comment(out, "Extra environment variables, passed through verbatim as NAME = value (NAME: letters, "
                        "digits and _, not starting with a digit), exported after the variables above, in file "
                        "order. For example:");
    out += "; DXVK_HUD = fps\n";
    return out;
}

} // namespace d4r::config
