// The shared per-pixel math's building blocks against independently known values: f16 conversions
// (IEEE binary16, round to nearest even), YCoCg, the reversible tone map, Catmull-Rom weights.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "kernels/upscaler/ptx/upscaler_math.h"

using namespace d4r::upscaler::math;

namespace {
float from_bits(uint32_t b) {
    float f;
    std::memcpy(&f, &b, 4);
    return f;
}
} // namespace

TEST(UpscalerMath, HalfFromFloatRoundsToNearestEven) {
    EXPECT_EQ(float_to_half(1.0f), 0x3c00);
    EXPECT_EQ(float_to_half(-2.0f), 0xc000);
    EXPECT_EQ(float_to_half(0.0f), 0x0000);
    EXPECT_EQ(float_to_half(-0.0f), 0x8000);
    EXPECT_EQ(float_to_half(65504.0f), 0x7bff);
    EXPECT_EQ(float_to_half(65519.0f), 0x7bff); // below the halfway point to 65536
    EXPECT_EQ(float_to_half(65520.0f), 0x7c00); // halfway: to even = infinity
    EXPECT_EQ(float_to_half(INFINITY), 0x7c00);
    EXPECT_EQ(float_to_half(std::ldexp(1.0f, -14)), 0x0400); // smallest normal
    EXPECT_EQ(float_to_half(std::ldexp(1.0f, -24)), 0x0001); // smallest subnormal
    EXPECT_EQ(float_to_half(std::ldexp(1.0f, -25)), 0x0000); // halfway to it: to even = 0
    EXPECT_EQ(float_to_half(std::ldexp(1.5f, -25)), 0x0001);
    EXPECT_EQ(float_to_half(std::ldexp(3.0f, -25)), 0x0002); // 1.5 ulp: to even = 2
    // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: to even (1); 1 + 3*2^-11 goes up to 1 + 2^-9.
    EXPECT_EQ(float_to_half(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
    EXPECT_EQ(float_to_half(1.0f + 3.0f * std::ldexp(1.0f, -11)), 0x3c02);
    EXPECT_EQ(float_to_half(from_bits(0x3f800001u) + std::ldexp(1.0f, -11)), 0x3c01); // just above halfway
    uint16_t nan = float_to_half(NAN);
    EXPECT_EQ(nan & 0x7c00, 0x7c00);
    EXPECT_NE(nan & 0x03ff, 0);
}

TEST(UpscalerMath, HalfToFloatIsExactAndRoundTrips) {
    EXPECT_EQ(half_to_float(0x3c00), 1.0f);
    EXPECT_EQ(half_to_float(0x3555), 0.333251953125f);
    EXPECT_EQ(half_to_float(0x0001), std::ldexp(1.0f, -24));
    EXPECT_EQ(half_to_float(0x03ff), std::ldexp(1023.0f, -24));
    EXPECT_EQ(half_to_float(0xfbff), -65504.0f);
    EXPECT_TRUE(std::isinf(half_to_float(0x7c00)));
    EXPECT_TRUE(std::isnan(half_to_float(0x7e00)));
    for (uint32_t h = 0; h < 0x10000; ++h) {
        if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff)) continue; // NaNs
        ASSERT_EQ(float_to_half(half_to_float(static_cast<uint16_t>(h))), h) << std::hex << h;
    }
}

TEST(UpscalerMath, YCoCgRoundTripsAndLumaIsTheWeightedSum) {
    F3 c{0.25f, 0.5f, 0.75f};
    F3 y = rgb_to_ycocg(c);
    EXPECT_FLOAT_EQ(y.x, 0.25f * 0.25f + 0.5f * 0.5f + 0.25f * 0.75f);
    F3 back = ycocg_to_rgb(y);
    EXPECT_FLOAT_EQ(back.x, c.x);
    EXPECT_FLOAT_EQ(back.y, c.y);
    EXPECT_FLOAT_EQ(back.z, c.z);
}

TEST(UpscalerMath, ToneMapIsInvertedOnOutputAndExposureUndone) {
    Params p{};
    p.flags = kFlagHdr;
    p.exposure_mode = kExposureScale;
    p.exposure_scale = 2.0f;
    p.pre_exposure = 4.0f;
    float k = exposure_factor(p);
    EXPECT_EQ(k, 0.5f);
    F3 hdr{6.0f, 1.0f, 0.5f};
    F3 w = to_working(p, hdr, k);
    // exposed (3, 0.5, 0.25) / (1 + 3) -> luma of (0.75, 0.125, 0.0625)
    EXPECT_FLOAT_EQ(w.x, 0.75f * 0.25f + 0.125f * 0.5f + 0.0625f * 0.25f);
    F3 back = from_working(p, w, k);
    EXPECT_NEAR(back.x, 6.0f, 1e-4f);
    EXPECT_NEAR(back.y, 1.0f, 1e-5f);
    EXPECT_NEAR(back.z, 0.5f, 1e-5f);
}

TEST(UpscalerMath, CatmullRomWeightsSumToOneAndInterpolate) {
    for (float f : {0.0f, 0.25f, 0.5f, 0.9f}) {
        float w[4];
        catmull_rom(f, w);
        EXPECT_NEAR(w[0] + w[1] + w[2] + w[3], 1.0f, 1e-6f);
        // Reproduces a linear ramp exactly: sum w_i * (i - 1) == f.
        EXPECT_NEAR(-w[0] + w[2] + 2.0f * w[3], f, 1e-6f);
    }
    float w[4];
    catmull_rom(0.0f, w);
    EXPECT_EQ(w[1], 1.0f);
}

TEST(UpscalerMath, HistoryIsClippedTowardTheMeanOntoTheBox) {
    F3 mean{0.5f, 0.0f, 0.0f}, extent{0.1f, 0.1f, 0.1f};
    F3 inside = clip_to_box({0.55f, 0.05f, -0.05f}, mean, extent);
    EXPECT_EQ(inside.x, 0.55f);
    F3 out = clip_to_box({0.9f, 0.2f, 0.0f}, mean, extent); // 4 box units in x: scaled by 1/4
    EXPECT_FLOAT_EQ(out.x, 0.6f);
    EXPECT_FLOAT_EQ(out.y, 0.05f);
}
