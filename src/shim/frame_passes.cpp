// The shim's CPU passes over canonical planes (frame_passes.h).
#include "shim/frame_passes.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "image/half.h"

namespace d4r::shim {

namespace {

uint32_t row_of(uint32_t row_texels, uint32_t width) { return row_texels ? std::max(row_texels, width) : width; }

float load_f32(const uint8_t* at) {
    float f;
    std::memcpy(&f, at, 4);
    return f;
}

// "d4r" in a 3x5 font, one string per row, '#' = glyph.
constexpr const char* kGlyphs[3][5] = {
    {"..#", "..#", "###", "#.#", "###"}, // d
    {"#.#", "#.#", "###", "..#", "..#"}, // 4
    {"...", "###", "#..", "#..", "#.."}, // r
};
constexpr uint32_t kBoxCellsX = 13; // pad, 3 glyphs of 3 with a gap between, pad
constexpr uint32_t kBoxCellsY = 7;  // pad, 5 rows, pad

} // namespace

bool dilate_motion(const PlaneView& motion, const ConstPlaneView& depth, unsigned radius, bool depth_inverted,
                   DilationScratch* scratch) {
    if (radius == 0 || !motion.data || !depth.data || motion.width == 0 || motion.height == 0 || depth.width == 0 ||
        depth.height == 0)
        return false;
    const int n = static_cast<int>(std::min(radius, kMaxMotionDilation));
    const uint32_t w = motion.width, h = motion.height;
    const size_t mrow = row_of(motion.row_texels, w), drow = row_of(depth.row_texels, depth.width);
    DilationScratch one_off;
    DilationScratch& mem = scratch ? *scratch : one_off;
    const size_t count = size_t(w) * h;
    // Every element below is written before it is read: resize, never refill.
    mem.key.resize(count);
    mem.row_key.resize(count);
    mem.row_src.resize(count);
    mem.original.resize(count);
    mem.best.resize(w);
    mem.best_row.resize(w);
    std::vector<float>& key = mem.key;
    std::vector<float>& row_key = mem.row_key;
    std::vector<uint32_t>& row_src = mem.row_src;
    std::vector<uint32_t>& original = mem.original;
    std::vector<float>& best = mem.best;
    std::vector<uint32_t>& best_row = mem.best_row;

    // The key to minimise per motion pixel: its depth (nearest depth pixel when the sizes differ), negated when
    // the depth is inverted. NaN stays NaN and so never compares smaller.
    for (uint32_t y = 0; y < h; ++y) {
        const uint32_t dy = depth.height == h ? y : uint32_t(uint64_t(y) * depth.height / h);
        for (uint32_t x = 0; x < w; ++x) {
            const uint32_t dx = depth.width == w ? x : uint32_t(uint64_t(x) * depth.width / w);
            const float d = load_f32(depth.data + (size_t(dy) * drow + dx) * 4);
            key[size_t(y) * w + x] = depth_inverted ? -d : d;
        }
    }
    // The minimum over a square is the minimum over the column of the rows' minima: two passes of 2N+1
    // instead of one of (2N+1)^2. Each pass keeps the centre unless another is strictly smaller (the first
    // such from the left or the top), so the centre wins every tie.
    for (uint32_t y = 0; y < h; ++y) {
        const float* k = key.data() + size_t(y) * w;
        for (uint32_t x = 0; x < w; ++x) {
            float nearest = k[x];
            uint32_t src = x;
            const int lo = std::max(0, int(x) - n), hi = std::min(int(w) - 1, int(x) + n);
            for (int sx = lo; sx <= hi; ++sx) {
                if (k[sx] < nearest) {
                    nearest = k[sx];
                    src = uint32_t(sx);
                }
            }
            row_key[size_t(y) * w + x] = nearest;
            row_src[size_t(y) * w + x] = src;
        }
    }
    for (uint32_t y = 0; y < h; ++y) std::memcpy(&original[size_t(y) * w], motion.data + size_t(y) * mrow * 4, w * 4);
    // The column pass runs a whole row at a time (rows in memory order, not columns).
    for (uint32_t y = 0; y < h; ++y) {
        std::copy_n(row_key.begin() + ptrdiff_t(size_t(y) * w), w, best.begin());
        std::fill(best_row.begin(), best_row.end(), y);
        const int lo = std::max(0, int(y) - n), hi = std::min(int(h) - 1, int(y) + n);
        for (int yy = lo; yy <= hi; ++yy) {
            const float* k = row_key.data() + size_t(yy) * w;
            for (uint32_t x = 0; x < w; ++x) {
                if (k[x] < best[x]) {
                    best[x] = k[x];
                    best_row[x] = uint32_t(yy);
                }
            }
        }
        uint8_t* out = motion.data + size_t(y) * mrow * 4;
        for (uint32_t x = 0; x < w; ++x) {
            const size_t from = size_t(best_row[x]) * w;
            std::memcpy(out + size_t(x) * 4, &original[from + row_src[from + x]], 4);
        }
    }
    return true;
}

WatermarkBox watermark_box(uint32_t width, uint32_t height) {
    (void)width;
    WatermarkBox box;
    box.cell = std::clamp<uint32_t>(height / 240, 1, 8); // 1 cell pixel up to 479 rows, 4 at 1080p, 8 from 1920
    box.x = box.y = box.cell;                            // one cell from the corner
    box.width = kBoxCellsX * box.cell;
    box.height = kBoxCellsY * box.cell;
    return box;
}

bool watermark_glyph_at(const WatermarkBox& box, uint32_t x, uint32_t y) {
    const uint32_t cx = (x - box.x) / box.cell, cy = (y - box.y) / box.cell;
    if (cy < 1 || cy > 5 || cx < 1 || cx > 11) return false;
    const uint32_t glyph = (cx - 1) / 4, col = (cx - 1) % 4;
    if (col == 3) return false; // the gap between glyphs
    return kGlyphs[glyph][cy - 1][col] == '#';
}

bool draw_watermark(const PlaneView& output) {
    if (!output.data || output.width == 0 || output.height == 0) return false;
    const WatermarkBox box = watermark_box(output.width, output.height);
    const size_t row = row_of(output.row_texels, output.width);
    uint16_t glyph[4], background[4];
    for (int c = 0; c < 4; ++c) {
        glyph[c] = image::float_to_half(kWatermarkGlyph[c]);
        background[c] = image::float_to_half(kWatermarkBackground[c]);
    }
    const uint32_t x_end = std::min(output.width, box.x + box.width);
    const uint32_t y_end = std::min(output.height, box.y + box.height);
    for (uint32_t y = box.y; y < y_end; ++y)
        for (uint32_t x = box.x; x < x_end; ++x)
            std::memcpy(output.data + (size_t(y) * row + x) * 8, watermark_glyph_at(box, x, y) ? glyph : background, 8);
    return true;
}

} // namespace d4r::shim
