// End to end: `d4r kernels check` on the cpu backend with the build's kernel sets (build/share/d4r/native):
// the accuracy set gives the PTX path's bytes at every layer, the fast set stays above 60 dB, a root without
// the family's kernels is an error (nothing compared), bad input is a usage error. --write-job writes the pass as
// a job file; --trace compares a trace made elsewhere with the PTX path (identical, or the differing launch).
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

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

// refine-v2 reads the core's frame: the core runs three frames first (from PTX in both runs), then the network's pass
// is compared; the shipped model's 29 launches and 8 kernels, the pixel kernels and the wide linear among them.
TEST(KernelsCheckCli, ARefineV2ModelIsCheckedAfterTheCore) {
    const std::string model = (source_dir() / "models/refine-v2.d4rnet").string();
    RunResult exact =
        run_d4r({"kernels", "check", "--model", model, "--accuracy", "--require-identical", "--size", "40x24"});
    ASSERT_EQ(exact.exit_code, 0) << exact.out << exact.err;
    EXPECT_TRUE(contains(exact.out, "after three frames of the core (from PTX in both runs)")) << exact.out;
    EXPECT_TRUE(contains(exact.out, "native kernels served: 8 of 8")) << exact.out;
    EXPECT_TRUE(contains(exact.out, "result: 29 of 29 launches identical; the image: identical")) << exact.out;
    EXPECT_TRUE(contains(exact.out, " 0  d4r_nn_pixel_features pixel_features identical")) << exact.out;
    RunResult fast = run_d4r({"kernels", "check", "--model", model, "--size", "40x24", "--min-psnr", "60"});
    ASSERT_EQ(fast.exit_code, 0) << fast.out << fast.err;
    EXPECT_TRUE(contains(fast.out, "d4r_nn_linear_wide embed          ")) << fast.out;
    EXPECT_TRUE(contains(fast.out, "values differ, max")) << fast.out;
    // Its job file carries the core's frame (the core runs first, on the cpu backend) beside the weights and scratch.
    TempDir t;
    const std::string job_file = (t.path() / "v2.job").string();
    RunResult job = run_d4r({"kernels", "check", "--model", model, "--write-job", job_file, "--size", "40x24"});
    ASSERT_EQ(job.exit_code, 0) << job.out << job.err;
    EXPECT_GT(std::filesystem::file_size(job_file), 100000u); // the weights and the core's buffers
    EXPECT_TRUE(contains(job.out, "3 regions")) << job.out;
    EXPECT_TRUE(contains(job.out, "29 launches")) << job.out;
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

std::vector<char> bytes_of(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

TEST(KernelsCheckCli, WriteJobWritesTheTestPassAsAJobFile) {
    TempDir t;
    const fs::path job = t.path() / "refine.job";
    RunResult r = run_d4r({"kernels", "check", "--write-job", job.string(), "--size", "44x20"});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_TRUE(contains(r.out, "refine 44x20 seed 7 test model, 3 regions")) << r.out;
    EXPECT_TRUE(contains(r.out, "29 launches")) << r.out;
    const std::vector<char> b = bytes_of(job);
    ASSERT_GT(b.size(), 16u);
    EXPECT_EQ(std::string(b.data(), 6), "d4rjob");
    // Both modes at once is a usage error.
    RunResult both = run_d4r({"kernels", "check", "--write-job", job.string(), "--trace", job.string()});
    EXPECT_EQ(both.exit_code, 2);
}

TEST(KernelsCheckCli, TraceComparesATraceMadeElsewhereWithThePtxPath) {
    TempDir t;
    const fs::path trace = t.path() / "other.trace";
    // A trace of the PTX path itself, made by the tool's own child mode, stands in for one made elsewhere.
    RunResult made =
        run_d4r({"kernels", "check", "--trace-out", trace.string(), "--size", "16x16"}, {{"D4R_CUDA_BACKEND", "cpu"}});
    ASSERT_EQ(made.exit_code, 0) << made.out << made.err;
    const fs::path summary = t.path() / "summary.txt";
    RunResult same = run_d4r({"kernels", "check", "--trace", trace.string(), "--size", "16x16", "--require-identical",
                              "--summary", summary.string()});
    ASSERT_EQ(same.exit_code, 0) << same.out << same.err;
    EXPECT_TRUE(contains(same.out, "result: 29 of 29 launches identical; the image: identical")) << same.out;
    const std::string sum = read_file_text(summary);
    EXPECT_TRUE(contains(sum, "size 16x16\nseed 7\nmodel test\n")) << sum;
    EXPECT_TRUE(contains(sum, "launch 28 d4r_nn_unpatchify unpatchify identical fnv1a64 ")) << sum;
    EXPECT_TRUE(contains(sum, "result 29/29 image identical")) << sum;

    // One f16 value of the last launch (the image) changed by one ulp: the comparison names it.
    std::vector<char> b = bytes_of(trace);
    b[b.size() - 8] = char(b[b.size() - 8] ^ 1);
    t.write("changed.trace", std::string(b.begin(), b.end()));
    RunResult changed = run_d4r({"kernels", "check", "--trace", (t.path() / "changed.trace").string(), "--size",
                                 "16x16", "--require-identical"});
    EXPECT_EQ(changed.exit_code, 1) << changed.out << changed.err;
    EXPECT_TRUE(contains(changed.out, "28  d4r_nn_unpatchify  unpatchify     1 of ")) << changed.out;
    EXPECT_TRUE(contains(changed.out, "result: 28 of 29 launches identical")) << changed.out;

    // A trace of another size does not match launch by launch: an error, not a comparison.
    RunResult other = run_d4r({"kernels", "check", "--trace", trace.string(), "--size", "24x16"});
    EXPECT_NE(other.exit_code, 0);
    EXPECT_TRUE(contains(other.err, "other.trace")) << other.err;
    RunResult missing = run_d4r({"kernels", "check", "--trace", (t.path() / "none.trace").string()});
    EXPECT_NE(missing.exit_code, 0);
    EXPECT_TRUE(contains(missing.err, "none.trace")) << missing.err;
}

} // namespace
} // namespace d4r::test
