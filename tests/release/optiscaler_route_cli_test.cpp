// The game route end to end with d4r itself: fixture game folders with OptiScaler 0.9.4, 0.9.0 and 0.7.7 (a DLL
// whose version resource says so, and an OptiScaler.ini laid out as that version's template). After d4r install
// and the ini step of d4r play the ini holds the keys that version reads, pointing at files that exist, every
// other byte as it was; d4r uninstall puts the ini back byte for byte.
#include <gtest/gtest.h>

#include <string>

#include "optiscaler_test_util.h"
#include "release/optiscaler_ini.h"
#include "release/optiscaler_routing.h"
#include "test_support.h"

namespace d4r::release {
namespace {

using test::read_file_text;
using test::run_d4r;
using test::RunResult;
using test::TempDir;
namespace fs = std::filesystem;

const fs::path kFixtures = test::fixture_dir() / "optiscaler";

struct GameWithOptiScaler {
    TempDir t;
    fs::path game = t.path() / "Game";
    fs::path ini = game / "OptiScaler.ini";
    std::string original;
    explicit GameWithOptiScaler(const std::string& version) {
        t.write("rel/d4r/nvngx.dll", "MZ shim");
        t.write("rel/d4r/d4r.ini", "[DLSS]\nModel = K\n");
        t.write("Game/Game.exe", "game");
        t.write("Game/nvngx_dlss.dll", "MZ the game's DLSS");
        fs::copy_file(kFixtures / "dll" / ("optiscaler-" + version + ".0.dll"), game / "dxgi.dll");
        original = read_file_text(kFixtures / "versions" / ("OptiScaler-" + version + ".ini"));
        t.write("Game/OptiScaler.ini", original);
        fs::path script = t.write("Game/fake.sh", "#!/bin/sh\ncat \"$(dirname \"$0\")/OptiScaler.ini\"\n");
        fs::permissions(script, fs::perms::owner_all);
    }
    std::map<std::string, std::string> env() const {
        return {{"HOME", (t.path() / "home").string()}, {"D4R_NO_CONFIG", "1"}};
    }
    RunResult d4r(std::vector<std::string> args) const { return run_d4r(args, env(), t.path()); }
    std::string shim() const { return windows_path(game / "d4r/nvngx.dll"); }
};

// INI holds every routing key VERSION reads, with d4r's values, the path keys naming existing files, and none
// of the keys VERSION does not read.
void expect_routed(const std::string& text, const OptiScalerVersion& version, const GameWithOptiScaler& g) {
    for (const RoutingKey& r : routing_keys()) {
        std::optional<std::string> v = ini_value(text, r.key.section, r.key.key);
        const std::string name = std::string(r.key.section) + "/" + r.key.key;
        if (!routing_key_applies(r, version)) {
            // Not written by d4r; a template may carry the key with its own value (auto).
            EXPECT_TRUE(!v || *v == "auto") << name << "=" << v.value_or("");
            continue;
        }
        switch (r.kind) {
        case RoutingValue::Fixed:
            EXPECT_EQ(v, r.value) << name;
            break;
        case RoutingValue::Shim:
            EXPECT_EQ(v, g.shim()) << name;
            EXPECT_TRUE(fs::exists(unix_path_of(g.game, v.value_or("")))) << name;
            break;
        case RoutingValue::DlssFolder:
            EXPECT_TRUE(!v || *v == "auto") << name;
            break; // found beside the exe
        }
    }
}

class GameRoute : public ::testing::TestWithParam<std::string> {};

TEST_P(GameRoute, InstallAndPlayWriteTheKeysOfTheVersionAndUninstallRestoresTheIni) {
    GameWithOptiScaler g(GetParam());
    const OptiScalerVersion version = *parse_optiscaler_version(GetParam() + ".0");
    RunResult r = g.d4r({"install", g.game.string(), "--release", (g.t.path() / "rel").string()});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("OptiScaler " + version.text() + " (dxgi.dll): writing the keys it reads"), std::string::npos)
        << r.out;
    const std::string installed = read_file_text(g.ini);
    expect_routed(installed, version, g);
    EXPECT_EQ(without_d4r_keys(installed), without_d4r_keys(g.original));

    // The ini step of d4r play: the same keys (and d4r's [OptiScaler] preferences) while the game runs.
    r = g.d4r({"play", "--", (g.game / "fake.sh").string(), (g.game / "Game.exe").string()});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    const size_t start = r.out.find("; d4r test fixture");
    ASSERT_NE(start, std::string::npos) << r.out;
    const std::string during = r.out.substr(start, r.out.find("\nd4r: ", start) - start + 1);
    expect_routed(during, version, g);
    EXPECT_EQ(ini_value(during, "Log", "LogLevel"), "2");
    EXPECT_EQ(without_d4r_keys(during), without_d4r_keys(g.original));
    EXPECT_EQ(read_file_text(g.ini), installed); // play puts back what it changed

    r = g.d4r({"uninstall", g.game.string()});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_EQ(read_file_text(g.ini), g.original);
}

INSTANTIATE_TEST_SUITE_P(OptiScalerVersions, GameRoute, ::testing::Values("0.9.4", "0.9.0", "0.7.7"),
                         [](const auto& info) {
                             std::string n = "v" + info.param;
                             std::replace(n.begin(), n.end(), '.', '_');
                             return n;
                         });

TEST(GameRouteCli, AnUnknownVersionGetsTheNewestKeysAndOneWarningNamingTheFile) {
    GameWithOptiScaler g("0.9.4");
    fs::remove(g.game / "dxgi.dll");
    g.t.write("Game/dxgi.dll", "MZ without a version resource");
    RunResult r = g.d4r({"install", g.game.string(), "--release", (g.t.path() / "rel").string()});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    const std::string warning = "warning: " + (g.game / "dxgi.dll").string() + ": OptiScaler's version is unknown";
    EXPECT_NE(r.out.find(warning), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find(warning), r.out.rfind(warning)) << r.out; // once
    expect_routed(read_file_text(g.ini), {0, 9, 4, 0}, g);
}

TEST(GameRouteCli, PlayRemovesTheKeysAnOlderD4rWroteForAnotherVersion) {
    GameWithOptiScaler g("0.9.4");
    g.t.write("Game/d4r/nvngx.dll", "MZ shim");
    const std::string stale = "\n[DLSS]\nLibraryPath=" + g.shim() + "\nNvngxPath=" + g.shim() + "\n";
    g.t.write("Game/OptiScaler.ini", g.original + stale);
    RunResult r = g.d4r({"play", "--", (g.game / "fake.sh").string(), (g.game / "Game.exe").string()});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_EQ(r.out.find("LibraryPath="), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("[DLSS]\nNvngxPath"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("NvngxPath=" + g.shim()), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("PROTON_FORCE_NVAPI=1, so Proton reports the GPU as NVIDIA's"), std::string::npos) << r.out;
    EXPECT_EQ(read_file_text(g.ini), g.original + stale); // restored after the game

    // A PROTON_FORCE_NVAPI of the user's own is kept, with a warning saying what it costs.
    auto env = g.env();
    env["PROTON_FORCE_NVAPI"] = "0";
    r = run_d4r({"play", "--", (g.game / "fake.sh").string(), (g.game / "Game.exe").string()}, env, g.t.path());
    EXPECT_NE(r.out.find("warning: PROTON_FORCE_NVAPI=0 (the environment) is kept: OptiScaler will see no NVIDIA GPU"),
              std::string::npos)
        << r.out;
    g.t.write("Game/d4r.ini", "[Env]\nPROTON_FORCE_NVAPI = 0\n");
    r = run_d4r({"play", "--", (g.game / "fake.sh").string(), (g.game / "Game.exe").string()},
                {{"HOME", (g.t.path() / "home").string()}}, g.t.path());
    EXPECT_NE(r.out.find("warning: PROTON_FORCE_NVAPI=0 (configuration) is kept"), std::string::npos) << r.out;
}

TEST(GameRouteCli, AnUnrealGamesNvngxDlssOutsideTheExeFolderIsNamedInNvngxDlssPath) {
    TempDir t;
    t.write("rel/d4r/nvngx.dll", "MZ shim");
    const fs::path exe = t.mkdir("Game/MyGame/Binaries/Win64");
    t.write("Game/MyGame/Binaries/Win64/MyGame-Win64-Shipping.exe", "game");
    fs::copy_file(kFixtures / "dll/optiscaler-0.9.4.0.dll", exe / "dxgi.dll");
    t.write("Game/MyGame/Binaries/Win64/OptiScaler.ini", "[Libraries]\nNvngxPath=auto\n");
    const fs::path dlss =
        t.write("Game/Engine/Plugins/Runtime/Nvidia/DLSS/Binaries/ThirdParty/Win64/nvngx_dlss.dll", "d");
    RunResult r = run_d4r({"install", (t.path() / "Game").string(), "--release", (t.path() / "rel").string()},
                          {{"HOME", t.path().string()}});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_EQ(ini_value(read_file_text(exe / "OptiScaler.ini"), "Libraries", "NvngxDlssPath"),
              windows_path(dlss.parent_path()));
}

} // namespace
} // namespace d4r::release

namespace d4r::release {
namespace {

TEST(GameProfileCli, InstallAndPlayApplyTheProfileAndTheGamesD4rIniOverridesIt) {
    GameWithOptiScaler g("0.9.4");
    fs::rename(g.game / "Game.exe", g.game / "RDR2.exe");
    RunResult r = g.d4r({"install", g.game.string(), "--release", (g.t.path() / "rel").string()});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("game profile: OptiScaler [Spoofing] Dxgi=false"), std::string::npos) << r.out;
    EXPECT_EQ(ini_value(read_file_text(g.ini), "Spoofing", "Dxgi"), "false");

    // A table of one's own: a d4r.ini value, an environment variable and an OptiScaler key.
    const fs::path table = g.t.write("profiles.ini", "[RDR2.exe]\nsource = test\nd4r.DLSS.Model = M\n"
                                                     "env.PROFILE_VAR = from-profile\nOptiScaler.Menu.Scale = 2.0\n");
    g.t.write("Game/fake.sh", "#!/bin/sh\nenv | sort\ncat \"$(dirname \"$0\")/OptiScaler.ini\"\n");
    auto play = [&](std::map<std::string, std::string> extra) {
        std::map<std::string, std::string> env = {{"HOME", (g.t.path() / "home").string()},
                                                  {"D4R_GAME_PROFILES", table.string()}};
        env.insert(extra.begin(), extra.end());
        return run_d4r({"play", "--", (g.game / "fake.sh").string(), (g.game / "RDR2.exe").string()}, env, g.t.path());
    };
    g.t.write("Game/d4r.ini", "[DLSS]\nShowWatermark = false\n");
    r = play({});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("\nD4R_DLSS_PRESET=13\n"), std::string::npos) << r.out; // M
    EXPECT_NE(r.out.find("\nPROFILE_VAR=from-profile\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\nScale=2.0\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("game profile: OptiScaler [Menu] Scale=2.0, d4r.ini [DLSS] Model=M, PROFILE_VAR=from-profile "
                         "(test; game profile RDR2.exe (" +
                         table.string() + ":1))"),
              std::string::npos)
        << r.out;
    // The game's d4r.ini and the environment win over the profile.
    g.t.write("Game/d4r.ini", "[DLSS]\nModel = E\n");
    r = play({{"PROFILE_VAR", "mine"}});
    EXPECT_NE(r.out.find("\nD4R_DLSS_PRESET=5\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\nPROFILE_VAR=mine\n"), std::string::npos) << r.out;
    // [Launch] GameProfile = false turns it off.
    g.t.write("Game/d4r.ini", "[Launch]\nGameProfile = false\n");
    r = play({});
    EXPECT_NE(r.out.find("game profile: off ([Launch] GameProfile = false, "), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("PROFILE_VAR"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\nDxgi=true\n"), std::string::npos) << r.out;
}

TEST(GameProfileCli, ConfigShowNamesTheProfileAsTheOrigin) {
    TempDir t;
    const fs::path table = t.write("profiles.ini", "[Game.exe]\nsource = test\nd4r.DLSS.Model = M\nenv.PV = 1\n");
    const fs::path ini = t.write("d4r.ini", "[Latency]\nFrameAge = 1\n");
    RunResult r = run_d4r({"config", "show", "--config", ini.string(), "--exe", "GAME.EXE"},
                          {{"D4R_GAME_PROFILES", table.string()}});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("game profile: d4r.ini [DLSS] Model=M, PV=1 (test; game profile Game.exe"), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("game profile Game.exe (" + table.string() + ":3)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(ini.string() + ":2"), std::string::npos) << r.out; // the file's own value keeps its origin
    r = run_d4r({"config", "show", "--config", ini.string(), "--exe", "Other.exe"},
                {{"D4R_GAME_PROFILES", table.string()}});
    EXPECT_NE(r.out.find("game profile: none for Other.exe"), std::string::npos) << r.out;
    // A value the schema refuses is an error naming the profile line.
    t.write("profiles.ini", "[Game.exe]\nsource = test\nd4r.DLSS.Model = Z\n");
    r = run_d4r({"config", "show", "--config", ini.string(), "--exe", "Game.exe"},
                {{"D4R_GAME_PROFILES", table.string()}});
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_NE(r.err.find("game profile Game.exe (" + table.string() + ":3): [DLSS] Model = Z"), std::string::npos)
        << r.err;
}

} // namespace
} // namespace d4r::release
