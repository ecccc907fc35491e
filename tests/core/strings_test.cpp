#include <gtest/gtest.h>

#include "core/fnv1a.h"
#include "core/strings.h"

namespace d4r {
namespace {

TEST(Strings, TrimLowerEquals) {
    EXPECT_EQ(trim("  a b \t\r\n"), "a b");
    EXPECT_EQ(trim(""), "");
    EXPECT_EQ(trim(" \t "), "");
    EXPECT_EQ(to_lower("PreferAccuracy"), "preferaccuracy");
    EXPECT_TRUE(iequals("NativeKernels", "nativekernels"));
    EXPECT_FALSE(iequals("NativeKernel", "nativekernels"));
}

TEST(Strings, Split) {
    auto parts = split("a,,b,", ',');
    ASSERT_EQ(parts.size(), 4u);
    EXPECT_EQ(parts[0], "a");
    EXPECT_EQ(parts[1], "");
    EXPECT_EQ(parts[3], "");
}

TEST(Strings, ParseNumbers) {
    EXPECT_EQ(parse_i64("-12"), -12);
    EXPECT_EQ(parse_i64("+7"), 7);
    EXPECT_EQ(parse_i64("12x"), std::nullopt);
    EXPECT_EQ(parse_i64(""), std::nullopt);
    EXPECT_EQ(parse_i64("+"), std::nullopt);
    EXPECT_EQ(parse_i64(" 1"), std::nullopt);
    EXPECT_EQ(parse_u64("18446744073709551615"), UINT64_MAX);
    EXPECT_EQ(parse_u64("18446744073709551616"), std::nullopt);
    EXPECT_EQ(parse_u64("-1"), std::nullopt);
    EXPECT_EQ(parse_u64_any_base("0x1F"), 31u);
    EXPECT_EQ(parse_u64_any_base("0x"), std::nullopt);
    EXPECT_EQ(parse_u64_any_base("0xzz"), std::nullopt);
    EXPECT_EQ(parse_u64_any_base("42"), 42u);
}

TEST(Strings, ParseByteSize) {
    EXPECT_EQ(parse_byte_size("6442450944"), 6442450944ull);
    EXPECT_EQ(parse_byte_size("0"), 0u); // a reader may refuse it (D4R_CPU_MEMORY_LIMIT), not the parser
    EXPECT_EQ(parse_byte_size("256M"), 256ull << 20);
    EXPECT_EQ(parse_byte_size("4096kib"), 4096ull << 10);
    EXPECT_EQ(parse_byte_size("2GB"), 2ull << 30);
    EXPECT_EQ(parse_byte_size("1T"), 1ull << 40);
    EXPECT_EQ(parse_byte_size("17179869184G"), std::nullopt); // past 2^64 - 1
    EXPECT_EQ(parse_byte_size(""), std::nullopt);
    EXPECT_EQ(parse_byte_size("M"), std::nullopt);
    EXPECT_EQ(parse_byte_size("-1"), std::nullopt);
    EXPECT_EQ(parse_byte_size("12 M"), std::nullopt);
    EXPECT_EQ(parse_byte_size("12X"), std::nullopt);
}

TEST(Strings, ShellQuote) {
    EXPECT_EQ(shell_quote("gfx1101"), "gfx1101");
    EXPECT_EQ(shell_quote("/opt/d4r/kernels"), "/opt/d4r/kernels");
    EXPECT_EQ(shell_quote(""), "''");
    EXPECT_EQ(shell_quote("a b"), "'a b'");
    EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
    EXPECT_EQ(shell_quote("$HOME"), "'$HOME'");
    EXPECT_EQ(shell_quote("r.Cvar=1;x"), "'r.Cvar=1;x'");
}

TEST(Strings, ClosestMatch) {
    std::vector<std::string> keys{"PreferAccuracy", "NativeKernels", "Wmma", "Fp8Wmma"};
    EXPECT_EQ(closest_match("PreferAcuracy", keys), "PreferAccuracy");
    EXPECT_EQ(closest_match("nativekernel", keys), "NativeKernels");
    EXPECT_EQ(closest_match("Completely", keys), std::nullopt);
    EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
    EXPECT_EQ(edit_distance("ABC", "abc"), 0u);
}

TEST(Fnv1a64, KnownVectors) {
    // Published FNV-1a 64-bit test vectors.
    EXPECT_EQ(fnv1a64(std::string_view("")), 0xcbf29ce484222325ull);
    EXPECT_EQ(fnv1a64(std::string_view("a")), 0xaf63dc4c8601ec8cull);
    EXPECT_EQ(fnv1a64(std::string_view("foobar")), 0x85944171f73967e8ull);
    static_assert(fnv1a64(std::string_view("a")) == 0xaf63dc4c8601ec8cull);
    Fnv1a64 h;
    h.feed(std::string_view("foo"));
    h.feed(std::string_view("bar"));
    EXPECT_EQ(h.value(), 0x85944171f73967e8ull);
    EXPECT_EQ(hex64(0xaf63dc4c8601ec8cull), "af63dc4c8601ec8c");
    EXPECT_EQ(hex64(1), "0000000000000001");
}

} // namespace
} // namespace d4r
