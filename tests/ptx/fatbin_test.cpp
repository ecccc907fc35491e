// The fatbin reader's building blocks: the magic scan, the plausibility check, bounded decompression,
// and fatbins assembled in memory field by field (layout: docs/ptx-containers.md).
#include <cstring>
#include <random>

#include <gtest/gtest.h>
#include <lz4.h>
#include <zstd.h>

#include "container_test_support.h"
#include "ptx/container.h"
#include "ptx/decompress.h"
#include "ptx/fatbin.h"

namespace d4r::ptx {
namespace {

void put16(std::vector<uint8_t>& b, size_t at, uint16_t v) {
    for (int i = 0; i < 2; ++i) b[at + i] = uint8_t(v >> (8 * i));
}
void put32(std::vector<uint8_t>& b, size_t at, uint32_t v) {
    for (int i = 0; i < 4; ++i) b[at + i] = uint8_t(v >> (8 * i));
}
void put64(std::vector<uint8_t>& b, size_t at, uint64_t v) {
    for (int i = 0; i < 8; ++i) b[at + i] = uint8_t(v >> (8 * i));
}

// One PTX entry: the 64-byte fixed header (kind, header size, payload size, compressed size, arch, flags,
// uncompressed size) followed by PAYLOAD padded to 8 bytes.
std::vector<uint8_t> ptx_entry(const std::vector<uint8_t>& payload, uint32_t arch, uint64_t flags = 0x11,
                               uint32_t compressed = 0, uint64_t uncompressed = 0) {
    const size_t padded = (payload.size() + 7) / 8 * 8;
    std::vector<uint8_t> e(64 + padded, 0);
    put16(e, 0x00, 1);
    put16(e, 0x02, 0x0101);
    put32(e, 0x04, 64);
    put64(e, 0x08, padded);
    put32(e, 0x10, compressed);
    put16(e, 0x1a, 9);
    put32(e, 0x1c, arch);
    put64(e, 0x28, flags);
    put64(e, 0x38, uncompressed);
    std::memcpy(e.data() + 64, payload.data(), payload.size());
    return e;
}

std::vector<uint8_t> fatbin_of(const std::vector<std::vector<uint8_t>>& entries) {
    std::vector<uint8_t> f(16, 0);
    for (const auto& e : entries) f.insert(f.end(), e.begin(), e.end());
    put32(f, 0, kFatbinMagic);
    put16(f, 4, 1);
    put16(f, 6, 16);
    put64(f, 8, f.size() - 16);
    return f;
}

std::vector<uint8_t> bytes_of(const std::string& s) { return std::vector<uint8_t>(s.begin(), s.end()); }

const std::string kPtx = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\nret;\n}\n";

TEST(FatbinScanTest, FindsTheMagicAtEveryAlignmentAndNothingElse) {
    std::vector<uint8_t> noise(300);
    std::mt19937 rng(42);
    for (auto& b : noise) b = static_cast<uint8_t>(rng() % 0xED); // never 0xED: no accidental magic
    for (size_t at = 0; at + 4 <= noise.size(); at += 1) {
        std::vector<uint8_t> b = noise;
        put32(b, at, kFatbinMagic);
        EXPECT_EQ(find_fatbin_magic(b, 0, b.size()), at);
        EXPECT_EQ(find_fatbin_magic(b, at, b.size()), at);
        EXPECT_EQ(find_fatbin_magic(b, at + 1, b.size()), b.size()) << at;
        EXPECT_EQ(find_fatbin_magic(b, 0, at + 3), at + 3) << "a magic cut by END is not found";
    }
}

TEST(FatbinScanTest, SkipsPartialMagics) {
    std::vector<uint8_t> b = {0x50, 0xED, 0x55, 0x00, 0xED, 0xED, 0x50, 0xED, 0x55, 0xBA, 0x00};
    EXPECT_EQ(find_fatbin_magic(b, 0, b.size()), 6u);
    EXPECT_EQ(find_fatbin_magic(b, 0, 3), 3u);
    EXPECT_EQ(find_fatbin_magic({}, 0, 0), 0u);
}

TEST(FatbinScanTest, PlausibilityNeedsAFittingFirstEntry) {
    std::vector<uint8_t> good = fatbin_of({ptx_entry(bytes_of(kPtx), 80)});
    EXPECT_TRUE(plausible_fatbin_at(good, 0, good.size()));
    EXPECT_FALSE(plausible_fatbin_at(good, 0, good.size() - 1)) << "size past END";
    std::vector<uint8_t> b = good;
    put16(b, 4, 2);
    EXPECT_FALSE(plausible_fatbin_at(b, 0, b.size())) << "version";
    b = good;
    put16(b, 16, 0);
    EXPECT_FALSE(plausible_fatbin_at(b, 0, b.size())) << "entry kind 0";
    b = good;
    put32(b, 16 + 4, 8);
    EXPECT_FALSE(plausible_fatbin_at(b, 0, b.size())) << "entry header below 64 bytes";
    b = good;
    put64(b, 16 + 8, 1 << 20);
    EXPECT_FALSE(plausible_fatbin_at(b, 0, b.size())) << "payload past the fatbin";
    std::vector<uint8_t> empty = fatbin_of({});
    EXPECT_FALSE(plausible_fatbin_at(empty, 0, empty.size())) << "a scan ignores entry-less fatbins";
}

TEST(FatbinReadTest, InMemoryFatbinWithAllThreeEncodings) {
    std::string text = kPtx + std::string(1, '\0');
    std::vector<uint8_t> plain = bytes_of(text);

    std::vector<uint8_t> lz4(LZ4_compressBound(static_cast<int>(text.size())));
    lz4.resize(LZ4_compress_default(text.data(), reinterpret_cast<char*>(lz4.data()), static_cast<int>(text.size()),
                                    static_cast<int>(lz4.size())));
    std::vector<uint8_t> zstd(ZSTD_compressBound(text.size()));
    zstd.resize(ZSTD_compress(zstd.data(), zstd.size(), text.data(), text.size(), 3));

    std::vector<uint8_t> f = fatbin_of({
        ptx_entry(plain, 70),
        ptx_entry(lz4, 75, 0x11 | kFatbinFlagLz4, static_cast<uint32_t>(lz4.size()), text.size()),
        ptx_entry(zstd, 80, 0x11 | kFatbinFlagZstd, static_cast<uint32_t>(zstd.size()), text.size()),
    });
    auto modules = find_ptx_modules(f);
    ASSERT_TRUE(modules.ok()) << modules.error().text();
    ASSERT_EQ(modules->size(), 3u);
    EXPECT_EQ((*modules)[0].sm, "sm_70");
    EXPECT_EQ((*modules)[1].sm, "sm_75");
    EXPECT_EQ((*modules)[2].sm, "sm_80");
    for (const auto& m : *modules) EXPECT_EQ(test::without_trailing_nuls(m.text), kPtx) << m.origin;
    EXPECT_EQ((*modules)[0].offset, 16u + 64u);
    EXPECT_EQ((*modules)[0].origin, "fatbin 0 @0x0, entry 0 (sm_70 PTX)");
    EXPECT_NE((*modules)[1].origin.find("entry 1 (sm_75 PTX, LZ4)"), std::string::npos) << (*modules)[1].origin;
    EXPECT_NE((*modules)[2].origin.find("entry 2 (sm_80 PTX, zstd)"), std::string::npos) << (*modules)[2].origin;
}

TEST(FatbinReadTest, ZstdFrameWithoutContentSizeIsBoundedByTheHeader) {
    // A streamed zstd frame carries no content size; the header's uncompressed size is the only bound.
    std::string text(5000, 'p');
    ZSTD_CCtx* cctx = ZSTD_createCCtx();
    ASSERT_NE(cctx, nullptr);
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 0);
    std::vector<uint8_t> frame(ZSTD_compressBound(text.size()));
    frame.resize(ZSTD_compress2(cctx, frame.data(), frame.size(), text.data(), text.size()));
    ZSTD_freeCCtx(cctx);
    ASSERT_EQ(ZSTD_getFrameContentSize(frame.data(), frame.size()), ZSTD_CONTENTSIZE_UNKNOWN);

    auto exact = decompress_zstd_frame(frame, text.size());
    ASSERT_TRUE(exact.ok()) << exact.error().text();
    EXPECT_EQ(*exact, text);
    auto too_small = decompress_zstd_frame(frame, 100);
    ASSERT_FALSE(too_small.ok());
    EXPECT_NE(too_small.error().text().find("zstd:"), std::string::npos);
    auto too_big = decompress_zstd_frame(frame, text.size() + 1);
    ASSERT_FALSE(too_big.ok());
    EXPECT_NE(too_big.error().text().find("decompressed to 5000 bytes, header says 5001"), std::string::npos)
        << too_big.error().text();
    auto garbage = decompress_zstd_frame(bytes_of("not zstd at all"), 10);
    ASSERT_FALSE(garbage.ok());
    EXPECT_NE(garbage.error().text().find("not a zstd frame"), std::string::npos) << garbage.error().text();
}

TEST(FatbinReadTest, CompressedEntryWithCompressedSizeZeroIsInvalid) {
    std::vector<uint8_t> f = fatbin_of({ptx_entry(bytes_of("xxxxxxxx"), 80, 0x11 | kFatbinFlagLz4, 0, 100)});
    auto modules = find_ptx_modules(f);
    ASSERT_FALSE(modules.ok());
    EXPECT_NE(modules.error().text().find("LZ4 entry with compressed size 0"), std::string::npos)
        << modules.error().text();
}

TEST(FatbinReadTest, ScanFindsFatbinsBetweenDecoysAndContinuesAfterEach) {
    std::vector<uint8_t> one = fatbin_of({ptx_entry(bytes_of(kPtx), 80)});
    std::vector<uint8_t> data(100, 0xED); // probe bytes everywhere
    put32(data, 10, kFatbinMagic);        // a decoy: the bytes after it are no header
    data.insert(data.end(), one.begin(), one.end());
    data.insert(data.end(), 7, 0x50);
    data.insert(data.end(), one.begin(), one.end());
    ModuleCollector out(ContainerLimits{});
    ASSERT_TRUE(scan_fatbins(data, 0, data.size(), "test", out).ok());
    auto modules = std::move(out).take();
    ASSERT_EQ(modules.size(), 2u);
    EXPECT_EQ(modules[0].origin, "test: fatbin 0 @0x64, entry 0 (sm_80 PTX)");
    EXPECT_EQ(modules[1].origin, fmt::format("test: fatbin 1 @0x{:x}, entry 0 (sm_80 PTX)", 100 + one.size() + 7));
}

TEST(FatbinReadTest, ScanRespectsTheRangeItIsGiven) {
    std::vector<uint8_t> one = fatbin_of({ptx_entry(bytes_of(kPtx), 80)});
    std::vector<uint8_t> data(64, 'z');
    data.insert(data.end(), one.begin(), one.end());
    ModuleCollector out(ContainerLimits{});
    // The range ends one byte before the fatbin does: not plausible there, so nothing is read.
    ASSERT_TRUE(scan_fatbins(data, 0, data.size() - 1, "test", out).ok());
    EXPECT_TRUE(std::move(out).take().empty());
}

} // namespace
} // namespace d4r::ptx
