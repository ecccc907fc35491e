#include "image/metrics.h"

#include <cmath>

#include <gtest/gtest.h>

namespace d4r::image {
namespace {

Image pattern(uint32_t w, uint32_t h) {
    Image image(w, h, 3);
    for (uint32_t y = 0; y < h; ++y)
        for (uint32_t x = 0; x < w; ++x)
            for (uint32_t c = 0; c < 3; ++c) image.at(x, y, c) = float((x * 7 + y * 13 + c * 5) % 17) / 16.0f;
    return image;
}

TEST(Psnr, IdenticalIsInfinite) {
    Image a = pattern(20, 10);
    auto value = psnr(a, a);
    ASSERT_TRUE(value.ok());
    EXPECT_TRUE(std::isinf(*value));
    EXPECT_GT(*value, 0);
}

TEST(Psnr, KnownNoise) {
    // Every value off by +-0.1: MSE = 0.01, PSNR = 10 log10(1 / 0.01) = 20 dB.
    Image a(16, 8, 3, 0.5f), b = a;
    for (size_t i = 0; i < b.data.size(); ++i) b.data[i] += (i % 2) ? 0.1f : -0.1f;
    EXPECT_NEAR(*psnr(a, b), 20.0, 1e-4);
    // Half the pixels off by 0.2 in one of three channels: MSE = 0.04 / 2 / 3, PSNR = 10 log10(150).
    Image c = a;
    for (uint32_t y = 0; y < 8; ++y)
        for (uint32_t x = 0; x < 16; x += 2) c.at(x, y, 1) += 0.2f;
    EXPECT_NEAR(*psnr(a, c), 10.0 * std::log10(150.0), 1e-4);
}

TEST(Psnr, IgnoresAlpha) {
    Image a(4, 4, 4, 0.5f), b = a;
    for (uint32_t y = 0; y < 4; ++y)
        for (uint32_t x = 0; x < 4; ++x) b.at(x, y, 3) = 0.0f;
    EXPECT_TRUE(std::isinf(*psnr(a, b)));
}

TEST(Psnr, SizeMismatchIsInvalid) {
    auto value = psnr(Image(4, 4, 3), Image(4, 5, 3));
    ASSERT_FALSE(value.ok());
    EXPECT_EQ(value.error().code(), ErrorCode::Invalid);
    EXPECT_NE(value.error().text().find("4x5x3"), std::string::npos) << value.error().text();
}

TEST(Ssim, IdenticalIsOne) {
    Image a = pattern(40, 30);
    EXPECT_NEAR(*ssim(a, a), 1.0, 1e-12);
}

TEST(Ssim, DifferentIsBelowOne) {
    Image a = pattern(40, 30), b = a;
    for (size_t i = 0; i < b.data.size(); i += 7) b.data[i] = 1.0f - b.data[i];
    double value = *ssim(a, b);
    EXPECT_LT(value, 0.99);
    EXPECT_GT(value, -1.0);
}

TEST(Ssim, ConstantImagesByHand) {
    // Two flat images: variances and covariance are 0, so SSIM = (2 mx my + C1) / (mx^2 + my^2 + C1).
    Image a(16, 16, 3, 0.5f), b(16, 16, 3, 0.6f);
    double c1 = 0.0001;
    double expected = (2 * 0.5 * 0.6 + c1) / (0.25 + 0.36 + c1);
    EXPECT_NEAR(*ssim(a, b), expected, 1e-5);
}

TEST(ErrorMap, ZeroErrorIsBlackAndLargeErrorIsWhite) {
    Image a(4, 2, 3, 0.25f), b = a;
    b.at(3, 1, 0) = 1.0f;
    b.at(3, 1, 1) = 1.0f;
    b.at(3, 1, 2) = 1.0f; // error 0.75 * 4 -> clamped to 1
    auto map = error_map(a, b, 4.0f);
    ASSERT_TRUE(map.ok());
    ASSERT_EQ(map->channels, 3u);
    for (uint32_t c = 0; c < 3; ++c) {
        EXPECT_EQ(map->at(0, 0, c), 0.0f);
        EXPECT_EQ(map->at(3, 1, c), 1.0f);
    }
    float mid[3];
    heat_color(0.5f, mid); // red at the middle of the ramp
    EXPECT_FLOAT_EQ(mid[0], 1.0f);
    EXPECT_FLOAT_EQ(mid[1], 0.0f);
    EXPECT_FLOAT_EQ(mid[2], 0.0f);
}

} // namespace
} // namespace d4r::image
