// d4r doctor --game/--prefix on synthetic installs (src/cli/doctor_install.h): an install made by
// `d4r install` checks clean; a missing or changed file, an interrupted install, a missing NVIDIA DLL,
// OptiScaler keys that do not route to the shim, a prefix with its Proton version, leftover restore
// journals, the kernel cache, and a ZLUDA library that needs a newer GLIBC than the system.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <string>

#include "core/files.h"
#include "test_support.h"

namespace d4r::cli {
namespace {

using test::run_command;
using test::run_d4r;
using test::RunResult;
using test::TempDir;
namespace fs = std::filesystem;

// True when OUT has a line "<status> <check> ...MESSAGE...".
bool has_line(const std::string& out, const std::string& status, const std::string& check, const std::string& text) {
    size_t start = 0;
    while (start < out.size()) {
        size_t end = out.find('\n', start);
        if (end == std::string::npos) end = out.size();
        const std::string l = out.substr(start, end - start);
        if (l.rfind(status, 0) == 0 && l.find(" " + check + " ") != std::string::npos &&
            l.find(text) != std::string::npos)
            return true;
        start = end + 1;
    }
    return false;
}

// A release (with OptiScaler routed to the shim) installed into an Unreal game tree.
struct Installed {
    TempDir t;
    fs::path game = t.path() / "Game";
    fs::path exe_dir = game / "MyGame/Binaries/Win64";
    Installed() {
        t.write("rel/dxgi.dll", "optiscaler dxgi");
        t.write("rel/OptiScaler.ini",
                "; OptiScaler's own comments\n[Upscalers]\nDx12Upscaler=dlss\n[DLSS]\nLibraryPath=d4r\\nvngx.dll\n"
                "[Hooks]\nHookOriginalNvngxOnly=true\n");
        t.write("rel/d4r/nvngx.dll", "shim");
        t.write("rel/d4r/d4r.ini", "[DLSS]\nModel = K\n");
        t.write("Game/Launcher.exe", "launcher");
        t.write("Game/MyGame/Binaries/Win64/MyGame-Win64-Shipping.exe", "game");
        RunResult r = run_d4r({"install", game.string(), "--release", (t.path() / "rel").string()});
        EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    }
    RunResult doctor(std::vector<std::string> extra = {}, std::map<std::string, std::string> env = {}) const {
        env.emplace("D4R_NO_CONFIG", "1");
        env.emplace("HOME", (t.path() / "home").string());
        std::vector<std::string> args = {"doctor", "--kfd-root", (t.path() / "no-kfd").string(), "--game",
                                         game.string()};
        args.insert(args.end(), extra.begin(), extra.end());
        return run_d4r(args, env, t.path());
    }
};

TEST(DoctorInstall, AFreshInstallChecksCleanAndNamesWhatIsMissing) {
    Installed g;
    RunResult r = g.doctor();
    EXPECT_TRUE(has_line(r.out, "ok", "install", "Binaries/Win64: 4 files as installed")) << r.out;
    EXPECT_TRUE(has_line(r.out, "ok", "optiscaler", "DLSS routed to Z:")) << r.out;
    // No NVIDIA DLL was given to the install.
    EXPECT_TRUE(has_line(r.out, "warn", "nvidia", "no nvngx_dlss.dll beside the game's exe")) << r.out;
    EXPECT_TRUE(has_line(r.out, "ok", "prefix", "no unfinished restores")) << r.out;
    EXPECT_TRUE(has_line(r.out, "ok", "cache", "writable, cold")) << r.out;

    // The user's edit of d4r.ini is theirs; a changed dxgi.dll is a warning; a missing shim a failure.
    g.t.write("Game/MyGame/Binaries/Win64/d4r/d4r.ini", "[DLSS]\nModel = M\n");
    r = g.doctor();
    EXPECT_TRUE(has_line(r.out, "ok", "install", "d4r.ini edited by you")) << r.out;
    g.t.write("Game/MyGame/Binaries/Win64/dxgi.dll", "a game update");
    r = g.doctor();
    EXPECT_TRUE(has_line(r.out, "warn", "install", "1 of 4 installed files changed since the install, first dxgi.dll"))
        << r.out;
    fs::remove(g.exe_dir / "d4r/nvngx.dll");
    r = g.doctor();
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_TRUE(has_line(r.out, "fail", "install", "1 of 4 installed files are missing, first d4r/nvngx.dll")) << r.out;
    // The shim OptiScaler is routed to is gone too.
    EXPECT_TRUE(has_line(r.out, "fail", "optiscaler", "\\d4r\\nvngx.dll names no file")) << r.out;
}

TEST(DoctorInstall, InterruptedInstallsAndUnroutedOptiScalerFail) {
    Installed g;
    g.t.write("Game/MyGame/Binaries/Win64/d4r-install.journal", "{}");
    g.t.write("Game/MyGame/Binaries/Win64/OptiScaler.ini", "[Upscalers]\nDx12Upscaler=auto\n");
    RunResult r = g.doctor();
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_TRUE(has_line(r.out, "fail", "install", "an install or uninstall was interrupted")) << r.out;
    EXPECT_NE(r.out.find("d4r install --repair GAME_DIR"), std::string::npos) << r.out;
    EXPECT_TRUE(has_line(r.out, "fail", "optiscaler", "[Upscalers] Dx12Upscaler is auto, not dlss")) << r.out;
    EXPECT_TRUE(has_line(r.out, "fail", "optiscaler", "[Hooks] HookOriginalNvngxOnly is unset, not true")) << r.out;
    EXPECT_TRUE(has_line(r.out, "fail", "optiscaler", "[Libraries] NvngxPath is not set")) << r.out;

    TempDir other;
    other.write("NoInstall/game.exe", "x");
    r = run_d4r(
        {"doctor", "--kfd-root", (other.path() / "no-kfd").string(), "--game", (other.path() / "NoInstall").string()},
        {{"D4R_NO_CONFIG", "1"}, {"HOME", other.path().string()}});
    EXPECT_TRUE(has_line(r.out, "fail", "install", "no d4r install in")) << r.out;
    EXPECT_TRUE(has_line(r.out, "warn", "optiscaler", "no OptiScaler.ini in")) << r.out;
}

TEST(DoctorInstall, OptiScalerKeysCountOnlyInTheSectionsOptiScalerReadsThem) {
    Installed g;
    // OptiScaler 0.7.7, which reads its NGX core path from [DLSS] LibraryPath.
    fs::copy_file(test::fixture_dir() / "optiscaler/dll/optiscaler-0.7.7.0.dll", g.exe_dir / "dxgi.dll",
                  fs::copy_options::overwrite_existing);
    const std::string ini = "Game/MyGame/Binaries/Win64/OptiScaler.ini";
    auto doctor_with = [&](const std::string& text) {
        g.t.write(ini, text);
        return g.doctor();
    };
    // The keys an older d4r wrote: right names in the wrong sections, and a key OptiScaler has not.
    RunResult r = doctor_with("[Upscalers]\nDx12Upscaler=dlss\n[DLSS]\nNvngxPath=d4r\\nvngx.dll\n"
                              "HookOriginalNvngxOnly=true\n[XeSS]\nLibraryPath=d4r\\nvngx.dll\n");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_TRUE(has_line(r.out, "fail", "optiscaler", "[Hooks] HookOriginalNvngxOnly is unset, not true")) << r.out;
    EXPECT_TRUE(has_line(r.out, "fail", "optiscaler", "[DLSS] LibraryPath is not set")) << r.out;
    EXPECT_TRUE(has_line(r.out, "fail", "optiscaler", "[DLSS] NvngxPath is not an OptiScaler key")) << r.out;
    EXPECT_FALSE(has_line(r.out, "fail", "optiscaler", "Dx12Upscaler")) << r.out;

    // As OptiScaler reads it: names without case, the last line wins, a ';' after a value is part of it.
    const std::string routed = "[upscalers]\ndx12upscaler=DLSS\n[DLSS]\nLibraryPath=d4r\\nvngx.dll\n"
                               "[Hooks]\nHookOriginalNvngxOnly=false\nHookOriginalNvngxOnly=true\n";
    r = doctor_with(routed);
    EXPECT_TRUE(has_line(r.out, "ok", "optiscaler", "DLSS routed to d4r\\nvngx.dll")) << r.out;
    r = doctor_with("[Upscalers]\nDx12Upscaler=dlss ; d4r\n[DLSS]\nLibraryPath=d4r\\nvngx.dll\n"
                    "[Hooks]\nHookOriginalNvngxOnly=true\n");
    EXPECT_TRUE(has_line(r.out, "fail", "optiscaler", "[Upscalers] Dx12Upscaler is dlss ; d4r, not dlss")) << r.out;

    // DLSS backend off, or a folder where OptiScaler would take NVIDIA's _nvngx.dll before the shim.
    r = doctor_with(routed + "[DLSS]\nEnabled=false\n");
    EXPECT_TRUE(has_line(r.out, "fail", "optiscaler", "[DLSS] Enabled is false")) << r.out;
    g.t.write("Game/MyGame/Binaries/Win64/d4r/_nvngx.dll", "nvidia core");
    r = doctor_with("[Upscalers]\nDx12Upscaler=dlss\n[DLSS]\nLibraryPath=d4r\\\n[Hooks]\nHookOriginalNvngxOnly=true\n");
    EXPECT_TRUE(has_line(r.out, "fail", "optiscaler",
                         "[DLSS] LibraryPath d4r\\ is a folder: OptiScaler loads its "
                         "_nvngx.dll"))
        << r.out;
    fs::remove(g.exe_dir / "d4r/_nvngx.dll");
    r = doctor_with("[Upscalers]\nDx12Upscaler=dlss\n[DLSS]\nLibraryPath=d4r\\\n[Hooks]\nHookOriginalNvngxOnly=true\n");
    EXPECT_TRUE(has_line(r.out, "ok", "optiscaler", "DLSS routed to d4r\\")) << r.out;

    // Routed, but the game is told the real GPU vendor.
    r = doctor_with(routed + "[Spoofing]\nDxgi=false\n");
    EXPECT_TRUE(has_line(r.out, "warn", "optiscaler", "[Spoofing] Dxgi is false (d4r writes true")) << r.out;

    // OptiScaler 0.7.7 and older read nvngx.ini.
    fs::remove(g.exe_dir / "OptiScaler.ini");
    g.t.write("Game/MyGame/Binaries/Win64/nvngx.ini", "[Upscalers]\n");
    r = g.doctor();
    EXPECT_TRUE(has_line(r.out, "warn", "optiscaler", "an nvngx.ini is there")) << r.out;
}

TEST(DoctorInstall, PrefixProtonVersionAndLeftoverRestores) {
    Installed g;
    g.t.write("compat/1234/version", "1712345678 proton-9.0-4\n");
    g.t.mkdir("compat/1234/pfx/drive_c");
    RunResult r = g.doctor({}, {{"STEAM_COMPAT_DATA_PATH", (g.t.path() / "compat/1234").string()}});
    EXPECT_TRUE(has_line(r.out, "ok", "prefix", "(STEAM_COMPAT_DATA_PATH), made by Proton 1712345678 proton-9.0-4"))
        << r.out;
    r = g.doctor({"--prefix", (g.t.path() / "compat/999").string()});
    EXPECT_TRUE(has_line(r.out, "warn", "prefix", "compat/999 (--prefix) has no pfx/ prefix yet")) << r.out;
    // A `d4r play` killed before it could restore the prefix leaves its journal behind.
    g.t.write("home/.cache/d4r/restore/abc.json", "{}");
    r = g.doctor();
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_TRUE(has_line(r.out, "fail", "prefix", "restore journal")) << r.out;
    EXPECT_NE(r.out.find("run 'd4r restore'"), std::string::npos) << r.out;
}

TEST(DoctorInstall, KernelCacheWarmOrNotWritable) {
    Installed g;
    g.t.write("cache/ZLUDA/kernel-1.bin", "compiled");
    RunResult r = g.doctor({}, {{"D4R_ZLUDA_CACHE_HOME", (g.t.path() / "cache").string()}});
    EXPECT_TRUE(has_line(r.out, "ok", "cache", "(D4R_ZLUDA_CACHE_HOME): writable, warm (1 files)")) << r.out;
    const fs::path ro = g.t.mkdir("ro");
    if (::geteuid() != 0) {
        fs::permissions(ro, fs::perms::owner_read | fs::perms::owner_exec);
        r = g.doctor({}, {{"D4R_ZLUDA_CACHE_HOME", ro.string()}});
    } else {
        // Root writes through any permission, but not onto a read-only mount: doctor runs in a mount namespace
        // of its own where the folder is bound read-only (CI runs as root).
        std::string command = "mount --bind -o ro '" + ro.string() + "' '" + ro.string() + "' && exec '" +
                              test::d4r_binary().string() + "' doctor --kfd-root '" + (g.t.path() / "no-kfd").string() +
                              "' --game '" + g.game.string() + "'";
        r = run_command(
            {"/usr/bin/unshare", "--mount", "--propagation", "private", "/bin/sh", "-c", command},
            {{"D4R_NO_CONFIG", "1"}, {"HOME", (g.t.path() / "home").string()}, {"D4R_ZLUDA_CACHE_HOME", ro.string()}});
        ASSERT_NE(r.out.find("doctor: "), std::string::npos) << "unshare/mount failed: " << r.out << r.err;
    }
    EXPECT_TRUE(has_line(r.out, "fail", "cache", ro.string() + " (D4R_ZLUDA_CACHE_HOME) is not writable")) << r.out;
    r = g.doctor({}, {{"D4R_ZLUDA_CACHE_HOME", "/proc/d4r-cannot-be-here"}});
    EXPECT_TRUE(has_line(r.out, "fail", "cache", "/proc/d4r-cannot-be-here (D4R_ZLUDA_CACHE_HOME) is not writable"))
        << r.out;
}

TEST(DoctorInstall, LibrariesNeedingANewerGlibcFail) {
    // This build's own libd4rcuda stands in for ZLUDA's libcuda.so: a real ELF with real GLIBC needs.
    Installed g;
    const fs::path zluda = g.t.path() / "zluda";
    fs::create_directories(zluda);
    fs::copy_file(fs::path(D4R_TEST_BIN_DIR) / ".." / "lib" / "libd4rcuda.so", zluda / "libcuda.so");
    g.t.write("d4r.ini", "[Paths]\nZludaDir = " + zluda.string() + "\n");
    auto doctor = [&](std::string system) {
        return run_d4r({"doctor", "--config", (g.t.path() / "d4r.ini").string(), "--kfd-root",
                        (g.t.path() / "no-kfd").string(), "--glibc", system},
                       {{"HOME", (g.t.path() / "home").string()}}, g.t.path());
    };
    RunResult r = doctor("99.0");
    EXPECT_TRUE(has_line(r.out, "ok", "glibc", "ZLUDA " + (zluda / "libcuda.so").string() + " needs GLIBC 2."))
        << r.out;
    r = doctor("2.0");
    EXPECT_TRUE(has_line(r.out, "fail", "glibc", "; this system has 2.0")) << r.out;
}

} // namespace
} // namespace d4r::cli

namespace d4r::cli {
namespace {

// The names of the entries of ZIP (python3's zipfile), or "" when python3 is missing.
std::string zip_names(const fs::path& zip) {
    RunResult r = run_command({"/usr/bin/env", "python3", "-c",
                               "import sys, zipfile\n"
                               "z = zipfile.ZipFile(sys.argv[1])\n"
                               "assert z.testzip() is None\n"
                               "print('\\n'.join(z.namelist()))\n"
                               "print('MANIFEST:' + z.read('d4r-report/MANIFEST.txt').decode())\n"
                               "print('LOG:' + z.read('d4r-report/logs/game-Game-20261201-101010/d4r.log').decode())",
                               zip.string()},
                              {{"PATH", "/usr/bin:/bin"}});
    return r.exit_code == 0 ? r.out : "python3 failed: " + r.out + r.err;
}

TEST(DoctorReport, ZipHoldsTheReportConfigSystemAndNewestGameLogs) {
    Installed g;
    g.t.write("home/.cache/d4r/logs/game-Game-20261130-090000/d4r.log", "older run\n");
    g.t.write("home/.cache/d4r/logs/game-Game-20261201-101010/d4r.log", "newest run\n");
    g.t.write("home/.cache/d4r/logs/game-Game-20261201-101010/config.txt", "config of the run\n");
    const fs::path zip = g.t.path() / "report.zip";
    RunResult r = g.doctor({"--report", zip.string()});
    EXPECT_NE(r.err.find("report written to " + zip.string()), std::string::npos) << r.err;
    ASSERT_TRUE(fs::is_regular_file(zip)) << r.out << r.err;
    if (run_command({"/usr/bin/env", "python3", "-c", "pass"}, {{"PATH", "/usr/bin:/bin"}}).exit_code != 0)
        GTEST_SKIP() << "python3 is not installed: the zip's contents are not read back";
    const std::string names = zip_names(zip);
    for (const char* entry :
         {"d4r-report/doctor.txt", "d4r-report/doctor.json", "d4r-report/config.txt", "d4r-report/system.txt",
          "d4r-report/MANIFEST.txt", "d4r-report/logs/game-Game-20261201-101010/d4r.log",
          "d4r-report/logs/game-Game-20261201-101010/config.txt"})
        EXPECT_NE(names.find(entry), std::string::npos) << entry << "\n" << names;
    EXPECT_EQ(names.find("20261130"), std::string::npos) << "only the newest game's logs\n" << names;
    EXPECT_NE(names.find("LOG:newest run"), std::string::npos) << names;
    EXPECT_NE(names.find("config.txt: d4r config show (exit status"), std::string::npos) << names;
    // Nothing is left beside the zip.
    size_t entries = 0;
    for (const auto& e : fs::directory_iterator(g.t.path()))
        entries += e.path().filename().string().starts_with(".d4r-report");
    EXPECT_EQ(entries, 0u);
}

TEST(DoctorReport, AMissingFolderIsNamed) {
    Installed g;
    RunResult r = g.doctor({"--report", (g.t.path() / "no/such/dir/report.zip").string()});
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_NE(r.err.find("no/such/dir does not exist"), std::string::npos) << r.err;
}

} // namespace
} // namespace d4r::cli
