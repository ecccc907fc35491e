// d4r release: the file version a Windows DLL declares.
#include "pe_version.h"

#include <algorithm>
#include <string_view>
#include <utility>

#include <fmt/format.h>

namespace d4r::release {

namespace {

constexpr uint32_t kFixedSignature = 0xFEEF04BD;

uint32_t u32(std::span<const uint8_t> b, size_t at) {
    return uint32_t(b[at]) | uint32_t(b[at + 1]) << 8 | uint32_t(b[at + 2]) << 16 | uint32_t(b[at + 3]) << 24;
}

uint16_t u16(std::span<const uint8_t> b, size_t at) { return uint16_t(b[at] | b[at + 1] << 8); }

std::string utf16_key(std::string_view key) {
    std::string key16;
    for (char c : key) key16 += std::string{c, '\0'};
    key16 += std::string(2, '\0');
    return key16;
}

// Where the VS_VERSION_INFO block starts and ends (its wLength, cut to BYTES), or nullopt.
std::optional<std::pair<size_t, size_t>> version_block(std::span<const uint8_t> bytes) {
    if (bytes.size() < 2 || bytes[0] != 'M' || bytes[1] != 'Z') return std::nullopt;
    const std::string key16 = utf16_key("VS_VERSION_INFO");
    const auto* begin = bytes.data();
    const auto* end = bytes.data() + bytes.size();
    for (auto it = begin; (it = std::search(it, end, key16.begin(), key16.end())) != end; ++it) {
        const size_t key_at = size_t(it - begin);
        if (key_at < 6) continue;
        const size_t block = key_at - 6;
        size_t fixed = block + 6 + key16.size();
        fixed = block + ((fixed - block + 3) & ~size_t(3));
        if (fixed + 16 > bytes.size() || u32(bytes, fixed) != kFixedSignature) continue;
        return std::pair{block, std::min(bytes.size(), block + u16(bytes, block))};
    }
    return std::nullopt;
}

} // namespace

std::optional<std::string> pe_version_string(std::span<const uint8_t> bytes, std::string_view key) {
    const auto block = version_block(bytes);
    if (!block || key.empty()) return std::nullopt;
    const std::string key16 = utf16_key(key);
    const auto* begin = bytes.data();
    const auto* end = bytes.data() + block->second;
    for (auto it = begin + block->first; (it = std::search(it, end, key16.begin(), key16.end())) != end; ++it) {
        const size_t key_at = size_t(it - begin);
        if (key_at < block->first + 6 || (key_at - block->first) % 2) continue;
        const size_t string_at = key_at - 6; // wLength, wValueLength (characters), wType (1: text)
        const size_t length = u16(bytes, string_at);
        const size_t stop = std::min(block->second, string_at + std::max<size_t>(length, 6));
        size_t value = string_at + 6 + key16.size();
        value = string_at + ((value - string_at + 3) & ~size_t(3));
        std::string out;
        for (size_t at = value, n = 0; at + 1 < stop && n < u16(bytes, string_at + 2); at += 2, ++n) {
            const uint16_t c = u16(bytes, at);
            if (c == 0) break;
            if (c < 0x80) {
                out += char(c);
            } else if (c < 0x800) {
                out += char(0xC0 | c >> 6);
                out += char(0x80 | (c & 0x3F));
            } else { // surrogate halves are kept as they are (3 bytes each): this is for display and matching
                out += char(0xE0 | c >> 12);
                out += char(0x80 | ((c >> 6) & 0x3F));
                out += char(0x80 | (c & 0x3F));
            }
        }
        return out;
    }
    return std::nullopt;
}

std::optional<std::string> pe_file_version(std::span<const uint8_t> bytes) {
    if (bytes.size() < 2 || bytes[0] != 'M' || bytes[1] != 'Z') return std::nullopt;
    static constexpr std::string_view kKey = "VS_VERSION_INFO"; // written as UTF-16LE, then a NUL
    std::string key16;
    for (char c : kKey) key16 += std::string{c, '\0'};
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
