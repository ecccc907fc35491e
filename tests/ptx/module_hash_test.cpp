// The module hash (docs/runtime.md, "Native-kernel overrides"): FNV-1a 64 over the module text without trailing NULs,
// as 16 lowercase hex digits. Checked against published FNV-1a test vectors and an independent byte loop written here.
#include <gtest/gtest.h>

#include <string>

#include "ptx/module_hash.h"

namespace d4r::ptx {
namespace {

// A second, deliberately naive FNV-1a 64 (offset basis and prime from the FNV reference).
uint64_t reference_fnv1a64(const std::string& bytes) {
    uint64_t h = 14695981039346656037ull;
    for (unsigned char c : bytes) {
        h ^= c;
        h *= 1099511628211ull;
    }
    return h;
}

TEST(PtxModuleHash, KnownVectors) {
    EXPECT_EQ(module_hash_hex(""), "cbf29ce484222325");
    EXPECT_EQ(module_hash_hex("a"), "af63dc4c8601ec8c");
    EXPECT_EQ(module_hash_hex("foobar"), "85944171f73967e8");
}

TEST(PtxModuleHash, TrailingNulsDoNotCount) {
    std::string text = ".version 9.0\n.target sm_89\n";
    std::string padded = text + std::string(7, '\0');
    EXPECT_EQ(module_hash(padded), module_hash(text));
    EXPECT_EQ(module_hash(text), reference_fnv1a64(text));
    EXPECT_EQ(strip_trailing_nuls(padded), text);
    EXPECT_EQ(strip_trailing_nuls(std::string(3, '\0')), "");
    // A NUL inside the text is part of it.
    std::string inner = std::string("a\0b", 3);
    EXPECT_EQ(module_hash(inner), reference_fnv1a64(inner));
    EXPECT_NE(module_hash(inner), module_hash("ab"));
}

TEST(PtxModuleHash, HexIsSixteenLowercaseDigits) {
    std::string text = "// a module\n.entry k() { }\n";
    std::string hex = module_hash_hex(text);
    ASSERT_EQ(hex.size(), 16u);
    for (char c : hex) EXPECT_TRUE((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')) << hex;
    EXPECT_EQ(std::stoull(hex, nullptr, 16), reference_fnv1a64(text));
    // Small hashes keep their leading zeros.
    EXPECT_EQ(parse_module_hash("000000000000002a"), 42u);
}

TEST(PtxModuleHash, ParseHash) {
    EXPECT_EQ(parse_module_hash("cbf29ce484222325"), 0xcbf29ce484222325ull);
    EXPECT_EQ(parse_module_hash("CBF29CE484222325"), 0xcbf29ce484222325ull);
    EXPECT_FALSE(parse_module_hash("cbf29ce48422232"));   // 15 digits
    EXPECT_FALSE(parse_module_hash("cbf29ce4842223255")); // 17 digits
    EXPECT_FALSE(parse_module_hash("0xf29ce484222325"));
    EXPECT_FALSE(parse_module_hash("cbf29ce48422232g"));
    EXPECT_FALSE(parse_module_hash(""));
}

} // namespace
} // namespace d4r::ptx
