// The file version of a DLL's version resource (what d4r install prints for nvngx_dlss.dll).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "release/pe_version.h"

namespace d4r::release {
namespace {

void put32(std::vector<uint8_t>& b, uint32_t v) {
    for (int i = 0; i < 4; ++i) b.push_back(uint8_t(v >> (8 * i)));
}

// MZ, PADDING bytes, then a VS_VERSIONINFO block: wLength, wValueLength, wType, the UTF-16 key, padding
// to 4 bytes, VS_FIXEDFILEINFO (signature, struct version, file version MS, LS).
std::vector<uint8_t> dll_with_version(uint32_t ms, uint32_t ls, size_t padding, uint32_t signature = 0xFEEF04BD) {
    std::vector<uint8_t> b = {'M', 'Z'};
    b.resize(2 + padding, 0);
    b.insert(b.end(), {0x34, 0x03, 0x34, 0x00, 0x00, 0x00});
    for (char c : std::string("VS_VERSION_INFO")) b.insert(b.end(), {uint8_t(c), 0});
    b.insert(b.end(), {0, 0});
    while ((b.size() - (2 + padding)) % 4) b.push_back(0);
    put32(b, signature);
    put32(b, 0x00010000);
    put32(b, ms);
    put32(b, ls);
    b.resize(b.size() + 32, 0);
    return b;
}

TEST(InstallPeVersion, ReadsTheFixedFileVersion) {
    for (size_t padding : {0u, 1u, 2u, 3u, 100u}) {
        auto v = pe_file_version(dll_with_version((310u << 16) | 2u, (1u << 16) | 0u, padding));
        ASSERT_TRUE(v.has_value()) << "padding " << padding;
        EXPECT_EQ(*v, "310.2.1.0");
    }
}

TEST(InstallPeVersion, NoVersionResource) {
    EXPECT_FALSE(pe_file_version(dll_with_version(1, 2, 8, 0x12345678)).has_value()); // wrong signature
    std::vector<uint8_t> plain = {'M', 'Z', 0, 0};
    EXPECT_FALSE(pe_file_version(plain).has_value());
    std::vector<uint8_t> not_pe = dll_with_version(1, 2, 8);
    not_pe[0] = 'X';
    EXPECT_FALSE(pe_file_version(not_pe).has_value());
    // Truncated right after the key: no room for the fixed info.
    std::vector<uint8_t> cut = dll_with_version(1, 2, 8);
    cut.resize(2 + 8 + 6 + 32 + 4);
    EXPECT_FALSE(pe_file_version(cut).has_value());
}

} // namespace
} // namespace d4r::release
