// image_extent: measuring a module image given only a pointer (cuModuleLoadData & co.). Headers that
// promise more than the caller's memory holds must give an error, not a fault (issue 14, item 5).
#include <gtest/gtest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>

#include "ptx/fatbin.h"
#include "ptx/image_extent.h"

namespace d4r::ptx {
namespace {

// One readable page followed by an unmapped one.
class LastPage : public ::testing::Test {
protected:
    void SetUp() override {
        m_page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
        void* p = mmap(nullptr, 2 * m_page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        ASSERT_NE(p, MAP_FAILED);
        m_base = static_cast<uint8_t*>(p);
        ASSERT_EQ(munmap(m_base + m_page, m_page), 0);
    }
    void TearDown() override { munmap(m_base, m_page); }
    template <class T>
    void put(size_t at, T v) {
        std::memcpy(m_base + at, &v, sizeof v);
    }
    // An ELF64 header with SHNUM section headers of SHENTSIZE bytes at SHOFF.
    void elf(uint64_t shoff, uint16_t shnum, uint16_t shentsize = 0x40) {
        std::memcpy(m_base,
                    "\x7f"
                    "ELF",
                    4);
        m_base[4] = 2; // ELF64
        m_base[5] = 1; // little endian
        put<uint64_t>(0x28, shoff);
        put<uint16_t>(0x3a, shentsize);
        put<uint16_t>(0x3c, shnum);
    }
    size_t m_page = 0;
    uint8_t* m_base = nullptr;
};

TEST_F(LastPage, AnElfWithItsSectionsInsideIsMeasured) {
    elf(0x40, 2);
    // Section 1: 0x100 bytes at 0x200.
    put<uint32_t>(0x80 + 4, 1);
    put<uint64_t>(0x80 + 0x18, 0x200);
    put<uint64_t>(0x80 + 0x20, 0x100);
    auto e = image_extent(m_base);
    ASSERT_TRUE(e.ok()) << e.error().text();
    EXPECT_EQ(e->size(), 0x300u);
}

TEST_F(LastPage, SectionTablePastTheMemoryIsAnError) {
    elf(m_page, 3); // the table would be on the unmapped page
    auto e = image_extent(m_base);
    ASSERT_FALSE(e.ok());
    EXPECT_NE(e.error().text().find("not readable"), std::string::npos) << e.error().text();
}

TEST_F(LastPage, SectionContentsPastTheMemoryAreAnError) {
    elf(0x40, 2);
    put<uint32_t>(0x80 + 4, 1);
    put<uint64_t>(0x80 + 0x18, m_page - 16);
    put<uint64_t>(0x80 + 0x20, 4096);
    auto e = image_extent(m_base);
    ASSERT_FALSE(e.ok());
    EXPECT_NE(e.error().text().find("runs past the readable memory"), std::string::npos) << e.error().text();
}

TEST_F(LastPage, ImplausibleHeadersAreErrors) {
    elf(0x40, 0xffff);
    EXPECT_FALSE(image_extent(m_base).ok()) << "SHN_XINDEX section count";
    elf(~uint64_t(0) - 8, 1);
    EXPECT_FALSE(image_extent(m_base).ok()) << "section table offset near 2^64";
    elf(0x40, 2, 0x10);
    EXPECT_FALSE(image_extent(m_base).ok()) << "section header size other than 64";
    elf(0x40, 2);
    put<uint32_t>(0x80 + 4, 1);
    put<uint64_t>(0x80 + 0x18, ~uint64_t(0) - 0x10);
    put<uint64_t>(0x80 + 0x20, 0x100);
    EXPECT_FALSE(image_extent(m_base).ok()) << "section offset that wraps";
}

TEST_F(LastPage, AFatbinLongerThanTheMemoryIsAnError) {
    put<uint32_t>(0, kFatbinMagic);
    put<uint16_t>(4, kFatbinVersion);
    put<uint16_t>(6, static_cast<uint16_t>(kFatbinHeaderSize));
    put<uint64_t>(8, uint64_t(m_page) * 4);
    auto e = image_extent(m_base);
    ASSERT_FALSE(e.ok());
    EXPECT_NE(e.error().text().find("past the readable memory"), std::string::npos) << e.error().text();
}

} // namespace
} // namespace d4r::ptx
