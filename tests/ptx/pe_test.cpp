// The PE/COFF section-table reader against objdump: tests/fixtures/ptx/expected/sections.txt holds
// `objdump -h` of the mingw-made kernels.dll (written by make-fixtures.sh). objdump shows a section's
// virtual size, so the raw size is only checked to cover it (raw data is file-aligned).
#include <sstream>

#include <gtest/gtest.h>

#include "container_test_support.h"
#include "ptx/pe.h"

namespace d4r::ptx {
namespace {

using test::fixture_bytes;

TEST(PeTest, SectionTableMatchesObjdump) {
    std::istringstream in(test::fixture_text("expected/sections.txt"));
    auto sections = read_pe_sections(fixture_bytes("kernels.dll"));
    ASSERT_TRUE(sections.ok()) << sections.error().text();
    size_t checked = 0;
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream fields(line);
        std::string file, name, size, offset;
        uint32_t index = 0;
        fields >> file >> index >> name >> size >> offset;
        if (file != "kernels.dll") continue;
        ASSERT_LT(index, sections->size());
        const PeSection& got = (*sections)[index];
        EXPECT_EQ(got.name, name);
        if (name == ".bss") {
            EXPECT_EQ(got.raw_size, 0u);
            continue;
        }
        EXPECT_EQ(got.raw_offset, std::stoull(offset, nullptr, 16)) << name;
        EXPECT_GE(got.raw_size, std::stoull(size, nullptr, 16)) << name;
        ++checked;
    }
    EXPECT_EQ(checked + 1, sections->size()) << "every section but .bss compared";
    EXPECT_GT(checked, 5u);
}

TEST(PeTest, MzWithoutPeSignatureIsUnsupported) {
    std::vector<uint8_t> bytes(0x100, 0);
    bytes[0] = 'M';
    bytes[1] = 'Z';
    bytes[0x3c] = 0x80; // e_lfanew -> zeros, not "PE\0\0"
    auto sections = read_pe_sections(bytes);
    ASSERT_FALSE(sections.ok());
    EXPECT_EQ(sections.error().code(), ErrorCode::Unsupported);
    bytes[0x3d] = 0x10; // e_lfanew = 0x1080, past the end
    sections = read_pe_sections(bytes);
    ASSERT_FALSE(sections.ok());
    EXPECT_NE(sections.error().text().find("e_lfanew 0x1080"), std::string::npos) << sections.error().text();
}

} // namespace
} // namespace d4r::ptx
