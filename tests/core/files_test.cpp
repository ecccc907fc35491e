#include <gtest/gtest.h>

#include <sys/stat.h>

#include "core/files.h"
#include "test_support.h"

namespace d4r {
namespace {

using test::TempDir;

TEST(Files, ReadWriteRoundTrip) {
    TempDir t;
    fs::path p = t.path() / "a.txt";
    ASSERT_TRUE(write_file_atomic(p, std::string_view("hello\n")).ok());
    EXPECT_EQ(*read_text_file(p), "hello\n");
    ASSERT_TRUE(write_file_atomic(p, std::string_view("replaced")).ok());
    EXPECT_EQ(*read_text_file(p), "replaced");
    // No temporary files left behind.
    EXPECT_EQ(list_directory(t.path())->size(), 1u);
}

TEST(Files, AtomicWriteKeepsModeOfReplacedFile) {
    TempDir t;
    fs::path p = t.write("script.sh", "old");
    ::chmod(p.c_str(), 0755);
    ASSERT_TRUE(write_file_atomic(p, std::string_view("new")).ok());
    struct stat st{};
    ASSERT_EQ(::stat(p.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0755u);
}

TEST(Files, FailedWriteLeavesTargetAndNoTemporary) {
    TempDir t;
    fs::path dir = t.mkdir("target-is-a-dir");
    Status s = write_file_atomic(dir, std::string_view("x")); // rename over a folder fails
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.error().text().find("target-is-a-dir"), std::string::npos);
    EXPECT_TRUE(is_dir(dir));
    EXPECT_EQ(list_directory(t.path())->size(), 1u);

    Status missing = write_file_atomic(t.path() / "no" / "such" / "dir" / "f", std::string_view("x"));
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().code(), ErrorCode::Io);
}

TEST(Files, ReadErrorsNameThePath) {
    auto r = read_file("/nonexistent/d4r/file.bin");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code(), ErrorCode::NotFound);
    EXPECT_NE(r.error().text().find("/nonexistent/d4r/file.bin"), std::string::npos);
}

TEST(Files, ReadRefusesFilesOverTheLimit) {
    TempDir t;
    fs::path p = t.write("big", std::string(1000, 'x'));
    EXPECT_TRUE(read_file(p, 1000).ok());
    auto r = read_file(p, 999);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code(), ErrorCode::Invalid);
}

// Devices, pipes and folders are refused at once, before anything is read or allocated (/dev/zero
// would otherwise feed bytes up to the size limit: issue 14, item 10).
TEST(Files, ReadRefusesWhatIsNotARegularFile) {
    auto zero = read_file("/dev/zero", 16ull << 30);
    ASSERT_FALSE(zero.ok());
    EXPECT_EQ(zero.error().code(), ErrorCode::Invalid);
    EXPECT_NE(zero.error().text().find("'/dev/zero' is not a regular file"), std::string::npos) << zero.error().text();
    auto folder = read_text_file(fs::temp_directory_path());
    ASSERT_FALSE(folder.ok());
    EXPECT_NE(folder.error().text().find("is a folder, not a file"), std::string::npos) << folder.error().text();
}

TEST(Files, QueriesAndSortedListing) {
    TempDir t;
    t.write("b", "");
    t.write("a", "");
    t.mkdir("c");
    auto entries = list_directory(t.path());
    ASSERT_TRUE(entries.ok());
    ASSERT_EQ(entries->size(), 3u);
    EXPECT_EQ((*entries)[0].filename(), "a");
    EXPECT_EQ((*entries)[2].filename(), "c");
    EXPECT_TRUE(is_file(t.path() / "a"));
    EXPECT_FALSE(is_file(t.path() / "c"));
    EXPECT_TRUE(is_dir(t.path() / "c"));
    EXPECT_TRUE(path_exists(t.path() / "b"));
    EXPECT_FALSE(path_exists(t.path() / "z"));
    EXPECT_FALSE(list_directory(t.path() / "z").ok());
}

} // namespace
} // namespace d4r
