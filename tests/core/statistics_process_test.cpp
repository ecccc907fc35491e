// core/statistics.h (median) and the path helpers of core/process.h and core/files.h.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

#include "core/files.h"
#include "core/process.h"
#include "core/statistics.h"
#include "test_support.h"

using namespace d4r;

TEST(Statistics, MedianOfOddEvenAndEmptyLists) {
    EXPECT_EQ(median({}), 0.0);
    EXPECT_EQ(median({4.0}), 4.0);
    EXPECT_EQ(median({9.0, 1.0, 5.0}), 5.0);      // unsorted input
    EXPECT_EQ(median({8.0, 2.0, 4.0, 6.0}), 5.0); // mean of the middle two
    EXPECT_EQ(median({-1.0, -1.0, 3.0, 100.0, 2.0}), 2.0);
}

TEST(Process, ExecutablePathIsThisTestBinary) {
    std::string exe = executable_path();
    ASSERT_FALSE(exe.empty());
    EXPECT_EQ(std::filesystem::path(exe).filename(), "d4r_core_tests");
    EXPECT_TRUE(is_file(exe));
}

TEST(Files, ResolvedPathFollowsLinksAndKeepsUnresolvablePaths) {
    d4r::test::TempDir dir;
    std::filesystem::path target = dir.path() / "target.txt";
    ASSERT_TRUE(write_file_atomic(target, std::string_view("x")));
    std::filesystem::path link = dir.path() / "sub" / ".." / "link.txt";
    std::filesystem::create_directories(dir.path() / "sub");
    ASSERT_EQ(symlink(target.c_str(), (dir.path() / "link.txt").c_str()), 0);
    EXPECT_EQ(resolved_path_or_same(link.string()), std::filesystem::canonical(target).string());
    std::string missing = (dir.path() / "absent" / "file").string();
    EXPECT_EQ(resolved_path_or_same(missing), missing);
}
