#include "image/metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace d4r::image {

namespace {

Status check_pair(const Image& a, const Image& b) {
    if (a.width != b.width || a.height != b.height || a.channels != b.channels)
        return make_error(ErrorCode::Invalid, "images differ in size: {}x{}x{} vs {}x{}x{}", a.width, a.height,
                          a.channels, b.width, b.height, b.channels);
    if (a.empty()) return make_error(ErrorCode::Invalid, "empty image ({}x{}x{})", a.width, a.height, a.channels);
    if (!a.consistent() || !b.consistent()) return make_error(ErrorCode::Invalid, "image data size mismatch");
    return ok_status();
}

uint32_t colour_channels(const Image& image) { return std::min<uint32_t>(3, image.channels); }

std::vector<float> luma(const Image& image) {
    size_t pixels = size_t(image.width) * image.height;
    std::vector<float> out(pixels);
    for (size_t i = 0; i < pixels; ++i) {
        const float* p = &image.data[i * image.channels];
        out[i] = image.channels >= 3 ? 0.2126f * p[0] + 0.7152f * p[1] + 0.0722f * p[2] : p[0];
    }
    return out;
}

// Separable Gaussian blur (11 taps, sigma 1.5) with clamped borders, in double for stable sums.
std::vector<double> blur(const std::vector<double>& in, uint32_t width, uint32_t height) {
    constexpr int kRadius = 5;
    double kernel[2 * kRadius + 1];
    double total = 0.0;
    for (int k = -kRadius; k <= kRadius; ++k) total += kernel[k + kRadius] = std::exp(-(k * k) / (2.0 * 1.5 * 1.5));
    for (double& k : kernel) k /= total;
    std::vector<double> tmp(in.size()), out(in.size());
    for (uint32_t y = 0; y < height; ++y)
        for (uint32_t x = 0; x < width; ++x) {
            double sum = 0.0;
            for (int k = -kRadius; k <= kRadius; ++k) {
                int64_t sx = std::clamp<int64_t>(int64_t(x) + k, 0, width - 1);
                sum += kernel[k + kRadius] * in[size_t(y) * width + sx];
            }
            tmp[size_t(y) * width + x] = sum;
        }
    for (uint32_t y = 0; y < height; ++y)
        for (uint32_t x = 0; x < width; ++x) {
            double sum = 0.0;
            for (int k = -kRadius; k <= kRadius; ++k) {
                int64_t sy = std::clamp<int64_t>(int64_t(y) + k, 0, height - 1);
                sum += kernel[k + kRadius] * tmp[size_t(sy) * width + x];
            }
            out[size_t(y) * width + x] = sum;
        }
    return out;
}

} // namespace

Expected<double> psnr(const Image& a, const Image& b) {
    D4R_TRY_CTX(check_pair(a, b), "PSNR");
    uint32_t channels = colour_channels(a);
    size_t pixels = size_t(a.width) * a.height;
    double sum = 0.0;
    for (size_t i = 0; i < pixels; ++i)
        for (uint32_t c = 0; c < channels; ++c) {
            double d = double(a.data[i * a.channels + c]) - double(b.data[i * b.channels + c]);
            sum += d * d;
        }
    double mse = sum / double(pixels * channels);
    if (mse == 0.0) return std::numeric_limits<double>::infinity();
    return 10.0 * std::log10(1.0 / mse);
}

Expected<double> ssim(const Image& a, const Image& b) {
    D4R_TRY_CTX(check_pair(a, b), "SSIM");
    constexpr double kC1 = 0.01 * 0.01, kC2 = 0.03 * 0.03;
    std::vector<float> ya = luma(a), yb = luma(b);
    size_t n = ya.size();
    std::vector<double> x(n), y(n), xx(n), yy(n), xy(n);
    for (size_t i = 0; i < n; ++i) {
        x[i] = ya[i];
        y[i] = yb[i];
        xx[i] = x[i] * x[i];
        yy[i] = y[i] * y[i];
        xy[i] = x[i] * y[i];
    }
    auto mx = blur(x, a.width, a.height), my = blur(y, a.width, a.height);
    auto sxx = blur(xx, a.width, a.height), syy = blur(yy, a.width, a.height), sxy = blur(xy, a.width, a.height);
    double total = 0.0;
    for (size_t i = 0; i < n; ++i) {
        double vx = sxx[i] - mx[i] * mx[i], vy = syy[i] - my[i] * my[i], cov = sxy[i] - mx[i] * my[i];
        double num = (2.0 * mx[i] * my[i] + kC1) * (2.0 * cov + kC2);
        double den = (mx[i] * mx[i] + my[i] * my[i] + kC1) * (vx + vy + kC2);
        total += num / den;
    }
    return total / double(n);
}

void heat_color(float e, float rgb[3]) {
    // Piecewise-linear ramp through black, blue, red, yellow, white at e = 0, .25, .5, .75, 1.
    static const float kStops[5][3] = {{0, 0, 0}, {0, 0, 1}, {1, 0, 0}, {1, 1, 0}, {1, 1, 1}};
    float v = std::isnan(e) ? 1.0f : std::clamp(e, 0.0f, 1.0f);
    float position = v * 4.0f;
    int i = std::min(3, int(position));
    float t = position - float(i);
    for (int c = 0; c < 3; ++c) rgb[c] = kStops[i][c] + (kStops[i + 1][c] - kStops[i][c]) * t;
}

Expected<Image> error_map(const Image& a, const Image& b, float scale) {
    D4R_TRY_CTX(check_pair(a, b), "error map");
    uint32_t channels = colour_channels(a);
    Image out(a.width, a.height, 3);
    size_t pixels = size_t(a.width) * a.height;
    for (size_t i = 0; i < pixels; ++i) {
        float sum = 0.0f;
        for (uint32_t c = 0; c < channels; ++c)
            sum += std::fabs(a.data[i * a.channels + c] - b.data[i * b.channels + c]);
        heat_color(sum / float(channels) * scale, &out.data[i * 3]);
    }
    return out;
}

} // namespace d4r::image
