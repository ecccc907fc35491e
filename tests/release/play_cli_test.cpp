// d4r play / d4r restore with a fake game: a shell script that prints its environment, changes the
// files the launcher backs up, and sleeps or rewrites OptiScaler.ini like OptiScaler's "Save INI".
// d4r runs with HOME in a scratch folder, so its journal and logs land there.
#include <gtest/gtest.h>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <string>

#include <fmt/format.h>

#include "release/wineserver.h"
#include "test_support.h"

namespace d4r::release {
namespace {

using test::read_file_text;
using test::run_command;
using test::run_d4r;
using test::RunResult;
using test::TempDir;

const std::string kOptiScalerIni = "; OptiScaler\n[Upscalers]\n; which upscaler\nDx12Upscaler=auto\n\n[Log]\n"
                                   "LogLevel=4\nOther=1\n";

// A game folder with OptiScaler.ini, d4r.ini and a fake game; a Proton compatdata folder with pfx/.
struct Game {
    TempDir t;
    fs::path home = t.mkdir("home");
    fs::path game = t.mkdir("game");
    fs::path compat = t.mkdir("compat");
    fs::path sys32 = t.mkdir("compat/pfx/drive_c/windows/system32");
    fs::path ini = t.write("game/OptiScaler.ini", kOptiScalerIni);
    fs::path dll = t.write("compat/pfx/drive_c/windows/system32/d3d12.dll", "MZ original d3d12\n");

    Game(const std::string& body) {
        t.write("game/d4r.ini", "[Game]\nEngineIni = Engine.ini\nCvars = r.A=1; r.B=2\n[Env]\nFOO = from-ini\n");
        fs::path script = t.write("game/fake.sh", "#!/bin/sh\ncd \"$(dirname \"$0\")\"\n" + body);
        fs::permissions(script, fs::perms::owner_all);
    }
    std::vector<std::string> play(std::vector<std::string> extra = {}) const {
        std::vector<std::string> args = {"play"};
        args.insert(args.end(), extra.begin(), extra.end());
        args.insert(args.end(), {"--", (game / "fake.sh").string(), (game / "Game.exe").string()});
        return args;
    }
    std::map<std::string, std::string> env(std::map<std::string, std::string> more = {}) const {
        more["HOME"] = home.string();
        more["STEAM_COMPAT_DATA_PATH"] = compat.string();
        return more;
    }
    // The shell command line of d4r play, for the signal tests.
    // It sends SIGNAL to d4r once the game has changed the files (it touches ../started).
    std::string play_then_signal(const std::string& signal) const {
        std::string s = "'" + test::d4r_binary().string() + "'";
        for (const std::string& a : play()) s += " '" + a + "'";
        return s + " & pid=$!; while [ ! -f '" + (t.path() / "started").string() + "' ]; do sleep 0.1; done; kill -" +
               signal + " $pid; wait $pid; echo \"rc=$?\"";
    }
    fs::path journal_dir() const { return home / ".cache/d4r/restore"; }
    void expect_restored() const {
        EXPECT_EQ(read_file_text(ini), kOptiScalerIni);
        EXPECT_EQ(read_file_text(dll), "MZ original d3d12\n");
        EXPECT_FALSE(fs::exists(game / "Engine.ini"));
        EXPECT_TRUE(!fs::exists(journal_dir()) || fs::is_empty(journal_dir()));
    }
};

// What the fake game does to the files d4r backs up.
const std::string kTouch = "echo 'MZ replaced by proton' > ../compat/pfx/drive_c/windows/system32/d3d12.dll\n"
                           "echo 'garbage=1' >> OptiScaler.ini\ntouch ../started\n";

TEST(Play, EnvironmentHasConfigAndNvapiAndTheUsersOwnVariablesWin) {
    Game g("env | sort\n");
    RunResult r = run_d4r(g.play(), g.env({{"DXVK_NVAPI_GPU_ARCH", "GA100"}, {"D4R_DLSS_PRESET", "5"}}));
    ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
    EXPECT_NE(r.out.find("\nPROTON_FORCE_NVAPI=1\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\nPROTON_ENABLE_NVAPI=1\n"), std::string::npos);
    EXPECT_NE(r.out.find("\nDXVK_NVAPI_GPU_ARCH=GA100\n"), std::string::npos);
    EXPECT_EQ(r.out.find("AD100"), std::string::npos);
    EXPECT_NE(r.out.find("\nD4R_DLSS_PRESET=5\n"), std::string::npos);
    EXPECT_NE(r.out.find("\nD4R_UE_CVARS=r.A=1; r.B=2\n"), std::string::npos);
    EXPECT_NE(r.out.find("\nD4R_SHIM_WATERMARK=0\n"), std::string::npos);
    EXPECT_NE(r.out.find("\nFOO=from-ini\n"), std::string::npos);
    EXPECT_NE(r.out.find("\nD4R_LOG_FILE=" + g.home.string() + "/.cache/d4r/logs/game-Game-"), std::string::npos);

    RunResult plain = run_d4r(g.play(), g.env());
    EXPECT_NE(plain.out.find("\nDXVK_NVAPI_GPU_ARCH=AD100\n"), std::string::npos) << plain.out;
    EXPECT_NE(plain.out.find("\nD4R_DLSS_PRESET=11\n"), std::string::npos);
}

TEST(Play, WritesKeysAndCvarsWhileRunningAndRestoresAfterANormalExit) {
    Game g(kTouch + "cat OptiScaler.ini Engine.ini\nexit 7\n");
    RunResult r = run_d4r(g.play(), g.env());
    EXPECT_EQ(r.exit_code, 7) << r.err << r.out;
    EXPECT_NE(r.out.find("Dx12Upscaler=dlss\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("HookOriginalNvngxOnly=true\n"), std::string::npos);
    EXPECT_NE(r.out.find("; which upscaler\n"), std::string::npos);
    EXPECT_NE(r.out.find("Other=1\n"), std::string::npos);
    EXPECT_NE(r.out.find("[SystemSettings]\nr.A=1\nr.B=2\n"), std::string::npos);
    g.expect_restored();
}

TEST(Play, RoutesOptiScalersDlssBackendToTheShimInOptiScalersOwnSections) {
    Game g("cat OptiScaler.ini\n");
    g.t.write("game/d4r/nvngx.dll", "MZ shim\n");
    RunResult r = run_d4r(g.play(), g.env());
    ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
    std::string shim = "Z:" + (g.game / "d4r/nvngx.dll").string();
    std::replace(shim.begin(), shim.end(), '/', '\\');
    // Keys the file has are set where they are; the others go to the sections OptiScaler reads them from.
    EXPECT_NE(
        r.out.find("[Upscalers]\n; which upscaler\nDx12Upscaler=dlss\n\n[Log]\nLogLevel=2\nOther=1\nLogToFile=true\n"),
        std::string::npos)
        << r.out;
    // No OptiScaler DLL in the folder: the keys of the newest OptiScaler, said once.
    EXPECT_NE(r.out.find("warning: no OptiScaler DLL (dxgi.dll, "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\n[Libraries]\nNvngxPath=" + shim + "\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\n[DLSS]\nEnabled=true\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\n[Hooks]\nHookOriginalNvngxOnly=true\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\n[Menu]\nShowFps=true\n"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("LibraryPath"), std::string::npos) << r.out;
    g.expect_restored();
    EXPECT_EQ(read_file_text(g.game / "d4r/nvngx.dll"), "MZ shim\n");
}

TEST(Play, RestoresAfterSigtermOrSigintToD4r) {
    for (const auto& [name, number] : {std::pair<std::string, int>{"TERM", 15}, {"INT", 2}}) {
        SCOPED_TRACE(name);
        Game g(kTouch + "echo started\nexec sleep 20\n");
        RunResult r = run_command({"/bin/sh", "-c", g.play_then_signal(name)}, g.env());
        EXPECT_NE(r.out.find("started"), std::string::npos) << r.out << r.err;
        EXPECT_NE(r.out.find(fmt::format("got signal {}", number)), std::string::npos) << r.out;
        EXPECT_NE(r.out.find(fmt::format("rc={}", 128 + number)), std::string::npos) << r.out;
        g.expect_restored();
    }
}

// d4r is SIGKILLed while the game runs: the files stay changed and the journal stays behind.
void kill_d4r_midway(const Game& g) {
    RunResult r = run_command({"/bin/sh", "-c", g.play_then_signal("KILL")}, g.env());
    ASSERT_NE(r.out.find("rc=137"), std::string::npos) << r.out << r.err;
    EXPECT_NE(read_file_text(g.dll), "MZ original d3d12\n");
    EXPECT_TRUE(fs::exists(g.game / "Engine.ini"));
    ASSERT_FALSE(fs::is_empty(g.journal_dir()));
    ::usleep(2500 * 1000); // the orphaned game (sleep 2) ends
}

TEST(Play, RestoreCompletesAfterSigkillOfD4r) {
    Game g(kTouch + "exec sleep 2\n");
    kill_d4r_midway(g);
    RunResult dry = run_d4r({"restore", "--dry-run"}, g.env());
    EXPECT_EQ(dry.exit_code, 0) << dry.err;
    EXPECT_NE(dry.out.find("would restore"), std::string::npos) << dry.out;
    EXPECT_NE(read_file_text(g.dll), "MZ original d3d12\n");

    RunResult r = run_d4r({"restore"}, g.env());
    EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
    EXPECT_NE(r.out.find("restored " + g.dll.string()), std::string::npos) << r.out;
    g.expect_restored();
    RunResult again = run_d4r({"restore"}, g.env());
    EXPECT_NE(again.out.find("nothing to restore"), std::string::npos) << again.out;
}

TEST(Play, NextPlayCompletesTheRestoreFirst) {
    Game g(kTouch + "exec sleep 2\n");
    kill_d4r_midway(g);
    g.t.write("game/fake.sh",
              "#!/bin/sh\ncat \"$(dirname \"$0\")/../compat/pfx/drive_c/windows/system32/d3d12.dll\"\n");
    RunResult r = run_d4r(g.play(), g.env());
    EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
    EXPECT_NE(r.out.find("completing the restore"), std::string::npos) << r.out;
    // The game of the second run already sees the original file.
    EXPECT_NE(r.out.find("MZ original d3d12\n"), std::string::npos) << r.out;
    g.expect_restored();
}

TEST(Play, ReappliesOptiScalerKeysAfterTheIniIsRewritten) {
    // OptiScaler's "Save INI" writes its own view of the file back.
    Game g("sleep 0.5\nprintf '[Upscalers]\\nDx12Upscaler=fsr31\\n' > OptiScaler.ini\nsleep 2.5\ncat OptiScaler.ini\n");
    RunResult r = run_d4r(g.play(), g.env());
    EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
    EXPECT_NE(r.out.find("rewritten"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("[Upscalers]\nDx12Upscaler=dlss\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("[Hooks]\nHookOriginalNvngxOnly=true\n"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("fsr31"), std::string::npos) << r.out;
    g.expect_restored();
}

TEST(Play, RefusesWhileAWineserverRunsForThePrefix) {
    Game g("touch ran\n");
    const fs::path prefix = g.compat / "pfx";
    auto socket_path = wineserver_socket_path(prefix);
    ASSERT_TRUE(socket_path) << socket_path.error().text();
    // Wine refuses a /tmp/.wine-<uid> that others can read: create it as Wine does, and remove it if it is ours.
    std::error_code ec;
    const fs::path wine_dir = socket_path->parent_path().parent_path();
    const bool made_wine_dir = ::mkdir(wine_dir.c_str(), 0700) == 0;
    ASSERT_EQ(::mkdir(socket_path->parent_path().c_str(), 0700), 0) << std::strerror(errno);
    int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, socket_path->c_str(), sizeof(addr.sun_path) - 1);
    ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0) << std::strerror(errno);
    ASSERT_EQ(::listen(fd, 4), 0);

    RunResult r = run_d4r(g.play(), g.env());
    ::close(fd);
    fs::remove_all(socket_path->parent_path(), ec);
    if (made_wine_dir) fs::remove(wine_dir, ec);
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_NE(r.err.find("wineserver (pid " + std::to_string(::getpid()) + ")"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(prefix.string()), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(g.game / "ran"));
    EXPECT_EQ(read_file_text(g.ini), kOptiScalerIni);
}

TEST(Play, LogsFolderStartsWithTheEffectiveConfiguration) {
    Game g("echo to-stdout\necho to-stderr >&2\n");
    RunResult r = run_d4r(g.play(), g.env());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const fs::path logs = g.home / ".cache/d4r/logs";
    std::vector<fs::path> folders;
    for (const auto& e : fs::directory_iterator(logs)) folders.push_back(e.path());
    ASSERT_EQ(folders.size(), 1u);
    const std::string name = folders[0].filename().string();
    EXPECT_TRUE(name.starts_with("game-Game-")) << name;
    EXPECT_EQ(name.size(), std::string("game-Game-YYYYmmdd-HHMMSS").size()) << name;
    const std::string config = read_file_text(folders[0] / "config.txt");
    EXPECT_TRUE(config.starts_with("config file: " + (g.game / "d4r.ini").string() + " (found in the game folder)\n"))
        << config;
    EXPECT_NE(config.find("[Game] Cvars = r.A=1; r.B=2"), std::string::npos) << config;
    EXPECT_EQ(read_file_text(folders[0] / "game-stdout.log"), "to-stdout\n");
    EXPECT_EQ(read_file_text(folders[0] / "game-stderr.log"), "to-stderr\n");
    EXPECT_NE(read_file_text(folders[0] / "d4r.log").find("exited with status 0"), std::string::npos);
}

TEST(Play, DryRunPrintsThePlanAndChangesNothing) {
    Game g("touch ran\n");
    RunResult r = run_d4r(g.play({"--dry-run"}), g.env());
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("would run: " + (g.game / "fake.sh").string()), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(g.dll.string()), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("Dx12Upscaler=dlss"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("env PROTON_FORCE_NVAPI=1"), std::string::npos) << r.out;
    EXPECT_FALSE(fs::exists(g.game / "ran"));
    EXPECT_FALSE(fs::exists(g.home / ".cache"));
    EXPECT_EQ(read_file_text(g.ini), kOptiScalerIni);
}

TEST(Play, UsageErrorsNameWhatIsWrong) {
    Game g("true\n");
    RunResult none = run_d4r({"play"}, g.env());
    EXPECT_EQ(none.exit_code, 2);
    RunResult prefix = run_d4r(g.play({"--prefix", (g.t.path() / "nope").string()}), g.env());
    EXPECT_EQ(prefix.exit_code, 2);
    EXPECT_NE(prefix.err.find("nope"), std::string::npos) << prefix.err;
    g.t.write("game/d4r.ini", "[Game]\nCvars = r.A=1\n");
    RunResult cvars = run_d4r(g.play(), g.env());
    EXPECT_EQ(cvars.exit_code, 2);
    EXPECT_NE(cvars.err.find("[Game] EngineIni"), std::string::npos) << cvars.err;
}

} // namespace
} // namespace d4r::release
