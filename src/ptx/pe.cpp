// PE/COFF section-table reader, written from the Microsoft PE format specification's field layout.
#include "ptx/pe.h"

#include <cstring>

#include "ptx/container_bytes.h"

namespace d4r::ptx {

using bytes::fits;
using bytes::le16;
using bytes::le32;

namespace {

constexpr uint64_t kDosHeaderSize = 0x40;
constexpr uint64_t kDosLfanew = 0x3c;    // u32: file offset of the PE signature
constexpr uint64_t kPeSignatureSize = 4; // "PE\0\0"
constexpr uint64_t kCoffHeaderSize = 20;
constexpr uint64_t kSectionHeaderSize = 40;

} // namespace

Expected<std::vector<PeSection>> read_pe_sections(std::span<const uint8_t> file) {
    if (file.size() < kDosHeaderSize || file[0] != 'M' || file[1] != 'Z')
        return make_error(ErrorCode::Unsupported, "PE: no DOS header ({} bytes)", file.size());
    const uint64_t lfanew = le32(file.data() + kDosLfanew);
    if (!fits(lfanew, kPeSignatureSize + kCoffHeaderSize, file.size()) ||
        std::memcmp(file.data() + lfanew, "PE\0\0", kPeSignatureSize) != 0)
        return make_error(ErrorCode::Unsupported, "PE: no PE signature at e_lfanew 0x{:x} (file of {} bytes)", lfanew,
                          file.size());
    const uint8_t* coff = file.data() + lfanew + kPeSignatureSize;
    const uint64_t count = le16(coff + 2);
    const uint64_t optional_size = le16(coff + 16);
    const uint64_t table = lfanew + kPeSignatureSize + kCoffHeaderSize + optional_size;
    if (!fits(table, count * kSectionHeaderSize, file.size()))
        return make_error(ErrorCode::Invalid,
                          "PE: section table at 0x{:x} ({} sections) extends past the end of the "
                          "file ({} bytes)",
                          table, count, file.size());

    std::vector<PeSection> sections;
    sections.reserve(count);
    for (uint64_t i = 0; i < count; ++i) {
        const uint8_t* s = file.data() + table + i * kSectionHeaderSize;
        PeSection section;
        const void* nul = std::memchr(s, '\0', 8);
        section.name.assign(reinterpret_cast<const char*>(s), nul ? static_cast<const uint8_t*>(nul) - s : 8);
        section.index = static_cast<uint32_t>(i);
        section.raw_size = le32(s + 16);
        section.raw_offset = le32(s + 20);
        if (section.raw_size != 0 && !fits(section.raw_offset, section.raw_size, file.size()))
            return make_error(ErrorCode::Invalid,
                              "PE: section {} '{}': raw data at 0x{:x} ({} bytes) extends past the "
                              "end of the file ({} bytes)",
                              i, section.name, section.raw_offset, section.raw_size, file.size());
        sections.push_back(std::move(section));
    }
    return sections;
}

} // namespace d4r::ptx
