// The libraries and GLIBC versions an ELF64 file needs, from its dynamic and version-needs sections
// (elf_glibc.h). Field layouts are the ELF gABI's (Elf64_Dyn) and its symbol-versioning extension
// (Elf64_Verneed, Elf64_Vernaux).
#include "release/elf_glibc.h"

#include <charconv>
#include <cstring>

#include <fmt/format.h>

#include "ptx/container_bytes.h"
#include "ptx/elf.h"

namespace d4r::release {

using ptx::bytes::fits;
using ptx::bytes::le16;
using ptx::bytes::le32;
using ptx::bytes::le64;

namespace {

constexpr uint32_t kShtDynamic = 6;
constexpr uint32_t kShtGnuVerneed = 0x6ffffffe;
constexpr uint64_t kDynSize = 16; // d_tag, d_val
constexpr uint64_t kDtNull = 0;
constexpr uint64_t kDtNeeded = 1;
constexpr uint64_t kVerneedSize = 16; // vn_version, vn_cnt, vn_file, vn_aux, vn_next
constexpr uint64_t kVernauxSize = 16; // vna_hash, vna_flags, vna_other, vna_name, vna_next
constexpr uint64_t kMaxEntries = 1u << 16;
constexpr std::string_view kGlibcPrefix = "GLIBC_";

// The NUL-terminated string at OFFSET of the string table [base, base + size).
Expected<std::string> string_at(std::span<const uint8_t> file, const ptx::ElfSection& table, uint64_t offset) {
    if (offset >= table.size)
        return make_error(ErrorCode::Invalid, "ELF: string offset {} is past the string table [{}] ({} bytes)", offset,
                          table.index, table.size);
    const char* text = reinterpret_cast<const char*>(file.data() + table.offset) + offset;
    const void* nul = std::memchr(text, '\0', table.size - offset);
    if (!nul)
        return make_error(ErrorCode::Invalid, "ELF: string at offset {} of table [{}] is not terminated", offset,
                          table.index);
    return std::string(text, static_cast<const char*>(nul));
}

} // namespace

std::string GlibcVersion::text() const {
    std::string out;
    for (size_t i = 0; i < numbers.size(); ++i) out += (i ? "." : "") + std::to_string(numbers[i]);
    return out;
}

namespace {

// "2.41" -> {2, 41}: one to four dot-separated numbers, nothing else.
std::optional<GlibcVersion> parse_numbers(std::string_view rest) {
    GlibcVersion v;
    while (!rest.empty()) {
        unsigned n = 0;
        auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), n);
        if (ec != std::errc() || end == rest.data() || v.numbers.size() == 4) break;
        v.numbers.push_back(n);
        rest.remove_prefix(size_t(end - rest.data()));
        if (rest.empty()) return v;
        if (rest.front() != '.') break;
        rest.remove_prefix(1);
        if (rest.empty()) break;
    }
    return std::nullopt;
}

// The libraries the dynamic section SECTION names (DT_NEEDED), appended to OUT.
Status read_needed(std::span<const uint8_t> file, const ptx::ElfImage& image, const ptx::ElfSection& s,
                   std::vector<std::string>& out) {
    if (!fits(s.offset, s.size, file.size()))
        return make_error(ErrorCode::Invalid, "ELF: dynamic section [{}] at 0x{:x} ({} bytes) is past the end", s.index,
                          s.offset, s.size);
    if (s.link >= image.sections.size())
        return make_error(ErrorCode::Invalid, "ELF: dynamic section [{}] links to section {} of {}", s.index, s.link,
                          image.sections.size());
    const ptx::ElfSection& strings = image.sections[s.link];
    if (!fits(strings.offset, strings.size, file.size()))
        return make_error(ErrorCode::Invalid, "ELF: string table [{}] at 0x{:x} ({} bytes) is past the end",
                          strings.index, strings.offset, strings.size);
    for (uint64_t at = 0; at + kDynSize <= s.size; at += kDynSize) {
        const uint8_t* d = file.data() + s.offset + at;
        const uint64_t tag = le64(d);
        if (tag == kDtNull) break;
        if (tag != kDtNeeded) continue;
        auto library = string_at(file, strings, le64(d + 8));
        if (!library) return std::move(library).error();
        out.push_back(std::move(*library));
    }
    return ok_status();
}

} // namespace

Expected<GlibcVersion> parse_glibc_version(std::string_view text) {
    std::string_view rest = text;
    if (rest.starts_with(kGlibcPrefix)) rest.remove_prefix(kGlibcPrefix.size());
    if (auto v = parse_numbers(rest)) return *v;
    return make_error(ErrorCode::Invalid, "'{}' is not a GLIBC version (accepted: 2.41, GLIBC_2.41, 2.2.5)", text);
}

std::optional<HighestVersion> highest_version(const GlibcNeeds& needs, std::string_view prefix) {
    std::optional<HighestVersion> out;
    for (const VersionNeed& n : needs.needs) {
        if (!std::string_view(n.version).starts_with(prefix)) continue;
        auto v = parse_numbers(std::string_view(n.version).substr(prefix.size()));
        if (v && (!out || *v > out->version)) out = HighestVersion{std::move(*v), n.version, n.library};
    }
    return out;
}

Expected<GlibcNeeds> read_glibc_needs(std::span<const uint8_t> file) {
    if (file.size() < 4 || std::memcmp(file.data(),
                                       "\x7f"
                                       "ELF",
                                       4) != 0)
        return make_error(ErrorCode::Unsupported, "not an ELF file (no \\x7fELF magic)");
    auto image = ptx::read_elf_sections(file);
    if (!image) return std::move(image).error();
    GlibcNeeds out;
    for (const ptx::ElfSection& s : image->sections) {
        if (s.type == kShtDynamic && s.size != 0) {
            D4R_TRY(read_needed(file, *image, s, out.needed));
            continue;
        }
        if (s.type != kShtGnuVerneed || s.size == 0) continue;
        if (!fits(s.offset, s.size, file.size()))
            return make_error(ErrorCode::Invalid,
                              "ELF: version-needs section [{}] at 0x{:x} ({} bytes) is past the end", s.index, s.offset,
                              s.size);
        if (s.link >= image->sections.size())
            return make_error(ErrorCode::Invalid, "ELF: version-needs section [{}] links to section {} of {}", s.index,
                              s.link, image->sections.size());
        const ptx::ElfSection& strings = image->sections[s.link];
        if (!fits(strings.offset, strings.size, file.size()))
            return make_error(ErrorCode::Invalid, "ELF: string table [{}] at 0x{:x} ({} bytes) is past the end",
                              strings.index, strings.offset, strings.size);
        // Entries chain by relative offsets; sh_info counts them (0 in some linkers' output: follow vn_next).
        uint64_t at = 0;
        for (uint64_t entry = 0; entry < kMaxEntries; ++entry) {
            if (!fits(at, kVerneedSize, s.size))
                return make_error(ErrorCode::Invalid, "ELF: version-needs entry at 0x{:x} is past its section [{}]",
                                  s.offset + at, s.index);
            const uint8_t* vn = file.data() + s.offset + at;
            const uint16_t count = le16(vn + 2);
            auto library = string_at(file, strings, le32(vn + 4));
            if (!library) return std::move(library).error();
            uint64_t aux = at + le32(vn + 8);
            for (uint16_t k = 0; k < count; ++k) {
                if (!fits(aux, kVernauxSize, s.size))
                    return make_error(ErrorCode::Invalid, "ELF: version-needs item at 0x{:x} is past its section [{}]",
                                      s.offset + aux, s.index);
                const uint8_t* va = file.data() + s.offset + aux;
                auto version = string_at(file, strings, le32(va + 8));
                if (!version) return std::move(version).error();
                if (version->starts_with(kGlibcPrefix)) {
                    if (auto v = parse_glibc_version(*version); v && (!out.highest || *v > *out.highest)) {
                        out.highest = *v;
                        out.highest_library = *library;
                    }
                }
                out.needs.push_back({*library, std::move(*version)});
                const uint32_t next = le32(va + 12);
                if (next == 0) break;
                aux += next;
            }
            const uint32_t next = le32(vn + 12);
            if (next == 0) break;
            at += next;
        }
    }
    return out;
}

} // namespace d4r::release
