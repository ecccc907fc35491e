#include <gtest/gtest.h>

#include <cstdlib>

#include "core/env.h"
#include "core/log.h"
#include "test_support.h"

namespace d4r {
namespace {

TEST(Log, ParseLevels) {
    EXPECT_EQ(*log::parse_level("warn"), log::Level::Warn);
    EXPECT_EQ(*log::parse_level("DEBUG"), log::Level::Debug);
    EXPECT_EQ(*log::parse_level(" 3 "), log::Level::Info);
    EXPECT_EQ(*log::parse_level("off"), log::Level::Off);
    EXPECT_EQ(*log::parse_level("warning"), log::Level::Warn);
    EXPECT_FALSE(log::parse_level("loud").ok());
    EXPECT_FALSE(log::parse_level("6").ok());
}

TEST(Log, FileSinkLevelFilterAndOnce) {
    test::TempDir t;
    std::filesystem::path file = t.path() / "d4r.log";
    ::setenv("D4R_LOG", "info", 1);
    ::setenv("D4R_LOG_FILE", file.c_str(), 1);
    log::init_from_env();
    EXPECT_EQ(log::level(), log::Level::Info);
    log::info("hello {}", 42);
    log::debug("hidden {}", 1);
    EXPECT_TRUE(log::once("test-key"));
    EXPECT_FALSE(log::once("test-key"));
    log::set_stderr();
    log::set_level(log::Level::Warn);
    ::unsetenv("D4R_LOG");
    ::unsetenv("D4R_LOG_FILE");

    std::string text = test::read_file_text(file);
    EXPECT_NE(text.find("d4r info: hello 42"), std::string::npos) << text;
    EXPECT_EQ(text.find("hidden"), std::string::npos);
}

TEST(Log, UnwritableFileIsAnErrorAndKeepsStderr) {
    log::set_stderr();
    log::set_level(log::Level::Warn);
    EXPECT_FALSE(log::set_file("/nonexistent/dir/d4r.log").ok());
    // The failed set_file left stderr as the destination: the next message is written there.
    testing::internal::CaptureStderr();
    log::warn("still on stderr {}", 7);
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("d4r: warn: still on stderr 7"), std::string::npos) << err;
}

TEST(Environment, MapAndProcess) {
    MapEnvironment env{{"A", "1"}};
    EXPECT_EQ(env.get("A"), std::optional<std::string>("1"));
    EXPECT_FALSE(env.has("B"));
    env.set("B", "");
    EXPECT_TRUE(env.has("B")); // set-but-empty is distinct from unset
    ::setenv("D4R_TEST_ENV_VAR", "x y", 1);
    EXPECT_EQ(get_env("D4R_TEST_ENV_VAR"), std::optional<std::string>("x y"));
    unset_env("D4R_TEST_ENV_VAR");
    EXPECT_FALSE(get_env("D4R_TEST_ENV_VAR").has_value());
}

} // namespace
} // namespace d4r
