// d4r install --release ZIP: the round trip d4r package -> d4r install --release the.zip -> d4r uninstall on a
// synthetic game tree, a zip written by python3's zipfile (ZIP_DEFLATED), and hostile zips refused with the zip
// and the entry named, nothing written to the game folder and no unpacked folder left in $TMPDIR.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "core/files.h"
#include "core/sha256.h"
#include "elf_builder.h"
#include "release_test_util.h"
#include "test_support.h"
#include "zip_fixtures.h"

namespace d4r::release {
namespace {

using test::read_file_text;
using test::run_command;
using test::run_d4r;
using test::RunResult;
using test::TempDir;
namespace fs = std::filesystem;
using test_release::elf_needing;
using test_release::snapshot;

// A game tree (an Unreal exe folder holding its own dxgi.dll) and a private $TMPDIR for d4r.
struct Fixture {
    TempDir t;
    fs::path game = t.path() / "Game";
    fs::path exe_dir = game / "MyGame/Binaries/Win64";
    fs::path tmp = t.path() / "tmp";
    Fixture() {
        t.write("Game/MyGame/Binaries/Win64/MyGame-Win64-Shipping.exe", "game");
        t.write("Game/MyGame/Binaries/Win64/dxgi.dll", "the game's own dxgi");
        t.mkdir("tmp");
    }
    RunResult d4r(const std::vector<std::string>& args) const { return run_d4r(args, {{"TMPDIR", tmp.string()}}); }
    RunResult install(const fs::path& zip, std::vector<std::string> extra = {}) const {
        std::vector<std::string> args = {"install", game.string(), "--release", zip.string()};
        args.insert(args.end(), extra.begin(), extra.end());
        return d4r(args);
    }
    bool tmp_is_empty() const { return fs::is_empty(tmp); }
};

// d4r package's full variant from synthetic inputs into OUT; returns the zip.
fs::path package_release(const TempDir& t, const fs::path& out) {
    t.write("build/bin/d4r", elf_needing("2.34"));
    t.write("build/lib/libd4rcuda.so", elf_needing("2.34"));
    t.write("build/lib/nvcuda.dll.so", elf_needing("2.17"));
    t.write("build/win/d4r_nvngx.dll", "MZ shim");
    t.write("build/win/d4r_ngx.dll", "MZ core");
    for (const char* f : {"packaging/d4r.ini", "packaging/README.txt", "packaging/check.sh",
                          "packaging/OptiScaler-d4r.ini", "LICENSE", "NOTICE", "models/refine-v2.d4rnet"})
        t.write(fs::path("src") / f, read_file_text(test::source_dir() / f));
    t.write("optiscaler/OptiScaler.dll", "MZ optiscaler");
    t.write("optiscaler/OptiScaler.ini", "[Upscalers]\n");
    t.write("vkd3d/d3d12.dll", "MZ d3d12");
    t.write("vkd3d/d3d12core.dll", "MZ d3d12core");
    t.write("zluda/libcuda.so", elf_needing("2.28"));
    t.write("rocm/libamdhip64.so.6", elf_needing("2.31"));
    t.write("kernels/gfx1101/d4r-kernels.txt", "k 0123456789abcdef\n");
    t.write("kernels/gfx1101/k.hsaco", std::string(20000, 'k')); // deflated in the zip
    const auto& p = t.path();
    RunResult r =
        run_d4r({"package", out.string(), "--build", (p / "build").string(), "--source", (p / "src").string(),
                 "--optiscaler", (p / "optiscaler").string(), "--vkd3d", (p / "vkd3d").string(), "--zluda",
                 (p / "zluda").string(), "--rocm", (p / "rocm").string(), "--kernels", (p / "kernels").string()},
                {{"SOURCE_DATE_EPOCH", "1700000000"}});
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    for (const auto& e : fs::directory_iterator(out))
        if (e.path().extension() == ".zip") return e.path();
    return {};
}

TEST(InstallZipCli, PackagedZipInstallsAsItsFolderAndUninstalls) {
    Fixture f;
    const fs::path zip = package_release(f.t, f.t.path() / "out");
    ASSERT_FALSE(zip.empty());
    const fs::path folder = f.t.path() / "out" / zip.stem(); // what d4r package also unpacked beside it
    ASSERT_TRUE(is_dir(folder / "d4r"));
    const auto before = snapshot(f.game);
    const std::string sha = *sha256_file_hex(zip);

    RunResult dry = f.install(zip, {"--dry-run"});
    ASSERT_EQ(dry.exit_code, 0) << dry.out << dry.err;
    EXPECT_NE(dry.out.find("would write"), std::string::npos) << dry.out;
    EXPECT_EQ(snapshot(f.game), before);
    EXPECT_TRUE(f.tmp_is_empty());

    RunResult r = f.install(zip);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("release: " + zip.string() + " (zip, SHA-256 " + sha), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("unpacked "), std::string::npos) << r.out;
    EXPECT_TRUE(f.tmp_is_empty()) << "the unpacked release is removed";
    // Every file of the release, byte for byte and with its mode, as from the folder.
    size_t files = 0;
    for (const auto& e : fs::recursive_directory_iterator(folder)) {
        if (e.is_directory()) continue;
        const fs::path rel = e.path().lexically_relative(folder);
        std::string expected = read_file_text(e.path());
        if (rel == "OptiScaler.ini") { // with the shim as an absolute path (docs/optiscaler.md)
            std::string shim = "Z:" + (f.exe_dir / "d4r/nvngx.dll").string();
            std::replace(shim.begin(), shim.end(), '/', '\\');
            const std::string relative = "NvngxPath=d4r\\nvngx.dll\n";
            ASSERT_NE(expected.find(relative), std::string::npos) << expected;
            expected.replace(expected.find(relative), relative.size(), "NvngxPath=" + shim + "\n");
        }
        EXPECT_EQ(read_file_text(f.exe_dir / rel), expected) << rel;
        EXPECT_EQ(fs::status(f.exe_dir / rel).permissions(), fs::status(e.path()).permissions()) << rel;
        ++files;
    }
    EXPECT_GT(files, 15u);
    EXPECT_NE(r.out.find("wrote " + std::to_string(files) + " files"), std::string::npos) << r.out;
    EXPECT_EQ(read_file_text(f.exe_dir / "d4r-backup/dxgi.dll"), "the game's own dxgi");
    const std::string manifest = read_file_text(f.exe_dir / "d4r-install.json");
    EXPECT_NE(manifest.find("\"release\": \"" + zip.string() + "\""), std::string::npos) << manifest;
    EXPECT_NE(manifest.find("\"release_sha256\": \"" + sha + "\""), std::string::npos) << manifest;
    EXPECT_NE(manifest.find("\"source\": \"" + zip.string() + "!/" + zip.stem().string() + "/d4r/nvngx.dll\""),
              std::string::npos)
        << manifest;

    RunResult u = f.d4r({"uninstall", f.game.string()});
    ASSERT_EQ(u.exit_code, 0) << u.out << u.err;
    EXPECT_EQ(snapshot(f.game), before);
}

TEST(InstallZipCli, PythonDeflatedZipWithTheReleaseAtItsTop) {
    Fixture f;
    const fs::path zip = f.t.path() / "release.zip";
    const std::string script = "import zipfile, sys\n"
                               "with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:\n"
                               "    z.writestr('dxgi.dll', 'optiscaler dxgi ' * 50)\n"
                               "    z.writestr('d4r/', '')\n"
                               "    z.writestr('d4r/nvngx.dll', 'shim')\n"
                               "    z.writestr('d4r/kernels/gfx1101/k.hsaco', 'code' * 1000)\n";
    if (run_command({"/usr/bin/env", "python3", "-c", "pass"}, {{"PATH", "/usr/bin:/bin"}}).exit_code != 0)
        GTEST_SKIP() << "python3 is not installed: no zip of python's zipfile to read";
    const auto py = run_command({"/usr/bin/env", "python3", "-c", script, zip.string()}, {{"PATH", "/usr/bin:/bin"}});
    ASSERT_EQ(py.exit_code, 0) << py.err;
    const auto before = snapshot(f.game);
    RunResult r = f.install(zip);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    std::string dxgi;
    for (int i = 0; i < 50; ++i) dxgi += "optiscaler dxgi ";
    EXPECT_EQ(read_file_text(f.exe_dir / "dxgi.dll"), dxgi);
    EXPECT_EQ(read_file_text(f.exe_dir / "d4r/nvngx.dll"), "shim");
    EXPECT_EQ(read_file_text(f.exe_dir / "d4r/kernels/gfx1101/k.hsaco").size(), 4000u);
    EXPECT_NE(r.out.find("wrote 3 files (2 new, 1 replaced"), std::string::npos) << r.out;
    EXPECT_TRUE(f.tmp_is_empty());
    RunResult u = f.d4r({"uninstall", f.game.string()});
    ASSERT_EQ(u.exit_code, 0) << u.out << u.err;
    EXPECT_EQ(snapshot(f.game), before);
}

// --force reads the new release before it uninstalls the old one: a refused zip leaves the install as it was.
TEST(InstallZipCli, ForceWithARefusedZipKeepsTheExistingInstall) {
    using namespace test_zip;
    Fixture f;
    const fs::path good = f.t.write("good.zip", raw_zip({stored("d4r/nvngx.dll", "shim"), stored("dxgi.dll", "ours")}));
    ASSERT_EQ(f.install(good).exit_code, 0);
    const auto installed = snapshot(f.game);
    ASSERT_EQ(read_file_text(f.exe_dir / "dxgi.dll"), "ours");
    RawEntry bad = deflate_entry("d4r/nvngx.dll", "shim v2 shim v2");
    bad.crc ^= 1;
    const fs::path broken = f.t.write("broken.zip", raw_zip({bad, stored("dxgi.dll", "ours v2")}));
    RunResult r = f.install(broken, {"--force"});
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_NE(r.err.find("entry 'd4r/nvngx.dll': corrupt: CRC-32"), std::string::npos) << r.err;
    EXPECT_EQ(r.out.find("uninstalling"), std::string::npos) << r.out;
    EXPECT_EQ(snapshot(f.game), installed);
    EXPECT_TRUE(f.tmp_is_empty());
}

TEST(InstallZipCli, HostileZipsAreRefusedAndNothingIsWritten) {
    using namespace test_zip;
    const RawEntry ok = stored("rel/d4r/nvngx.dll", "shim");
    RawEntry bad_crc = deflate_entry("rel/d4r/d4r.ini", "[DLSS]\nModel = K\n");
    bad_crc.crc ^= 0x10;
    RawEntry bomb = deflate_entry("rel/d4r/bomb.bin", std::string(16 << 20, '\0'));
    bomb.size = 4096;
    RawEntry lzma = stored("rel/d4r/x.dll", "xx");
    lzma.method = 14;
    const std::string good = raw_zip({stored("rel/", "", 040755), ok, deflate_entry("rel/dxgi.dll", "dxgi dxgi dxgi")});
    struct Case {
        std::string label;
        std::string bytes;
        std::string expect;
    };
    const std::vector<Case> cases = {
        {"dotdot", raw_zip({ok, stored("rel/../../Game/evil.dll", "x")}),
         "entry 'rel/../../Game/evil.dll': refused: a '..' component"},
        {"absolute", raw_zip({ok, stored("/tmp/evil.dll", "x")}), "entry '/tmp/evil.dll': refused: an absolute name"},
        {"symlink", raw_zip({ok, stored("rel/d4r/link", "../../../..", 0120777)}),
         "entry 'rel/d4r/link': refused: a symbolic link"},
        {"crc", raw_zip({ok, bad_crc}), "entry 'rel/d4r/d4r.ini': corrupt: CRC-32"},
        {"truncated", good.substr(0, good.size() - 30), "truncated"},
        {"bomb", raw_zip({ok, bomb}), "entry 'rel/d4r/bomb.bin': refused: inflates to more than the 4096 bytes"},
        {"method", raw_zip({ok, lzma}), "entry 'rel/d4r/x.dll': compression method 14 (LZMA)"},
        {"not-a-release", raw_zip({stored("readme.txt", "hi")}), "not a d4r release zip"},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.label);
        Fixture f;
        const fs::path zip = f.t.write(c.label + ".zip", c.bytes);
        const auto before = snapshot(f.game);
        RunResult r = f.install(zip);
        EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
        EXPECT_NE(r.err.find(zip.string()), std::string::npos) << r.err;
        EXPECT_NE(r.err.find(c.expect), std::string::npos) << r.err;
        EXPECT_EQ(snapshot(f.game), before);
        EXPECT_TRUE(f.tmp_is_empty());
        EXPECT_FALSE(path_exists(f.t.path() / "evil.dll"));
        EXPECT_FALSE(path_exists(f.game / "evil.dll"));
    }
}

} // namespace
} // namespace d4r::release
