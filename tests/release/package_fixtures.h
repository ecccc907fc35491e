// Test helper for the packager's tests: a tiny Windows DLL whose version resource declares strings of
// our choosing (CompanyName, ProductName), and a small PTX module text. Promise: version_dll() lays
// out VS_VERSIONINFO, VS_FIXEDFILEINFO, StringFileInfo, a StringTable and its Strings as Windows does
// (UTF-16LE keys, 4-byte alignment, wLength of each block); nothing else in the file is meant to load.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace d4r::release::test_pe {

inline std::string utf16z(std::string_view s) {
    std::string out;
    for (char c : s) out += std::string{c, '\0'};
    return out + std::string(2, '\0');
}

inline void pad4(std::string& b) {
    while (b.size() % 4) b += '\0';
}

// One version-resource block: wLength, wValueLength, wType, the key, padding, the value, padding, children.
inline std::string block(std::string_view key, uint16_t value_length, uint16_t type, const std::string& value,
                         const std::string& children) {
    std::string b(6, '\0');
    b += utf16z(key);
    pad4(b);
    b += value;
    if (!children.empty()) pad4(b);
    b += children;
    b[0] = char(b.size() & 0xff);
    b[1] = char(b.size() >> 8);
    b[2] = char(value_length & 0xff);
    b[3] = char(value_length >> 8);
    b[4] = char(type);
    return b;
}

// "MZ", zeros to 64 bytes, then a version resource declaring 1.2.3.4 and STRINGS.
inline std::vector<uint8_t> version_dll(const std::vector<std::pair<std::string, std::string>>& strings) {
    std::string table_children;
    for (const auto& [key, value] : strings) {
        std::string s = block(key, uint16_t(value.size() + 1), 1, utf16z(value), "");
        pad4(s);
        table_children += s;
    }
    const std::string table = block("040904b0", 0, 1, "", table_children);
    const std::string info = block("StringFileInfo", 0, 1, "", table);
    std::string fixed(52, '\0');
    const uint32_t words[] = {0xFEEF04BD, 0x00010000, (1u << 16) | 2u, (3u << 16) | 4u};
    for (int w = 0; w < 4; ++w)
        for (int i = 0; i < 4; ++i) fixed[size_t(4 * w + i)] = char(words[w] >> (8 * i));
    const std::string version = block("VS_VERSION_INFO", 52, 0, fixed, info);
    std::string file = "MZ";
    file.resize(64, '\0');
    file += version;
    file.resize(file.size() + 32, '\0');
    return {file.begin(), file.end()};
}

inline const char* kPtxText = "//\n// Generated for a test\n//\n\n.version 8.0\n.target sm_89\n.address_size 64\n\n"
                              ".visible .entry k()\n{\n\tret;\n}\n";

} // namespace d4r::release::test_pe
