// End to end: `d4r doctor` on machines made up in a temp folder (KFD topology, kernel root, ZLUDA,
// Proton, a fake `wine64` and stand-in NVIDIA drivers).
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <fmt/format.h>

#include "test_support.h"

namespace d4r::test {
namespace {

const std::string kFakeCuda = D4R_TEST_FAKE_CUDA_DIR;

// The report line of CHECK with STATUS whose text contains NEEDLE, or "" when there is none.
bool has_line(const std::string& report, const std::string& status, const std::string& check, const std::string& needle) {
    std::string prefix = fmt::format("{:<5} {:<8} ", status, check);
    size_t pos = 0;
    while ((pos = report.find(prefix, pos)) != std::string::npos) {
        size_t end = report.find('\n', pos);
        std::string line = report.substr(pos, end - pos);
        if (line.find(needle) != std::string::npos) return true;
        pos = end;
    }
    return false;
}

void make_fake_wine(const TempDir& t) {
    fs::path wine = t.write("bin/wine64", "#!/bin/sh\necho wine-8.0 \"(Debian 8.0~repack-4)\"\n");
    ::chmod(wine.c_str(), 0755);
}

std::map<std::string, std::string> env_with_path(const TempDir& t, const std::string& cuda_variant) {
    return {{"PATH", (t.path() / "bin").string() + ":/usr/bin:/bin"},
            {"LD_LIBRARY_PATH", kFakeCuda + "/fake-cuda-" + cuda_variant}};
}

TEST(DoctorCli, WellSetUpMachine) {
    TempDir t;
    make_fake_wine(t);
    t.write("kfd/nodes/1/properties", "simd_count 4\ngfx_target_version 110003\n");
    t.write("kfd/nodes/2/properties", "simd_count 60\ngfx_target_version 110001\n");
    t.write("kernels/gfx1101/conv.hsaco", "x");
    t.write("kernels/gfx1101/d4r-kernels.txt", "conv 0123456789abcdef\n");
    t.write("zluda/libcuda.so", "");
    t.write("proton/proton", "#!/bin/sh\n");
    t.mkdir("compat/pfx");
    fs::path ini = t.write("d4r.ini", fmt::format("[Kernels]\nNativeKernels = on\n[Paths]\nNativeKernelDir = {0}/kernels\n"
                                                  "ZludaDir = {0}/zluda\n[Launch]\nProtonDir = {0}/proton\n"
                                                  "CompatDataDir = {0}/compat\n",
                                                  t.path().string()));
    RunResult r = run_d4r({"doctor", "--config", ini.string(), "--kfd-root", (t.path() / "kfd").string()},
                          env_with_path(t, "ok"));
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_TRUE(has_line(r.out, "ok", "config", "valid")) << r.out;
    EXPECT_TRUE(has_line(r.out, "ok", "gpu", "using gfx1101 (from KFD node 2)")) << r.out;
    EXPECT_TRUE(has_line(r.out, "ok", "kernels", "hash-checked set " + (t.path() / "kernels/gfx1101").string())) << r.out;
    EXPECT_TRUE(has_line(r.out, "ok", "nvidia", "1 device(s): d4r fake GPU")) << r.out;
    EXPECT_TRUE(has_line(r.out, "ok", "nvidia", "CUDA 13.0")) << r.out;
    EXPECT_TRUE(has_line(r.out, "ok", "zluda", (t.path() / "zluda/libcuda.so").string())) << r.out;
    EXPECT_TRUE(has_line(r.out, "ok", "wine", "wine-8.0")) << r.out;
    EXPECT_TRUE(has_line(r.out, "ok", "proton", "Proton " + (t.path() / "proton").string())) << r.out;
    EXPECT_TRUE(has_line(r.out, "ok", "proton", "prefix")) << r.out;
    EXPECT_NE(r.out.find("0 fail"), std::string::npos);
}

TEST(DoctorCli, BareMachineWarnsButDoesNotFail) {
    TempDir t;
    t.mkdir("bin");
    RunResult r = run_d4r({"doctor", "--kfd-root", (t.path() / "no-kfd").string()},
                          {{"PATH", (t.path() / "bin").string()}, {"D4R_NO_CONFIG", "1"}}, t.path());
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_TRUE(has_line(r.out, "ok", "config", "built-in defaults")) << r.out;
    EXPECT_TRUE(has_line(r.out, "warn", "gpu", "no AMD GPU found")) << r.out;
    EXPECT_TRUE(has_line(r.out, "warn", "nvidia", "not found")) << r.out;
    EXPECT_TRUE(has_line(r.out, "warn", "wine", "not found")) << r.out;
    EXPECT_TRUE(has_line(r.out, "ok", "kernels", "native kernels off")) << r.out;
    // Every line carries a status and a check name.
    for (std::string_view line : {std::string_view(r.out)}) EXPECT_FALSE(line.empty());
}

TEST(DoctorCli, CrashingDriverIsAWarningNotACrash) {
    TempDir t;
    t.mkdir("bin");
    RunResult r = run_d4r({"doctor", "--kfd-root", (t.path() / "no-kfd").string()},
                          {{"PATH", (t.path() / "bin").string()}, {"D4R_NO_CONFIG", "1"},
                           {"LD_LIBRARY_PATH", kFakeCuda + "/fake-cuda-crash"}});
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_TRUE(has_line(r.out, "warn", "nvidia", "probe crashed")) << r.out;
}

TEST(DoctorCli, InvalidConfigAndMissingPathsFail) {
    TempDir t;
    t.mkdir("bin");
    fs::path ini = t.write("d4r.ini", "[Kernels]\nPreferAccuracy = perhaps\n");
    RunResult r = run_d4r({"doctor", "--config", ini.string(), "--kfd-root", (t.path() / "no-kfd").string()},
                          {{"PATH", (t.path() / "bin").string()}});
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_TRUE(has_line(r.out, "fail", "config", "[Kernels] PreferAccuracy must be true or false")) << r.out;
    EXPECT_TRUE(has_line(r.out, "fail", "config", "not 'perhaps'")) << r.out;

    fs::path ini2 = t.write("other.ini", fmt::format("[Kernels]\nNativeKernels = on\n[Paths]\nNativeKernelDir = {0}/nope\n"
                                                     "ZludaDir = {0}/nozluda\n[Launch]\nProtonDir = {0}/noproton\n",
                                                     t.path().string()));
    r = run_d4r({"doctor", "--config", ini2.string(), "--kfd-root", (t.path() / "no-kfd").string()},
                {{"PATH", (t.path() / "bin").string()}});
    EXPECT_EQ(r.exit_code, 1) << r.out;
    EXPECT_TRUE(has_line(r.out, "fail", "kernels", "does not exist")) << r.out;
    EXPECT_TRUE(has_line(r.out, "fail", "zluda", "no libcuda.so")) << r.out;
    EXPECT_TRUE(has_line(r.out, "fail", "proton", "does not exist")) << r.out;
}

TEST(DoctorCli, AccuracyModeWithoutAccuracySetWarns) {
    TempDir t;
    t.mkdir("bin");
    t.write("kernels/gfx1101/conv.hsaco", "x");
    t.write("kernels/gfx1101/d4r-kernels.txt", "conv 0123456789abcdef\n");
    fs::path ini = t.write("d4r.ini", fmt::format("[Kernels]\nNativeKernels = on\nPreferAccuracy = true\n"
                                                  "[Paths]\nNativeKernelDir = {0}/kernels\nCacheDir = {0}/cache\n",
                                                  t.path().string()));
    RunResult r = run_d4r({"doctor", "--config", ini.string(), "--kfd-root", (t.path() / "no-kfd").string()},
                          {{"PATH", (t.path() / "bin").string()}, {"D4R_GPU_ARCH", "gfx1101"}});
    EXPECT_EQ(r.exit_code, 0) << r.out;
    EXPECT_TRUE(has_line(r.out, "warn", "kernels", "accuracy mode")) << r.out;
    EXPECT_TRUE(has_line(r.out, "warn", "gpu", "using gfx1101 from D4R_GPU_ARCH")) << r.out;
}

TEST(DoctorCli, Help) {
    RunResult r = run_d4r({"doctor", "--help"});
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_NE(r.out.find("--config"), std::string::npos);
}

} // namespace
} // namespace d4r::test
