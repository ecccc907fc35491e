// The kernel manifest d4r-kernels.txt (docs/runtime.md, "Native-kernel overrides"): parsing with line-numbered errors,
// writing, round trip, and the queries the runtime makes.
#include <gtest/gtest.h>

#include "core/files.h"
#include "ptx/manifest.h"
#include "test_support.h"

namespace d4r::ptx {
namespace {

Manifest parse_ok(std::string_view text) {
    auto m = Manifest::parse(text);
    EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error().text());
    return m.ok() ? std::move(*m) : Manifest{};
}

std::string parse_error(std::string_view text) {
    auto m = Manifest::parse(text);
    EXPECT_FALSE(m.ok()) << "parsed without error:\n" << text;
    return m.ok() ? "" : m.error().text();
}

TEST(PtxManifest, ParsesNamesHashesCommentsAndBlankLines) {
    Manifest m = parse_ok("# written by hand\n"
                          "\n"
                          "conv_fwd 0123456789abcdef\n"
                          "   \t\n"
                          "conv_fwd\tFEDCBA9876543210   # a second library version, uppercase\r\n"
                          "_Z4gemmPf 00000000000000ff\n");
    EXPECT_EQ(m.kernel_count(), 2u);
    EXPECT_EQ(m.entry_count(), 3u);
    EXPECT_EQ(m.names(), (std::vector<std::string>{"_Z4gemmPf", "conv_fwd"}));
    EXPECT_EQ(m.hashes_for("conv_fwd"), (std::vector<uint64_t>{0x0123456789abcdefull, 0xfedcba9876543210ull}));
    EXPECT_TRUE(m.allows("conv_fwd", 0xfedcba9876543210ull));
    EXPECT_TRUE(m.allows("_Z4gemmPf", 0xff));
    EXPECT_FALSE(m.allows("conv_fwd", 0xff));
    EXPECT_FALSE(m.allows("conv", 0x0123456789abcdefull));
    EXPECT_TRUE(m.hashes_for("missing").empty());
}

TEST(PtxManifest, DuplicateLinesAreHarmless) {
    Manifest m = parse_ok("k 0000000000000001\nk 0000000000000001\nk 0000000000000001\n");
    EXPECT_EQ(m.entry_count(), 1u);
    EXPECT_EQ(m.hashes_for("k"), std::vector<uint64_t>{1});
}

TEST(PtxManifest, EmptyAndCommentOnly) {
    EXPECT_TRUE(parse_ok("").empty());
    EXPECT_TRUE(parse_ok("# nothing\n\n#\n").empty());
    EXPECT_TRUE(parse_ok("\xEF\xBB\xBFk 0000000000000001\n").allows("k", 1)); // a UTF-8 BOM from an editor
}

TEST(PtxManifest, BadLinesNameTheLine) {
    EXPECT_EQ(parse_error("# ok\nk 0000000000000001\nk 123\n"),
              "d4r-kernels.txt:3: expected 'NAME HASH' with HASH 16 hex digits, got 'k 123'");
    EXPECT_EQ(parse_error("k\n"), "d4r-kernels.txt:1: expected 'NAME HASH' with HASH 16 hex digits, got 'k'");
    EXPECT_EQ(parse_error("\n\nk 0000000000000001 extra\n"),
              "d4r-kernels.txt:3: expected 'NAME HASH' with HASH 16 hex digits, got 'k 0000000000000001 extra'");
    EXPECT_EQ(parse_error("k 0x00000000000001\n"),
              "d4r-kernels.txt:1: expected 'NAME HASH' with HASH 16 hex digits, got 'k 0x00000000000001'");
    EXPECT_EQ(parse_error("k 000000000000000g\n"),
              "d4r-kernels.txt:1: expected 'NAME HASH' with HASH 16 hex digits, got 'k 000000000000000g'");
    EXPECT_EQ(parse_error("a.b 0000000000000001\n"),
              "d4r-kernels.txt:1: 'a.b' is not a kernel name (a PTX identifier)");
    EXPECT_EQ(parse_error("9k 0000000000000001\n"), "d4r-kernels.txt:1: '9k' is not a kernel name (a PTX identifier)");
    EXPECT_EQ(parse_error("k\x01 0000000000000001\n"),
              "d4r-kernels.txt:1: 'k\\x01' is not a kernel name (a PTX identifier)");
    // Long junk is cut short in the message.
    std::string long_line(500, 'x');
    std::string message = parse_error(long_line);
    EXPECT_LT(message.size(), 160u);
    EXPECT_NE(message.find("..."), std::string::npos);
    // The source name is what the caller says.
    auto m = Manifest::parse("bad\n", "/kernels/gfx1101/d4r-kernels.txt");
    ASSERT_FALSE(m.ok());
    EXPECT_EQ(m.error().text().rfind("/kernels/gfx1101/d4r-kernels.txt:1: ", 0), 0u) << m.error().text();
}

TEST(PtxManifest, WritesSortedLowercaseWithAHeader) {
    Manifest m;
    ASSERT_TRUE(m.add("zeta", 0xABCDEF0123456789ull).ok());
    ASSERT_TRUE(m.add("alpha", 2).ok());
    ASSERT_TRUE(m.add("alpha", 1).ok());
    ASSERT_TRUE(m.add("alpha", 1).ok());
    EXPECT_FALSE(m.add("not a name", 1).ok());
    EXPECT_FALSE(m.add("", 1).ok());
    std::string text = m.to_text("d4r kernels manifest (test)");
    const std::string body = "alpha 0000000000000001\n"
                             "alpha 0000000000000002\n"
                             "zeta abcdef0123456789\n";
    ASSERT_GE(text.size(), body.size());
    EXPECT_EQ(text.substr(text.size() - body.size()), body);
    std::string header = text.substr(0, text.size() - body.size());
    EXPECT_EQ(header.rfind("# ", 0), 0u);
    EXPECT_NE(header.find("d4r kernels manifest (test)"), std::string::npos);
    EXPECT_EQ(header.back(), '\n');
    // Every header line is a comment.
    size_t pos = 0;
    while (pos < header.size()) {
        EXPECT_EQ(header[pos], '#');
        pos = header.find('\n', pos) + 1;
    }
    // A writer name with a newline cannot break out of the comment.
    EXPECT_TRUE(parse_ok(m.to_text("evil\nk 0000000000000001")) == m);
}

TEST(PtxManifest, RoundTrip) {
    Manifest original =
        parse_ok("b 00000000000000AA\na FFFFFFFFFFFFFFFF\na 0000000000000000\n# x\n$k_1 1234567890abcdef\n");
    std::string text = original.to_text("test");
    Manifest again = parse_ok(text);
    EXPECT_TRUE(again == original);
    EXPECT_EQ(again.to_text("test"), text);
    // Hashes read in uppercase are written in lowercase.
    EXPECT_NE(text.find("b 00000000000000aa\n"), std::string::npos);
    EXPECT_NE(text.find("a ffffffffffffffff\n"), std::string::npos);
}

TEST(PtxManifest, SaveAndLoad) {
    test::TempDir dir;
    Manifest m;
    ASSERT_TRUE(m.add("k", 42).ok());
    fs::path path = dir.path() / std::string(kManifestFileName);
    ASSERT_TRUE(m.save(path, "test").ok());
    auto loaded = Manifest::load(path);
    ASSERT_TRUE(loaded.ok()) << loaded.error().text();
    EXPECT_TRUE(*loaded == m);
    // Errors from load name the path.
    dir.write("bad.txt", "k 1\n");
    auto bad = Manifest::load(dir.path() / "bad.txt");
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().text(),
              (dir.path() / "bad.txt").string() + ":1: expected 'NAME HASH' with HASH 16 hex digits, got 'k 1'");
    auto missing = Manifest::load(dir.path() / "none.txt");
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().code(), ErrorCode::NotFound);
}

TEST(PtxManifest, KernelNames) {
    EXPECT_TRUE(is_kernel_name("k"));
    EXPECT_TRUE(is_kernel_name("_Z3fooPf"));
    EXPECT_TRUE(is_kernel_name("$x"));
    EXPECT_TRUE(is_kernel_name("a$b_9"));
    EXPECT_FALSE(is_kernel_name("_"));
    EXPECT_FALSE(is_kernel_name("1a"));
    EXPECT_FALSE(is_kernel_name("a-b"));
    EXPECT_FALSE(is_kernel_name("a b"));
    EXPECT_FALSE(is_kernel_name(""));
}

} // namespace
} // namespace d4r::ptx
