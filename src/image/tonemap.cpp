#include "image/tonemap.h"

#include <algorithm>
#include <cmath>

namespace d4r::image {

float srgb_encode(float linear) {
    float x = std::clamp(linear, 0.0f, 1.0f);
    if (x <= 0.0031308f) return 12.92f * x;
    return 1.055f * std::pow(x, 1.0f / 2.4f) - 0.055f;
}

float reinhard(float x) { return x / (1.0f + x); }

float tonemap_value(float linear, float exposure) {
    float x = linear * exposure;
    if (!(x > 0.0f)) return 0.0f; // negative (bicubic overshoot) and NaN
    if (std::isinf(x)) return 1.0f;
    return srgb_encode(reinhard(x));
}

Image tonemap(const Image& linear, float exposure) {
    Image out(linear.width, linear.height, 3);
    size_t pixels = size_t(linear.width) * linear.height;
    for (size_t i = 0; i < pixels; ++i) {
        for (uint32_t c = 0; c < 3; ++c) {
            uint32_t source = linear.channels >= 3 ? c : 0;
            out.data[i * 3 + c] = tonemap_value(linear.data[i * linear.channels + source], exposure);
        }
    }
    return out;
}

std::vector<uint8_t> to_8bit(const Image& display) {
    std::vector<uint8_t> out(display.data.size());
    for (size_t i = 0; i < out.size(); ++i) {
        float v = display.data[i];
        if (!(v > 0.0f)) v = 0.0f;
        out[i] = uint8_t(std::lround(std::min(v, 1.0f) * 255.0f));
    }
    return out;
}

} // namespace d4r::image
