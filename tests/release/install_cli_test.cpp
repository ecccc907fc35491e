// d4r install / d4r uninstall on synthetic game trees: round trips back to the exact previous tree, the
// user-edited d4r.ini, an install or uninstall killed half-way (the test hook D4R_TEST_INSTALL_STOP_AFTER
// makes d4r SIGKILL itself after N file operations), and the NVIDIA check with a fixture PE of our own.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "core/files.h"
#include "ptx/module_index.h"
#include "release_test_util.h"
#include "test_support.h"

namespace d4r::release {
namespace {

using test::read_file_text;
using test::run_d4r;
using test::RunResult;
using test::TempDir;
namespace fs = std::filesystem;
using test_release::snapshot;

// A release folder (REL) and an Unreal game tree (GAME) whose exe folder already holds a dxgi.dll.
struct Fixture {
    TempDir t;
    fs::path release = t.path() / "rel";
    fs::path game = t.path() / "Game";
    fs::path exe_dir = game / "MyGame/Binaries/Win64";
    Fixture() {
        t.write("rel/dxgi.dll", "optiscaler dxgi");
        t.write("rel/OptiScaler.ini", "[Upscalers]\n");
        t.write("rel/d4r/nvngx.dll", "shim");
        t.write("rel/d4r/d4r.ini", "[DLSS]\nModel = K\n");
        t.write("rel/d4r/kernels/gfx1101/k.hsaco", "code");
        t.write("Game/Launcher.exe", "launcher");
        t.write("Game/Engine/Binaries/Win64/CrashReportClient.exe", "c");
        t.write("Game/MyGame/Binaries/Win64/MyGame-Win64-Shipping.exe", "game");
        t.write("Game/MyGame/Binaries/Win64/dxgi.dll", "the game's own dxgi");
    }
    RunResult install(std::vector<std::string> extra = {}, std::map<std::string, std::string> env = {}) const {
        std::vector<std::string> args = {"install", game.string(), "--release", release.string()};
        args.insert(args.end(), extra.begin(), extra.end());
        return run_d4r(args, env);
    }
    RunResult uninstall(std::vector<std::string> extra = {}, std::map<std::string, std::string> env = {}) const {
        std::vector<std::string> args = {"uninstall", game.string()};
        args.insert(args.end(), extra.begin(), extra.end());
        return run_d4r(args, env);
    }
};

TEST(InstallCli, RoundTripRestoresTheTreeByteForByte) {
    Fixture f;
    const auto before = snapshot(f.game);
    RunResult r = f.install();
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("MyGame/Binaries/Win64"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("Unreal Engine"), std::string::npos) << r.out;
    EXPECT_EQ(read_file_text(f.exe_dir / "dxgi.dll"), "optiscaler dxgi");
    EXPECT_EQ(read_file_text(f.exe_dir / "d4r-backup/dxgi.dll"), "the game's own dxgi");
    EXPECT_EQ(read_file_text(f.exe_dir / "d4r/d4r.ini"), "[DLSS]\nModel = K\n");
    EXPECT_FALSE(fs::exists(f.exe_dir / "d4r-install.journal"));
    const std::string manifest = read_file_text(f.exe_dir / "d4r-install.json");
    // sha256("shim")
    EXPECT_NE(manifest.find("\"d4r/nvngx.dll\""), std::string::npos) << manifest;
    EXPECT_NE(manifest.find("d4r-backup/dxgi.dll"), std::string::npos) << manifest;
    EXPECT_NE(manifest.find("d4r_version"), std::string::npos);

    r = f.uninstall();
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_EQ(snapshot(f.game), before);
}

TEST(InstallCli, DryRunChangesNothing) {
    Fixture f;
    const auto before = snapshot(f.game);
    RunResult r = f.install({"--dry-run"});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("replace dxgi.dll"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("would write 5 files (4 new, 1 replaced"), std::string::npos) << r.out;
    EXPECT_EQ(snapshot(f.game), before);
}

TEST(InstallCli, RefusesASecondInstallForceKeepsTheOriginalBackups) {
    Fixture f;
    const auto before = snapshot(f.game);
    ASSERT_EQ(f.install().exit_code, 0);
    RunResult again = f.install();
    EXPECT_EQ(again.exit_code, 2);
    EXPECT_NE(again.err.find("already installed"), std::string::npos) << again.err;
    EXPECT_NE(again.err.find("--force"), std::string::npos) << again.err;

    f.t.write("rel/dxgi.dll", "optiscaler dxgi v2");
    RunResult forced = f.install({"--force"});
    ASSERT_EQ(forced.exit_code, 0) << forced.out << forced.err;
    EXPECT_EQ(read_file_text(f.exe_dir / "dxgi.dll"), "optiscaler dxgi v2");
    EXPECT_EQ(read_file_text(f.exe_dir / "d4r-backup/dxgi.dll"), "the game's own dxgi");
    ASSERT_EQ(f.uninstall().exit_code, 0);
    EXPECT_EQ(snapshot(f.game), before);
}

TEST(InstallCli, UserEditedIniKeptUnlessPurge) {
    for (bool purge : {false, true}) {
        Fixture f;
        const auto before = snapshot(f.game);
        ASSERT_EQ(f.install().exit_code, 0);
        f.t.write("Game/MyGame/Binaries/Win64/d4r/d4r.ini", "[DLSS]\nModel = M\n");
        RunResult r = purge ? f.uninstall({"--purge"}) : f.uninstall();
        ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
        if (purge) {
            EXPECT_NE(r.out.find("removed (--purge)"), std::string::npos) << r.out;
            EXPECT_EQ(snapshot(f.game), before);
        } else {
            EXPECT_NE(r.out.find("kept"), std::string::npos) << r.out;
            auto expected = before;
            expected["MyGame/Binaries/Win64/d4r/"] = "";
            expected["MyGame/Binaries/Win64/d4r/d4r.ini"] = "[DLSS]\nModel = M\n";
            EXPECT_EQ(snapshot(f.game), expected);
        }
    }
}

TEST(InstallCli, UneditedIniRemoved) {
    Fixture f;
    ASSERT_EQ(f.install().exit_code, 0);
    ASSERT_EQ(f.uninstall().exit_code, 0);
    EXPECT_FALSE(fs::exists(f.exe_dir / "d4r"));
}

TEST(InstallCli, MissingBackupIsAWarning) {
    Fixture f;
    ASSERT_EQ(f.install().exit_code, 0);
    fs::remove(f.exe_dir / "d4r-backup/dxgi.dll");
    RunResult r = f.uninstall();
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("d4r-backup/dxgi.dll is missing"), std::string::npos) << r.out;
    EXPECT_EQ(read_file_text(f.exe_dir / "dxgi.dll"), "optiscaler dxgi");
    EXPECT_FALSE(fs::exists(f.exe_dir / "d4r-install.json"));
    EXPECT_FALSE(fs::exists(f.exe_dir / "d4r-backup"));
}

TEST(InstallCli, UninstallWithoutInstallIsExit2) {
    Fixture f;
    RunResult r = f.uninstall();
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("no d4r install"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(f.game.string()), std::string::npos) << r.err;
}

// Install: 1 journal + 1 backup + 5 copies + 1 manifest + 1 journal removal = 9 operations. Killing after
// each of 1..8 must leave a journal that the next run rolls back (--repair) or rolls back and redoes (install).
TEST(InstallCli, KilledInstallIsRolledBackOrRedone) {
    for (int n = 1; n <= 8; ++n) {
        SCOPED_TRACE("killed after " + std::to_string(n) + " operations");
        Fixture f;
        const auto before = snapshot(f.game);
        RunResult killed = f.install({}, {{"D4R_TEST_INSTALL_STOP_AFTER", std::to_string(n)}});
        ASSERT_EQ(killed.exit_code, 128 + 9) << killed.out << killed.err;
        if (n < 8) {
            ASSERT_TRUE(fs::exists(f.exe_dir / "d4r-install.journal"));
        }
        if (n % 2) {
            RunResult r = run_d4r({"install", "--repair", f.game.string()});
            ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
            if (n < 8) {
                EXPECT_NE(r.out.find("rolling back"), std::string::npos) << r.out;
                EXPECT_EQ(snapshot(f.game), before);
            } else {
                EXPECT_NE(r.out.find("had finished"), std::string::npos) << r.out;
            }
        } else {
            RunResult r = f.install();
            if (n < 8) {
                ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
                EXPECT_NE(r.out.find("rolling back"), std::string::npos) << r.out;
                EXPECT_EQ(read_file_text(f.exe_dir / "d4r-backup/dxgi.dll"), "the game's own dxgi");
            } else {
                EXPECT_EQ(r.exit_code, 2) << r.out << r.err; // it had finished: installed already
            }
            ASSERT_EQ(f.uninstall().exit_code, 0);
            EXPECT_EQ(snapshot(f.game), before);
        }
    }
}

// Uninstall: 1 journal + 1 restore + 1 backup removal + 4 removals + manifest + journal = 9 operations.
TEST(InstallCli, KilledUninstallIsCompleted) {
    for (int n = 1; n <= 8; ++n) {
        SCOPED_TRACE("killed after " + std::to_string(n) + " operations");
        Fixture f;
        const auto before = snapshot(f.game);
        ASSERT_EQ(f.install().exit_code, 0);
        RunResult killed = f.uninstall({}, {{"D4R_TEST_INSTALL_STOP_AFTER", std::to_string(n)}});
        ASSERT_EQ(killed.exit_code, 128 + 9) << killed.out << killed.err;
        ASSERT_TRUE(fs::exists(f.exe_dir / "d4r-install.journal"));
        RunResult r = (n % 2) ? f.uninstall() : run_d4r({"install", "--repair", f.game.string()});
        ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
        EXPECT_NE(r.out.find("completing an interrupted uninstall"), std::string::npos) << r.out;
        EXPECT_EQ(snapshot(f.game), before);
    }
}

TEST(InstallCli, UninstallAfterAKilledInstallRestoresTheTree) {
    Fixture f;
    const auto before = snapshot(f.game);
    ASSERT_EQ(f.install({}, {{"D4R_TEST_INSTALL_STOP_AFTER", "4"}}).exit_code, 128 + 9);
    RunResult r = f.uninstall();
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("rolling back"), std::string::npos) << r.out;
    EXPECT_EQ(snapshot(f.game), before);
}

TEST(InstallCli, NonUtf8NameRefusedBeforeAnyChange) {
    Fixture f;
    const auto before = snapshot(f.game);
    f.t.write("rel/d4r/bad\xff.dll", "x");
    RunResult r = f.install();
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_NE(r.err.find("not UTF-8"), std::string::npos) << r.err;
    EXPECT_EQ(snapshot(f.game), before);
}

TEST(InstallCli, ReleaseErrors) {
    Fixture f;
    RunResult zip = run_d4r({"install", f.game.string(), "--release", (f.t.path() / "d4r-1.0.zip").string()});
    EXPECT_EQ(zip.exit_code, 2);
    EXPECT_NE(zip.err.find("d4r-1.0.zip: no such folder or zip file"), std::string::npos) << zip.err;
    f.t.write("notrel/readme.txt", "x");
    RunResult bad = run_d4r({"install", f.game.string(), "--release", (f.t.path() / "notrel").string()});
    EXPECT_EQ(bad.exit_code, 2);
    EXPECT_NE(bad.err.find("no d4r/ folder"), std::string::npos) << bad.err;
    // The build's own d4r is not inside a release: no default release.
    RunResult none = run_d4r({"install", f.game.string()});
    EXPECT_EQ(none.exit_code, 2);
    EXPECT_NE(none.err.find("--release"), std::string::npos) << none.err;
}

TEST(InstallCli, NvidiaFilesCheckedAgainstKernelManifests) {
    const fs::path dll = test::fixture_dir() / "ptx/synthetic/minimal.dll"; // a PE with a fatbin of d4r's own kernels
    auto indexed = ptx::index_ptx_file(dll);
    ASSERT_TRUE(indexed.ok()) << indexed.error().text();
    ASSERT_FALSE(indexed->modules.empty());
    ASSERT_FALSE(indexed->modules[0].index.entries.empty());
    const std::string entry = indexed->modules[0].index.entries[0].name;
    char hash[17];
    std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(indexed->modules[0].hash));

    Fixture f;
    f.t.write("nv/nvngx_dlss.dll", read_file_text(dll));
    // A stand-in _nvngx.dll: MZ, then a version resource block declaring 1.2.3.4.
    std::string core = std::string("MZ", 2) + std::string("\x34\x03\x34\x00\x00\x00", 6);
    for (char c : std::string("VS_VERSION_INFO")) core += std::string{c, '\0'};
    core += std::string(4, '\0'); // the key's NUL, then padding to 4 bytes
    core += std::string("\xbd\x04\xef\xfe\x00\x00\x01\x00\x02\x00\x01\x00\x04\x00\x03\x00", 16);
    f.t.write("nv/_nvngx.dll", core);
    const std::string nv = (f.t.path() / "nv").string();

    f.t.write("rel/d4r/kernels/gfx1101/d4r-kernels.txt", entry + " " + hash + "\n");
    RunResult match = f.install({"--nvidia", nv, "--dry-run"});
    ASSERT_EQ(match.exit_code, 0) << match.out << match.err;
    EXPECT_NE(match.out.find("kernel set d4r/kernels/gfx1101: 1 of 1 kernels match"), std::string::npos) << match.out;
    // No warning about the NVIDIA files (the release's stand-in dxgi.dll is an OptiScaler of unknown version).
    size_t warnings = 0;
    for (size_t at = match.out.find("warning: "); at != std::string::npos; at = match.out.find("warning: ", at + 1))
        ++warnings;
    EXPECT_EQ(warnings, 1u) << match.out;
    EXPECT_NE(
        match.out.find("warning: " + (f.t.path() / "rel/dxgi.dll").string() + ": OptiScaler's version is unknown"),
        std::string::npos)
        << match.out;
    EXPECT_NE(match.out.find("nvngx_dlss.dll (declares no version) -> nvngx_dlss.dll"), std::string::npos) << match.out;
    EXPECT_NE(match.out.find("_nvngx.dll (version 1.2.3.4) -> d4r/_nvngx.dll"), std::string::npos) << match.out;

    f.t.write("rel/d4r/kernels/gfx1101/d4r-kernels.txt", entry + " 0123456789abcdef\n");
    RunResult r = f.install({"--nvidia", nv});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("0 of 1 kernels match"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("native kernels will be refused"), std::string::npos) << r.out;
    EXPECT_EQ(read_file_text(f.exe_dir / "nvngx_dlss.dll"), read_file_text(dll));
    EXPECT_EQ(read_file_text(f.exe_dir / "d4r/_nvngx.dll"), core);
    ASSERT_EQ(f.uninstall().exit_code, 0);
    EXPECT_FALSE(fs::exists(f.exe_dir / "nvngx_dlss.dll"));

    f.t.write("bad/nvngx_dlss.dll", "not a dll");
    RunResult bad = f.install({"--nvidia", (f.t.path() / "bad").string()});
    EXPECT_EQ(bad.exit_code, 2);
    EXPECT_NE(bad.err.find("not a Windows DLL"), std::string::npos) << bad.err;
    RunResult missing = f.install({"--nvidia", (f.t.path() / "rel").string()});
    EXPECT_EQ(missing.exit_code, 2);
    EXPECT_NE(missing.err.find("no nvngx_dlss.dll"), std::string::npos) << missing.err;
}

} // namespace
} // namespace d4r::release
