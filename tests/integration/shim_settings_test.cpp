// The shim's settings (src/shim/settings.h): D4R_SHIM_MAX_IN_FLIGHT, D4R_SHIM_BLOCKING_SYNC,
// D4R_MOTION_DILATION and D4R_SHIM_WATERMARK, their defaults, accepted spellings, and bad values keeping the
// default.
#include <gtest/gtest.h>

#include "core/env_vars.h"
#include "shim/settings.h"

using namespace d4r;
using namespace d4r::shim;

TEST(ShimSettings, Defaults) {
    Settings s = read_settings(MapEnvironment{});
    EXPECT_EQ(s.max_in_flight, 3u);
    EXPECT_FALSE(s.blocking_sync);
    EXPECT_EQ(s.motion_dilation, 0u);
    EXPECT_FALSE(s.watermark); // SPEC: the watermark is disabled unless asked for
}

TEST(ShimSettings, MotionDilation) {
    EXPECT_EQ(read_settings(MapEnvironment{{"D4R_MOTION_DILATION", "1"}}).motion_dilation, 1u);
    EXPECT_EQ(read_settings(MapEnvironment{{"D4R_MOTION_DILATION", "8"}}).motion_dilation, 8u);
    EXPECT_EQ(read_settings(MapEnvironment{{"D4R_MOTION_DILATION", "0"}}).motion_dilation, 0u);
    for (const char* bad : {"9", "-1", "two", "", "1.5"})
        EXPECT_EQ(read_settings(MapEnvironment{{"D4R_MOTION_DILATION", bad}}).motion_dilation, 0u) << bad;
}

TEST(ShimSettings, Watermark) {
    for (const char* on : {"1", "true", "ON", "Yes"})
        EXPECT_TRUE(read_settings(MapEnvironment{{"D4R_SHIM_WATERMARK", on}}).watermark) << on;
    for (const char* off : {"0", "false", "Off", "no", "", "maybe"})
        EXPECT_FALSE(read_settings(MapEnvironment{{"D4R_SHIM_WATERMARK", off}}).watermark) << off;
}

TEST(ShimSettings, MaxInFlight) {
    EXPECT_EQ(read_settings(MapEnvironment{{"D4R_SHIM_MAX_IN_FLIGHT", "1"}}).max_in_flight, 1u);
    EXPECT_EQ(read_settings(MapEnvironment{{"D4R_SHIM_MAX_IN_FLIGHT", "16"}}).max_in_flight, 16u);
    for (const char* bad : {"0", "17", "-1", "two", "", "1000", "3 "})
        EXPECT_EQ(read_settings(MapEnvironment{{"D4R_SHIM_MAX_IN_FLIGHT", bad}}).max_in_flight, 3u) << bad;
}

TEST(ShimSettings, BlockingSync) {
    for (const char* on : {"1", "true", "ON", "Yes"})
        EXPECT_TRUE(read_settings(MapEnvironment{{"D4R_SHIM_BLOCKING_SYNC", on}}).blocking_sync) << on;
    for (const char* off : {"0", "false", "Off", "no", "", "maybe"})
        EXPECT_FALSE(read_settings(MapEnvironment{{"D4R_SHIM_BLOCKING_SYNC", off}}).blocking_sync) << off;
}

TEST(ShimSettings, WhatIsNotDoneYetIsSaidWithWhatHappensInstead) {
    EXPECT_TRUE(read_settings(MapEnvironment{}).notices.empty());
    EXPECT_TRUE(
        read_settings(MapEnvironment{{"D4R_SHIM_SPLIT_FRAME", "1"}, {"D4R_SHIM_VRAM_INTEROP", "0"}}).notices.empty());
    Settings s = read_settings(MapEnvironment{{"D4R_SHIM_SPLIT_FRAME", "0"}, {"D4R_SHIM_VRAM_INTEROP", "true"}});
    ASSERT_EQ(s.notices.size(), 2u);
    EXPECT_NE(s.notices[0].find("every frame gets its own result"), std::string::npos) << s.notices[0];
    EXPECT_NE(s.notices[1].find("the mapped path"), std::string::npos) << s.notices[1];
}

TEST(ShimSettings, ConstantsAgreeWithTheTableOfVariables) {
    const EnvVarInfo& v = env_var_info(EnvVar::ShimMaxInFlight);
    EXPECT_EQ(v.name, "D4R_SHIM_MAX_IN_FLIGHT");
    EXPECT_EQ(v.default_value, std::to_string(kDefaultMaxInFlight));
    EXPECT_EQ(v.max, static_cast<int64_t>(kMaxMaxInFlight));
}
