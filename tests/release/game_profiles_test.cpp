// Per-game profiles (src/release/game_profiles.h): the table d4r carries is packaging/game-profiles.ini as it
// is now, every entry has a source and names keys d4r knows; the format's errors name the line; a game's
// profile is found by its exe's name without case; D4R_GAME_PROFILES replaces the built-in table.
#include <gtest/gtest.h>

#include <string>

#include "config/schema.h"
#include "core/env.h"
#include "core/strings.h"
#include "release/game_profiles.h"
#include "release/optiscaler_routing.h"
#include "test_support.h"

namespace d4r::release {
namespace {

using test::read_file_text;
using test::TempDir;

TEST(GameProfiles, TheBuiltInTableIsThePackagingFileAndEveryEntryIsSourcedAndKnown) {
    EXPECT_EQ(builtin_game_profiles_text(), read_file_text(test::source_dir() / "packaging/game-profiles.ini"));
    const Expected<std::vector<GameProfile>>& table = builtin_game_profiles();
    ASSERT_TRUE(table) << table.error().text();
    ASSERT_FALSE(table->empty());
    for (const GameProfile& p : *table) {
        SCOPED_TRACE(p.exe);
        EXPECT_FALSE(p.source.empty());
        EXPECT_TRUE(to_lower(p.exe).ends_with(".exe"));
        for (const ProfileValue& v : p.optiscaler) {
            // Only keys d4r itself knows OptiScaler reads.
            bool known = false;
            for (const RoutingKey& r : routing_keys())
                known |= iequals(r.key.section, v.section) && iequals(r.key.key, v.key);
            EXPECT_TRUE(known) << v.section << "." << v.key;
        }
        for (const ProfileValue& v : p.d4r) EXPECT_NE(config::find_key(v.section, v.key), nullptr) << v.key;
    }
    // OptiScaler's own quirk: no DXGI spoofing for Red Dead Redemption 2.
    std::optional<GameProfile> rdr2 = find_game_profile(*table, "/games/RDR2/RDR2.EXE");
    ASSERT_TRUE(rdr2.has_value());
    ASSERT_EQ(rdr2->optiscaler_settings().size(), 1u);
    EXPECT_EQ(rdr2->optiscaler_settings()[0], (IniSetting{"Spoofing", "Dxgi", "false"}));
    EXPECT_NE(rdr2->describe().find("OptiScaler [Spoofing] Dxgi=false (OptiScaler Quirks.h"), std::string::npos)
        << rdr2->describe();
    EXPECT_FALSE(find_game_profile(*table, "NotAGame.exe"));
}

TEST(GameProfiles, ReadsEveryKindOfValue) {
    auto p = parse_game_profiles("; comment\n[Game.exe]\nsource = a forum post\nOptiScaler.Spoofing.Dxgi = false\n"
                                 "d4r.DLSS.Model = M\nenv.FOO = 1 2\n\n[Other.exe]\r\nsource = x\r\n",
                                 "mine.ini");
    ASSERT_TRUE(p) << p.error().text();
    ASSERT_EQ(p->size(), 2u);
    const GameProfile& g = (*p)[0];
    EXPECT_EQ(g.optiscaler.at(0).section, "Spoofing");
    EXPECT_EQ(g.d4r.at(0).key, "Model");
    EXPECT_EQ(g.env.at(0).key, "FOO");
    EXPECT_EQ(g.env.at(0).value, "1 2");
    EXPECT_EQ(g.origin(g.env.at(0).line), "game profile Game.exe (mine.ini:6)");
    EXPECT_EQ((*p)[1].source, "x");
}

TEST(GameProfiles, MistakesNameTheLine) {
    struct Case {
        const char* text;
        const char* error;
    };
    const Case cases[] = {
        {"source = x\n", "game-profiles.ini:1: a value before the first [EXE NAME] section"},
        {"[A.exe]\nOptiScaler.Dxgi = false\nsource = x\n", "game-profiles.ini:2: 'OptiScaler.Dxgi': expected "
                                                           "OptiScaler.<Section>.<Key>"},
        {"[A.exe]\nsource = x\nwhatever = 1\n", "game-profiles.ini:3: unknown key 'whatever'"},
        {"[A.exe]\nOptiScaler.S.K = 1\n[B.exe]\nsource = x\n", "game-profiles.ini:1: [A.exe] has no source"},
        {"[A.exe]\nsource = x\n[a.EXE]\nsource = y\n", "game-profiles.ini:3: [a.EXE] is already a profile (line 1)"},
        {"[A.exe]\nsource = x\njust words\n", "game-profiles.ini:3: expected KEY = VALUE"},
        {"[A.exe\n", "game-profiles.ini:1: a section is [EXE NAME]"},
    };
    for (const Case& c : cases) {
        auto p = parse_game_profiles(c.text);
        ASSERT_FALSE(p) << c.text;
        EXPECT_NE(p.error().text().find(c.error), std::string::npos) << p.error().text();
    }
}

TEST(GameProfiles, TheEnvironmentCanNameAnotherTable) {
    TempDir t;
    const auto file = t.write("p.ini", "[Mine.exe]\nsource = test\nenv.X = 1\n");
    std::string why;
    MapEnvironment env{{"D4R_GAME_PROFILES", file.string()}};
    std::optional<GameProfile> p = game_profile_for(env, "C:/x/MINE.exe", why);
    ASSERT_TRUE(p.has_value()) << why;
    EXPECT_EQ(p->origin(3), "game profile Mine.exe (" + file.string() + ":3)");
    EXPECT_FALSE(game_profile_for(env, "rdr2.exe", why)); // the built-in table is not read then
    EXPECT_EQ(why, "no game profile for rdr2.exe");
    t.write("p.ini", "[Mine.exe]\n");
    EXPECT_FALSE(game_profile_for(env, "Mine.exe", why));
    EXPECT_TRUE(why.starts_with("error: the game profile table cannot be used: " + file.string() + ":1:")) << why;
    EXPECT_TRUE(game_profile_for(MapEnvironment{}, "rdr2.exe", why).has_value());
}

} // namespace
} // namespace d4r::release
