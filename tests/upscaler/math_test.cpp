// The shared per-pixel math's building blocks against independently known values: f16 conversions
// (IEEE binary16, round to nearest even), YCoCg, the reversible tone map, Catmull-Rom weights.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

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

// A pixel that no render sample reaches (the outer column and row when the jitter points away from them: every
// sample beyond the reconstruction radius) and whose history holds no weight blends 0 of each. It must take the
// current frame's colour, not 0/0 (which stored NaN and showed black pixels along the left edge during pans).
TEST(UpscalerMath, APixelWithNoCoverageAndNoHistoryWeightKeepsTheCurrentColour) {
    constexpr uint32_t kRw = 4, kRh = 4, kOw = 8, kOh = 8;
    const F3 colour = rgb_to_ycocg(F3{0.5f, 0.25f, 0.125f});
    std::vector<F4> prep(kRw * kRh, F4{colour.x, colour.y, colour.z, 0.0f});
    std::vector<F4> motion(kRw * kRh, F4{0.0f, 0.0f, 0.0f, 0.0f});     // still, nothing disoccluded
    std::vector<F4> history_in(kOw * kOh, F4{0.3f, 0.0f, 0.0f, 0.0f}); // kept no weight last frame
    std::vector<F4> history_out(kOw * kOh, F4{-1.0f, -1.0f, -1.0f, -1.0f});
    std::vector<uint16_t> output(kOw * kOh * 4, 0);
    auto address = [](const void* p) { return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p)); };
    Params p{};
    p.prep_color = address(prep.data());
    p.motion_cur = address(motion.data());
    p.history_in = address(history_in.data());
    p.history_out = address(history_out.data());
    p.output = address(output.data());
    p.output_pitch = kOw * 8;
    p.render_w = kRw;
    p.render_h = kRh;
    p.output_w = kOw;
    p.output_h = kOh;
    p.render_stride = kRw;
    p.output_stride = kOw;
    p.flags = kFlagHistory;
    p.jitter_x = 0.45f; // the nearest sample to output pixel 0's centre (0.25) sits at 0.95
    p.jitter_y = 0.45f;

    AccumulateTerms t = accumulate_terms(p, 0, 0);
    ASSERT_EQ(t.coverage, 0.0f) << "the case under test: no sample within the reconstruction radius";
    ASSERT_TRUE(t.reprojected);
    ASSERT_EQ(t.history_weight, 0.0f);
    EXPECT_EQ(t.alpha, 1.0f);
    for (uint32_t y = 0; y < kOh; ++y)
        for (uint32_t x = 0; x < kOw; ++x) {
            accumulate_pixel(p, int32_t(x), int32_t(y));
            F4 h = history_out[y * kOw + x];
            ASSERT_TRUE(std::isfinite(h.x) && std::isfinite(h.y) && std::isfinite(h.z)) << x << "," << y;
            // No history weight anywhere: every pixel takes its current reconstruction, the uniform colour.
            EXPECT_NEAR(h.x, colour.x, 1e-6f) << x << "," << y;
            EXPECT_NEAR(h.y, colour.y, 1e-6f) << x << "," << y;
            EXPECT_NEAR(h.z, colour.z, 1e-6f) << x << "," << y;
            EXPECT_NE(output[(y * kOw + x) * 4], 0) << "black output pixel at " << x << "," << y;
        }
    EXPECT_EQ(history_out[0].w, 0.0f) << "no weight to keep";
}
