#include "image/resample.h"

#include <cmath>

#include <gtest/gtest.h>

namespace d4r::image {
namespace {

// f(x, y) = 0.1 x + 0.05 y + 0.2 at pixel centres (x, y integer indices).
Image ramp(uint32_t w, uint32_t h) {
    Image image(w, h, 2);
    for (uint32_t y = 0; y < h; ++y)
        for (uint32_t x = 0; x < w; ++x) {
            image.at(x, y, 0) = 0.1f * x + 0.05f * y + 0.2f;
            image.at(x, y, 1) = 1.0f - 0.02f * x;
        }
    return image;
}

void expect_ramp_interior(const Image& source, const Image& out, double margin) {
    double rx = double(source.width) / out.width, ry = double(source.height) / out.height;
    int checked = 0;
    for (uint32_t y = 0; y < out.height; ++y) {
        double sy = (y + 0.5) * ry - 0.5;
        for (uint32_t x = 0; x < out.width; ++x) {
            double sx = (x + 0.5) * rx - 0.5;
            if (sx < margin || sy < margin || sx > source.width - 1 - margin || sy > source.height - 1 - margin)
                continue;
            EXPECT_NEAR(out.at(x, y, 0), 0.1 * sx + 0.05 * sy + 0.2, 1e-5) << x << "," << y;
            EXPECT_NEAR(out.at(x, y, 1), 1.0 - 0.02 * sx, 1e-5) << x << "," << y;
            ++checked;
        }
    }
    EXPECT_GT(checked, int(out.width * out.height / 3));
}

TEST(Resample, BicubicReproducesLinearRampInInterior) {
    Image source = ramp(16, 12);
    Image out = resize_bicubic(source, 32, 24);
    ASSERT_EQ(out.width, 32u);
    ASSERT_EQ(out.height, 24u);
    ASSERT_EQ(out.channels, 2u);
    expect_ramp_interior(source, out, 1.0); // taps i-1..i+2 unclamped (or weight 0) for 1 <= s <= w-2
}

TEST(Resample, BilinearReproducesLinearRamp) {
    Image source = ramp(10, 7);
    Image out = resize_bilinear(source, 25, 13);
    expect_ramp_interior(source, out, 0.0);
}

TEST(Resample, ConstantStaysConstantEverywhere) {
    Image source(5, 4, 4, 0.75f);
    for (const Image& out : {resize_bicubic(source, 13, 9), resize_bilinear(source, 13, 9)})
        for (float v : out.data) EXPECT_NEAR(v, 0.75f, 1e-6);
}

TEST(Resample, CatmullRomInterpolatesSamples) {
    // Integer upscale by an odd factor puts some output centres exactly on source centres: those
    // must return the source value (Catmull-Rom is interpolating, unlike a B-spline).
    Image source(6, 6, 1);
    for (size_t i = 0; i < source.data.size(); ++i) source.data[i] = float((i * 37) % 11);
    Image out = resize_bicubic(source, 18, 18);
    for (uint32_t y = 0; y < 6; ++y)
        for (uint32_t x = 0; x < 6; ++x) EXPECT_NEAR(out.at(3 * x + 1, 3 * y + 1, 0), source.at(x, y, 0), 1e-5);
}

TEST(Resample, EmptyGivesEmpty) {
    EXPECT_TRUE(resize_bicubic(Image(), 4, 4).empty());
    EXPECT_TRUE(resize_bilinear(Image(3, 3, 1), 0, 4).empty());
}

} // namespace
} // namespace d4r::image
