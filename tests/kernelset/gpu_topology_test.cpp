// docs/kernel-sets.md GPU selection from the KFD topology.
#include <gtest/gtest.h>

#include "kernelset/gpu_topology.h"
#include "test_support.h"

namespace d4r::kernels {
namespace {

using test::TempDir;

// A properties file as the amdgpu driver writes it (a subset of the real keys, in the real format).
std::string properties(uint64_t simd_count, uint64_t gfx_target_version, uint64_t device_id = 0x744c) {
    return fmt::format("cpu_cores_count 0\nsimd_count {}\nmem_banks_count 1\ncaches_count 0\n"
                       "gfx_target_version {}\nvendor_id 4098\ndevice_id {}\nlocation_id 768\n",
                       simd_count, gfx_target_version, device_id);
}
const std::string kCpuNode = "cpu_cores_count 16\nsimd_count 0\ngfx_target_version 0\nvendor_id 0\n";

TEST(GpuTopology, ArchNamesFromTargetVersion) {
    EXPECT_EQ(arch_from_target_version(110000), "gfx1100");
    EXPECT_EQ(arch_from_target_version(110001), "gfx1101");
    EXPECT_EQ(arch_from_target_version(110002), "gfx1102");
    EXPECT_EQ(arch_from_target_version(110003), "gfx1103");
    EXPECT_EQ(arch_from_target_version(120000), "gfx1200");
    EXPECT_EQ(arch_from_target_version(120001), "gfx1201");
    EXPECT_EQ(arch_from_target_version(90010), "gfx90a"); // minor/stepping are hex digits
    EXPECT_EQ(arch_from_target_version(100306), "gfx1036");
    EXPECT_EQ(arch_from_target_version(0), "");
    EXPECT_EQ(arch_from_target_version(110020), ""); // stepping 20 has no one-digit name
}

TEST(GpuTopology, ValidArchNames) {
    for (const char* ok : {"gfx1100", "gfx1201", "gfx90a", "gfx942"}) EXPECT_TRUE(is_valid_arch_name(ok)) << ok;
    for (const char* bad : {"", "gfx", "gfx11", "GFX1100", "gfx1100-fp8", "gfx11000", "sm_89", "gfx110g"})
        EXPECT_FALSE(is_valid_arch_name(bad)) << bad;
}

TEST(GpuTopology, DiscreteBeatsIntegratedWhateverTheNodeOrder) {
    TempDir t;
    t.write("nodes/0/properties", kCpuNode);
    t.write("nodes/1/properties", properties(4, 110003));  // integrated RDNA3 (gfx1103), 4 SIMDs... small
    t.write("nodes/2/properties", properties(96, 110000)); // discrete 7900 XTX class
    auto nodes = read_kfd_topology(t.path());
    ASSERT_EQ(nodes.size(), 2u); // the CPU node is skipped
    EXPECT_EQ(nodes[0].arch, "gfx1103");
    EXPECT_EQ(nodes[1].arch, "gfx1100");
    auto chosen = choose_gpu(nodes);
    ASSERT_TRUE(chosen);
    EXPECT_EQ(chosen->node, 2);
    EXPECT_EQ(chosen->arch, "gfx1100");

    TempDir swapped;
    swapped.write("nodes/0/properties", kCpuNode);
    swapped.write("nodes/1/properties", properties(64, 120001)); // discrete RDNA4 first
    swapped.write("nodes/2/properties", properties(12, 110003));
    auto other = choose_gpu(read_kfd_topology(swapped.path()));
    ASSERT_TRUE(other);
    EXPECT_EQ(other->arch, "gfx1201");
    EXPECT_EQ(other->node, 1);
}

TEST(GpuTopology, TiesGoToTheLowestNode) {
    TempDir t;
    t.write("nodes/3/properties", properties(60, 110001));
    t.write("nodes/5/properties", properties(60, 110002));
    auto chosen = choose_gpu(read_kfd_topology(t.path()));
    ASSERT_TRUE(chosen);
    EXPECT_EQ(chosen->node, 3);
}

TEST(GpuTopology, SkipsNodesWithZeroSimdsOrVersionAndMalformedLines) {
    TempDir t;
    t.write("nodes/0/properties", "simd_count 80\ngfx_target_version 0\n");
    t.write("nodes/1/properties", "simd_count 0\ngfx_target_version 110000\n");
    t.write("nodes/2/properties", "garbage line\nsimd_count x\nsimd_count 40\n\ngfx_target_version 110002\nname\n");
    auto nodes = read_kfd_topology(t.path());
    ASSERT_EQ(nodes.size(), 1u);
    EXPECT_EQ(nodes[0].node, 2);
    EXPECT_EQ(nodes[0].simd_count, 40u);
    EXPECT_EQ(nodes[0].arch, "gfx1102");
}

TEST(GpuTopology, MissingTopologyIsNoGpu) {
    EXPECT_TRUE(read_kfd_topology("/nonexistent/kfd/topology").empty());
    MapEnvironment env;
    auto decision = decide_gpu_arch(env, "/nonexistent/kfd/topology");
    ASSERT_TRUE(decision.ok());
    EXPECT_EQ(decision->arch, "");
    EXPECT_EQ(decision->source, "none");
}

TEST(GpuTopology, EnvironmentOverridesDetectionAndExplicitOverridesBoth) {
    TempDir t;
    t.write("nodes/1/properties", properties(96, 110000));
    MapEnvironment env;
    EXPECT_EQ(decide_gpu_arch(env, t.path())->arch, "gfx1100");
    EXPECT_EQ(decide_gpu_arch(env, t.path())->source, "KFD node 1");

    env.set("D4R_GPU_ARCH", "gfx1201");
    auto forced = decide_gpu_arch(env, t.path());
    EXPECT_EQ(forced->arch, "gfx1201");
    EXPECT_EQ(forced->source, "D4R_GPU_ARCH");
    ASSERT_TRUE(forced->chosen); // still reports what it saw
    EXPECT_EQ(forced->chosen->arch, "gfx1100");

    auto explicit_arch = decide_gpu_arch(env, t.path(), std::string("gfx1102"));
    EXPECT_EQ(explicit_arch->arch, "gfx1102");
    EXPECT_EQ(explicit_arch->source, "--arch");

    EXPECT_FALSE(decide_gpu_arch(env, t.path(), std::string("rdna3")).ok());
}

TEST(GpuTopology, InvalidEnvironmentArchIsAWarningAndIgnored) {
    TempDir t;
    t.write("nodes/1/properties", properties(96, 110001));
    MapEnvironment env{{"D4R_GPU_ARCH", "navi32"}};
    auto decision = decide_gpu_arch(env, t.path());
    ASSERT_TRUE(decision.ok());
    EXPECT_EQ(decision->arch, "gfx1101");
    ASSERT_EQ(decision->warnings.size(), 1u);
    EXPECT_NE(decision->warnings[0].find("navi32"), std::string::npos);
}

// D4R_GPU_ARCH is validated in one place for both vendors: the wrong kind of name is refused with a reason.
TEST(GpuTopology, ForcedArchIsCheckedForTheVendor) {
    EXPECT_EQ(forced_gpu_arch(MapEnvironment{}, GpuVendor::Amd).arch, std::nullopt);
    EXPECT_TRUE(forced_gpu_arch(MapEnvironment{}, GpuVendor::Amd).warning.empty());
    EXPECT_EQ(forced_gpu_arch(MapEnvironment{{"D4R_GPU_ARCH", "gfx1101"}}, GpuVendor::Amd).arch, "gfx1101");
    EXPECT_EQ(forced_gpu_arch(MapEnvironment{{"D4R_GPU_ARCH", "sm_86"}}, GpuVendor::Nvidia).arch, "sm_86");
    EXPECT_EQ(forced_gpu_arch(MapEnvironment{{"D4R_GPU_ARCH", "sm_120"}}, GpuVendor::Nvidia).arch, "sm_120");
    ForcedArch wrong = forced_gpu_arch(MapEnvironment{{"D4R_GPU_ARCH", "gfx1101"}}, GpuVendor::Nvidia);
    EXPECT_EQ(wrong.arch, std::nullopt);
    EXPECT_NE(wrong.warning.find("ignoring D4R_GPU_ARCH='gfx1101': expected an sm_XY target"), std::string::npos)
        << wrong.warning;
    ForcedArch amd_wrong = forced_gpu_arch(MapEnvironment{{"D4R_GPU_ARCH", "sm_86"}}, GpuVendor::Amd);
    EXPECT_EQ(amd_wrong.arch, std::nullopt);
    EXPECT_NE(amd_wrong.warning.find("expected a gfx target"), std::string::npos) << amd_wrong.warning;
    EXPECT_FALSE(is_valid_sm_name("sm_8"));
    EXPECT_FALSE(is_valid_sm_name("sm_8x"));
    EXPECT_FALSE(is_valid_sm_name("compute_86"));
}

} // namespace
} // namespace d4r::kernels
