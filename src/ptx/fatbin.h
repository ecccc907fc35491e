// d4r PTX toolkit: the NVIDIA fatbin reader (layout in docs/ptx-containers.md).
//
// Promise: reads fatbins — a 16-byte header (magic 0xBA55ED50, version 1) followed by entries — from
// any byte range of a file, returns the PTX entries (decompressing LZ4/zstd payloads, bounded by the
// entry's declared uncompressed size and ContainerLimits) and skips cubins and other kinds. Every
// size and offset is checked against the enclosing fatbin and range; a malformed fatbin is an Error
// whose context names the fatbin and entry by index and file offset.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "ptx/container.h"

namespace d4r::ptx {

inline constexpr uint32_t kFatbinMagic = 0xBA55ED50;
inline constexpr uint16_t kFatbinVersion = 1;
inline constexpr uint64_t kFatbinHeaderSize = 16;      // the fixed header: magic, version, header size, size
inline constexpr uint64_t kFatbinEntryHeaderSize = 64; // the fixed part of an entry header
inline constexpr uint16_t kFatbinKindPtx = 1;
inline constexpr uint16_t kFatbinKindElf = 2;
inline constexpr uint64_t kFatbinFlagLz4 = 0x2000;
inline constexpr uint64_t kFatbinFlagZstd = 0x8000;

// Gathers the modules of one file and enforces ContainerLimits across all of them.
class ModuleCollector {
public:
    explicit ModuleCollector(const ContainerLimits& limits) : m_limits(limits) {}

    // Whether a module of SIZE bytes may still be added; asked before anything of that size is allocated.
    Status check_size(uint64_t size) const;
    Status add(PtxModuleBlob blob);
    // Fatbins are numbered across the whole file, in the order they are read.
    uint32_t next_fatbin_index() { return m_fatbins++; }
    std::vector<PtxModuleBlob> take() && { return std::move(m_modules); }

private:
    ContainerLimits m_limits;
    std::vector<PtxModuleBlob> m_modules;
    uint64_t m_total_bytes = 0;
    uint32_t m_fatbins = 0;
};

// Reads the fatbin whose header starts at FILE[POS]; it must end at or before END. PLACE prefixes the
// modules' origin ("ELF section .nv_fatbin"; empty for a bare fatbin). Returns the offset just past it.
Expected<uint64_t> read_fatbin(std::span<const uint8_t> file, uint64_t pos, uint64_t end, std::string_view place,
                               ModuleCollector& out);

// [BEGIN, END) holds only fatbins, back to back, possibly separated by zero (alignment) padding — a
// fatbin file or an ELF .nv_fatbin section. Anything else there is an Error.
Status read_fatbin_sequence(std::span<const uint8_t> file, uint64_t begin, uint64_t end, std::string_view place,
                            ModuleCollector& out);

// [BEGIN, END) is arbitrary data (a PE section, a file without section headers): reads every fatbin found
// by scanning for the magic whose header and first entry look valid; other magic-like bytes are ignored.
Status scan_fatbins(std::span<const uint8_t> file, uint64_t begin, uint64_t end, std::string_view place,
                    ModuleCollector& out);

// The first offset in [FROM, END) at which the 4 magic bytes start, or END. Fast: SSE2 (or memchr) driven.
uint64_t find_fatbin_magic(std::span<const uint8_t> file, uint64_t from, uint64_t end);

// Whether FILE[POS] starts a plausible fatbin inside [POS, END): magic, version 1, sane header size, a size
// that fits, and a first entry whose header and payload fit. Cheap; no allocation.
bool plausible_fatbin_at(std::span<const uint8_t> file, uint64_t pos, uint64_t end);

} // namespace d4r::ptx
