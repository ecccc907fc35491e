// Which d4r.ini is read: --config > D4R_NO_CONFIG > D4R_CONFIG > ./d4r.ini > XDG/HOME > none.
#include <gtest/gtest.h>

#include "config/locate.h"
#include "test_support.h"

namespace d4r::config {
namespace {

using d4r::test::TempDir;

struct Fixture {
    TempDir dir;
    fs::path cwd = dir.mkdir("work");
    fs::path home = dir.mkdir("home");
    fs::path xdg = dir.mkdir("xdg");
    MapEnvironment env{{{"HOME", home.string()}}};
};

TEST(Locate, NoFileAnywhereMeansBuiltInDefaults) {
    Fixture f;
    auto loc = locate_config_file(f.env, std::nullopt, f.cwd);
    ASSERT_TRUE(loc.ok());
    EXPECT_FALSE(loc->path.has_value());
    EXPECT_NE(loc->describe().find("built-in defaults"), std::string::npos);
    EXPECT_NE(loc->reason.find((f.cwd / "d4r.ini").string()), std::string::npos); // says where it looked
    auto source = read_config_source(*loc);
    ASSERT_TRUE(source.ok());
    EXPECT_FALSE(source->present());
}

TEST(Locate, WorkingFolderFileBeatsTheUsersFile) {
    Fixture f;
    f.dir.write("work/d4r.ini", "[DLSS]\nModel = A\n");
    f.dir.write("home/.config/d4r/d4r.ini", "[DLSS]\nModel = B\n");
    auto loc = locate_config_file(f.env, std::nullopt, f.cwd);
    ASSERT_TRUE(loc.ok());
    EXPECT_EQ(loc->path, f.cwd / "d4r.ini");
    EXPECT_EQ(loc->name, "d4r.ini");
    auto source = read_config_source(*loc);
    ASSERT_TRUE(source.ok());
    EXPECT_EQ(source->text, "[DLSS]\nModel = A\n");
    EXPECT_EQ(source->name, "d4r.ini");
}

TEST(Locate, HomeConfigWhenNoXdg) {
    Fixture f;
    fs::path user = f.dir.write("home/.config/d4r/d4r.ini", "x");
    auto loc = locate_config_file(f.env, std::nullopt, f.cwd);
    ASSERT_TRUE(loc.ok());
    EXPECT_EQ(loc->path, user);
    EXPECT_EQ(loc->name, user.string());
}

TEST(Locate, XdgConfigHomeReplacesHomeConfig) {
    Fixture f;
    f.dir.write("home/.config/d4r/d4r.ini", "home");
    f.env.set("XDG_CONFIG_HOME", f.xdg.string());
    // XDG set but holding no file: the HOME file is NOT used (XDG replaces it).
    auto none = locate_config_file(f.env, std::nullopt, f.cwd);
    ASSERT_TRUE(none.ok());
    EXPECT_FALSE(none->path.has_value());
    fs::path xdg_file = f.dir.write("xdg/d4r/d4r.ini", "xdg");
    auto loc = locate_config_file(f.env, std::nullopt, f.cwd);
    ASSERT_TRUE(loc.ok());
    EXPECT_EQ(loc->path, xdg_file);
    // A relative XDG_CONFIG_HOME is ignored (XDG base directory spec): back to HOME.
    f.env.set("XDG_CONFIG_HOME", "relative/dir");
    auto rel = locate_config_file(f.env, std::nullopt, f.cwd);
    ASSERT_TRUE(rel.ok());
    EXPECT_EQ(rel->path, f.home / ".config/d4r/d4r.ini");
}

TEST(Locate, D4rConfigBeatsTheSearch) {
    Fixture f;
    f.dir.write("work/d4r.ini", "local");
    fs::path chosen = f.dir.write("elsewhere/game.ini", "chosen");
    f.env.set("D4R_CONFIG", chosen.string());
    auto loc = locate_config_file(f.env, std::nullopt, f.cwd);
    ASSERT_TRUE(loc.ok());
    EXPECT_EQ(loc->path, chosen);
    EXPECT_NE(loc->describe().find("D4R_CONFIG"), std::string::npos);
}

TEST(Locate, D4rConfigRelativeToTheWorkingFolder) {
    Fixture f;
    f.dir.write("work/sub/my.ini", "x");
    f.env.set("D4R_CONFIG", "sub/my.ini");
    auto loc = locate_config_file(f.env, std::nullopt, f.cwd);
    ASSERT_TRUE(loc.ok());
    EXPECT_EQ(loc->path, f.cwd / "sub/my.ini");
    EXPECT_EQ(loc->name, "sub/my.ini");
}

TEST(Locate, D4rConfigMissingIsAnError) {
    Fixture f;
    f.dir.write("work/d4r.ini", "local"); // not used as a fallback
    f.env.set("D4R_CONFIG", (f.dir.path() / "missing.ini").string());
    auto loc = locate_config_file(f.env, std::nullopt, f.cwd);
    ASSERT_FALSE(loc.ok());
    EXPECT_EQ(loc.error().code(), ErrorCode::NotFound);
    EXPECT_NE(loc.error().text().find("missing.ini"), std::string::npos);
}

TEST(Locate, EmptyD4rConfigIsIgnored) {
    Fixture f;
    f.dir.write("work/d4r.ini", "local");
    f.env.set("D4R_CONFIG", "");
    auto loc = locate_config_file(f.env, std::nullopt, f.cwd);
    ASSERT_TRUE(loc.ok());
    EXPECT_EQ(loc->path, f.cwd / "d4r.ini");
}

TEST(Locate, NoConfigIgnoresEveryFileButAnExplicitOne) {
    Fixture f;
    f.dir.write("work/d4r.ini", "local");
    f.dir.write("home/.config/d4r/d4r.ini", "home");
    fs::path chosen = f.dir.write("chosen.ini", "chosen");
    f.env.set("D4R_CONFIG", chosen.string());
    f.env.set("D4R_NO_CONFIG", "1");
    auto loc = locate_config_file(f.env, std::nullopt, f.cwd);
    ASSERT_TRUE(loc.ok());
    EXPECT_FALSE(loc->path.has_value());
    EXPECT_NE(loc->describe().find("D4R_NO_CONFIG=1"), std::string::npos);

    auto explicit_loc = locate_config_file(f.env, fs::path(chosen), f.cwd);
    ASSERT_TRUE(explicit_loc.ok());
    EXPECT_EQ(explicit_loc->path, chosen);
    EXPECT_EQ(explicit_loc->reason, "--config");
}

TEST(Locate, NoConfigFalseSpellingsDoNotDisable) {
    Fixture f;
    f.dir.write("work/d4r.ini", "local");
    for (const char* v : {"0", "false", "no", ""}) {
        f.env.set("D4R_NO_CONFIG", v);
        auto loc = locate_config_file(f.env, std::nullopt, f.cwd);
        ASSERT_TRUE(loc.ok());
        EXPECT_EQ(loc->path, f.cwd / "d4r.ini") << v;
    }
    f.env.set("D4R_NO_CONFIG", "YES");
    EXPECT_FALSE(locate_config_file(f.env, std::nullopt, f.cwd)->path.has_value());
}

TEST(Locate, ExplicitFileMissingIsAnErrorAndRelativeToCwd) {
    Fixture f;
    auto missing = locate_config_file(f.env, fs::path("nope.ini"), f.cwd);
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().code(), ErrorCode::NotFound);
    EXPECT_NE(missing.error().text().find("nope.ini"), std::string::npos);

    f.dir.write("work/mine.ini", "[DLSS]\n");
    auto loc = locate_config_file(f.env, fs::path("mine.ini"), f.cwd);
    ASSERT_TRUE(loc.ok());
    EXPECT_EQ(loc->path, f.cwd / "mine.ini");
    EXPECT_EQ(loc->name, "mine.ini"); // as given, for messages
}

TEST(Locate, HugeFileIsRefused) {
    Fixture f;
    fs::path big = f.dir.write("big.ini", std::string(2 << 20, ';'));
    auto loc = locate_config_file(f.env, big, f.cwd);
    ASSERT_TRUE(loc.ok());
    auto source = read_config_source(*loc);
    ASSERT_FALSE(source.ok());
    EXPECT_NE(source.error().text().find("big.ini"), std::string::npos);
}

} // namespace
} // namespace d4r::config
