// Malformed containers (tests/fixtures/ptx/malformed, written by make-malformed.py with one defect each):
// find_ptx_modules returns an Invalid Error whose text names the defect and where it is, and never
// crashes (this suite also runs under ASan+UBSan). The expected phrases follow from the defect the
// generator planted, e.g. a payload size made 8 bytes larger than the fatbin holds.
#include <gtest/gtest.h>

#include "container_test_support.h"
#include "ptx/container.h"
#include "ptx/fatbin.h"

namespace d4r::ptx {
namespace {

using test::fixture_bytes;
using test::fixture_text;

struct MalformedCase {
    std::string file;
    std::vector<std::string> phrases; // each must appear in the error text
};

// The zstd/LZ4 fixtures decompress to the expected text plus the NUL fatbinary appends.
std::string decompressed_size() { return std::to_string(fixture_text("expected/kernels.sm_89.ptx").size() + 1); }

std::vector<MalformedCase> malformed_cases() {
    const std::string usize = decompressed_size();
    const std::string usize_plus_1 = std::to_string(std::stoull(usize) + 1);
    const std::string usize_plus_8 = std::to_string(std::stoull(usize) + 8);
    return {
        {"fatbin-truncated-header.fatbin", {"fatbin 0 @0x0", "truncated header (10 bytes left"}},
        {"fatbin-truncated-entry-header.fatbin", {"fatbin 0 @0x0: entry 0 @0x10", "truncated entry header (32 bytes"}},
        // the header claims 2728 bytes after it; the file was cut to 1024
        {"fatbin-size-past-end.fatbin", {"fatbin 0 @0x0", "size 2728 runs past the end", "1008 bytes left"}},
        {"fatbin-entry-past-end.fatbin", {"entry 0 @0x10", "payload size", "runs past the end of the fatbin"}},
        {"fatbin-compressed-size-too-big.fatbin",
         {"entry 0 @0x10", "zstd compressed size", "exceeds the payload size"}},
        {"fatbin-zstd-size-lie.fatbin",
         {"entry 0 @0x10", "zstd: frame declares " + usize + " bytes, header says " + usize_plus_1}},
        {"fatbin-zstd-truncated.fatbin", {"entry 0 @0x10", "zstd: "}},
        {"fatbin-lz4-size-lie.fatbin",
         {"entry 0 @0x10", "lz4: decompressed to " + usize + " bytes, header says " + usize_plus_8}},
        {"fatbin-lz4-truncated.fatbin", {"entry 0 @0x10", "lz4: corrupt block"}},
        {"fatbin-zero-length-ptx.fatbin", {"entry 0 @0x10", "zero-length PTX payload"}},
        {"fatbin-zero-length-zstd.fatbin", {"entry 0 @0x10", "zero-length PTX (zstd uncompressed size 0)"}},
        {"fatbin-wrong-version.fatbin", {"fatbin 0 @0x0", "unsupported version 2"}},
        {"fatbin-huge-size.fatbin", {"size 18446744073709551615 runs past the end"}},
        {"fatbin-huge-payload.fatbin", {"entry 0 @0x10", "payload size 18446744073709551615 runs past the end"}},
        {"fatbin-huge-entry-header.fatbin", {"entry 0 @0x10", "header size 4294967295"}},
        {"fatbin-huge-uncompressed.fatbin",
         {"entry 0 @0x10", "PTX module of 18446744073709551615 bytes exceeds the limit"}},
        {"fatbin-both-flags.fatbin", {"entry 0 @0x10", "both LZ4 and zstd"}},
        // 2744 bytes of good fatbin, then "garbage!" read as a second fatbin's magic
        {"fatbin-trailing-garbage.fatbin", {"fatbin 1 @0xab8", "bad magic 0x62726167"}},
        {"elf-section-table-past-end.elf", {"ELF: section header table at", "extends past the end of the file"}},
        {"elf-section-table-huge-offset.elf", {"ELF: section header table at 0xffffffffffffff00", "past the end"}},
        {"elf-fatbin-section-past-end.elf", {"ELF section .nv_fatbin [2]", "(1048576 bytes) extends past the end"}},
        {"elf-bad-fatbin.elf", {"ELF section .nv_fatbin [2]: fatbin 0 @0x60: entry 0 @0x70", "zstd: frame declares"}},
        // the second .nv_fatbin section [3] starts 8 bytes into the first one [2] (at 0x70)
        {"elf-overlapping-sections.elf", {"ELF section .nv_fatbin [3]: at 0x78 overlaps section .nv_fatbin [2]"}},
        {"pe-section-past-end.dll", {"PE: section 0 '.nv_fatb': raw data at 0x10000", "extends past the end"}},
        {"pe-section-table-past-end.dll", {"PE: section table at 0x148 (200 sections) extends past the end"}},
        // 8 zero bytes at the start of the section (file offset 0x200), then the lying fatbin
        {"pe-bad-fatbin.dll", {"PE section 0 '.nv_fatb': fatbin 0 @0x208: entry 0 @0x218", "zstd: frame declares"}},
    };
}

void PrintTo(const MalformedCase& c, std::ostream* os) { *os << c.file; }

class ContainerMalformedTest : public ::testing::TestWithParam<MalformedCase> {};

TEST_P(ContainerMalformedTest, IsAnInvalidErrorNamingTheDefect) {
    const MalformedCase& c = GetParam();
    auto modules = find_ptx_modules(fixture_bytes("malformed/" + c.file));
    ASSERT_FALSE(modules.ok()) << c.file << " gave " << modules->size() << " modules";
    EXPECT_EQ(modules.error().code(), ErrorCode::Invalid);
    const std::string text = modules.error().text();
    for (const std::string& phrase : c.phrases) EXPECT_NE(text.find(phrase), std::string::npos) << text;
}

INSTANTIATE_TEST_SUITE_P(Malformed, ContainerMalformedTest, ::testing::ValuesIn(malformed_cases()),
                         [](const ::testing::TestParamInfo<MalformedCase>& info) {
                             std::string name;
                             for (char ch : info.param.file)
                                 name += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
                             return name;
                         });

TEST(ContainerMalformedTest, WrongMagicIsNotAFatbinButTheFatbinReaderSaysWhy) {
    // A file whose first 4 bytes are not the magic is not a fatbin: nothing to report from a scan...
    const std::vector<uint8_t> bytes = fixture_bytes("malformed/fatbin-wrong-magic.fatbin");
    EXPECT_EQ(detect_container(bytes), ContainerKind::Unknown);
    auto modules = find_ptx_modules(bytes);
    ASSERT_TRUE(modules.ok()) << modules.error().text();
    EXPECT_TRUE(modules->empty());
    // ...while asking the fatbin reader to read it there is an error naming the bad magic.
    ModuleCollector out(ContainerLimits{});
    auto read = read_fatbin(bytes, 0, bytes.size(), "", out);
    ASSERT_FALSE(read.ok());
    EXPECT_EQ(read.error().code(), ErrorCode::Invalid);
    EXPECT_NE(read.error().text().find("bad magic 0xba55ed51"), std::string::npos) << read.error().text();
}

TEST(ContainerMalformedTest, EveryPrefixOfEveryFixtureIsHandled) {
    // Truncation at every length of a few small fixtures: an error or a (possibly shorter) module list,
    // never a crash; ASan catches any read past the prefix.
    for (const char* file :
         {"kernels.zstd.fatbin", "kernels.lz4.fatbin", "synthetic/minimal.dll", "synthetic/unknown-kind.fatbin"}) {
        const std::vector<uint8_t> bytes = fixture_bytes(file);
        for (size_t n = 0; n <= bytes.size(); ++n) {
            std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + n);
            auto modules = find_ptx_modules(prefix);
            if (n == bytes.size()) {
                EXPECT_TRUE(modules.ok()) << file;
            }
            if (!modules.ok()) {
                EXPECT_EQ(modules.error().code(), ErrorCode::Invalid) << file << " @" << n;
            }
        }
    }
}

} // namespace
} // namespace d4r::ptx
