#include "ptx/manifest.h"

#include "core/files.h"
#include "core/strings.h"
#include "ptx/module_hash.h"

namespace d4r::ptx {

namespace {

bool is_follow(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$';
}

// Untrusted text quoted in an error message: printable, and short.
std::string quoted(std::string_view text) {
    constexpr size_t kMax = 60;
    std::string out;
    for (size_t i = 0; i < text.size() && i < kMax; ++i) {
        unsigned char c = static_cast<unsigned char>(text[i]);
        if (c >= 0x20 && c < 0x7f)
            out += static_cast<char>(c);
        else
            out += fmt::format("\\x{:02x}", c);
    }
    if (text.size() > kMax) out += "...";
    return out;
}

std::vector<std::string_view> fields_of(std::string_view line) {
    std::vector<std::string_view> fields;
    size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
        size_t start = i;
        while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
        if (i > start) fields.push_back(line.substr(start, i - start));
    }
    return fields;
}

} // namespace

bool is_kernel_name(std::string_view name) {
    if (name.empty()) return false;
    char first = name[0];
    bool alpha = (first >= 'a' && first <= 'z') || (first >= 'A' && first <= 'Z');
    if (!alpha && !(first == '_' || first == '$' || first == '%')) return false;
    if (!alpha && name.size() < 2) return false;
    for (char c : name.substr(1))
        if (!is_follow(c)) return false;
    return true;
}

Expected<Manifest> Manifest::parse(std::string_view text, std::string_view source) {
    Manifest manifest;
    if (starts_with(text, "\xEF\xBB\xBF")) text.remove_prefix(3); // an editor's UTF-8 byte order mark
    size_t line_number = 0;
    size_t pos = 0;
    while (pos < text.size()) {
        ++line_number;
        size_t end = text.find('\n', pos);
        if (end == std::string_view::npos) end = text.size();
        std::string_view raw = text.substr(pos, end - pos);
        pos = end + 1;
        std::string_view line = raw;
        if (size_t hash_mark = line.find('#'); hash_mark != std::string_view::npos) line = line.substr(0, hash_mark);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        std::vector<std::string_view> fields = fields_of(line);
        if (fields.empty()) continue; // blank, or a comment
        std::optional<uint64_t> hash = fields.size() == 2 ? parse_module_hash(fields[1]) : std::nullopt;
        if (!hash)
            return make_error(ErrorCode::Invalid, "{}:{}: expected 'NAME HASH' with HASH 16 hex digits, got '{}'",
                              source, line_number, quoted(trim(raw)));
        if (!is_kernel_name(fields[0]))
            return make_error(ErrorCode::Invalid, "{}:{}: '{}' is not a kernel name (a PTX identifier)", source,
                              line_number, quoted(fields[0]));
        manifest.m_hashes[std::string(fields[0])].insert(*hash);
    }
    return manifest;
}

Expected<Manifest> Manifest::load(const std::filesystem::path& path) {
    std::string text = D4R_TRY(read_text_file(path, kMaxManifestBytes));
    return parse(text, path.string());
}

Status Manifest::add(std::string_view name, uint64_t hash) {
    if (!is_kernel_name(name))
        return make_error(ErrorCode::Invalid, "'{}' is not a kernel name (a PTX identifier)", quoted(name));
    m_hashes[std::string(name)].insert(hash);
    return ok_status();
}

bool Manifest::allows(std::string_view name, uint64_t hash) const {
    auto it = m_hashes.find(name);
    return it != m_hashes.end() && it->second.count(hash) != 0;
}

std::vector<std::string> Manifest::names() const {
    std::vector<std::string> out;
    out.reserve(m_hashes.size());
    for (const auto& [name, hashes] : m_hashes) out.push_back(name);
    return out;
}

std::vector<uint64_t> Manifest::hashes_for(std::string_view name) const {
    auto it = m_hashes.find(name);
    if (it == m_hashes.end()) return {};
    return std::vector<uint64_t>(it->second.begin(), it->second.end());
}

size_t Manifest::entry_count() const {
    size_t n = 0;
    for (const auto& [name, hashes] : m_hashes) n += hashes.size();
    return n;
}

std::string Manifest::to_text(std::string_view writer) const {
    std::string one_line(writer); // the header must stay one comment line
    for (char& c : one_line)
        if (c == '\n' || c == '\r') c = ' ';
    std::string out = fmt::format("# {}: native kernels of this folder and the PTX modules they may replace.\n"
                                  "# Written by {}. One line per accepted module: NAME FNV-1a-64-of-the-PTX-text.\n",
                                  kManifestFileName, one_line);
    for (const auto& [name, hashes] : m_hashes)
        for (uint64_t hash : hashes) out += fmt::format("{} {}\n", name, hex64(hash));
    return out;
}

Status Manifest::save(const std::filesystem::path& path, std::string_view writer) const {
    return write_file_atomic(path, to_text(writer));
}

} // namespace d4r::ptx
