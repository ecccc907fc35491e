#include <gtest/gtest.h>

#include "core/status.h"

namespace d4r {
namespace {

Expected<int> parse_positive(int v) {
    if (v <= 0) return make_error(ErrorCode::Invalid, "{} is not positive", v);
    return v;
}

Expected<int> doubled(int v) {
    int x = D4R_TRY(parse_positive(v));
    return 2 * x;
}

Expected<int> in_entry(int entry, int v) {
    int x = D4R_TRY_CTX(doubled(v), "entry {}", entry);
    return x;
}

Status in_module(int module, int entry, int v) {
    D4R_TRY_CTX(in_entry(entry, v), "loading module {}", module);
    return ok_status();
}

TEST(Status, ValuesPassThrough) {
    auto r = in_entry(2, 21);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(*r, 42);
    EXPECT_TRUE(in_module(1, 2, 3).ok());
}

TEST(Status, ContextReadsOutsideIn) {
    Status s = in_module(3, 2, -5);
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.error().code(), ErrorCode::Invalid);
    EXPECT_EQ(s.error().message(), "-5 is not positive");
    EXPECT_EQ(s.error().text(), "loading module 3: entry 2: -5 is not positive");
    ASSERT_EQ(s.error().context().size(), 2u);
    EXPECT_EQ(s.error().context()[0], "loading module 3");
}

TEST(Status, ValueOr) {
    EXPECT_EQ(parse_positive(-1).value_or(7), 7);
    EXPECT_EQ(parse_positive(4).value_or(7), 4);
}

TEST(Status, MoveOnlyValues) {
    auto make = []() -> Expected<std::unique_ptr<int>> { return std::make_unique<int>(5); };
    auto use = [&]() -> Expected<int> {
        std::unique_ptr<int> p = D4R_TRY(make());
        return *p + 1;
    };
    EXPECT_EQ(*use(), 6);
}

TEST(Status, CodeNames) {
    EXPECT_STREQ(error_code_name(ErrorCode::NotFound), "not found");
    EXPECT_STREQ(error_code_name(ErrorCode::Io), "i/o");
}

} // namespace
} // namespace d4r
