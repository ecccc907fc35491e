// The refine network's CPU native kernels (src/kernels/refine/cpu, linked into libd4rcuda), served by PTX hash
// from a kernel set: the accuracy set (`1`) gives the PTX path's bytes; the fast set (`1 fast` for the
// linear and attention kernels: f32 accumulators) stays within 60 dB of it (50 dB for the refine-v1-fp8 test
// model: d4r_nn_linear_fp8 and d4r_nn_linear_fp8@fast). Runs refine_probe as a child
// process because the runtime reads D4R_NATIVE_KERNEL_DIR once per process.
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/common/f16.h"
#include "network/plan.h"
#include "network/reference.h"
#include "network/refine_pipeline.h"
#include "network/test_model.h"
#include "ptx/module_hash.h"
#include "test_support.h"

using namespace d4r;
using namespace d4r::network;
namespace fs = std::filesystem;

namespace {

constexpr uint32_t kW = 72, kH = 40, kSeed = 7;

struct Probe {
    d4r::test::RunResult run;
    std::vector<uint16_t> image;
};

Probe run_probe(const std::map<std::string, std::string>& extra_env, const fs::path& out, bool fp8 = false) {
    std::map<std::string, std::string> env{
        {"D4R_CUDA_BACKEND", "cpu"}, {"D4R_LOG", "info"}, {"ASAN_OPTIONS", "detect_leaks=0"}};
    for (auto& [k, v] : extra_env) env[k] = v;
    Probe p;
    std::vector<std::string> argv{D4R_TEST_REFINE_PROBE, std::string(D4R_TEST_LIB_DIR) + "/libcuda.so.1",
                                  out.string(),          std::to_string(kW),
                                  std::to_string(kH),    std::to_string(kSeed)};
    if (fp8) argv.insert(argv.begin() + 1, "--fp8");
    p.run = d4r::test::run_command(argv, env);
    std::string bytes = d4r::test::read_file_text(out);
    p.image.resize(bytes.size() / 2);
    std::memcpy(p.image.data(), bytes.data(), p.image.size() * 2);
    return p;
}

// A kernel set at ROOT/cpu vouching for the refine PTX (each kernel for the hash of its module, kernel_ptx(), xor
// `flip`); `fast` makes the linears and attention the fast variants; `block` serves d4r_nn_block too (the exact host
// kernel: pipelines then fuse their blocks).
void write_set(d4r::test::TempDir& dir, bool fast, uint64_t flip = 0, bool block = true) {
    dir.mkdir("root/cpu");
    std::string manifest;
    for (Kernel k : kAllKernels) {
        if (k == Kernel::Block && !block) continue;
        bool variant = fast && (k == Kernel::Linear || k == Kernel::Attention || k == Kernel::LinearFp8);
        dir.write(fs::path("root/cpu") / (std::string(kernel_name(k)) + ".cpu"), variant ? "1 fast\n" : "1\n");
        manifest += fmt::format("{} {:016x}\n", kernel_name(k), ptx::module_hash(kernel_ptx(k)) ^ flip);
    }
    dir.write("root/cpu/d4r-kernels.txt", manifest);
}

std::vector<uint16_t> reference_image(bool fp8 = false) {
    std::vector<uint16_t> img = nettest::test_image(kW, kH, kSeed);
    Status s = refine_reference(nettest::random_model(kSeed, fp8), img.data(), kW, kH);
    EXPECT_TRUE(s) << s.error().text();
    return img;
}

// PSNR of the RGB channels in the tone-mapped domain the network works in (peak 1).
double psnr(const std::vector<uint16_t>& a, const std::vector<uint16_t>& b) {
    double se = 0;
    size_t n = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        if (i % 4 == 3) continue;
        auto tone = [](uint16_t h) {
            float v = std::max(0.0f, kernels::half_to_float(h));
            return double(v / (1.0f + v));
        };
        double d = tone(a[i]) - tone(b[i]);
        se += d * d;
        ++n;
    }
    return se == 0 ? 1e9 : 10 * std::log10(double(n) / se);
}

} // namespace

TEST(RefineNative, TheAccuracySetGivesThePtxPathsBytes) {
    d4r::test::TempDir dir;
    write_set(dir, false);
    Probe native = run_probe({{"D4R_NATIVE_KERNEL_DIR", (dir.path() / "root").string()}}, dir.path() / "out.bin");
    ASSERT_EQ(native.run.exit_code, 0) << native.run.err;
    // The f16 model's plan: every kernel but d4r_nn_linear_fp8, whose module (refine_fp8.ptx) is never loaded.
    for (Kernel k : plan_kernels(kArchRefineV1))
        EXPECT_NE(native.run.err.find(fmt::format("native kernels: serving {} ", kernel_name(k))), std::string::npos)
            << kernel_name(k) << " not served:\n"
            << native.run.err;
    EXPECT_EQ(native.run.err.find("d4r_nn_linear_fp8"), std::string::npos) << native.run.err;
    // The set serves d4r_nn_block: the pipeline fuses its blocks (and the bytes stay the unfused reference's).
    EXPECT_NE(native.run.err.find("refine network: fused blocks (d4r_nn_block runs a native kernel)"),
              std::string::npos)
        << native.run.err;
    EXPECT_TRUE(native.image == reference_image());
}

// A set without d4r_nn_block, and no set at all: the pipeline keeps seven launches a block and says why.
TEST(RefineNative, WithoutANativeBlockThePipelineDoesNotFuseAndSaysWhy) {
    d4r::test::TempDir dir;
    write_set(dir, false, 0, false);
    Probe set = run_probe({{"D4R_NATIVE_KERNEL_DIR", (dir.path() / "root").string()}}, dir.path() / "set.bin");
    ASSERT_EQ(set.run.exit_code, 0) << set.run.err;
    EXPECT_NE(set.run.err.find("native kernels: serving d4r_nn_linear "), std::string::npos) << set.run.err;
    const char* line = "refine network: unfused blocks (seven launches each): d4r_nn_block has no native kernel in the "
                       "active kernel set";
    EXPECT_NE(set.run.err.find(line), std::string::npos) << set.run.err;
    Probe none = run_probe({}, dir.path() / "none.bin");
    ASSERT_EQ(none.run.exit_code, 0) << none.run.err;
    EXPECT_NE(none.run.err.find(line), std::string::npos) << none.run.err;
    const std::vector<uint16_t> ref = reference_image();
    EXPECT_TRUE(set.image == ref);
    EXPECT_TRUE(none.image == ref);
}

TEST(RefineNative, TheFastSetStaysWithin60DbOfThePtxPath) {
    d4r::test::TempDir dir;
    write_set(dir, true);
    Probe fast = run_probe({{"D4R_NATIVE_KERNEL_DIR", (dir.path() / "root").string()}}, dir.path() / "out.bin");
    ASSERT_EQ(fast.run.exit_code, 0) << fast.run.err;
    EXPECT_NE(fast.run.err.find("native kernels: serving d4r_nn_linear "), std::string::npos) << fast.run.err;
    const std::vector<uint16_t> ref = reference_image();
    ASSERT_EQ(fast.image.size(), ref.size());
    EXPECT_NE(fast.image, ref) << "the fast set should not be the accuracy set";
    EXPECT_GE(psnr(fast.image, ref), 60.0);
}

TEST(RefineNative, TheAccuracySetGivesThePtxPathsBytesForAnFp8Model) {
    d4r::test::TempDir dir;
    write_set(dir, false);
    Probe native = run_probe({{"D4R_NATIVE_KERNEL_DIR", (dir.path() / "root").string()}}, dir.path() / "out.bin", true);
    ASSERT_EQ(native.run.exit_code, 0) << native.run.err;
    EXPECT_NE(native.run.err.find("native kernels: serving d4r_nn_linear_fp8 "), std::string::npos) << native.run.err;
    const std::vector<uint16_t> ref = reference_image(true);
    EXPECT_TRUE(native.image == ref);
    EXPECT_NE(ref, reference_image(false)) << "the fp8 layers should change the result";
}

// Not 60 dB: the fp8 linears round their inputs to e4m3 (steps of 1/16 relative), so where the fast set's f32
// accumulators upstream move a value by one f16 ulp across a rounding boundary, that input moves by a whole e4m3
// step. Measured 52.2 dB here (the refine-v1 test model of the same seed: above 60).
TEST(RefineNative, TheFastSetStaysWithin50DbOfThePtxPathForAnFp8Model) {
    d4r::test::TempDir dir;
    write_set(dir, true);
    Probe fast = run_probe({{"D4R_NATIVE_KERNEL_DIR", (dir.path() / "root").string()}}, dir.path() / "out.bin", true);
    ASSERT_EQ(fast.run.exit_code, 0) << fast.run.err;
    EXPECT_NE(fast.run.err.find("native kernels: serving d4r_nn_linear_fp8 "), std::string::npos) << fast.run.err;
    const std::vector<uint16_t> ref = reference_image(true);
    ASSERT_EQ(fast.image.size(), ref.size());
    EXPECT_NE(fast.image, ref) << "the fast set should not be the accuracy set";
    EXPECT_GE(psnr(fast.image, ref), 50.0);
}

TEST(RefineNative, ASetForOtherPtxIsRefusedAndThePtxPathRuns) {
    d4r::test::TempDir dir;
    write_set(dir, false, 1);
    Probe p = run_probe({{"D4R_NATIVE_KERNEL_DIR", (dir.path() / "root").string()}}, dir.path() / "out.bin");
    ASSERT_EQ(p.run.exit_code, 0) << p.run.err;
    EXPECT_NE(p.run.err.find("native kernels: not serving d4r_nn_linear"), std::string::npos) << p.run.err;
    EXPECT_EQ(p.run.err.find("native kernels: serving"), std::string::npos) << p.run.err;
    EXPECT_TRUE(p.image == reference_image());
}

TEST(RefineNative, ABadCpuFileIsRefusedWithItsLine) {
    d4r::test::TempDir dir;
    write_set(dir, false);
    dir.write("root/cpu/d4r_nn_linear.cpu", "2 turbo\n");
    Probe p = run_probe({{"D4R_NATIVE_KERNEL_DIR", (dir.path() / "root").string()}}, dir.path() / "out.bin");
    ASSERT_EQ(p.run.exit_code, 0) << p.run.err;
    EXPECT_NE(p.run.err.find("the first line is '2 turbo'"), std::string::npos) << p.run.err;
    EXPECT_TRUE(p.image == reference_image()); // linear from the PTX, the rest native: still the same bytes
}
