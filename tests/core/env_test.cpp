// The user's cache folder (core/env.h): the XDG rule every d4r folder under it follows.
#include <gtest/gtest.h>

#include "core/env.h"

namespace d4r {
namespace {

TEST(UserCacheDir, XdgWhenAbsoluteElseHomeElseNothing) {
    EXPECT_EQ(user_cache_dir(MapEnvironment{{"XDG_CACHE_HOME", "/x/cache"}, {"HOME", "/home/u"}}), "/x/cache");
    // A relative or empty XDG_CACHE_HOME is invalid and ignored, as the XDG rules say.
    EXPECT_EQ(user_cache_dir(MapEnvironment{{"XDG_CACHE_HOME", "rel"}, {"HOME", "/home/u"}}), "/home/u/.cache");
    EXPECT_EQ(user_cache_dir(MapEnvironment{{"XDG_CACHE_HOME", ""}, {"HOME", "/home/u"}}), "/home/u/.cache");
    EXPECT_EQ(user_cache_dir(MapEnvironment{{"HOME", "/home/u"}}), "/home/u/.cache");
    EXPECT_EQ(user_cache_dir(MapEnvironment{{"HOME", ""}}), std::nullopt);
    EXPECT_EQ(user_cache_dir(MapEnvironment{}), std::nullopt);
}

} // namespace
} // namespace d4r
