// The GLIBC check (release/elf_glibc.h, `d4r elf glibc`): ELF files built here with chosen version
// needs, malformed tables, and the real binaries of this build.
#include <gtest/gtest.h>

#include <gnu/libc-version.h>

#include <cstring>
#include <string>
#include <vector>

#include "core/files.h"
#include "elf_builder.h"
#include "release/elf_glibc.h"
#include "test_support.h"

namespace d4r::release {
namespace {

using test_elf::Bytes;
using test_elf::Library;
using test_elf::make_elf;
using test_elf::put32;

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
        {"first item offset past the section", 0, 0}, // vn_aux of entry 0, set below
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

TEST(ElfNeeded, DynamicSectionLibrariesInFileOrder) {
    auto needs = read_glibc_needs(make_elf(kTypical, {"libfmt.so.9", "libstdc++.so.6", "libc.so.6"}));
    ASSERT_TRUE(needs) << needs.error().text();
    EXPECT_EQ(needs->needed, (std::vector<std::string>{"libfmt.so.9", "libstdc++.so.6", "libc.so.6"}));
    EXPECT_EQ(needs->highest->text(), "2.34"); // the version needs are read as before
    auto none = read_glibc_needs(make_elf(kTypical));
    ASSERT_TRUE(none) << none.error().text();
    EXPECT_TRUE(none->needed.empty());
}

TEST(ElfNeeded, MalformedDynamicSectionIsAnErrorNotACrash) {
    const Bytes good = make_elf(kTypical, {"libz.so.1"});
    const size_t shoff = good.size() - 5 * 64;
    uint64_t dynamic_at = 0;
    std::memcpy(&dynamic_at, good.data() + shoff + 4 * 64 + 0x18, 8);
    Bytes f = good;
    put32(f, dynamic_at + 8, 0x10000); // the name's offset, past .dynstr
    auto past = read_glibc_needs(f);
    ASSERT_FALSE(past);
    EXPECT_NE(past.error().text().find("past the string table"), std::string::npos) << past.error().text();
    f = good;
    put32(f, shoff + 4 * 64 + 0x28, 9); // linked to a section that does not exist
    auto link = read_glibc_needs(f);
    ASSERT_FALSE(link);
    EXPECT_NE(link.error().text().find("dynamic section [4] links to section 9"), std::string::npos)
        << link.error().text();
    f = good;
    put32(f, shoff + 4 * 64 + 0x18, 0xfffffff0); // the section past the end of the file
    EXPECT_FALSE(read_glibc_needs(f));
    for (size_t n = 0; n < good.size(); n += 5) (void)read_glibc_needs(std::span(good.data(), n));
}

TEST(HighestVersion, PerFamilyComparedNumerically) {
    auto needs = read_glibc_needs(make_elf({
        {"libstdc++.so.6", {"GLIBCXX_3.4.9", "GLIBCXX_3.4.30", "GLIBCXX_3.4.21", "CXXABI_1.3.9", "CXXABI_1.3"}},
        {"libc.so.6", {"GLIBC_2.34", "GLIBC_PRIVATE"}},
        {"libgcc_s.so.1", {"GCC_3.0", "GCC_4.2.0"}},
    }));
    ASSERT_TRUE(needs) << needs.error().text();
    auto glibcxx = highest_version(*needs, "GLIBCXX_");
    ASSERT_TRUE(glibcxx);
    EXPECT_EQ(glibcxx->name, "GLIBCXX_3.4.30"); // not 3.4.9, which sorts last as text
    EXPECT_EQ(glibcxx->library, "libstdc++.so.6");
    EXPECT_EQ(glibcxx->version.text(), "3.4.30");
    auto cxxabi = highest_version(*needs, "CXXABI_");
    ASSERT_TRUE(cxxabi);
    EXPECT_EQ(cxxabi->name, "CXXABI_1.3.9");
    auto glibc = highest_version(*needs, "GLIBC_");
    ASSERT_TRUE(glibc);
    EXPECT_EQ(glibc->name, "GLIBC_2.34"); // GLIBC_PRIVATE is no version
    EXPECT_EQ(highest_version(*needs, "GCC_")->name, "GCC_4.2.0");
    EXPECT_FALSE(highest_version(*needs, "LIBFOO_"));
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

TEST(ElfGlibcCli, NeededListsLibrariesAgainstTheBaseSystem) {
    d4r::test::TempDir dir;
    const fs::path lib = dir.path() / "libwith.so";
    ASSERT_TRUE(write_file_atomic(lib, make_elf(kTypical, {"libfmt.so.9", "libstdc++.so.6"})).ok());
    auto r = d4r::test::run_d4r({"elf", "glibc", "--needed", lib.string()});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("  needs libfmt.so.9 (not in the base system)\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("  needs libstdc++.so.6 (base system)\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("  highest GLIBCXX: GLIBCXX_3.4.30 (of libstdc++.so.6)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("  highest CXXABI: CXXABI_1.3 (of libstdc++.so.6)"), std::string::npos) << r.out;
    auto plain = d4r::test::run_d4r({"elf", "glibc", lib.string()});
    EXPECT_EQ(plain.out.find("needs "), std::string::npos) << plain.out;
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
