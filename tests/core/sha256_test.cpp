// SHA-256 against the FIPS 180-4 / NIST example digests, across block boundaries and chunkings.
#include <gtest/gtest.h>

#include <string>

#include "core/sha256.h"
#include "test_support.h"

namespace d4r {
namespace {

namespace fs = std::filesystem;

TEST(Sha256, KnownDigests) {
    EXPECT_EQ(sha256_hex(std::string_view("")), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    EXPECT_EQ(sha256_hex(std::string_view("abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    EXPECT_EQ(sha256_hex(std::string_view("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
              "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    EXPECT_EQ(sha256_hex(std::string(1000000, 'a')),
              "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, ChunkingDoesNotMatter) {
    std::string text;
    for (int i = 0; i < 300; ++i) text += char('a' + i % 26);
    const std::string whole = sha256_hex(text);
    for (size_t step : {1u, 3u, 55u, 56u, 63u, 64u, 65u}) {
        Sha256 h;
        for (size_t i = 0; i < text.size(); i += step) h.update(std::string_view(text).substr(i, step));
        EXPECT_EQ(h.finish_hex(), whole) << "step " << step;
    }
}

TEST(Sha256, FileDigestAndMissingFile) {
    test::TempDir t;
    const fs::path p = t.write("f.bin", "abc");
    auto digest = sha256_file_hex(p);
    ASSERT_TRUE(digest.ok());
    EXPECT_EQ(*digest, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    auto missing = sha256_file_hex(t.path() / "nope");
    ASSERT_FALSE(missing.ok());
    EXPECT_NE(missing.error().text().find("nope"), std::string::npos);
}

} // namespace
} // namespace d4r
