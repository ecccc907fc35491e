// Extent of a module image given by pointer (see image_extent.h).
#include "ptx/image_extent.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "ptx/fatbin.h"

namespace d4r::ptx {

namespace {

uint16_t rd16(const uint8_t* p) {
    uint16_t v;
    std::memcpy(&v, p, 2);
    return v;
}
uint32_t rd32(const uint8_t* p) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}
uint64_t rd64(const uint8_t* p) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}

// Whether every page of [P, P + BYTES) is mapped (mincore fails with ENOMEM on an unmapped page), so
// that headers which promise more than the caller's memory holds give an error instead of a fault.
bool mapped(const uint8_t* p, uint64_t bytes) {
    if (bytes == 0) return true;
    static const uint64_t page = [] {
        long v = sysconf(_SC_PAGESIZE);
        return v > 0 ? uint64_t(v) : uint64_t(4096);
    }();
    const uintptr_t begin = reinterpret_cast<uintptr_t>(p) & ~(page - 1);
    const uintptr_t end_addr = reinterpret_cast<uintptr_t>(p) + bytes;
    if (end_addr < reinterpret_cast<uintptr_t>(p)) return false; // wraps
    const uint64_t length = end_addr - begin;
    std::vector<unsigned char> vec((length + page - 1) / page);
    return mincore(reinterpret_cast<void*>(begin), length, vec.data()) == 0;
}

} // namespace

Expected<std::span<const uint8_t>> image_extent(const void* image) {
    if (!image) return make_error(ErrorCode::Invalid, "module image is a null pointer");
    const auto* p = static_cast<const uint8_t*>(image);
    // The magic is read byte by byte up to a NUL, so a PTX string shorter than 4 bytes is never read past
    // its end.
    uint32_t magic = 0;
    for (int i = 0; i < 4 && (i == 0 || p[i - 1] != 0); ++i) magic |= uint32_t(p[i]) << (8 * i);
    if (p[0] == 0 || p[1] == 0 || p[2] == 0) magic = 0;
    if (magic == kFatbinWrapperMagic) {
        // struct { int magic; int version; const void* data; void* filename_or_fatbins; }
        const void* data = nullptr;
        std::memcpy(&data, p + 8, sizeof data);
        if (!data) return make_error(ErrorCode::Invalid, "fatbin wrapper without data");
        if (rd32(static_cast<const uint8_t*>(data)) != kFatbinMagic)
            return make_error(ErrorCode::Invalid, "fatbin wrapper does not point at a fatbin");
        return image_extent(data);
    }
    if (magic == kFatbinMagic) {
        if (!mapped(p, kFatbinHeaderSize)) return make_error(ErrorCode::Invalid, "fatbin header is not readable");
        uint16_t header = rd16(p + 6);
        uint64_t size = rd64(p + 8);
        if (header < kFatbinHeaderSize || size > (1ull << 34))
            return make_error(ErrorCode::Invalid, "fatbin header size {} / size {} are not plausible", header, size);
        if (!mapped(p, header + size))
            return make_error(ErrorCode::Invalid, "fatbin of {} bytes runs past the readable memory", header + size);
        return std::span<const uint8_t>(p, header + size);
    }
    if (std::memcmp(p,
                    "\x7f"
                    "ELF",
                    4) == 0) {
        if (!mapped(p, 0x40)) return make_error(ErrorCode::Invalid, "ELF header is not readable");
        if (p[4] != 2) return make_error(ErrorCode::Unsupported, "32-bit ELF images are not supported");
        constexpr uint64_t kLimit = 1ull << 34;
        uint64_t shoff = rd64(p + 0x28);
        uint16_t shentsize = rd16(p + 0x3a), shnum = rd16(p + 0x3c);
        uint64_t phoff = rd64(p + 0x20);
        uint16_t phentsize = rd16(p + 0x36), phnum = rd16(p + 0x38);
        // 0xffff sections means "the count is elsewhere" (SHN_XINDEX), which module images never need.
        if (shoff > kLimit || phoff > kLimit || shnum == 0xffff || (shnum && shentsize != 0x40) ||
            (phnum && phentsize != 0x38))
            return make_error(ErrorCode::Invalid,
                              "ELF header is not plausible (section table at {} with {} entries of {} bytes, "
                              "program headers at {} with {} of {})",
                              shoff, shnum, shentsize, phoff, phnum, phentsize);
        uint64_t end = std::max<uint64_t>(shoff + uint64_t(shentsize) * shnum, phoff + uint64_t(phentsize) * phnum);
        if (!mapped(p + shoff, uint64_t(shentsize) * shnum))
            return make_error(ErrorCode::Invalid, "ELF section table (offset {}, {} entries) is not readable", shoff,
                              shnum);
        // Section contents may lie after the section header table: take the furthest section end.
        for (uint16_t i = 0; i < shnum; ++i) {
            const uint8_t* sh = p + shoff + uint64_t(i) * shentsize;
            uint32_t type = rd32(sh + 4);
            uint64_t offset = rd64(sh + 0x18), size = rd64(sh + 0x20);
            if (type == 8 /* SHT_NOBITS */) continue;
            if (offset > kLimit || size > kLimit)
                return make_error(ErrorCode::Invalid, "ELF section {} (offset {}, size {}) is not plausible", i, offset,
                                  size);
            end = std::max(end, offset + size);
        }
        if (end > kLimit) return make_error(ErrorCode::Invalid, "ELF image size {} is not plausible", end);
        if (!mapped(p, end))
            return make_error(ErrorCode::Invalid, "ELF image of {} bytes runs past the readable memory", end);
        return std::span<const uint8_t>(p, end);
    }
    size_t n = strnlen(reinterpret_cast<const char*>(p), kMaxImageTextBytes);
    if (n == kMaxImageTextBytes) return make_error(ErrorCode::Invalid, "PTX image is not NUL-terminated within 1 GiB");
    return std::span<const uint8_t>(p, n);
}

} // namespace d4r::ptx
