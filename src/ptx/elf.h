// d4r PTX toolkit: the part of an ELF file the PTX finder needs — its section table.
//
// Promise: for a little-endian ELF64 file, returns every section's name, type and file range, after
// checking that the header, the section header table and the section-name string table lie inside the
// file (an Error naming the offending offset otherwise). It does not check each section's own range —
// callers check the sections they use. A file without a section table (stripped of it) is not an error:
// has_section_table is false. Other ELF classes/byte orders are ErrorCode::Unsupported.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/status.h"

namespace d4r::ptx {

inline constexpr uint32_t kElfSectionNobits = 8; // SHT_NOBITS: occupies no file bytes (.bss)

struct ElfSection {
    std::string name;
    uint32_t index = 0;
    uint32_t type = 0;
    uint64_t offset = 0;
    uint64_t size = 0;
    uint32_t link = 0; // sh_link: e.g. the string table of a symbol or version section
    uint32_t info = 0; // sh_info: e.g. the entry count of a version-needs section
};

struct ElfImage {
    bool has_section_table = false;
    std::vector<ElfSection> sections;
};

Expected<ElfImage> read_elf_sections(std::span<const uint8_t> file);

} // namespace d4r::ptx
