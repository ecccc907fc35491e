// The cpu backend's PTX profiles: with D4R_CPU_PTX_PROFILE naming a file, every launch runs interpreted and appends
// its kernel, shape and warp instructions, then its warp instructions per PTX line, the most first; a file that cannot
// be written costs the profile, never the launch. The variable is read once per process, so each case runs in a fresh
// process (a death test in "threadsafe" style re-runs the test binary).
#include <cstdlib>
#include <optional>
#include <sstream>
#include <string>

#include "cpu_test_util.h"
#include "test_support.h"

namespace d4r::runtime::cpu_test {
namespace {

// The add, setp and branch of LOOP run 4 times a warp.
const char* kLoop = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry loop()\n{\n"
                    "  .reg .pred %p<2>;\n  .reg .b32 %r<2>;\n  mov.u32 %r1, 0;\nLOOP:\n  add.s32 %r1, %r1, 1;\n"
                    "  setp.lt.u32 %p1, %r1, 4;\n  @%p1 bra LOOP;\n  ret;\n}\n";

// Runs LOOP on 2 x 64 threads, then on 1 x 32, with D4R_CPU_PTX_PROFILE=PATH: 0 when both succeed.
int launches_with_profile(const std::string& path) {
    setenv("D4R_CPU_PTX_PROFILE", path.c_str(), 1);
    CUfunction f = fresh_process_kernel(kLoop, "loop");
    if (!f) return 100;
    if (api().cuLaunchKernel(f, 2, 1, 1, 64, 1, 1, 0, nullptr, nullptr, nullptr)) return 101;
    if (api().cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, nullptr)) return 102;
    return api().cuCtxSynchronize() == CUDA_SUCCESS ? 0 : 103;
}

// The folder the profile goes to: the parent's temporary folder, which the death test's child (running the test's
// body again in a new process) finds in the environment.
class ProfileFolder {
public:
    ProfileFolder() {
        if (const char* inherited = std::getenv(kVariable)) {
            m_path = inherited;
        } else {
            m_dir.emplace();
            m_path = m_dir->path().string();
            setenv(kVariable, m_path.c_str(), 1);
        }
    }
    ~ProfileFolder() {
        if (m_dir) unsetenv(kVariable);
    }
    std::string file(const std::string& name) const { return m_path + "/" + name; }

private:
    static constexpr const char* kVariable = "CPU_PTX_PROFILE_TEST_FOLDER";
    std::optional<d4r::test::TempDir> m_dir;
    std::string m_path;
};

TEST(CpuPtxProfile, EachLaunchAppendsItsKernelAndItsLinesTheMostFirst) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    const ProfileFolder dir;
    const std::string path = dir.file("profile.txt");
    EXPECT_EXIT(std::_Exit(launches_with_profile(path)), ::testing::ExitedWithCode(0), "");
    std::istringstream in(d4r::test::read_file_text(path));
    std::string line;
    // The first launch: four warps, the loop's three lines 16 times each, the mov and the ret 4 times: 56.
    ASSERT_TRUE(std::getline(in, line));
    EXPECT_EQ(line, "# kernel 'loop' grid 2x1x1 block 64x1x1: 56 warp instructions");
    ASSERT_TRUE(std::getline(in, line));
    EXPECT_EQ(line, "16 10 add.s32 %r1, %r1, 1");
    for (int i = 0; i < 4; ++i) ASSERT_TRUE(std::getline(in, line)); // setp, bra (16), mov, ret (4)
    EXPECT_EQ(line, "4 13 ret");
    // The second: one warp, 14.
    ASSERT_TRUE(std::getline(in, line));
    EXPECT_EQ(line, "# kernel 'loop' grid 1x1x1 block 32x1x1: 14 warp instructions");
    ASSERT_TRUE(std::getline(in, line));
    EXPECT_EQ(line, "4 10 add.s32 %r1, %r1, 1");
}

TEST(CpuPtxProfile, AFileThatCannotBeWrittenCostsTheProfileNotTheLaunch) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    const ProfileFolder dir;
    EXPECT_EXIT(std::_Exit(launches_with_profile(dir.file("no-such-folder/profile.txt"))), ::testing::ExitedWithCode(0),
                "");
}

} // namespace
} // namespace d4r::runtime::cpu_test
