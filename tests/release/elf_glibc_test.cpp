// The GLIBC check (release/elf_glibc.h, `d4r elf glibc`): ELF files built here with chosen version
// needs, malformed tables, and the real binaries of this build.
#include <gtest/gtest.h>

#include <gnu/libc-version.h>

#include <cstring>
#include <string>
#include <vector>

#include "core/files.h"
#include "release/elf_glibc.h"
#include "test_support.h"

namespace d4r::release {
namespace {

using Bytes = std::vector<uint8_t>;

void put16(Bytes& b, size_t at, uint16_t v) { std::memcpy(b.data() + at, &v, 2); }
void put32(Bytes& b, size_t at, uint32_t v) { std::memcpy(b.data() + at, &v, 4); }
void put64(Bytes& b, size_t at, uint64_t v) { std::memcpy(b.data() + at, &v, 8); }

struct Library {
    std::string name;
    std::vector<std::string> versions;
};

// A minimal little-endian ELF64 shared object with sections [0] null, [1] .dynstr, [2] .gnu.version_r
// (linked to 1) and [3] .shstrtab, asking LIBS for their versions. EDIT may damage it before return.
Bytes make_elf(const std::vector<Library>& libs) {
    std::string dynstr(1, '\0');
    auto add_string = [&](const std::string& s) {
        uint32_t at = uint32_t(dynstr.size());
        dynstr += s;
        dynstr += '\0';
        return at;
    };
    Bytes verneed;
    for (size_t i = 0; i < libs.size(); ++i) {
        size_t vn = verneed.size();
        verneed.resize(vn + 16 + 16 * libs[i].versions.size());
        put16(verneed, vn, 1);
        put16(verneed, vn + 2, uint16_t(libs[i].versions.size()));
        put32(verneed, vn + 4, add_string(libs[i].name));
        put32(verneed, vn + 8, 16);
        put32(verneed, vn + 12, i + 1 < libs.size() ? uint32_t(16 + 16 * libs[i].versions.size()) : 0);
        for (size_t k = 0; k < libs[i].versions.size(); ++k) {
            size_t va = vn + 16 + 16 * k;
            put32(verneed, va, 0x0d696910); // the hash is not read
            put32(verneed, va + 8, add_string(libs[i].versions[k]));
            put32(verneed, va + 12, k + 1 < libs[i].versions.size() ? 16 : 0);
        }
    }
    const std::string shstrtab = std::string("\0.dynstr\0.gnu.version_r\0.shstrtab\0", 34);
    Bytes f(64);
    std::memcpy(f.data(), "\x7f" "ELF", 4);
    f[4] = 2; // ELFCLASS64
    f[5] = 1; // little-endian
    f[6] = 1;
    put16(f, 16, 3);    // ET_DYN
    put16(f, 18, 0x3e); // x86-64
    auto append = [&](const void* data, size_t n) {
        size_t at = f.size();
        f.insert(f.end(), static_cast<const uint8_t*>(data), static_cast<const uint8_t*>(data) + n);
        return at;
    };
    const size_t dynstr_at = append(dynstr.data(), dynstr.size());
    const size_t verneed_at = append(verneed.data(), verneed.size());
    const size_t shstrtab_at = append(shstrtab.data(), shstrtab.size());
    const size_t shoff = f.size();
    f.resize(shoff + 4 * 64);
    auto section = [&](int i, uint32_t name, uint32_t type, size_t offset, size_t size, uint32_t link, uint32_t info) {
        size_t h = shoff + 64 * i;
        put32(f, h, name);
        put32(f, h + 4, type);
        put64(f, h + 0x18, offset);
        put64(f, h + 0x20, size);
        put32(f, h + 0x28, link);
        put32(f, h + 0x2c, info);
    };
    section(1, 1, 3, dynstr_at, dynstr.size(), 0, 0);
    section(2, 9, 0x6ffffffe, verneed_at, verneed.size(), 1, uint32_t(libs.size()));
    section(3, 24, 3, shstrtab_at, shstrtab.size(), 0, 0);
    put64(f, 0x28, shoff);
    put16(f, 0x3a, 64);
    put16(f, 0x3c, 4);
    put16(f, 0x3e, 3);
    return f;
}

const std::vector<Library> kTypical = {
    {"libstdc++.so.6", {"GLIBCXX_3.4.30", "CXXABI_1.3"}},
    {"libc.so.6", {"GLIBC_2.2.5", "GLIBC_2.34", "GLIBC_PRIVATE", "GLIBC_2.9"}},
    {"libm.so.6", {"GLIBC_2.29"}},
};

TEST(GlibcVersion, ParsesAndComparesNumerically) {
    auto a = parse_glibc_version("2.9");
    auto b = parse_glibc_version("GLIBC_2.10");
    auto c = parse_glibc_version("2.2.5");
    ASSERT_TRUE(a && b && c);
    EXPECT_LT(*a, *b);
    EXPECT_LT(*c, *a);
    EXPECT_EQ(b->text(), "2.10");
    EXPECT_EQ(c->text(), "2.2.5");
    for (const char* bad : {"", "2.", "two", "GLIBC_", "2..3", "2.41x", "GLIBC_PRIVATE", "1.2.3.4.5"}) {
        auto v = parse_glibc_version(bad);
        ASSERT_FALSE(v) << bad;
        EXPECT_NE(v.error().text().find("accepted"), std::string::npos) << v.error().text();
    }
}

TEST(GlibcNeeds, HighestGlibcAmongEveryLibrarysVersions) {
    auto needs = read_glibc_needs(make_elf(kTypical));
    ASSERT_TRUE(needs) << needs.error().text();
    ASSERT_EQ(needs->needs.size(), 7u);
    EXPECT_EQ(needs->needs[0].library, "libstdc++.so.6");
    EXPECT_EQ(needs->needs[0].version, "GLIBCXX_3.4.30"); // not a GLIBC version
    ASSERT_TRUE(needs->highest);
    EXPECT_EQ(needs->highest->text(), "2.34"); // above 2.29 and 2.9, PRIVATE ignored
    EXPECT_EQ(needs->highest_library, "libc.so.6");
}

TEST(GlibcNeeds, NoVersionNeedsIsNotAnError) {
    auto needs = read_glibc_needs(make_elf({}));
    ASSERT_TRUE(needs) << needs.error().text();
    EXPECT_TRUE(needs->needs.empty());
    EXPECT_FALSE(needs->highest);
}

TEST(GlibcNeeds, MalformedTablesAreErrorsNotCrashes) {
    const Bytes good = make_elf(kTypical);
    const size_t shoff = good.size() - 4 * 64;
    struct Case {
        const char* what;
        size_t at;
        uint32_t value;
    };
    const Case cases[] = {
        {"string table link out of range", shoff + 2 * 64 + 0x28, 9},
        {"version section past the end", shoff + 2 * 64 + 0x18, 0xfffffff0},
        {"first item offset past the section", 0, 0},  // vn_aux of entry 0, set below
        {"library name past the string table", 0, 0}, // vn_file of entry 0, set below
    };
    uint64_t verneed_at = 0;
    std::memcpy(&verneed_at, good.data() + shoff + 2 * 64 + 0x18, 8);
    for (size_t i = 0; i < std::size(cases); ++i) {
        Bytes f = good;
        size_t at = cases[i].at;
        uint32_t value = cases[i].value;
        if (i == 2) at = verneed_at + 8, value = 0x10000;
        if (i == 3) at = verneed_at + 4, value = 0x10000;
        put32(f, at, value);
        auto needs = read_glibc_needs(f);
        EXPECT_FALSE(needs) << cases[i].what;
        if (!needs) {
            EXPECT_NE(needs.error().text().find("ELF"), std::string::npos) << needs.error().text();
        }
    }
    // An unterminated string at the end of the string table.
    Bytes f = good;
    uint64_t dynstr_at = 0, dynstr_size = 0;
    std::memcpy(&dynstr_at, f.data() + shoff + 64 + 0x18, 8);
    std::memcpy(&dynstr_size, f.data() + shoff + 64 + 0x20, 8);
    f[dynstr_at + dynstr_size - 1] = 'x';
    EXPECT_FALSE(read_glibc_needs(f));
    // Truncations at every length: an error or a result, never a read past the bytes (ASan watches).
    for (size_t n = 0; n < good.size(); n += 7) (void)read_glibc_needs(std::span(good.data(), n));
    EXPECT_EQ(read_glibc_needs(Bytes{'M', 'Z', 0, 0}).error().code(), ErrorCode::Unsupported);
}

TEST(GlibcNeeds, ThisBuildsOwnBinaryNeedsAtMostTheRunningGlibc) {
    auto bytes = read_file(d4r::test::d4r_binary());
    ASSERT_TRUE(bytes) << bytes.error().text();
    auto needs = read_glibc_needs(*bytes);
    ASSERT_TRUE(needs) << needs.error().text();
    ASSERT_TRUE(needs->highest) << "a dynamically linked binary asks libc for versions";
    auto running = parse_glibc_version(gnu_get_libc_version());
    ASSERT_TRUE(running);
    EXPECT_LE(*needs->highest, *running);
    EXPECT_GE(*needs->highest, *parse_glibc_version("2.2.5"));
}

// ---- d4r elf glibc -----------------------------------------------------------------------------------

TEST(ElfGlibcCli, PassesAtOrBelowTheTargetAndFailsAboveNamingFileAndVersion) {
    d4r::test::TempDir dir;
    const fs::path old_lib = dir.path() / "lib" / "libold.so";
    const fs::path new_lib = dir.path() / "lib" / "sub" / "libnew.so";
    fs::create_directories(new_lib.parent_path());
    ASSERT_TRUE(write_file_atomic(old_lib, make_elf(kTypical)).ok());
    ASSERT_TRUE(write_file_atomic(new_lib, make_elf({{"libc.so.6", {"GLIBC_2.2.5", "GLIBC_2.42"}}})).ok());
    dir.write("lib/readme.txt", "not an ELF file, skipped in a folder\n");

    auto ok = d4r::test::run_d4r({"elf", "glibc", old_lib.string()});
    EXPECT_EQ(ok.exit_code, 0) << ok.err;
    EXPECT_NE(ok.out.find("libold.so: GLIBC 2.34 (of libc.so.6)"), std::string::npos) << ok.out;

    auto folder = d4r::test::run_d4r({"elf", "glibc", (dir.path() / "lib").string()});
    EXPECT_EQ(folder.exit_code, 1) << folder.out << folder.err;
    EXPECT_NE(folder.out.find("libnew.so: GLIBC 2.42 (of libc.so.6) is above the target 2.41"), std::string::npos)
        << folder.out;
    EXPECT_EQ(folder.out.find("readme"), std::string::npos) << folder.out;
    EXPECT_NE(folder.err.find("1 of 2 files need a GLIBC above 2.41"), std::string::npos) << folder.err;

    auto raised = d4r::test::run_d4r({"elf", "glibc", "--max", "2.42", "--all", (dir.path() / "lib").string()});
    EXPECT_EQ(raised.exit_code, 0) << raised.err;
    EXPECT_NE(raised.out.find("  libc.so.6 GLIBC_PRIVATE"), std::string::npos) << raised.out;

    auto lowered = d4r::test::run_d4r({"elf", "glibc", "--max", "2.31", old_lib.string()});
    EXPECT_EQ(lowered.exit_code, 1);
}

TEST(ElfGlibcCli, BadInputIsExitTwoNamingIt) {
    d4r::test::TempDir dir;
    const fs::path text = dir.write("notes.txt", "hello\n");
    auto r = d4r::test::run_d4r({"elf", "glibc", text.string()});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("notes.txt: not an ELF file"), std::string::npos) << r.err;
    auto missing = d4r::test::run_d4r({"elf", "glibc", (dir.path() / "absent.so").string()});
    EXPECT_EQ(missing.exit_code, 2);
    EXPECT_NE(missing.err.find("absent.so"), std::string::npos) << missing.err;
    auto bad_max = d4r::test::run_d4r({"elf", "glibc", "--max", "two", text.string()});
    EXPECT_EQ(bad_max.exit_code, 2);
    EXPECT_NE(bad_max.err.find("--max: 'two' is not a GLIBC version"), std::string::npos) << bad_max.err;
}

} // namespace
} // namespace d4r::release
