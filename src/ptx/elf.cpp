// ELF64 section-table reader, written from the System V gABI field layout.
#include "ptx/elf.h"

#include <algorithm>
#include <cstring>

#include "ptx/container_bytes.h"

namespace d4r::ptx {

using bytes::fits;
using bytes::le16;
using bytes::le32;
using bytes::le64;

namespace {

constexpr uint64_t kElf64HeaderSize = 64;
constexpr uint64_t kElf64SectionHeaderSize = 64;
constexpr uint8_t kElfClass64 = 2;
constexpr uint8_t kElfDataLittle = 1;
constexpr uint64_t kMaxName = 256;
constexpr uint16_t kShnXindex = 0xffff; // e_shstrndx escape: the real index is in section 0's sh_link

struct RawSection {
    uint32_t name = 0;
    uint32_t type = 0;
    uint64_t offset = 0;
    uint64_t size = 0;
    uint32_t link = 0;
    uint32_t info = 0;
};

RawSection raw_section(const uint8_t* p) {
    return {le32(p), le32(p + 4), le64(p + 0x18), le64(p + 0x20), le32(p + 0x28), le32(p + 0x2c)};
}

} // namespace

Expected<ElfImage> read_elf_sections(std::span<const uint8_t> file) {
    if (file.size() < kElf64HeaderSize)
        return make_error(ErrorCode::Invalid, "ELF: truncated header ({} bytes, an ELF64 header has {})", file.size(),
                          kElf64HeaderSize);
    const uint8_t* h = file.data();
    if (h[4] != kElfClass64 || h[5] != kElfDataLittle)
        return make_error(ErrorCode::Unsupported, "ELF: class {} / data {} is not little-endian ELF64", h[4], h[5]);
    const uint64_t shoff = le64(h + 0x28);
    const uint64_t shentsize = le16(h + 0x3a);
    uint64_t shnum = le16(h + 0x3c);
    uint64_t shstrndx = le16(h + 0x3e);

    ElfImage image;
    if (shoff == 0) return image; // no section table: the caller scans
    if (shentsize < kElf64SectionHeaderSize)
        return make_error(ErrorCode::Invalid, "ELF: section header size {} is below {}", shentsize,
                          kElf64SectionHeaderSize);
    if (!fits(shoff, shentsize, file.size()))
        return make_error(ErrorCode::Invalid,
                          "ELF: section header table at 0x{:x} lies past the end of the file "
                          "({} bytes)",
                          shoff, file.size());
    // Extended numbering: more than 0xff00 sections put the count/string index into section 0.
    const RawSection first = raw_section(h + shoff);
    if (shnum == 0) shnum = first.size;
    if (shstrndx == kShnXindex) shstrndx = first.link;
    if (shnum == 0) return image;
    if (shnum > file.size() / shentsize || !fits(shoff, shnum * shentsize, file.size()))
        return make_error(ErrorCode::Invalid,
                          "ELF: section header table at 0x{:x} ({} entries of {} bytes) extends "
                          "past the end of the file ({} bytes)",
                          shoff, shnum, shentsize, file.size());
    if (shstrndx >= shnum)
        return make_error(ErrorCode::Invalid, "ELF: section name table index {} is not below the section count {}",
                          shstrndx, shnum);

    const RawSection names = raw_section(h + shoff + shstrndx * shentsize);
    const bool have_names = shstrndx != 0;
    if (have_names && !fits(names.offset, names.size, file.size()))
        return make_error(ErrorCode::Invalid,
                          "ELF: section name table [{}] at 0x{:x} ({} bytes) extends past the end "
                          "of the file ({} bytes)",
                          shstrndx, names.offset, names.size, file.size());

    image.has_section_table = true;
    image.sections.reserve(shnum);
    for (uint64_t i = 0; i < shnum; ++i) {
        const RawSection raw = raw_section(h + shoff + i * shentsize);
        ElfSection section;
        section.index = static_cast<uint32_t>(i);
        section.type = raw.type;
        section.offset = raw.offset;
        section.size = raw.size;
        section.link = raw.link;
        section.info = raw.info;
        if (have_names) {
            if (raw.name >= names.size && !(raw.name == 0 && names.size == 0))
                return make_error(ErrorCode::Invalid,
                                  "ELF: section [{}] name offset {} is past the name table ({} "
                                  "bytes)",
                                  i, raw.name, names.size);
            // Names longer than kMaxName are cut: they cannot be the names we look for, and the cut keeps a
            // table of thousands of sections sharing one huge name linear.
            const char* text = reinterpret_cast<const char*>(file.data() + names.offset) + raw.name;
            const uint64_t room = std::min<uint64_t>(names.size - std::min<uint64_t>(raw.name, names.size), kMaxName);
            const void* nul = std::memchr(text, '\0', room);
            section.name.assign(text, nul ? static_cast<const char*>(nul) - text : room);
        }
        image.sections.push_back(std::move(section));
    }
    return image;
}

} // namespace d4r::ptx
