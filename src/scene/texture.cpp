#include "scene/texture.h"

#include <cmath>

namespace d4r::scene {

namespace {

// 5x7 letters, one row per byte (bit 4 = leftmost column), top row first.
constexpr uint8_t kFont[][7] = {
    {0x0E, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11}, // A
    {0x1E, 0x11, 0x11, 0x1E, 0x11, 0x11, 0x1E}, // B
    {0x0E, 0x11, 0x10, 0x10, 0x10, 0x11, 0x0E}, // C
    {0x1C, 0x12, 0x11, 0x11, 0x11, 0x12, 0x1C}, // D
    {0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x1F}, // E
    {0x11, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11}, // H
    {0x11, 0x12, 0x14, 0x18, 0x14, 0x12, 0x11}, // K
    {0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x1F}, // L
    {0x11, 0x1B, 0x15, 0x15, 0x11, 0x11, 0x11}, // M
    {0x11, 0x19, 0x15, 0x13, 0x11, 0x11, 0x11}, // N
    {0x0E, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E}, // O
    {0x1E, 0x11, 0x11, 0x1E, 0x14, 0x12, 0x11}, // R
    {0x0F, 0x10, 0x10, 0x0E, 0x01, 0x01, 0x1E}, // S
    {0x1F, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04}, // T
    {0x11, 0x11, 0x0A, 0x04, 0x0A, 0x11, 0x11}, // X
    {0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02}, // 4
    {0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08}, // 7
    {0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E}, // 8
};
constexpr uint32_t kGlyphs = sizeof(kFont) / sizeof(kFont[0]);

float fract(float x) { return x - std::floor(x); }
int32_t cell(float x) { return int32_t(std::floor(x)); }

bool checker(float u, float v, float scale) { return ((cell(u * scale) + cell(v * scale)) & 1) != 0; }

SurfaceColor solid(Vec3 albedo) { return {albedo, {}}; }

SurfaceColor facade(const Material& m, float u, float v) {
    // Windows on a 2 m x 3 m grid; a third of them lit (HDR emission). Thin siding lines every
    // 0.25 m make the wall itself a moire test.
    float fu = fract(u * 0.5f), fv = fract(v / 3.0f);
    if (fu > 0.2f && fu < 0.8f && fv > 0.25f && fv < 0.8f) {
        bool lit = hash2(cell(u * 0.5f), cell(v / 3.0f)) % 3 == 0;
        if (lit) return {{0.05f, 0.05f, 0.05f}, m.b * m.emission};
        return solid({0.04f, 0.05f, 0.08f});
    }
    if (fract(v * 4.0f) < 0.12f) return solid(m.a * 0.55f);
    return solid(m.a);
}

SurfaceColor street(const Material& m, float x, float z) {
    const Vec3 paint{0.85f, 0.85f, 0.8f};
    float ax = std::fabs(x);
    if (ax > 4.3f) { // sidewalk: 0.6 m tiles with thin joints
        if (fract(x / 0.6f) < 0.05f || fract(z / 0.6f) < 0.05f) return solid({0.22f, 0.22f, 0.24f});
        return solid({0.45f, 0.44f, 0.42f});
    }
    if (ax < 0.07f && fract(z / 4.0f) < 0.5f) return solid(paint);      // dashed centre line
    if (std::fabs(ax - 3.8f) < 0.06f) return solid({0.8f, 0.7f, 0.2f}); // edge lines
    float block = fract((z - 5.0f) / 25.0f) * 25.0f;                    // painted text every 25 m
    if (x > 0.8f && x < 3.4f && block < 1.6f && glyph_ink(x - 0.8f, block, 0.4f)) return solid(paint);
    return solid(checker(x, z, 8.0f) ? m.a : m.b); // fine asphalt checker, 12.5 cm cells
}

} // namespace

uint32_t hash2(int32_t a, int32_t b) {
    uint32_t h = uint32_t(a) * 0x9E3779B1u ^ (uint32_t(b) + 0x7F4A7C15u) * 0x85EBCA77u;
    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
    h *= 0x846ca68bu;
    h ^= h >> 16;
    return h;
}

bool glyph_ink(float u, float v, float line_height) {
    // A character cell is 6 x 8 dots (5 x 7 glyph plus spacing), dots square.
    float dot_size = line_height / 8.0f;
    float column_f = u / (6.0f * dot_size), row_f = -v / line_height;
    int32_t column = cell(column_f), row = cell(row_f);
    int gx = int(fract(column_f) * 6.0f), gy = int(fract(row_f) * 8.0f);
    if (gx >= 5 || gy >= 7) return false;
    uint32_t h = hash2(column, row);
    if (h % 6 == 0) return false; // a space between words
    return (kFont[(h >> 8) % kGlyphs][gy] >> (4 - gx)) & 1u;
}

SurfaceColor texture_color(const Material& m, float u, float v) {
    // The pattern colour b (ink, lines) glows with b * emission; 0 emission adds nothing.
    auto pattern = [&m](bool ink) { return ink ? SurfaceColor{m.b, m.b * m.emission} : solid(m.a); };
    switch (m.texture) {
    case Texture::Solid:
        return {m.a, m.a * m.emission};
    case Texture::Checker:
        return pattern(checker(u, v, m.scale));
    case Texture::Grid:
        return pattern(fract(u * m.scale) < 0.1f || fract(v * m.scale) < 0.1f);
    case Texture::Text:
        return pattern(glyph_ink(u, v, m.scale));
    case Texture::Stripes:
        return pattern(fract(u * m.scale) < 0.5f);
    case Texture::Facade:
        return facade(m, u, v);
    case Texture::Street:
        return street(m, u, v);
    }
    return solid(m.a);
}

} // namespace d4r::scene
