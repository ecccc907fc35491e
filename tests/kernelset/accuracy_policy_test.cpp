// docs/kernel-sets.md accuracy policy and the accuracy JIT cache path rule.
#include <gtest/gtest.h>

#include <cstdlib>

#include "kernelset/accuracy_policy.h"

namespace d4r::kernels {
namespace {

const char* const kForcedNames[] = {"D4R_ZLUDA_IGNORE_DENORMAL", "D4R_ZLUDA_WMMA_F32ACC", "D4R_ZLUDA_FAST_MATH",
                                    "D4R_ZLUDA_WAVE64", "D4R_ELIDE_NGX_SYNC"};

TEST(AccuracyPolicy, OnOverridesEveryConflictingFastSetting) {
    MapEnvironment env({{"D4R_PREFER_ACCURACY", "1"},
                        {"D4R_ZLUDA_IGNORE_DENORMAL", "1"},
                        {"D4R_ZLUDA_WMMA_F32ACC", "1"},
                        {"D4R_ZLUDA_FAST_MATH", "1"},
                        {"D4R_ZLUDA_WAVE64", "1"},
                        {"D4R_ELIDE_NGX_SYNC", "1"}});
    auto overrides = accuracy_policy_overrides(env);
    ASSERT_EQ(overrides.size(), 5u);
    for (size_t i = 0; i < 5; ++i) {
        EXPECT_EQ(overrides[i].name, kForcedNames[i]);
        EXPECT_EQ(overrides[i].value, "0");
        EXPECT_EQ(overrides[i].before, std::optional<std::string>("1"));
        EXPECT_TRUE(overrides[i].changes());
    }
}

TEST(AccuracyPolicy, OnSetsUnsetVariablesToo) {
    MapEnvironment env{{"D4R_PREFER_ACCURACY", "1"}, {"D4R_ZLUDA_FAST_MATH", "0"}};
    auto overrides = accuracy_policy_overrides(env);
    ASSERT_EQ(overrides.size(), 5u);
    EXPECT_FALSE(overrides[0].before.has_value());
    EXPECT_TRUE(overrides[0].changes());
    EXPECT_FALSE(overrides[2].changes()); // already 0
}

// D4R_PREFER_ACCURACY follows d4r's one boolean rule (true/on/yes/1, any case); anything else is off.
TEST(AccuracyPolicy, TrueSpellingsTurnItOn) {
    for (const char* value : {"1", "true", "YES", "on", " 1"}) {
        MapEnvironment env{{"D4R_PREFER_ACCURACY", value}, {"D4R_ZLUDA_FAST_MATH", "1"}};
        EXPECT_TRUE(accuracy_preferred(env)) << "'" << value << "'";
        EXPECT_FALSE(accuracy_policy_overrides(env).empty()) << "'" << value << "'";
    }
}

TEST(AccuracyPolicy, OffOrNotABooleanChangesNothing) {
    for (const char* value : {"0", "", "false", "off", "no", "01", "2"}) {
        MapEnvironment env{{"D4R_PREFER_ACCURACY", value}, {"D4R_ZLUDA_FAST_MATH", "1"}};
        EXPECT_TRUE(accuracy_policy_overrides(env).empty()) << "'" << value << "'";
        EXPECT_FALSE(accuracy_preferred(env));
    }
    MapEnvironment unset({{"D4R_ZLUDA_FAST_MATH", "1"}});
    EXPECT_TRUE(accuracy_policy_overrides(unset).empty());
}

// The process-level form, used by the runtime before it loads a backend.
TEST(AccuracyPolicy, ApplyChangesTheProcessEnvironmentOnlyWhenOn) {
    ::setenv("D4R_ZLUDA_WAVE64", "1", 1);
    ::unsetenv("D4R_PREFER_ACCURACY");
    EXPECT_TRUE(apply_accuracy_policy().empty());
    EXPECT_STREQ(std::getenv("D4R_ZLUDA_WAVE64"), "1");

    ::setenv("D4R_PREFER_ACCURACY", "1", 1);
    EXPECT_EQ(apply_accuracy_policy().size(), 5u);
    for (const char* name : kForcedNames) EXPECT_STREQ(std::getenv(name), "0") << name;
    ::unsetenv("D4R_PREFER_ACCURACY");
    for (const char* name : kForcedNames) ::unsetenv(name);
}

TEST(AccuracyCacheDir, BaseOrder) {
    MapEnvironment env{{"D4R_ZLUDA_CACHE_HOME", "/cfg/cache"}, {"XDG_CACHE_HOME", "/xdg"}, {"HOME", "/home/u"}};
    EXPECT_EQ(*accuracy_cache_dir(env), "/cfg/cache/d4r-accuracy");
    env.unset("D4R_ZLUDA_CACHE_HOME");
    EXPECT_EQ(*accuracy_cache_dir(env), "/xdg/d4r-accuracy");
    env.unset("XDG_CACHE_HOME");
    EXPECT_EQ(*accuracy_cache_dir(env), "/home/u/.cache/d4r-accuracy");
    env.unset("HOME");
    EXPECT_EQ(*accuracy_cache_dir(env), "/tmp/d4r-accuracy");
}

TEST(AccuracyCacheDir, EmptyValuesCountAsUnsetAndRelativeXdgIsIgnored) {
    MapEnvironment env{{"D4R_ZLUDA_CACHE_HOME", ""}, {"XDG_CACHE_HOME", "relative/cache"}, {"HOME", "/home/u"}};
    EXPECT_EQ(*accuracy_cache_dir(env), "/home/u/.cache/d4r-accuracy");
    env.set("HOME", "");
    EXPECT_EQ(*accuracy_cache_dir(env), "/tmp/d4r-accuracy");
}

TEST(AccuracyCacheDir, RelativeConfiguredDirIsAnError) {
    MapEnvironment env{{"D4R_ZLUDA_CACHE_HOME", "cache"}};
    auto dir = accuracy_cache_dir(env);
    ASSERT_FALSE(dir.ok());
    EXPECT_NE(dir.error().text().find("D4R_ZLUDA_CACHE_HOME"), std::string::npos);
}

TEST(AccuracyCacheDir, TooLongIsAnErrorNotATruncation) {
    const size_t suffix = std::string("/d4r-accuracy").size();
    std::string fits = "/" + std::string(kMaxCachePathBytes - suffix - 1, 'a');
    MapEnvironment env{{"D4R_ZLUDA_CACHE_HOME", fits}};
    auto ok = accuracy_cache_dir(env);
    ASSERT_TRUE(ok.ok());
    EXPECT_EQ(ok->native().size(), kMaxCachePathBytes);

    env.set("D4R_ZLUDA_CACHE_HOME", fits + "a");
    auto too_long = accuracy_cache_dir(env);
    ASSERT_FALSE(too_long.ok());
    EXPECT_NE(too_long.error().text().find("more than the 4095 accepted"), std::string::npos)
        << too_long.error().text();
}

} // namespace
} // namespace d4r::kernels
