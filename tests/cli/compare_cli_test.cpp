// d4r compare end to end: files and folders, exit statuses, --type and --tolerance.
#include <gtest/gtest.h>

#include <vector>

#include "test_support.h"

using d4r::test::run_d4r;
using d4r::test::TempDir;

namespace {

std::string floats(const std::vector<uint32_t>& bits) {
    return std::string(reinterpret_cast<const char*>(bits.data()), bits.size() * 4);
}

} // namespace

TEST(CompareCli, IdenticalFilesExitZero) {
    TempDir d;
    auto a = d.write("a.bin", floats({0x3f800000, 0x40000000}));
    auto b = d.write("b.bin", floats({0x3f800000, 0x40000000}));
    auto r = run_d4r({"compare", a.string(), b.string(), "--type", "f32"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find(": same"), std::string::npos) << r.out;
}

TEST(CompareCli, ToleranceDecides) {
    TempDir d;
    auto a = d.write("a.bin", floats({0x3f800000, 0x40000000}));
    auto b = d.write("b.bin", floats({0x3f800002, 0x40000000}));
    auto strict = run_d4r({"compare", a.string(), b.string(), "--type", "f32"});
    EXPECT_EQ(strict.exit_code, 1);
    EXPECT_NE(strict.out.find("DIFFERENT"), std::string::npos) << strict.out;
    EXPECT_NE(strict.out.find("max distance: 2 ulp"), std::string::npos) << strict.out;
    auto loose = run_d4r({"compare", a.string(), b.string(), "--type", "f32", "--tolerance", "2"});
    EXPECT_EQ(loose.exit_code, 0) << loose.out;
    EXPECT_NE(loose.out.find("within tolerance"), std::string::npos);
    auto bytes = run_d4r({"compare", a.string(), b.string()});
    EXPECT_EQ(bytes.exit_code, 1);
}

TEST(CompareCli, FoldersCompareFileByFileAndReportMissingOnes) {
    TempDir d;
    d.write("x/alloc-0.bin", "abcd");
    d.write("x/alloc-1.bin", "efgh");
    d.write("y/alloc-0.bin", "abcd");
    auto r = run_d4r({"compare", (d.path() / "x").string(), (d.path() / "y").string()});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.out.find("alloc-0.bin: same"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("alloc-1.bin: only in"), std::string::npos) << r.out;
}

TEST(CompareCli, BadInputExitsTwo) {
    TempDir d;
    auto a = d.write("a.bin", "1234");
    auto r = run_d4r({"compare", a.string(), (d.path() / "missing.bin").string()});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("missing.bin"), std::string::npos) << r.err;
    auto t = run_d4r({"compare", a.string(), a.string(), "--type", "f64"});
    EXPECT_EQ(t.exit_code, 2);
    EXPECT_NE(t.err.find("expected bytes, u8, f16 or f32"), std::string::npos) << t.err;
}

// Issue 14, item 20: what used to pass or be ignored.
TEST(CompareCli, TrailingBytesThatDifferAreADifference) {
    TempDir d;
    auto a = d.write("a.bin", floats({0x3f800000}) + "xy");
    auto b = d.write("b.bin", floats({0x3f800000}) + "xz");
    auto r = run_d4r({"compare", a.string(), b.string(), "--type", "f32", "--tolerance", "1000"});
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_NE(r.out.find("DIFFERENT"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("the last 2 bytes (less than one f32 element) differ"), std::string::npos) << r.out;
}

TEST(CompareCli, NegativeToleranceAndBadPeakAreUsageErrors) {
    TempDir d;
    auto a = d.write("a.bin", floats({0x3f800000, 0x40000000}));
    auto b = d.write("b.bin", floats({0x3f800002, 0x40000000}));
    for (const char* tolerance : {"-1", "1.5", "lots", ""}) {
        auto r = run_d4r({"compare", a.string(), b.string(), "--type", "f32", "--tolerance", tolerance});
        EXPECT_EQ(r.exit_code, 2) << tolerance << ": " << r.out << r.err;
        EXPECT_NE(r.err.find("--tolerance"), std::string::npos) << tolerance << ": " << r.err;
        if (*tolerance && *tolerance != '-') {
            EXPECT_NE(r.err.find("expected a whole number 0 or more"), std::string::npos) << r.err;
        }
    }
    for (const char* peak : {"nan", "inf", "0", "-3", "x"}) {
        auto r = run_d4r({"compare", a.string(), b.string(), "--type", "f32", "--peak", peak});
        EXPECT_EQ(r.exit_code, 2) << peak << ": " << r.out << r.err;
        EXPECT_NE(r.err.find("--peak"), std::string::npos) << peak << ": " << r.err;
    }
    auto peak = run_d4r({"compare", a.string(), b.string(), "--type", "f32", "--peak", "255"});
    EXPECT_EQ(peak.exit_code, 1) << peak.err;
    EXPECT_NE(peak.out.find("(peak 255)"), std::string::npos) << peak.out;
}

TEST(CompareCli, AFolderWhereAFileIsExpectedExitsTwo) {
    TempDir d;
    d.write("x/alloc-0.bin", "abcd");
    d.write("y/alloc-0.bin/inner", "abcd"); // alloc-0.bin is a folder here
    for (auto [first, second] : {std::pair{"x", "y"}, std::pair{"y", "x"}}) {
        auto r = run_d4r({"compare", (d.path() / first).string(), (d.path() / second).string()});
        EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
        EXPECT_NE(r.err.find("alloc-0.bin is a folder, but"), std::string::npos) << r.err;
    }
    auto file_vs_folder = run_d4r({"compare", (d.path() / "x/alloc-0.bin").string(), (d.path() / "y").string()});
    EXPECT_EQ(file_vs_folder.exit_code, 2);
    EXPECT_NE(file_vs_folder.err.find("is a folder but"), std::string::npos) << file_vs_folder.err;
}
