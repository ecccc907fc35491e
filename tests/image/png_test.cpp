#include "image/png.h"

#include <png.h>

#include <gtest/gtest.h>

#include "image/tonemap.h"
#include "test_support.h"

namespace d4r::image {
namespace {

// Reads a PNG with libpng's simplified API into 8-bit RGBA (independent of our encoder).
std::vector<uint8_t> read_back_rgba(const std::filesystem::path& path, uint32_t& width, uint32_t& height) {
    png_image header{};
    header.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&header, path.c_str())) return {};
    header.format = PNG_FORMAT_RGBA;
    std::vector<uint8_t> pixels(PNG_IMAGE_SIZE(header));
    if (!png_image_finish_read(&header, nullptr, pixels.data(), 0, nullptr)) return {};
    width = header.width;
    height = header.height;
    return pixels;
}

TEST(Png, WritesRgbThatLibpngReadsBack) {
    test::TempDir dir;
    Image image(5, 3, 3);
    const float values[] = {0.0f, 1.0f, 0.5f, 0.2f, 1.5f, -0.3f};
    const uint8_t expected[] = {0, 255, 128, 51, 255, 0}; // round(v * 255) after clamping
    for (size_t i = 0; i < image.data.size(); ++i) image.data[i] = values[i % 6];
    auto path = dir.path() / "out.png";
    ASSERT_TRUE(write_png(path, image).ok());
    uint32_t w = 0, h = 0;
    auto pixels = read_back_rgba(path, w, h);
    ASSERT_EQ(w, 5u);
    ASSERT_EQ(h, 3u);
    ASSERT_EQ(pixels.size(), 5u * 3 * 4);
    for (size_t p = 0; p < 15; ++p) {
        for (int c = 0; c < 3; ++c) EXPECT_EQ(pixels[p * 4 + c], expected[(p * 3 + c) % 6]) << p << ":" << c;
        EXPECT_EQ(pixels[p * 4 + 3], 255);
    }
}

TEST(Png, WritesRgbaWithAlpha) {
    test::TempDir dir;
    Image image(2, 2, 4, 1.0f);
    image.at(1, 1, 3) = 0.0f;
    image.at(0, 1, 0) = 0.0f;
    auto path = dir.path() / "rgba.png";
    ASSERT_TRUE(write_png(path, image).ok());
    uint32_t w = 0, h = 0;
    auto pixels = read_back_rgba(path, w, h);
    ASSERT_EQ(pixels.size(), 16u);
    EXPECT_EQ(pixels[(1 * 2 + 1) * 4 + 3], 0);
    EXPECT_EQ(pixels[(1 * 2 + 0) * 4 + 0], 0);
    EXPECT_EQ(pixels[0], 255);
}

TEST(Png, ErrorsNameThePath) {
    test::TempDir dir;
    auto path = dir.path() / "missing-folder" / "x.png";
    auto status = write_png(path, Image(2, 2, 3));
    ASSERT_FALSE(status.ok());
    EXPECT_NE(status.error().text().find("missing-folder"), std::string::npos) << status.error().text();

    auto bad = write_png(dir.path() / "two.png", Image(2, 2, 2));
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().code(), ErrorCode::Invalid);
    EXPECT_NE(bad.error().text().find("two.png"), std::string::npos) << bad.error().text();
    EXPECT_FALSE(std::filesystem::exists(dir.path() / "two.png"));
}

TEST(Tonemap, DocumentedCurve) {
    EXPECT_EQ(tonemap_value(0.0f, 1.0f), 0.0f);
    EXPECT_EQ(tonemap_value(-5.0f, 1.0f), 0.0f);
    // linear 0.5 at exposure 2 -> x = 1 -> reinhard 0.5 -> sRGB 1.055 * 0.5^(1/2.4) - 0.055.
    EXPECT_NEAR(tonemap_value(0.5f, 2.0f), 1.055 * std::pow(0.5, 1 / 2.4) - 0.055, 1e-6);
    // Small values follow the linear toe of sRGB: 12.92 * x / (1 + x).
    EXPECT_NEAR(tonemap_value(0.001f, 1.0f), 12.92 * 0.001 / 1.001, 1e-6);
    EXPECT_GT(tonemap_value(1000.0f, 1.0f), 0.99f);
    EXPECT_LE(tonemap_value(1e30f, 1.0f), 1.0f);
    Image hdr(1, 1, 4, 3.0f);
    Image display = tonemap(hdr, 1.0f);
    EXPECT_EQ(display.channels, 3u);
    EXPECT_NEAR(display.data[0], srgb_encode(0.75f), 1e-6);
}

} // namespace
} // namespace d4r::image
