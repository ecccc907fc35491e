// Native CPU kernels (src/kernels/upscaler/cpu, linked into libd4rcuda): with D4R_NATIVE_KERNEL_DIR naming the
// kernel root the build generates (build/share/d4r/native), libd4rcuda's cpu backend serves d4r_up_* natively
// and the outputs equal the PTX path's (ptxsim) and the reference's bit for bit; a manifest that does not vouch
// for the PTX gets them refused and the PTX path still agrees. Runs upscaler_probe as a child process because the
// runtime reads its environment once per process.
#include <gtest/gtest.h>

#include <fstream>

#include "harness.h"
#include "ptx/module_hash.h"
#include "test_support.h"
#include "upscaler/embedded_ptx.h"
#include "upscaler/host_kernels.h"
#include "upscaler/native_kernels.h"

using namespace d4r;
using namespace d4r::upscaler;
namespace fs = std::filesystem;

namespace {

constexpr uint32_t kRw = 48, kRh = 32, kOw = 96, kOh = 64, kFrames = 3;

struct Probe {
    d4r::test::RunResult run;
    std::vector<uint16_t> output; // every frame
};

Probe run_probe(const std::map<std::string, std::string>& extra_env, const fs::path& out) {
    // LeakSanitizer's exit-time tracer crashes in this child under the asan build (the runtime's worker
    // threads are still running at exit); leaks are checked in the test process itself.
    std::map<std::string, std::string> env{
        {"D4R_CUDA_BACKEND", "cpu"}, {"D4R_LOG", "info"}, {"ASAN_OPTIONS", "detect_leaks=0"}};
    for (auto& [k, v] : extra_env) env[k] = v;
    Probe p;
    p.run = d4r::test::run_command({D4R_TEST_UPSCALER_PROBE, std::string(D4R_TEST_LIB_DIR) + "/libcuda.so.1",
                                    out.string(), std::to_string(kRw), std::to_string(kRh), std::to_string(kOw),
                                    std::to_string(kOh), std::to_string(kFrames)},
                                   env);
    std::string bytes = d4r::test::read_file_text(out);
    p.output.resize(bytes.size() / 2);
    std::memcpy(p.output.data(), bytes.data(), p.output.size() * 2);
    return p;
}

std::vector<uint16_t> reference_output() {
    std::vector<uint16_t> all;
    Status s = upscaler::test::run_reference(
        upscaler::test::probe_options(kRw, kRh, kOw, kOh, kFrames),
        [&](uint32_t, const std::vector<uint16_t>& f) { all.insert(all.end(), f.begin(), f.end()); });
    EXPECT_TRUE(s) << s.error().text();
    return all;
}

} // namespace

TEST(UpscalerNative, ServedKernelsEqualThePtxPathAndTheReference) {
    d4r::test::TempDir dir;
    Probe ptx = run_probe({}, dir.path() / "ptx.bin");
    ASSERT_EQ(ptx.run.exit_code, 0) << ptx.run.err;
    EXPECT_EQ(ptx.run.err.find("native kernels: serving"), std::string::npos) << ptx.run.err;

    Probe native =
        run_probe({{"D4R_NATIVE_KERNEL_DIR", build_native_kernel_root().string()}}, dir.path() / "native.bin");
    ASSERT_EQ(native.run.exit_code, 0) << native.run.err;
    for (const char* k : {"d4r_up_prepare", "d4r_up_accumulate", "d4r_up_sharpen"})
        EXPECT_NE(native.run.err.find(fmt::format("native kernels: serving {} ", k)), std::string::npos)
            << k << " not served:\n"
            << native.run.err;

    std::vector<uint16_t> ref = reference_output();
    ASSERT_EQ(ref.size(), size_t(kOw) * kOh * 4 * kFrames);
    ASSERT_EQ(ptx.output.size(), ref.size());
    ASSERT_EQ(native.output.size(), ref.size());
    EXPECT_TRUE(native.output == ptx.output) << "native kernels differ from the PTX on ptxsim";
    EXPECT_TRUE(ptx.output == ref) << "the PTX on ptxsim differs from the reference";
}

TEST(UpscalerNative, AManifestForOtherPtxIsRefusedAndThePtxPathStillAgrees) {
    d4r::test::TempDir dir;
    fs::path set = dir.mkdir("root/cpu");
    uint64_t wrong = ptx::module_hash(upscaler_ptx()) ^ 1;
    std::string manifest;
    for (KernelId k : kAllKernels) {
        dir.write(fs::path("root/cpu") / (std::string(kernel_name(k)) + ".cpu"), "1\n");
        manifest += fmt::format("{} {:016x}\n", kernel_name(k), wrong);
    }
    dir.write("root/cpu/d4r-kernels.txt", manifest);
    Probe p = run_probe({{"D4R_NATIVE_KERNEL_DIR", (dir.path() / "root").string()}}, dir.path() / "out.bin");
    ASSERT_EQ(p.run.exit_code, 0) << p.run.err;
    EXPECT_NE(p.run.err.find("native kernels: not serving d4r_up_accumulate"), std::string::npos) << p.run.err;
    EXPECT_EQ(p.run.err.find("native kernels: serving"), std::string::npos) << p.run.err;
    EXPECT_TRUE(p.output == reference_output());
}
