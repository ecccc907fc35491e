// Test inputs for the upscaler: small analytic scenes rendered exactly as a game hands them to DLSS
// (jittered point samples at render resolution, depth, motion vectors with prev = cur + mv), and the
// ground truth at output resolution (a 4x4 box-filtered supersample of the same analytic scene).
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/upscaler/ptx/upscaler_math.h"

namespace d4r::upscaler::test {

// Halton sequence value of INDEX (>= 1) in BASE.
inline float halton(uint32_t index, uint32_t base) {
    float f = 1.0f, r = 0.0f;
    while (index > 0) {
        f /= static_cast<float>(base);
        r += f * static_cast<float>(index % base);
        index /= base;
    }
    return r;
}
inline float jitter_x(uint32_t frame) { return halton(frame % 16 + 1, 2) - 0.5f; }
inline float jitter_y(uint32_t frame) { return halton(frame % 16 + 1, 3) - 0.5f; }

struct Rgb {
    float r, g, b;
};

// The scene, in render-pixel coordinates (sx, sy) of frame T.
struct Scene {
    float vx = 0.37f, vy = -0.21f; // background velocity, render pixels per frame
    bool object = false;           // a bright square moving right over the background
    float object_size = 9.0f, object_x0 = 4.0f, object_y0 = 6.0f, object_speed = 3.0f;
    float hdr_gain = 1.0f; // background scale (HDR scenes exceed 1)

    // Fine texture: sums of sines between render Nyquist/2 and render Nyquist, plus a sharp edge grid.
    Rgb background(float x, float y) const {
        constexpr float k = 6.28318530718f;
        float a = std::sin(k * (0.31f * x + 0.13f * y)), b = std::sin(k * (-0.17f * x + 0.41f * y));
        float c = std::fmod(std::floor(x / 3.0f) + std::floor(y / 5.0f), 2.0f) != 0.0f ? 0.15f : -0.15f;
        return {hdr_gain * (0.5f + 0.25f * a + c), hdr_gain * (0.5f + 0.25f * b),
                hdr_gain * (0.45f + 0.2f * a * b - c)};
    }
    float object_left(uint32_t t) const { return object_x0 + object_speed * static_cast<float>(t); }
    bool in_object(float x, float y, uint32_t t) const {
        float l = object_left(t);
        return object && x >= l && x < l + object_size && y >= object_y0 && y < object_y0 + object_size;
    }
    // Colour, depth (0 near) and motion vector (render px) of the surface at (x, y) in frame T.
    void sample(float x, float y, uint32_t t, Rgb& c, float& depth, float& mx, float& my) const {
        if (in_object(x, y, t)) {
            c = {4.0f * hdr_gain, 0.2f, 0.1f};
            depth = 0.2f;
            mx = -object_speed;
            my = 0.0f;
            return;
        }
        float ft = static_cast<float>(t);
        c = background(x - vx * ft, y - vy * ft);
        depth = 0.8f;
        mx = -vx; // prev = cur + mv: the point was at x - v last frame
        my = -vy;
    }
};

struct Frame {
    uint32_t w = 0, h = 0;
    std::vector<uint16_t> color;  // RGBA16F
    std::vector<float> depth;     // R32F
    std::vector<uint16_t> motion; // RG16F
    float jx = 0, jy = 0;
};

inline Frame render_frame(const Scene& s, uint32_t t, uint32_t w, uint32_t h, bool inverted_depth = false) {
    Frame f;
    f.w = w;
    f.h = h;
    f.jx = jitter_x(t);
    f.jy = jitter_y(t);
    f.color.resize(size_t(w) * h * 4);
    f.depth.resize(size_t(w) * h);
    f.motion.resize(size_t(w) * h * 2);
    for (uint32_t y = 0; y < h; ++y)
        for (uint32_t x = 0; x < w; ++x) {
            Rgb c;
            float d, mx, my;
            s.sample(static_cast<float>(x) + 0.5f + f.jx, static_cast<float>(y) + 0.5f + f.jy, t, c, d, mx, my);
            size_t i = size_t(y) * w + x;
            f.color[i * 4 + 0] = math::float_to_half(c.r);
            f.color[i * 4 + 1] = math::float_to_half(c.g);
            f.color[i * 4 + 2] = math::float_to_half(c.b);
            f.color[i * 4 + 3] = math::float_to_half(1.0f);
            f.depth[i] = inverted_depth ? 1.0f - d : d;
            f.motion[i * 2 + 0] = math::float_to_half(mx);
            f.motion[i * 2 + 1] = math::float_to_half(my);
        }
    return f;
}

// Ground truth at OW x OH for a render size RW x RH: each output pixel averages 4x4 unjittered samples.
inline std::vector<Rgb> truth_frame(const Scene& s, uint32_t t, uint32_t rw, uint32_t rh, uint32_t ow, uint32_t oh) {
    std::vector<Rgb> out(size_t(ow) * oh);
    float sx = static_cast<float>(rw) / static_cast<float>(ow), sy = static_cast<float>(rh) / static_cast<float>(oh);
    for (uint32_t y = 0; y < oh; ++y)
        for (uint32_t x = 0; x < ow; ++x) {
            Rgb acc{0, 0, 0};
            for (int j = 0; j < 4; ++j)
                for (int i = 0; i < 4; ++i) {
                    Rgb c;
                    float d, mx, my;
                    s.sample((static_cast<float>(x) + (static_cast<float>(i) + 0.5f) / 4.0f) * sx,
                             (static_cast<float>(y) + (static_cast<float>(j) + 0.5f) / 4.0f) * sy, t, c, d, mx, my);
                    acc = {acc.r + c.r / 16.0f, acc.g + c.g / 16.0f, acc.b + c.b / 16.0f};
                }
            out[size_t(y) * ow + x] = acc;
        }
    return out;
}

} // namespace d4r::upscaler::test
