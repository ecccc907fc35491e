// The pieces of `d4r package`: the reproducible zip writer (read back by python3's zipfile),
// the version-resource strings of a DLL, and the redistribution guard catching NVIDIA
// content by what files hold, not by their names.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cstdlib>
#include <string>

#include "core/files.h"
#include "package_fixtures.h"
#include "release/pe_version.h"
#include "release/redistribution_guard.h"
#include "release/zip_writer.h"
#include "test_support.h"

namespace d4r::release {
namespace {

using test::read_file_text;
using test::run_command;
using test::TempDir;
namespace fs = std::filesystem;

// COMMAND through /bin/sh (so PATH is searched), with this process's HOME (version managers' shims
// such as pyenv's read it).
test::RunResult shell(const std::string& command) {
    const char* home = std::getenv("HOME");
    return run_command({"/bin/sh", "-c", command}, {{"HOME", home ? home : "/"}});
}

void make_tree(const TempDir& t) {
    t.write("tree/b.txt", std::string(5000, 'b'));
    t.write("tree/a/z.bin", std::string("\x00\x01\x02\xff", 4));
    t.write("tree/a/empty", "");
    const fs::path tool = t.write("tree/run.sh", "#!/bin/sh\necho hi\n");
    fs::permissions(tool, fs::perms(0755));
    t.mkdir("tree/a/folder");
}

TEST(PackageZip, ReadableSortedFixedModesAndByteIdentical) {
    TempDir t;
    make_tree(t);
    auto entries = zip_entries_of_tree(t.path() / "tree", "rel/");
    ASSERT_TRUE(entries) << entries.error().text();
    ASSERT_EQ(entries->size(), 7u);
    EXPECT_EQ(entries->front().name, "rel/");
    EXPECT_EQ((*entries)[1].name, "rel/a/");
    ASSERT_TRUE(write_zip(t.path() / "one.zip", *entries, 1700000000).ok());
    // The second run touches every file's time: the zip must not change.
    for (const auto& e : fs::recursive_directory_iterator(t.path() / "tree"))
        fs::last_write_time(e.path(), fs::file_time_type::clock::now());
    ASSERT_TRUE(write_zip(t.path() / "two.zip", *zip_entries_of_tree(t.path() / "tree", "rel/"), 1700000000).ok());
    EXPECT_EQ(read_file_text(t.path() / "one.zip"), read_file_text(t.path() / "two.zip"));
    EXPECT_FALSE(path_exists(t.path() / ("one.zip.tmp-" + std::to_string(::getpid()))));
    // Another timestamp, other bytes.
    ASSERT_TRUE(write_zip(t.path() / "three.zip", *entries, 1800000000).ok());
    EXPECT_NE(read_file_text(t.path() / "one.zip"), read_file_text(t.path() / "three.zip"));

    // Read back by another implementation (Python's zipfile, which tests every entry's CRC): python3 is in every
    // Debian install d4r supports, so its absence is a failure, not a reason to skip.
    ASSERT_EQ(shell("python3 -c 'import zipfile'").exit_code, 0)
        << "python3 with zipfile is needed to read the zip back";
    {
        auto r = shell("python3 -m zipfile -t '" + (t.path() / "one.zip").string() + "'");
        EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    }
    const std::string script = "import zipfile,sys\n"
                               "z=zipfile.ZipFile(sys.argv[1])\n"
                               "assert z.testzip() is None\n"
                               "for i in z.infolist():\n"
                               "  print(i.filename, oct(i.external_attr>>16), i.date_time, i.compress_type, "
                               "len(i.extra), z.read(i.filename)[:4].hex())\n";
    t.write("read.py", script);
    auto r = shell("python3 '" + (t.path() / "read.py").string() + "' '" + (t.path() / "one.zip").string() + "'");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "rel/ 0o40755 (2023, 11, 14, 22, 13, 20) 0 0 \n"
                     "rel/a/ 0o40755 (2023, 11, 14, 22, 13, 20) 0 0 \n"
                     "rel/a/empty 0o100644 (2023, 11, 14, 22, 13, 20) 0 0 \n"
                     "rel/a/folder/ 0o40755 (2023, 11, 14, 22, 13, 20) 0 0 \n"
                     "rel/a/z.bin 0o100644 (2023, 11, 14, 22, 13, 20) 0 0 000102ff\n"
                     "rel/b.txt 0o100644 (2023, 11, 14, 22, 13, 20) 8 0 62626262\n"
                     "rel/run.sh 0o100755 (2023, 11, 14, 22, 13, 20) 0 0 23212f62\n");
}

TEST(PackageZip, RefusesLinksAndDuplicateNames) {
    TempDir t;
    make_tree(t);
    fs::create_symlink("b.txt", t.path() / "tree/link");
    auto entries = zip_entries_of_tree(t.path() / "tree", "");
    ASSERT_FALSE(entries);
    EXPECT_NE(entries.error().text().find("tree/link"), std::string::npos) << entries.error().text();
    std::vector<ZipEntry> twice = {{"x", t.path() / "tree/b.txt", false}, {"x", t.path() / "tree/b.txt", false}};
    Status s = write_zip(t.path() / "d.zip", twice, 0);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.error().text().find("'x' given twice"), std::string::npos) << s.error().text();
    EXPECT_FALSE(path_exists(t.path() / "d.zip"));
}

TEST(PackageZip, RefusesAFileAbove4GiBNamingIt) {
    TempDir t;
    const fs::path big = t.write("tree/big.bin", "");
    fs::resize_file(big, (uint64_t(1) << 32) + 1); // sparse: nothing is written or read
    Status s = write_zip(t.path() / "big.zip", *zip_entries_of_tree(t.path() / "tree", ""), 0);
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.error().code(), ErrorCode::Unsupported);
    EXPECT_NE(s.error().text().find("big.bin: 4294967297 bytes"), std::string::npos) << s.error().text();
    EXPECT_NE(s.error().text().find("ZIP64"), std::string::npos) << s.error().text();
    EXPECT_FALSE(path_exists(t.path() / "big.zip"));
}

TEST(PackagePeStrings, ReadsStringFileInfoValues) {
    const auto dll = test_pe::version_dll({{"CompanyName", "NVIDIA Corporation"}, {"ProductName", "Thing"}});
    EXPECT_EQ(pe_version_string(dll, "CompanyName").value_or("?"), "NVIDIA Corporation");
    EXPECT_EQ(pe_version_string(dll, "ProductName").value_or("?"), "Thing");
    EXPECT_FALSE(pe_version_string(dll, "LegalCopyright"));
    EXPECT_EQ(pe_file_version(dll).value_or("?"), "1.2.3.4");
    std::vector<uint8_t> cut(dll.begin(), dll.begin() + 200); // inside the strings: no read past the end
    EXPECT_FALSE(pe_version_string(cut, "ProductName"));
}

TEST(PackageGuard, CatchesNvidiaContentWhateverItsName) {
    TempDir t;
    t.mkdir("rel/d4r");
    const auto nv = test_pe::version_dll({{"CompanyName", "NVIDIA Corporation"}, {"ProductName", "Something"}});
    ASSERT_TRUE(write_file_atomic(t.path() / "rel/harmless.dll", std::span<const uint8_t>(nv)).ok());
    t.write("rel/d4r/readme.txt", test_pe::kPtxText);
    t.write("rel/d4r/kernels/gfx1101/d4r-kernels.txt", "# kernels\nk 0123456789abcdef\n");
    t.write("rel/d4r/kernels/gfx1101/k.hsaco", "code");
    t.write("rel/d4r/kernels/open/upscale.hsaco", "d4r's own kernel"); // no manifest: not NVIDIA's
    t.write("rel/d4r/list.txt", "k 0123456789abcdef\n");               // a manifest under another name
    const auto own = test_pe::version_dll({{"CompanyName", "d4r"}, {"ProductName", "d4r NGX shim"}});
    ASSERT_TRUE(write_file_atomic(t.path() / "rel/d4r/nvngx.dll", std::span<const uint8_t>(own)).ok());
    t.write("rel/d4r/d4r.ini", "[DLSS]\nModel = K\n");
    t.write("rel/d4r/notes.txt", ".hidden looks like a directive, but declares no .version\n");

    auto found = find_nvidia_content(t.path() / "rel");
    ASSERT_TRUE(found) << found.error().text();
    std::string all;
    for (const GuardFinding& f : *found) all += f.path + ": " + f.reason + "\n";
    ASSERT_EQ(found->size(), 5u) << all;
    EXPECT_EQ((*found)[0].path, "d4r/kernels/gfx1101/d4r-kernels.txt");
    EXPECT_NE((*found)[0].reason.find("manifest listing 1 kernel"), std::string::npos) << all;
    EXPECT_EQ((*found)[1].path, "d4r/kernels/gfx1101/k.hsaco");
    EXPECT_EQ((*found)[2].path, "d4r/list.txt");
    EXPECT_EQ((*found)[3].path, "d4r/readme.txt");
    EXPECT_NE((*found)[3].reason.find("1 PTX module"), std::string::npos) << all;
    EXPECT_EQ((*found)[4].path, "harmless.dll");
    EXPECT_EQ((*found)[4].reason, "version resource: CompanyName 'NVIDIA Corporation'");
}

TEST(PackageGuard, CleanTreeHasNoFinding) {
    TempDir t;
    t.write("rel/d4r/kernels/open/upscale.hsaco", "d4r's own kernel");
    t.write("rel/d4r/kernels/gfx1101/d4r-kernels.txt", "# no kernel listed\n");
    t.write("rel/d4r/kernels/gfx1101/k.hsaco", "code");
    t.write("rel/d4r/README.txt", "Install with d4r install.\n");
    auto found = find_nvidia_content(t.path() / "rel");
    ASSERT_TRUE(found) << found.error().text();
    EXPECT_TRUE(found->empty()) << found->front().path << ": " << found->front().reason;
}

} // namespace
} // namespace d4r::release
