// The shim's CPU passes (src/shim/frame_passes.h): motion-vector dilation on small hand-checked planes (a
// 1-pixel foreground line, inverted depth, borders, padded rows, different sizes, ties, NaN, N = 0) and the
// watermark (its exact pattern, placement, size, clipping, and nothing outside it touched).
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/env_vars.h"
#include "image/half.h"
#include "shim/frame_passes.h"

using namespace d4r;
using namespace d4r::shim;

namespace {

// A motion plane of W x H texels in rows of ROW texels; each texel is a 32-bit word (an RG16F pair), here a
// tag saying which pixel it came from: tag(x, y) = 1000 + 100 * y + x. Padding texels hold kPad.
constexpr uint32_t kPad = 0xdeadbeef;
uint32_t tag(uint32_t x, uint32_t y) { return 1000 + 100 * y + x; }

struct Motion {
    uint32_t w, h, row;
    std::vector<uint32_t> texels;
    Motion(uint32_t w_, uint32_t h_, uint32_t row_ = 0) : w(w_), h(h_), row(row_ ? row_ : w_) {
        texels.assign(size_t(row) * h + 4, kPad); // 4 guard texels after the last row
        for (uint32_t y = 0; y < h; ++y)
            for (uint32_t x = 0; x < w; ++x) texels[size_t(y) * row + x] = tag(x, y);
    }
    uint32_t at(uint32_t x, uint32_t y) const { return texels[size_t(y) * row + x]; }
    PlaneView view() { return {reinterpret_cast<uint8_t*>(texels.data()), w, h, row}; }
};

struct Depth {
    uint32_t w, h;
    std::vector<float> values;
    Depth(uint32_t w_, uint32_t h_, float fill) : w(w_), h(h_), values(size_t(w_) * h_, fill) {}
    float& at(uint32_t x, uint32_t y) { return values[size_t(y) * w + x]; }
    ConstPlaneView view() const { return {reinterpret_cast<const uint8_t*>(values.data()), w, h, w}; }
};

// Which column each pixel of row Y took its vector from ('.' = its own).
std::string sources_of_row(const Motion& m, uint32_t y) {
    std::string out;
    for (uint32_t x = 0; x < m.w; ++x) {
        uint32_t t = m.at(x, y);
        out += t == tag(x, y) ? '.' : char('0' + (t - 1000) % 100);
    }
    return out;
}

} // namespace

TEST(MotionDilation, RadiusZeroChangesNothing) {
    Motion m(5, 3);
    Depth d(5, 3, 0.5f);
    d.at(2, 1) = 0.0f;
    const std::vector<uint32_t> before = m.texels;
    EXPECT_FALSE(dilate_motion(m.view(), d.view(), 0, false));
    EXPECT_EQ(m.texels, before);
}

TEST(MotionDilation, AOnePixelForegroundLineLendsItsMotionToItsNeighbours) {
    // A vertical line at x = 3, near (0.1), in front of a far background (0.9).
    for (unsigned n : {1u, 2u}) {
        Motion m(8, 4);
        Depth d(8, 4, 0.9f);
        for (uint32_t y = 0; y < 4; ++y) d.at(3, y) = 0.1f;
        ASSERT_TRUE(dilate_motion(m.view(), d.view(), n, false));
        for (uint32_t y = 0; y < 4; ++y) {
            // Within N columns of the line every pixel takes the line's vector of its own row (the centre row
            // wins the tie between the line's pixels).
            EXPECT_EQ(sources_of_row(m, y), n == 1 ? "..3.3..." : ".33.33..") << "N " << n << " row " << y;
            for (uint32_t x = 3 - n; x <= 3 + n; ++x) EXPECT_EQ(m.at(x, y), tag(3, y));
        }
    }
}

TEST(MotionDilation, InvertedDepthMakesTheLargestDepthTheFrontMost) {
    // The same line with reversed depth: 0.9 is near when the depth is inverted.
    Motion inverted(7, 3);
    Depth d(7, 3, 0.1f);
    for (uint32_t y = 0; y < 3; ++y) d.at(3, y) = 0.9f;
    ASSERT_TRUE(dilate_motion(inverted.view(), d.view(), 1, true));
    for (uint32_t y = 0; y < 3; ++y) EXPECT_EQ(sources_of_row(inverted, y), "..3.3..") << y;
    // Read as not inverted, the line is the far thing: its pixels take a background neighbour's vector (the
    // first from the left), and the background keeps its own.
    Motion plain(7, 3);
    ASSERT_TRUE(dilate_motion(plain.view(), d.view(), 1, false));
    for (uint32_t y = 0; y < 3; ++y) EXPECT_EQ(sources_of_row(plain, y), "...2...") << y;
}

TEST(MotionDilation, BordersClipTheNeighbourhoodAndPaddingIsUntouched) {
    // The near line on the left border, rows padded to 10 texels.
    Motion m(6, 3, 10);
    Depth d(6, 3, 1.0f);
    for (uint32_t y = 0; y < 3; ++y) d.at(0, y) = 0.0f;
    ASSERT_TRUE(dilate_motion(m.view(), d.view(), 2, false));
    for (uint32_t y = 0; y < 3; ++y) EXPECT_EQ(sources_of_row(m, y), ".00...") << y;
    for (uint32_t y = 0; y < 3; ++y)
        for (uint32_t x = 6; x < 10; ++x) EXPECT_EQ(m.texels[size_t(y) * 10 + x], kPad) << x << "," << y;
    for (size_t i = m.texels.size() - 4; i < m.texels.size(); ++i) EXPECT_EQ(m.texels[i], kPad);
    // A single near pixel in the bottom-right corner reaches N pixels up and left, nothing more.
    Motion c(5, 5);
    Depth e(5, 5, 1.0f);
    e.at(4, 4) = 0.0f;
    ASSERT_TRUE(dilate_motion(c.view(), e.view(), 1, false));
    for (uint32_t y = 0; y < 5; ++y)
        for (uint32_t x = 0; x < 5; ++x) EXPECT_EQ(c.at(x, y), x >= 3 && y >= 3 ? tag(4, 4) : tag(x, y)) << x << y;
}

TEST(MotionDilation, TheNearestOfSeveralCandidatesWinsInTheSquare) {
    Motion m(5, 5);
    Depth d(5, 5, 1.0f);
    d.at(1, 1) = 0.3f;
    d.at(3, 3) = 0.2f;
    ASSERT_TRUE(dilate_motion(m.view(), d.view(), 1, false));
    EXPECT_EQ(m.at(2, 2), tag(3, 3)); // sees both: the nearer
    EXPECT_EQ(m.at(2, 1), tag(1, 1)); // rows 0-2, columns 1-3: only (1, 1)
    EXPECT_EQ(m.at(0, 0), tag(1, 1));
    EXPECT_EQ(m.at(4, 4), tag(3, 3));
    EXPECT_EQ(m.at(4, 0), tag(4, 0)); // sees neither
    EXPECT_EQ(m.at(0, 4), tag(0, 4));
}

TEST(MotionDilation, FlatDepthAndTiesKeepTheCentre) {
    Motion m(9, 9);
    Depth d(9, 9, 0.5f);
    const std::vector<uint32_t> before = m.texels;
    ASSERT_TRUE(dilate_motion(m.view(), d.view(), kMaxMotionDilation, false));
    EXPECT_EQ(m.texels, before);
    // A near plateau: its own pixels keep their vectors.
    Motion p(6, 1);
    Depth q(6, 1, 1.0f);
    q.at(2, 0) = q.at(3, 0) = 0.0f;
    ASSERT_TRUE(dilate_motion(p.view(), q.view(), 1, false));
    EXPECT_EQ(sources_of_row(p, 0), ".2..3.");
}

TEST(MotionDilation, NanDepthIsNeverTheFrontMost) {
    Motion m(5, 1);
    Depth d(5, 1, 0.5f);
    d.at(2, 0) = std::numeric_limits<float>::quiet_NaN();
    ASSERT_TRUE(dilate_motion(m.view(), d.view(), 2, false));
    EXPECT_EQ(sources_of_row(m, 0), "....."); // everything else ties with its centre; the NaN pixel keeps its own
}

TEST(MotionDilation, RadiusAboveTheMaximumIsTheMaximum) {
    Motion m(20, 1);
    Depth d(20, 1, 1.0f);
    d.at(0, 0) = 0.0f;
    ASSERT_TRUE(dilate_motion(m.view(), d.view(), 100, false));
    EXPECT_EQ(m.at(8, 0), tag(0, 0));
    EXPECT_EQ(m.at(9, 0), tag(9, 0));
    EXPECT_EQ(kMaxMotionDilation, static_cast<unsigned>(env_var_info(EnvVar::MotionDilation).max));
}

TEST(MotionDilation, MotionAtTheOutputSizeReadsTheDepthPixelItLiesOn) {
    // Motion 8x4 over depth 4x2 (NGX without MVLowRes): depth pixel (1, 0) is near and covers motion pixels
    // x 2-3, y 0-1.
    Motion m(8, 4);
    Depth d(4, 2, 1.0f);
    d.at(1, 0) = 0.0f;
    ASSERT_TRUE(dilate_motion(m.view(), d.view(), 1, false));
    for (uint32_t y = 0; y < 4; ++y) {
        for (uint32_t x = 0; x < 8; ++x) {
            const bool reached = x >= 1 && x <= 4 && y <= 2;
            const uint32_t t = m.at(x, y);
            const uint32_t sx = (t - 1000) % 100, sy = (t - 1000) / 100;
            if (reached) {
                EXPECT_TRUE(sx >= 2 && sx <= 3 && sy <= 1) << x << "," << y << " took " << sx << "," << sy;
            } else {
                EXPECT_EQ(t, tag(x, y)) << x << "," << y;
            }
        }
    }
    EXPECT_EQ(m.at(1, 0), tag(2, 0)); // the first of the tied footprint from the left, in its own row
    EXPECT_EQ(m.at(4, 2), tag(3, 1));
}

TEST(MotionDilation, EmptyPlanesAreRefused) {
    Motion m(2, 2);
    Depth d(2, 2, 0.0f);
    EXPECT_FALSE(dilate_motion(PlaneView{}, d.view(), 1, false));
    EXPECT_FALSE(dilate_motion(m.view(), ConstPlaneView{}, 1, false));
}

namespace {

// An RGBA16F output filled with a sentinel colour (0.25, 0.5, 0.125, 1).
struct Output {
    uint32_t w, h;
    std::vector<uint16_t> halves;
    Output(uint32_t w_, uint32_t h_) : w(w_), h(h_) {
        halves.resize(size_t(w) * h * 4 + 16); // 4 guard texels
        for (size_t i = 0; i + 4 <= halves.size(); i += 4) {
            halves[i] = image::float_to_half(0.25f);
            halves[i + 1] = image::float_to_half(0.5f);
            halves[i + 2] = image::float_to_half(0.125f);
            halves[i + 3] = image::float_to_half(1.0f);
        }
    }
    PlaneView view() { return {reinterpret_cast<uint8_t*>(halves.data()), w, h, w}; }
    // 'G' glyph, 'B' background, '.' sentinel, '?' anything else
    char kind(uint32_t x, uint32_t y) const {
        const uint16_t* t = &halves[(size_t(y) * w + x) * 4];
        float c[4];
        for (int i = 0; i < 4; ++i) c[i] = image::half_to_float(t[i]);
        if (c[0] == 1.0f && c[1] == 0.75f && c[2] == 0.0f && c[3] == 1.0f) return 'G';
        if (c[0] == 0.0f && c[1] == 0.0f && c[2] == 0.0f && c[3] == 1.0f) return 'B';
        if (c[0] == 0.25f && c[1] == 0.5f && c[2] == 0.125f && c[3] == 1.0f) return '.';
        return '?';
    }
};

} // namespace

TEST(Watermark, SpellsD4rInTheTopLeftCornerAndTouchesNothingElse) {
    Output o(64, 36);
    ASSERT_TRUE(draw_watermark(o.view()));
    // Written out by hand: one cell of margin, a 13x7 box, "d", "4", "r" in a 3x5 font.
    const char* const expected[9] = {
        "................", //
        ".BBBBBBBBBBBBB..", //
        ".BBBGBGBGBBBBB..", // ..# #.# ...
        ".BBBGBGBGBGGGB..", // ..# #.# ###
        ".BGGGBGGGBGBBB..", // ### ### #..
        ".BGBGBBBGBGBBB..", // #.# ..# #..
        ".BGGGBBBGBGBBB..", // ### ..# #..
        ".BBBBBBBBBBBBB..", //
        "................", //
    };
    for (uint32_t y = 0; y < 9; ++y) {
        std::string row;
        for (uint32_t x = 0; x < 16; ++x) row += o.kind(x, y);
        EXPECT_EQ(row, expected[y]) << "row " << y;
    }
    size_t changed = 0;
    for (uint32_t y = 0; y < o.h; ++y)
        for (uint32_t x = 0; x < o.w; ++x) changed += o.kind(x, y) != '.';
    EXPECT_EQ(changed, 13u * 7u);
    for (size_t i = size_t(o.w) * o.h * 4; i < o.halves.size(); i += 4)
        EXPECT_EQ(image::half_to_float(o.halves[i]), 0.25f); // the guard texels
}

TEST(Watermark, GrowsWithTheOutputHeight) {
    WatermarkBox small = watermark_box(64, 36);
    EXPECT_EQ(small.cell, 1u);
    EXPECT_EQ(small.x, 1u);
    EXPECT_EQ(small.width, 13u);
    EXPECT_EQ(small.height, 7u);
    WatermarkBox hd = watermark_box(1920, 1080);
    EXPECT_EQ(hd.cell, 4u);
    EXPECT_EQ(hd.x, 4u);
    EXPECT_EQ(hd.y, 4u);
    EXPECT_EQ(hd.width, 52u);
    EXPECT_EQ(hd.height, 28u);
    EXPECT_EQ(watermark_box(7680, 4320).cell, 8u);
    // At 1080p the "d" stem is a 4x4-pixel cell: (4 + 3*4, 4 + 1*4) is glyph, a pixel left of it background.
    Output o(1920, 1080);
    ASSERT_TRUE(draw_watermark(o.view()));
    EXPECT_EQ(o.kind(16, 8), 'G');
    EXPECT_EQ(o.kind(19, 11), 'G');
    EXPECT_EQ(o.kind(15, 8), 'B');
    EXPECT_EQ(o.kind(3, 3), '.');
    EXPECT_EQ(o.kind(56, 4), '.');
    EXPECT_EQ(o.kind(55, 31), 'B');
    EXPECT_EQ(o.kind(55, 32), '.');
}

TEST(Watermark, IsClippedToATinyOutput) {
    Output o(5, 3);
    ASSERT_TRUE(draw_watermark(o.view()));
    EXPECT_EQ(o.kind(0, 0), '.');
    EXPECT_EQ(o.kind(1, 1), 'B');
    EXPECT_EQ(o.kind(4, 2), 'G'); // the "d"'s right column, first row
    for (size_t i = size_t(o.w) * o.h * 4; i < o.halves.size(); i += 4)
        EXPECT_EQ(image::half_to_float(o.halves[i]), 0.25f);
    EXPECT_FALSE(draw_watermark(PlaneView{}));
}
