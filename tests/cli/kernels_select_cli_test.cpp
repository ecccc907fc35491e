// End to end: `d4r kernels select` and `d4r gpu` as a user runs them.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "test_support.h"

namespace d4r::test {
namespace {

std::string properties(int simds, int version) {
    return fmt::format("cpu_cores_count 0\nsimd_count {}\ngfx_target_version {}\ndevice_id 29772\n", simds, version);
}

// A machine with an integrated RDNA3 GPU (node 1) and a discrete RDNA3 GPU (node 2).
void make_topology(const TempDir& t) {
    t.write("kfd/nodes/0/properties", "cpu_cores_count 16\nsimd_count 0\ngfx_target_version 0\n");
    t.write("kfd/nodes/1/properties", properties(4, 110003));
    t.write("kfd/nodes/2/properties", properties(60, 110001));
}

void make_root(const TempDir& t) {
    for (const char* arch : {"gfx1101", "gfx1103", "gfx1201"}) {
        t.write(fmt::format("kernels/{}/conv.hsaco", arch), "x");
        t.write(fmt::format("kernels/{}/d4r-kernels.txt", arch), "conv 0123456789abcdef\n");
        t.write(fmt::format("kernels/accuracy/{}/conv.hsaco", arch), "x");
        t.write(fmt::format("kernels/accuracy/{}/d4r-accuracy.txt", arch), "1\n");
    }
    t.write("kernels/gfx1201-fp8/conv.hsaco", "x");
    t.write("kernels/gfx1201-fp8/d4r-kernels.txt", "conv 0123456789abcdef\n");
}

TEST(KernelsSelectCli, ExplicitArchFastAndAccuracy) {
    TempDir t;
    make_root(t);
    std::string root = (t.path() / "kernels").string();
    RunResult r = run_d4r({"kernels", "select", "--root", root, "--arch", "gfx1103"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "1 " + root + "/gfx1103\n");

    r = run_d4r({"kernels", "select", "--root", root, "--arch", "gfx1103", "--accuracy"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "2 " + root + "/accuracy/gfx1103\n");

    r = run_d4r({"kernels", "select", "--root", root, "--arch", "gfx1201", "--fp8"});
    EXPECT_EQ(r.out, "1 " + root + "/gfx1201-fp8\n");

    r = run_d4r({"kernels", "select", "--root", root, "--arch", "gfx1100"});
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_EQ(r.out, "0\n");
}

TEST(KernelsSelectCli, ArchFromKfdTopologyPicksTheDiscreteGpu) {
    TempDir t;
    make_root(t);
    make_topology(t);
    std::string root = (t.path() / "kernels").string();
    RunResult r =
        run_d4r({"kernels", "select", "--root", root, "--kfd-root", (t.path() / "kfd").string(), "--explain"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "1 " + root + "/gfx1101\n");
    EXPECT_NE(r.err.find("arch: gfx1101 (from KFD node 2)"), std::string::npos) << r.err;
}

TEST(KernelsSelectCli, EnvironmentArchOverridesKfdAndFlagOverridesBoth) {
    TempDir t;
    make_root(t);
    make_topology(t);
    std::string root = (t.path() / "kernels").string();
    std::string kfd = (t.path() / "kfd").string();
    RunResult r = run_d4r({"kernels", "select", "--root", root, "--kfd-root", kfd}, {{"D4R_GPU_ARCH", "gfx1201"}});
    EXPECT_EQ(r.out, "1 " + root + "/gfx1201\n");
    r = run_d4r({"kernels", "select", "--root", root, "--kfd-root", kfd, "--arch", "gfx1103"},
                {{"D4R_GPU_ARCH", "gfx1201"}});
    EXPECT_EQ(r.out, "1 " + root + "/gfx1103\n");
}

TEST(KernelsSelectCli, UsageErrorsExitTwo) {
    RunResult r = run_d4r({"kernels", "select"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("--root"), std::string::npos) << r.err;
    r = run_d4r({"kernels", "select", "--root", "/tmp", "--arch", "navi31"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("navi31"), std::string::npos);
    r = run_d4r({"kernels", "select", "--root", "/tmp", "--bogus"});
    EXPECT_EQ(r.exit_code, 2);
}

TEST(KernelsSelectCli, Help) {
    RunResult r = run_d4r({"kernels", "select", "--help"});
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_NE(r.out.find("KIND PATH"), std::string::npos);
    r = run_d4r({"kernels", "--help"});
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_NE(r.out.find("select"), std::string::npos);
    r = run_d4r({"--help"});
    EXPECT_EQ(r.exit_code, 0);
    r = run_d4r({"--version"});
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_NE(r.out.find("d4r "), std::string::npos);
}

TEST(GpuCli, ListsGpusAndTheChosenOne) {
    TempDir t;
    make_topology(t);
    RunResult r = run_d4r({"gpu", "--kfd-root", (t.path() / "kfd").string()});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("gfx1103"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("gfx1101"), std::string::npos);
    EXPECT_NE(r.out.find("d4r would use: gfx1101 (from KFD node 2)"), std::string::npos) << r.out;
    // Exactly one line is marked as the chosen GPU, and it is node 2.
    size_t mark = r.out.find("<- most SIMDs");
    ASSERT_NE(mark, std::string::npos);
    EXPECT_EQ(r.out.find("<- most SIMDs", mark + 1), std::string::npos);
    size_t line_start = r.out.rfind('\n', mark) + 1;
    EXPECT_EQ(r.out.substr(line_start, 1), "2");
}

TEST(GpuCli, NoGpuExitsOneWithAHint) {
    TempDir t;
    RunResult r = run_d4r({"gpu", "--kfd-root", (t.path() / "none").string()});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.out.find("no GPU found"), std::string::npos);
    EXPECT_NE(r.out.find("D4R_GPU_ARCH"), std::string::npos);
    r = run_d4r({"gpu", "--kfd-root", (t.path() / "none").string()}, {{"D4R_GPU_ARCH", "gfx1200"}});
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_NE(r.out.find("d4r would use: gfx1200 (from D4R_GPU_ARCH)"), std::string::npos);
}

} // namespace
} // namespace d4r::test
