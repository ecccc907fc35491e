// Which folder `d4r install` writes into: the rules of find_exe_folder on synthetic game trees.
#include <gtest/gtest.h>

#include <string>

#include "release/game_layout.h"
#include "test_support.h"

namespace d4r::release {
namespace {

using test::TempDir;

TEST(InstallLayout, UnrealPicksProjectBinariesNotLauncherOrEngine) {
    TempDir t;
    t.write("Game/Launcher.exe", std::string(5000, 'L')); // the top-level launcher, larger than the real exe here
    t.write("Game/Engine/Binaries/Win64/UnrealEditor.exe", std::string(9000, 'E'));
    t.write("Game/Engine/Binaries/Win64/CrashReportClient.exe", "c");
    t.write("Game/MyGame/Binaries/Win64/MyGame-Win64-Shipping.exe", std::string(300, 'g'));
    auto choice = find_exe_folder(t.path() / "Game");
    ASSERT_TRUE(choice.ok()) << choice.error().text();
    EXPECT_EQ(choice->folder, t.path() / "Game/MyGame/Binaries/Win64");
    EXPECT_EQ(choice->exe, "MyGame-Win64-Shipping.exe");
    EXPECT_NE(choice->reason.find("Unreal Engine"), std::string::npos) << choice->reason;
    EXPECT_NE(choice->reason.find("Launcher.exe"), std::string::npos) << choice->reason; // says what it skipped
}

TEST(InstallLayout, UnrealSeveralProjectsTheShippingOneWins) {
    TempDir t;
    t.write("G/Tool/Binaries/Win64/Tool.exe", "t");
    t.write("G/MyGame/Binaries/Win64/MyGame-Win64-Shipping.exe", "g");
    auto choice = find_exe_folder(t.path() / "G");
    ASSERT_TRUE(choice.ok()) << choice.error().text();
    EXPECT_EQ(choice->folder, t.path() / "G/MyGame/Binaries/Win64");
}

TEST(InstallLayout, FlatLayoutIgnoresHelpers) {
    TempDir t;
    t.write("Game/game.exe", "g");
    t.write("Game/unins000.exe", std::string(100000, 'u'));
    t.write("Game/_CommonRedist/vcredist_x64.exe", std::string(100000, 'v'));
    t.write("Game/tools/editor.exe", std::string(100000, 'e'));
    auto choice = find_exe_folder(t.path() / "Game");
    ASSERT_TRUE(choice.ok()) << choice.error().text();
    EXPECT_EQ(choice->folder, t.path() / "Game");
    EXPECT_EQ(choice->exe, "game.exe");
    EXPECT_NE(choice->reason.find("game folder itself"), std::string::npos) << choice->reason;
}

TEST(InstallLayout, OnlyFolderAndClearlyLargest) {
    TempDir t;
    t.write("A/bin/x64/game.exe", "g");
    auto one = find_exe_folder(t.path() / "A");
    ASSERT_TRUE(one.ok()) << one.error().text();
    EXPECT_EQ(one->folder, t.path() / "A/bin/x64");
    EXPECT_NE(one->reason.find("only folder"), std::string::npos);

    t.write("B/bin/game.exe", std::string(3000, 'g'));
    t.write("B/tools/helper.exe", std::string(1000, 'h'));
    auto largest = find_exe_folder(t.path() / "B");
    ASSERT_TRUE(largest.ok()) << largest.error().text();
    EXPECT_EQ(largest->folder, t.path() / "B/bin");
    EXPECT_NE(largest->reason.find("twice"), std::string::npos) << largest->reason;
}

TEST(InstallLayout, AmbiguousListsCandidates) {
    TempDir t;
    t.write("Game/one/first.exe", std::string(1000, 'a'));
    t.write("Game/two/second.exe", std::string(1500, 'b'));
    auto choice = find_exe_folder(t.path() / "Game");
    ASSERT_FALSE(choice.ok());
    const std::string text = choice.error().text();
    EXPECT_EQ(choice.error().code(), ErrorCode::Invalid);
    EXPECT_NE(text.find("first.exe"), std::string::npos) << text;
    EXPECT_NE(text.find("second.exe"), std::string::npos) << text;
    EXPECT_NE(text.find("give the folder"), std::string::npos) << text;
}

TEST(InstallLayout, NoExeAndNotAFolder) {
    TempDir t;
    t.write("Game/readme.txt", "x");
    auto none = find_exe_folder(t.path() / "Game");
    ASSERT_FALSE(none.ok());
    EXPECT_NE(none.error().text().find("no game .exe"), std::string::npos) << none.error().text();
    auto missing = find_exe_folder(t.path() / "nope");
    ASSERT_FALSE(missing.ok());
    EXPECT_NE(missing.error().text().find("nope"), std::string::npos);
}

} // namespace
} // namespace d4r::release
