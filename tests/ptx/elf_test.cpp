// The ELF64 section-table reader against readelf: tests/fixtures/ptx/expected/sections.txt holds
// `readelf -S -W` of the nvcc-made ELF fixtures (written by make-fixtures.sh).
#include <sstream>

#include <gtest/gtest.h>

#include "container_test_support.h"
#include "ptx/elf.h"

namespace d4r::ptx {
namespace {

using test::fixture_bytes;

struct ReadelfSection {
    uint32_t index;
    std::string name, type;
    uint64_t offset, size;
};

std::vector<ReadelfSection> readelf_sections(const std::string& file) {
    std::istringstream in(test::fixture_text("expected/sections.txt"));
    std::vector<ReadelfSection> out;
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream fields(line);
        std::string f, offset, size;
        ReadelfSection s;
        fields >> f >> s.index >> s.name >> s.type >> offset >> size;
        if (f != file) continue;
        s.offset = std::stoull(offset, nullptr, 16);
        s.size = std::stoull(size, nullptr, 16);
        out.push_back(s);
    }
    return out;
}

TEST(ElfTest, SectionTableMatchesReadelf) {
    for (const std::string file : {"kernels_rdc.o", "libkernels.so"}) {
        SCOPED_TRACE(file);
        const std::vector<ReadelfSection> expected = readelf_sections(file);
        ASSERT_GT(expected.size(), 10u);
        auto image = read_elf_sections(fixture_bytes(file));
        ASSERT_TRUE(image.ok()) << image.error().text();
        EXPECT_TRUE(image->has_section_table);
        ASSERT_EQ(image->sections.size(), expected.size() + 1) << "readelf lists all but the null section";
        for (const ReadelfSection& s : expected) {
            const ElfSection& got = image->sections.at(s.index);
            EXPECT_EQ(got.index, s.index);
            EXPECT_EQ(got.name, s.name);
            EXPECT_EQ(got.offset, s.offset) << s.name;
            EXPECT_EQ(got.size, s.size) << s.name;
            EXPECT_EQ(got.type == kElfSectionNobits, s.type == "NOBITS") << s.name;
        }
    }
}

TEST(ElfTest, StrippedSectionTableIsNotAnError) {
    auto image = read_elf_sections(fixture_bytes("libkernels.noshdr.so"));
    ASSERT_TRUE(image.ok()) << image.error().text();
    EXPECT_FALSE(image->has_section_table);
    EXPECT_TRUE(image->sections.empty());
}

TEST(ElfTest, TruncatedHeaderAndOtherClasses) {
    std::vector<uint8_t> bytes = fixture_bytes("libkernels.so");
    auto cut = read_elf_sections(std::span(bytes).first(63));
    ASSERT_FALSE(cut.ok());
    EXPECT_EQ(cut.error().code(), ErrorCode::Invalid);
    EXPECT_NE(cut.error().text().find("truncated header (63 bytes"), std::string::npos) << cut.error().text();
    bytes[4] = 1; // ELFCLASS32
    auto elf32 = read_elf_sections(bytes);
    ASSERT_FALSE(elf32.ok());
    EXPECT_EQ(elf32.error().code(), ErrorCode::Unsupported);
}

TEST(ElfTest, NameTableIndexOutOfRangeIsInvalid) {
    std::vector<uint8_t> bytes = fixture_bytes("libkernels.so");
    bytes[0x3e] = 0xfe; // e_shstrndx = 0x00fe, far above the ~30 sections
    bytes[0x3f] = 0x00;
    auto image = read_elf_sections(bytes);
    ASSERT_FALSE(image.ok());
    EXPECT_EQ(image.error().code(), ErrorCode::Invalid);
    EXPECT_NE(image.error().text().find("section name table index 254"), std::string::npos) << image.error().text();
}

} // namespace
} // namespace d4r::ptx
