// find_ptx_modules on every nvcc-made and hand-made valid fixture of tests/fixtures/ptx.
//
// Where the expected text comes from (independent of the reader): tests/fixtures/ptx/expected/*.ptx are
// `nvcc -ptx` output for the same source and architecture, passed through the normalisation fatbinary
// applies when it stores PTX (comments dropped, blank runs collapsed, lines trimmed; see make-fixtures.sh
// and docs/ptx-containers.md). No cuobjdump ships with the local toolkit, so that is the reference. The
// module list of each fixture (count, order, sm) follows from how make-fixtures.sh/make-malformed.py
// build it: the order of -gencode PTX targets, of objects on the link line, of fatbins concatenated.
#include <algorithm>

#include <gtest/gtest.h>

#include "container_test_support.h"
#include "ptx/container.h"

namespace d4r::ptx {
namespace {

using test::fixture_bytes;
using test::fixture_text;
using test::without_trailing_nuls;

struct ExpectedModule {
    std::string sm;
    std::string text_file; // under expected/
};

struct FixtureCase {
    std::string file;
    ContainerKind kind;
    std::vector<ExpectedModule> modules;
    std::vector<std::string> origin_words; // each must appear in every module's origin
};

const ExpectedModule kKernels89{"sm_89", "kernels.sm_89.ptx"};
const ExpectedModule kKernels75{"sm_75", "kernels.sm_75.ptx"};
const ExpectedModule kKernelsRdc89{"sm_89", "kernels_rdc.sm_89.ptx"};
const ExpectedModule kExtra89{"sm_89", "extra.sm_89.ptx"};

std::vector<FixtureCase> fixture_cases() {
    return {
        {"kernels.plain.fatbin", ContainerKind::Fatbin, {kKernels89}, {"fatbin 0 @0x0, entry 0 (sm_89 PTX)"}},
        {"kernels.zstd.fatbin", ContainerKind::Fatbin, {kKernels89}, {"fatbin 0 @0x0", "zstd"}},
        {"kernels.lz4.fatbin", ContainerKind::Fatbin, {kKernels89}, {"fatbin 0 @0x0", "LZ4"}},
        // -gencode compute_75 PTX, compute_89 PTX, sm_89 cubin: the cubin is not PTX and is skipped.
        {"kernels.multi.fatbin", ContainerKind::Fatbin, {kKernels75, kKernels89}, {"fatbin 0 @0x0"}},
        {"kernels_rdc.o", ContainerKind::Elf, {kKernelsRdc89}, {"ELF section __nv_relfatbin", "zstd"}},
        // kernels.cu then extra.cu on the link line; the section also starts with an empty fatbin.
        {"libkernels.so", ContainerKind::Elf, {kKernels89, kExtra89}, {"ELF section .nv_fatbin"}},
        {"libkernels.noshdr.so", ContainerKind::Elf, {kKernels89, kExtra89}, {"no section table, scan"}},
        // The DLL section starts with 12 bytes of padding before the fatbin (src/fatbin_dll.c).
        {"kernels.dll", ContainerKind::Pe, {kKernels75, kKernels89}, {"PE section 3 '.nv_fatb': fatbin 0 @0x200c"}},
        // zstd + lz4 + multi fatbins, back to back.
        {"synthetic/concat.fatbin", ContainerKind::Fatbin, {kKernels89, kKernels89, kKernels75, kKernels89}, {}},
        {"synthetic/empty.fatbin", ContainerKind::Fatbin, {}, {}},
        // .nv_fatbin holds the plain fatbin, 8 zero bytes of padding, then the LZ4 one (offsets: below).
        {"synthetic/minimal.elf", ContainerKind::Elf, {kKernels89, kKernels89}, {"ELF section .nv_fatbin [3]"}},
        // "junk!" (5), a decoy magic with a 1 TiB size (16), three magic-like bytes, then the fatbin:
        // 0x200 + 24 = 0x218.
        {"synthetic/minimal.dll", ContainerKind::Pe, {kKernels89}, {"PE section 0 '.nv_fatb': fatbin 0 @0x218"}},
        // sections 0 and 1 share their raw data: one module, not two.
        {"synthetic/shared-raw.dll", ContainerKind::Pe, {kKernels89}, {"PE section 0 '.nv_fatb': fatbin 0 @0x200"}},
    };
}

void PrintTo(const FixtureCase& c, std::ostream* os) { *os << c.file; }

class ContainerFixtureTest : public ::testing::TestWithParam<FixtureCase> {};

TEST_P(ContainerFixtureTest, FindsTheExpectedModules) {
    const FixtureCase& c = GetParam();
    const std::vector<uint8_t> bytes = fixture_bytes(c.file);
    EXPECT_EQ(detect_container(bytes), c.kind) << container_kind_name(detect_container(bytes));

    auto modules = find_ptx_modules(bytes);
    ASSERT_TRUE(modules.ok()) << modules.error().text();
    ASSERT_EQ(modules->size(), c.modules.size());
    uint64_t previous_offset = 0;
    for (size_t i = 0; i < c.modules.size(); ++i) {
        const PtxModuleBlob& got = (*modules)[i];
        SCOPED_TRACE(got.origin);
        EXPECT_EQ(got.sm, c.modules[i].sm);
        EXPECT_EQ(without_trailing_nuls(got.text), fixture_text("expected/" + c.modules[i].text_file));
        // fatbinary terminates stored PTX with a NUL (and plain payloads are padded to 8 bytes with more).
        ASSERT_FALSE(got.text.empty());
        EXPECT_EQ(got.text.back(), '\0');
        EXPECT_LT(got.offset, bytes.size());
        EXPECT_GE(got.offset, previous_offset) << "modules must come in file order";
        previous_offset = got.offset;
        for (const std::string& word : c.origin_words) EXPECT_NE(got.origin.find(word), std::string::npos) << word;
    }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, ContainerFixtureTest, ::testing::ValuesIn(fixture_cases()),
                         [](const ::testing::TestParamInfo<FixtureCase>& info) {
                             std::string name;
                             for (char ch : info.param.file)
                                 name += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
                             return name;
                         });

TEST(ContainerTest, PtxTextIsOneModuleWithItsTarget) {
    const std::vector<uint8_t> bytes = fixture_bytes("kernels.ptx");
    EXPECT_EQ(detect_container(bytes), ContainerKind::PtxText);
    auto modules = find_ptx_modules(bytes);
    ASSERT_TRUE(modules.ok()) << modules.error().text();
    ASSERT_EQ(modules->size(), 1u);
    EXPECT_EQ((*modules)[0].text, fixture_text("kernels.ptx")); // byte for byte, comments included
    EXPECT_EQ((*modules)[0].sm, "sm_89");                       // from ".target sm_89"
    EXPECT_EQ((*modules)[0].offset, 0u);
}

TEST(ContainerTest, PlainPayloadIsTakenFromTheFileInPlace) {
    const std::vector<uint8_t> bytes = fixture_bytes("kernels.plain.fatbin");
    auto modules = find_ptx_modules(bytes);
    ASSERT_TRUE(modules.ok()) << modules.error().text();
    ASSERT_EQ(modules->size(), 1u);
    // 16-byte fatbin header + 80-byte PTX entry header (nvcc 13 writes 0x50 for PTX: 64 + options record).
    EXPECT_EQ((*modules)[0].offset, 0x60u);
    const std::string& text = (*modules)[0].text;
    ASSERT_LE(0x60 + text.size(), bytes.size());
    EXPECT_EQ(text, std::string(bytes.begin() + 0x60, bytes.begin() + 0x60 + text.size()));
    EXPECT_EQ(text.size() % 8, 0u) << "the stored payload is padded to 8 bytes";
}

TEST(ContainerTest, PtxTextDetection) {
    auto kind = [](std::string text) {
        return detect_container(std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
    };
    EXPECT_EQ(kind(".version 8.0\n"), ContainerKind::PtxText);
    EXPECT_EQ(kind("\n\t  // header\n//\n.version 8.0\n"), ContainerKind::PtxText);
    EXPECT_EQ(kind("/* block\n comment */ .target sm_80\n"), ContainerKind::PtxText);
    EXPECT_EQ(kind("// only a comment"), ContainerKind::Unknown);
    EXPECT_EQ(kind("/* unterminated .version"), ContainerKind::Unknown);
    EXPECT_EQ(kind("int main() {}"), ContainerKind::Unknown);
    EXPECT_EQ(kind(""), ContainerKind::Unknown);
    EXPECT_EQ(kind("\x7f"
                   "ELF"),
              ContainerKind::Elf);
    EXPECT_EQ(kind("MZ"), ContainerKind::Pe);
    EXPECT_EQ(kind("\x50\xed\x55\xba"), ContainerKind::Fatbin);
    EXPECT_EQ(kind("\x50\xed\x55"), ContainerKind::Unknown);
}

TEST(ContainerTest, PtxTextWithoutTargetHasNoSm) {
    std::string text = "// hand-written\n.version 8.0\n.address_size 64\n";
    auto modules = find_ptx_modules(std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
    ASSERT_TRUE(modules.ok()) << modules.error().text();
    ASSERT_EQ(modules->size(), 1u);
    EXPECT_EQ((*modules)[0].sm, "");
    EXPECT_EQ((*modules)[0].text, text);
}

TEST(ContainerTest, ZeroPaddingBetweenFatbinsInASectionIsSkipped) {
    // make-malformed.py's elf(): 64-byte header, .shstrtab (28 bytes) at 0x40, .text (16 bytes) at 0x60,
    // .nv_fatbin at 0x70 = plain fatbin (2744 bytes), 8 zero bytes, LZ4 fatbin at 0x70 + 2752 = 0xb30.
    auto modules = find_ptx_modules(fixture_bytes("synthetic/minimal.elf"));
    ASSERT_TRUE(modules.ok()) << modules.error().text();
    ASSERT_EQ(modules->size(), 2u);
    EXPECT_NE((*modules)[0].origin.find("fatbin 0 @0x70, entry 0 (sm_89 PTX)"), std::string::npos)
        << (*modules)[0].origin;
    EXPECT_NE((*modules)[1].origin.find("fatbin 1 @0xb30, entry 0 (sm_89 PTX, LZ4)"), std::string::npos)
        << (*modules)[1].origin;
}

TEST(ContainerTest, UnknownEntryKindsAreSkipped) {
    // make-malformed.py: a kind-4 entry with 16 payload bytes, then a PTX entry with this hand-written text.
    auto modules = find_ptx_modules(fixture_bytes("synthetic/unknown-kind.fatbin"));
    ASSERT_TRUE(modules.ok()) << modules.error().text();
    ASSERT_EQ(modules->size(), 1u);
    EXPECT_EQ((*modules)[0].text, std::string(".version 9.0\n.target sm_89\n.address_size 64\n"
                                              ".visible .entry d4r_tiny()\n{\nret;\n}\n\0\0\0\0\0\0\0\0",
                                              88));
    EXPECT_NE((*modules)[0].origin.find("entry 1"), std::string::npos) << (*modules)[0].origin;
}

TEST(ContainerTest, FileWithoutPtxIsAnEmptyList) {
    std::vector<uint8_t> bytes(4096);
    for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i * 7 + 3);
    auto modules = find_ptx_modules(bytes);
    ASSERT_TRUE(modules.ok()) << modules.error().text();
    EXPECT_TRUE(modules->empty());
    auto none = find_ptx_modules({});
    ASSERT_TRUE(none.ok());
    EXPECT_TRUE(none->empty());
}

TEST(ContainerTest, FatbinBuriedInAnUnknownFileIsFoundByTheScan) {
    const std::vector<uint8_t> fatbin = fixture_bytes("kernels.lz4.fatbin");
    std::vector<uint8_t> bytes(1000 + fatbin.size() + 333, 'x');
    std::copy(fatbin.begin(), fatbin.end(), bytes.begin() + 1000);
    auto modules = find_ptx_modules(bytes);
    ASSERT_TRUE(modules.ok()) << modules.error().text();
    ASSERT_EQ(modules->size(), 1u);
    EXPECT_EQ(without_trailing_nuls((*modules)[0].text), fixture_text("expected/kernels.sm_89.ptx"));
    EXPECT_NE((*modules)[0].origin.find("fatbin 0 @0x3e8"), std::string::npos) << (*modules)[0].origin;
}

} // namespace
} // namespace d4r::ptx
