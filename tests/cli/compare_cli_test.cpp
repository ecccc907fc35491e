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
