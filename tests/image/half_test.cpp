#include "image/half.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

#include <gtest/gtest.h>

namespace d4r::image {
namespace {

TEST(Half, KnownBitPatterns) {
    EXPECT_EQ(float_to_half(1.0f), 0x3C00);
    EXPECT_EQ(float_to_half(-2.0f), 0xC000);
    EXPECT_EQ(float_to_half(0.0f), 0x0000);
    EXPECT_EQ(float_to_half(-0.0f), 0x8000);
    EXPECT_EQ(float_to_half(65504.0f), 0x7BFF);                 // largest finite half
    EXPECT_EQ(float_to_half(std::ldexp(1.0f, -14)), 0x0400);    // smallest normal
    EXPECT_EQ(float_to_half(std::ldexp(1.0f, -24)), 0x0001);    // smallest subnormal
    EXPECT_EQ(float_to_half(std::ldexp(1023.0f, -24)), 0x03FF); // largest subnormal
    EXPECT_EQ(float_to_half(0.1f), 0x2E66);
    EXPECT_EQ(float_to_half(std::numeric_limits<float>::infinity()), 0x7C00);
    EXPECT_EQ(float_to_half(-std::numeric_limits<float>::infinity()), 0xFC00);
    uint16_t nan = float_to_half(std::numeric_limits<float>::quiet_NaN());
    EXPECT_EQ(nan & 0x7C00, 0x7C00);
    EXPECT_NE(nan & 0x03FF, 0);
}

TEST(Half, RoundsToNearestEven) {
    // 1 + 2^-11 lies halfway between 1.0 (0x3C00, even) and 1 + 2^-10 (0x3C01): ties go to even.
    EXPECT_EQ(float_to_half(1.0f + std::ldexp(1.0f, -11)), 0x3C00);
    // 1 + 3 * 2^-11 lies halfway between 0x3C01 (odd) and 0x3C02 (even).
    EXPECT_EQ(float_to_half(1.0f + 3.0f * std::ldexp(1.0f, -11)), 0x3C02);
    // Just above the halfway point rounds up.
    EXPECT_EQ(float_to_half(std::nextafter(1.0f + std::ldexp(1.0f, -11), 2.0f)), 0x3C01);
    // 65520 is halfway between 65504 (0x7BFF, odd) and 65536 (infinity): rounds to infinity.
    EXPECT_EQ(float_to_half(65520.0f), 0x7C00);
    EXPECT_EQ(float_to_half(std::nextafter(65520.0f, 0.0f)), 0x7BFF);
    // Subnormal ties: 2^-25 is halfway between 0 and 2^-24 -> 0; 1.5 * 2^-24 -> 2 (even); 2.5 * 2^-24 -> 2.
    EXPECT_EQ(float_to_half(std::ldexp(1.0f, -25)), 0x0000);
    EXPECT_EQ(float_to_half(std::nextafter(std::ldexp(1.0f, -25), 1.0f)), 0x0001);
    EXPECT_EQ(float_to_half(std::ldexp(1.5f, -24)), 0x0002);
    EXPECT_EQ(float_to_half(std::ldexp(2.5f, -24)), 0x0002);
    EXPECT_EQ(float_to_half(-std::ldexp(3.5f, -24)), 0x8004);
    // The largest subnormal plus half a step carries into the smallest normal.
    EXPECT_EQ(float_to_half(std::ldexp(1023.5f, -24)), 0x0400);
}

TEST(Half, DecodesKnownPatterns) {
    EXPECT_EQ(half_to_float(0x3C00), 1.0f);
    EXPECT_EQ(half_to_float(0x7BFF), 65504.0f);
    EXPECT_EQ(half_to_float(0x0001), std::ldexp(1.0f, -24));
    EXPECT_EQ(half_to_float(0x0400), std::ldexp(1.0f, -14));
    EXPECT_EQ(half_to_float(0xC000), -2.0f);
    EXPECT_TRUE(std::signbit(half_to_float(0x8000)));
    EXPECT_EQ(half_to_float(0x7C00), std::numeric_limits<float>::infinity());
    EXPECT_EQ(half_to_float(0xFC00), -std::numeric_limits<float>::infinity());
    EXPECT_TRUE(std::isnan(half_to_float(0x7E00)));
}

TEST(Half, EveryPatternRoundTrips) {
    for (uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
        float value = half_to_float(uint16_t(bits));
        if (std::isnan(value)) {
            EXPECT_TRUE(std::isnan(half_to_float(float_to_half(value)))) << bits;
            continue;
        }
        EXPECT_EQ(float_to_half(value), bits) << std::hex << bits;
    }
}

#if defined(__FLT16_MAX__)
// The compiler's own _Float16 conversion (round-to-nearest-even) is an independent reference.
TEST(Half, AgreesWithCompilerFloat16) {
    std::mt19937 random(1234);
    std::uniform_int_distribution<uint32_t> any_bits;
    for (int i = 0; i < 200000; ++i) {
        float value = std::bit_cast<float>(any_bits(random));
        if (std::isnan(value)) continue;
        auto expected = std::bit_cast<uint16_t>(static_cast<_Float16>(value));
        ASSERT_EQ(float_to_half(value), expected) << value;
    }
    // Values near the half range, where the interesting cases are.
    std::uniform_real_distribution<float> near(-70000.0f, 70000.0f);
    for (int i = 0; i < 200000; ++i) {
        float value = near(random) * std::ldexp(1.0f, -(i % 40));
        ASSERT_EQ(float_to_half(value), std::bit_cast<uint16_t>(static_cast<_Float16>(value))) << value;
    }
}
#endif

TEST(Half, BulkConvertersMatchScalar) {
    std::vector<float> values = {0.0f, 1.0f, -3.25f, 65504.0f, 1e-7f};
    auto halves = floats_to_halves(values);
    ASSERT_EQ(halves.size(), values.size());
    for (size_t i = 0; i < values.size(); ++i) EXPECT_EQ(halves[i], float_to_half(values[i]));
    auto back = halves_to_floats(halves);
    ASSERT_EQ(back.size(), values.size());
    EXPECT_EQ(back[2], -3.25f);
    EXPECT_EQ(back[3], 65504.0f);
}

} // namespace
} // namespace d4r::image
