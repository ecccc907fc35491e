// Little-endian field reads for the container readers (fatbin, ELF, PE). Every read is bounds-checked by
// the caller first; these helpers only assemble bytes, so they are safe on unaligned data.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>

namespace d4r::ptx::bytes {

inline uint16_t le16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }
inline uint32_t le32(const uint8_t* p) {
    return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) | (static_cast<uint32_t>(p[2]) << 16) |
           (static_cast<uint32_t>(p[3]) << 24);
}
inline uint64_t le64(const uint8_t* p) { return le32(p) | (static_cast<uint64_t>(le32(p + 4)) << 32); }

// True when [offset, offset + length) lies inside a buffer of SIZE bytes (no overflow).
inline bool fits(uint64_t offset, uint64_t length, uint64_t size) { return offset <= size && length <= size - offset; }

} // namespace d4r::ptx::bytes
