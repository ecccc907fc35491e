#include "image/resample.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

namespace d4r::image {

namespace {

constexpr int kMaxTaps = 4;

// The taps of one output coordinate: source indices (already clamped) and weights.
struct Taps {
    std::array<uint32_t, kMaxTaps> index{};
    std::array<float, kMaxTaps> weight{};
};

std::array<float, 4> catmull_rom_weights(float t) {
    float t2 = t * t, t3 = t2 * t;
    return {-0.5f * t3 + t2 - 0.5f * t, 1.5f * t3 - 2.5f * t2 + 1.0f, -1.5f * t3 + 2.0f * t2 + 0.5f * t,
            0.5f * t3 - 0.5f * t2};
}

std::vector<Taps> make_taps(uint32_t source_size, uint32_t target_size, bool cubic) {
    std::vector<Taps> taps(target_size);
    double ratio = double(source_size) / double(target_size);
    auto clamp_index = [&](int64_t i) { return uint32_t(std::clamp<int64_t>(i, 0, int64_t(source_size) - 1)); };
    for (uint32_t x = 0; x < target_size; ++x) {
        double s = (x + 0.5) * ratio - 0.5;
        double base = std::floor(s);
        float t = float(s - base);
        auto i = int64_t(base);
        Taps& tap = taps[x];
        if (cubic) {
            auto w = catmull_rom_weights(t);
            for (int k = 0; k < 4; ++k) {
                tap.index[k] = clamp_index(i - 1 + k);
                tap.weight[k] = w[k];
            }
        } else {
            tap.index[0] = clamp_index(i);
            tap.index[1] = clamp_index(i + 1);
            tap.weight[0] = 1.0f - t;
            tap.weight[1] = t;
        }
    }
    return taps;
}

// Separable: horizontal pass into a (width x source height) buffer, then vertical.
Image resize_separable(const Image& source, uint32_t width, uint32_t height, bool cubic) {
    if (source.empty() || width == 0 || height == 0) return Image();
    const uint32_t channels = source.channels;
    const int count = cubic ? 4 : 2;
    std::vector<Taps> xs = make_taps(source.width, width, cubic);
    std::vector<Taps> ys = make_taps(source.height, height, cubic);

    Image horizontal(width, source.height, channels);
    for (uint32_t y = 0; y < source.height; ++y) {
        for (uint32_t x = 0; x < width; ++x) {
            for (uint32_t c = 0; c < channels; ++c) {
                float sum = 0.0f;
                for (int k = 0; k < count; ++k) sum += xs[x].weight[k] * source.at(xs[x].index[k], y, c);
                horizontal.at(x, y, c) = sum;
            }
        }
    }
    Image out(width, height, channels);
    for (uint32_t y = 0; y < height; ++y) {
        for (uint32_t x = 0; x < width; ++x) {
            for (uint32_t c = 0; c < channels; ++c) {
                float sum = 0.0f;
                for (int k = 0; k < count; ++k) sum += ys[y].weight[k] * horizontal.at(x, ys[y].index[k], c);
                out.at(x, y, c) = sum;
            }
        }
    }
    return out;
}

} // namespace

Image resize_bilinear(const Image& source, uint32_t width, uint32_t height) {
    return resize_separable(source, width, height, false);
}

Image resize_bicubic(const Image& source, uint32_t width, uint32_t height) {
    return resize_separable(source, width, height, true);
}

} // namespace d4r::image
