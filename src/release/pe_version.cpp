// d4r release: the file version a Windows DLL declares.
#include "pe_version.h"

#include <algorithm>
#include <string_view>

#include <fmt/format.h>

namespace d4r::release {

namespace {

constexpr uint32_t kFixedSignature = 0xFEEF04BD;

uint32_t u32(std::span<const uint8_t> b, size_t at) {
    return uint32_t(b[at]) | uint32_t(b[at + 1]) << 8 | uint32_t(b[at + 2]) << 16 | uint32_t(b[at + 3]) << 24;
}

} // namespace

std::optional<std::string> pe_file_version(std::span<const uint8_t> bytes) {
    if (bytes.size() < 2 || bytes[0] != 'M' || bytes[1] != 'Z') return std::nullopt;
    static constexpr std::string_view kKey = "VS_VERSION_INFO"; // written as UTF-16LE, then a NUL
    std::string key16;
    for (char c : kKey)
        key16 += std::string{c, '\0'};
    key16 += std::string(2, '\0');
    const auto* begin = bytes.data();
    const auto* end = bytes.data() + bytes.size();
    for (auto it = begin; (it = std::search(it, end, key16.begin(), key16.end())) != end; ++it) {
        const size_t key_at = size_t(it - begin);
        if (key_at < 6) continue;
        const size_t block = key_at - 6; // wLength, wValueLength, wType, then the key
        // The fixed info starts at the next 4-byte boundary after the key (relative to the block).
        size_t fixed = block + 6 + key16.size();
        fixed = block + ((fixed - block + 3) & ~size_t(3));
        if (fixed + 16 > bytes.size() || u32(bytes, fixed) != kFixedSignature) continue;
        const uint32_t ms = u32(bytes, fixed + 8), ls = u32(bytes, fixed + 12);
        return fmt::format("{}.{}.{}.{}", ms >> 16, ms & 0xffff, ls >> 16, ls & 0xffff);
    }
    return std::nullopt;
}

} // namespace d4r::release
