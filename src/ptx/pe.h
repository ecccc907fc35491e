// d4r PTX toolkit: the part of a PE/COFF file (Windows DLL/EXE) the PTX finder needs — its sections.
//
// Promise: follows the DOS header's e_lfanew to the "PE\0\0" signature, reads the COFF header and the
// section table, and returns each section's name and raw-data range in the file, checking that the
// headers, the table and every section's raw data lie inside the file (an Error naming the offset
// otherwise). A file that starts with "MZ" but has no PE signature is ErrorCode::Unsupported.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/status.h"

namespace d4r::ptx {

struct PeSection {
    std::string name; // up to 8 characters, as stored
    uint32_t index = 0;
    uint64_t raw_offset = 0; // PointerToRawData
    uint64_t raw_size = 0;   // SizeOfRawData (0 for uninitialised data such as .bss)
};

Expected<std::vector<PeSection>> read_pe_sections(std::span<const uint8_t> file);

} // namespace d4r::ptx
