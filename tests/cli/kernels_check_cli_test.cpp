// End to end: `d4r kernels check` on the cpu backend with the build's kernel sets (build/share/d4r/native):
// the accuracy set gives the PTX path's bytes at every layer, the fast set stays above 60 dB, a root without
// the family's kernels is an error (nothing compared), bad input is a usage error.
#include <gtest/gtest.h>

#include "test_support.h"

namespace d4r::test {
namespace {

bool contains(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

TEST(KernelsCheckCli, TheAccuracySetIsIdenticalAtEveryLayer) {
    RunResult r = run_d4r({"kernels", "check", "--accuracy", "--require-identical", "--size", "40x24"});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_TRUE(contains(r.out, "native kernels served: 7 of 7")) << r.out;
    EXPECT_TRUE(contains(r.out, "result: 29 of 29 launches identical; the image: identical")) << r.out;
    EXPECT_TRUE(contains(r.out, " 3  d4r_nn_linear      enc1.qkv       identical")) << r.out;
}

TEST(KernelsCheckCli, AnFp8ModelCountsTheFp8LinearAndIsIdenticalInTheAccuracySet) {
    RunResult r = run_d4r({"kernels", "check", "--fp8", "--accuracy", "--require-identical", "--size", "40x24"});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_TRUE(contains(r.out, "native kernels served: 8 of 8")) << r.out;
    EXPECT_TRUE(contains(r.out, "result: 29 of 29 launches identical; the image: identical")) << r.out;
    EXPECT_TRUE(contains(r.out, "d4r_nn_linear_fp8  enc2.qkv       identical")) << r.out;
    EXPECT_NE(run_d4r({"kernels", "check", "--fp8", "--model", "x.d4rnet"}).exit_code, 0);
}

TEST(KernelsCheckCli, TheFastSetReportsUlpsAndStaysAbove60Db) {
    RunResult r = run_d4r({"kernels", "check", "--size", "40x24", "--min-psnr", "60"});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_TRUE(contains(r.out, "values differ, max")) << r.out;
    EXPECT_TRUE(contains(r.out, "the image: PSNR")) << r.out;
    // The same comparison held to identical bytes fails.
    EXPECT_EQ(run_d4r({"kernels", "check", "--size", "40x24", "--require-identical"}).exit_code, 1);
}

TEST(KernelsCheckCli, ARootWithoutTheFamilysKernelsComparesNothingAndFails) {
    TempDir t;
    t.write("root/cpu/d4r-kernels.txt", "d4r_other 0123456789abcdef\n");
    RunResult r = run_d4r({"kernels", "check", "--size", "16x16", "--native-root", (t.path() / "root").string()});
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_TRUE(contains(r.err, "served no kernel of the family")) << r.err;
}

TEST(KernelsCheckCli, BadInputIsAUsageErrorNamingIt) {
    RunResult size = run_d4r({"kernels", "check", "--size", "72by40"});
    EXPECT_EQ(size.exit_code, 2);
    EXPECT_TRUE(contains(size.err, "--size '72by40'")) << size.err;
    RunResult family = run_d4r({"kernels", "check", "--family", "upscaler"});
    EXPECT_EQ(family.exit_code, 2);
    EXPECT_TRUE(contains(family.err, "--family 'upscaler'")) << family.err;
    RunResult root = run_d4r({"kernels", "check", "--native-root", "/nonexistent/root"});
    EXPECT_EQ(root.exit_code, 2);
    EXPECT_TRUE(contains(root.err, "/nonexistent/root")) << root.err;
}

} // namespace
} // namespace d4r::test
