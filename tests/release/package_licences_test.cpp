// d4r package: the licences of the libraries compiled into d4r's own files (release/package.h,
// kBuiltInLibraries) travel in the release, copied from the Debian packages the build used; a missing one is
// a missing input (an error naming it, or with --dev a warning and left out).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/files.h"
#include "release/package.h"
#include "test_support.h"

namespace d4r::release {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

PackageOptions options_in(const TempDir& t, bool dev) {
    PackageOptions o;
    o.out_dir = t.path() / "out";
    o.dev = dev;
    o.build_dir = t.path() / "build";
    o.source_dir = test::source_dir();
    o.system_doc_dir = t.path() / "doc";
    o.d4r_version = "0.0.0-test";
    o.source_date_epoch = "1700000000";
    fs::create_directories(o.out_dir);
    fs::create_directories(o.build_dir);
    fs::create_directories(o.system_doc_dir);
    return o;
}

TEST(PackageLicences, AMissingLicenceOfABuiltInLibraryIsAMissingInput) {
    TempDir t;
    PackageOptions o = options_in(t, false);
    auto r = package_release(o, [](std::string_view) {});
    ASSERT_FALSE(r.ok());
    for (const BuiltInLibrary& lib : kBuiltInLibraries) {
        const std::string path = (o.system_doc_dir / lib.debian_package / "copyright").string();
        EXPECT_NE(r.error().text().find(path), std::string::npos) << lib.name << ": " << r.error().text();
        EXPECT_NE(r.error().text().find(std::string("install Debian's ") + lib.debian_package), std::string::npos)
            << r.error().text();
    }
    EXPECT_TRUE(fs::is_empty(o.out_dir)) << "nothing is left in OUT_DIR after a refusal";
}

TEST(PackageLicences, TheyAreCopiedIntoTheReleaseAndDevWarnsOfTheMissingOnes) {
    TempDir t;
    PackageOptions o = options_in(t, true);
    fs::create_directories(o.system_doc_dir / "libfmt-dev");
    ASSERT_TRUE(write_file_atomic(o.system_doc_dir / "libfmt-dev" / "copyright", "fmt: MIT, test text\n").ok());
    std::vector<std::string> said;
    auto r = package_release(o, [&](std::string_view line) { said.emplace_back(line); });
    ASSERT_TRUE(r.ok()) << r.error().text();
    EXPECT_EQ(test::read_file_text(r->folder / "d4r/licenses/fmt/copyright"), "fmt: MIT, test text\n");
    for (const BuiltInLibrary& lib : kBuiltInLibraries) {
        if (std::string(lib.name) == "fmt") continue;
        EXPECT_FALSE(path_exists(r->folder / "d4r/licenses" / lib.name)) << lib.name;
        bool warned = false;
        for (const std::string& s : said)
            warned =
                warned || (s.find("--dev") != std::string::npos && s.find(lib.debian_package) != std::string::npos);
        EXPECT_TRUE(warned) << lib.name << " has no --dev warning";
    }
}

} // namespace
} // namespace d4r::release
