// The fast set's CPU kernels of refine-v2's pixel stage (kernels/refine/ptx/pixel_inputs.h):
// d4r_nn_pixel_features@fast and d4r_nn_pixel_blend@fast. Nearly all of the accuracy kernels' time is the display
// curve, the sRGB powers as Newton iterations from 1 of a fixed count (12 for the cube root, 14 for the fifth) with a
// division each, fifteen per pixel in the features and three in the blend. Here a chunk of pixels first gathers the
// values to show, then the curve runs on eight values at once with AVX, each power from a cubic fit to it (over the
// inputs the curve gives it: the cube root above 0.0559, the fifth root above 0.0081) and then 3 and 5 Newton steps:
// within 1 ulp of the accuracy kernels' powers (tests/network's PixelFast tests hold the kernels within 60 dB of the
// accuracy kernels, and the AVX and scalar paths to the same bytes: the same operations in the same order). The
// depth gradient, which the bilinear geometry sample reads at four render pixels for every output pixel, is computed
// once per render pixel first (depth_gradient's own arithmetic: the same values), unless the core kept the geometry
// (Params::geometry).
#include <algorithm>
#include <cstring>
#include <vector>

#include "kernels/refine/cpu/fast_registration.h"
#include "kernels/refine/cpu/simd.h"
#include "kernels/refine/ptx/pixel_inputs.h"
#include "network/host_kernels.h"
#include "runtime/native/cpu_registry.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define D4R_PIXEL_AVX 1
#define D4R_AVX __attribute__((target("avx")))
#endif

namespace d4r::refine_cpu {
namespace {

using namespace refine::pixel;

constexpr uint32_t kChunk = 128;                     // pixels a worker takes at a time
constexpr uint32_t kShown = kCandidates * 3;         // display values a pixel's features need
constexpr uint32_t kFeatureValues = kChunk * kShown; // a multiple of 8

// The powers' starting points (cubic fits of a^(1/3) on [0.0559, 1] and a^(1/5) on [0.0081, 1], Horner's rule from
// the highest coefficient) and the Newton steps from there.
constexpr float kCbrtFit[4] = {0.64769446849823f, -1.4925742149353027f, 1.5262128114700317f, 0.32704538106918335f};
constexpr float kFifthFit[4] = {0.9585604667663574f, -1.9671332836151123f, 1.5510896444320679f, 0.47518256306648254f};
constexpr int kCbrtSteps = 3, kFifthSteps = 5;

// The scalar curve, the AVX one's operations in its order (for CPUs without AVX).
float cubic(float a, const float (&c)[4]) {
    float y = c[0];
    for (int i = 1; i < 4; ++i) y = y * a + c[i];
    return y;
}
float cbrt_fast(float a) {
    float y = cubic(a, kCbrtFit);
    for (int i = 0; i < kCbrtSteps; ++i) y = y - (y * y * y - a) / (3.0f * y * y);
    return a > 0.0f ? y : 0.0f;
}
float fifth_root_fast(float a) {
    float y = cubic(a, kFifthFit);
    for (int i = 0; i < kFifthSteps; ++i) {
        const float y2 = y * y;
        y = y - (y2 * y2 * y - a) / (5.0f * y2 * y2);
    }
    return a > 0.0f ? y : 0.0f;
}
// pixel_inputs.h's curve with these roots: display<FastPowers> and linear_of_display<FastPowers>.
struct FastPowers {
    static float inv_2_4(float x) {
        const float s = up::sqrt_f(x);
        return up::sqrt_f(s) * cbrt_fast(s);
    }
    static float p_2_4(float x) {
        const float x2 = x * x;
        return x2 * fifth_root_fast(x2);
    }
};

#ifdef D4R_PIXEL_AVX

// The scalar functions above on eight values: min_f (a < b ? a : b), max_f (a > b ? a : b) and the rest written
// with the same operands in the same order.
D4R_AVX inline __m256 splat(float v) { return _mm256_set1_ps(v); }
D4R_AVX inline __m256 select(__m256 mask, __m256 a, __m256 b) { return _mm256_blendv_ps(b, a, mask); }
D4R_AVX inline __m256 min8(__m256 a, __m256 b) { return select(_mm256_cmp_ps(a, b, _CMP_LT_OQ), a, b); }
D4R_AVX inline __m256 max8(__m256 a, __m256 b) { return select(_mm256_cmp_ps(a, b, _CMP_GT_OQ), a, b); }
D4R_AVX inline __m256 clamp8(__m256 v, float lo, float hi) { return min8(max8(v, splat(lo)), splat(hi)); }

D4R_AVX inline __m256 cubic8(__m256 a, const float (&c)[4]) {
    __m256 y = splat(c[0]);
    for (int i = 1; i < 4; ++i) y = _mm256_add_ps(_mm256_mul_ps(y, a), splat(c[i]));
    return y;
}
D4R_AVX inline __m256 cbrt_unit8(__m256 a) {
    __m256 y = cubic8(a, kCbrtFit);
    for (int i = 0; i < kCbrtSteps; ++i) {
        const __m256 num = _mm256_sub_ps(_mm256_mul_ps(_mm256_mul_ps(y, y), y), a);
        const __m256 den = _mm256_mul_ps(_mm256_mul_ps(splat(3.0f), y), y);
        y = _mm256_sub_ps(y, _mm256_div_ps(num, den));
    }
    return select(_mm256_cmp_ps(a, splat(0.0f), _CMP_GT_OQ), y, splat(0.0f));
}
D4R_AVX inline __m256 fifth_root_unit8(__m256 a) {
    __m256 y = cubic8(a, kFifthFit);
    for (int i = 0; i < kFifthSteps; ++i) {
        const __m256 y2 = _mm256_mul_ps(y, y);
        const __m256 num = _mm256_sub_ps(_mm256_mul_ps(_mm256_mul_ps(y2, y2), y), a);
        const __m256 den = _mm256_mul_ps(_mm256_mul_ps(splat(5.0f), y2), y2);
        y = _mm256_sub_ps(y, _mm256_div_ps(num, den));
    }
    return select(_mm256_cmp_ps(a, splat(0.0f), _CMP_GT_OQ), y, splat(0.0f));
}
D4R_AVX inline __m256 srgb_encode8(__m256 x) {
    x = clamp8(x, 0.0f, 1.0f);
    const __m256 s = _mm256_sqrt_ps(x);
    const __m256 curve =
        _mm256_sub_ps(_mm256_mul_ps(splat(1.055f), _mm256_mul_ps(_mm256_sqrt_ps(s), cbrt_unit8(s))), splat(0.055f));
    return select(_mm256_cmp_ps(x, splat(0.0031308f), _CMP_LE_OQ), _mm256_mul_ps(splat(12.92f), x), curve);
}
D4R_AVX inline __m256 srgb_decode8(__m256 x) {
    x = clamp8(x, 0.0f, 1.0f);
    const __m256 y = _mm256_div_ps(_mm256_add_ps(x, splat(0.055f)), splat(1.055f));
    const __m256 y2 = _mm256_mul_ps(y, y);
    const __m256 curve = _mm256_mul_ps(y2, fifth_root_unit8(y2));
    return select(_mm256_cmp_ps(x, splat(0.04045f), _CMP_LE_OQ), _mm256_div_ps(x, splat(12.92f)), curve);
}

// display() and linear_of_display() over COUNT values in place (COUNT a multiple of 8).
D4R_AVX void display_avx(float* v, uint32_t count, float k) {
    for (uint32_t i = 0; i < count; i += 8) {
        __m256 r = _mm256_mul_ps(_mm256_loadu_ps(v + i), splat(k));
        r = select(_mm256_cmp_ps(r, splat(0.0f), _CMP_GT_OQ), min8(r, splat(3.0e38f)), splat(0.0f));
        _mm256_storeu_ps(v + i, srgb_encode8(clamp8(_mm256_div_ps(r, _mm256_add_ps(splat(1.0f), r)), 0.0f, 1.0f)));
    }
}
D4R_AVX void linear_of_display_avx(float* v, uint32_t count, float k) {
    for (uint32_t i = 0; i < count; i += 8) {
        const __m256 t = min8(srgb_decode8(_mm256_loadu_ps(v + i)), splat(kDisplayMax));
        _mm256_storeu_ps(v + i, _mm256_div_ps(_mm256_div_ps(t, _mm256_sub_ps(splat(1.0f), t)), splat(k)));
    }
}
#endif

void display_values(float* v, uint32_t count, float k) {
#ifdef D4R_PIXEL_AVX
    if (use_avx()) return display_avx(v, count, k);
#endif
    for (uint32_t i = 0; i < count; ++i) v[i] = display<FastPowers>(v[i], k);
}
void linear_values(float* v, uint32_t count, float k) {
#ifdef D4R_PIXEL_AVX
    if (use_avx()) return linear_of_display_avx(v, count, k);
#endif
    for (uint32_t i = 0; i < count; ++i) v[i] = linear_of_display<FastPowers>(v[i], k);
}

void set3(float* out, float a, float b, float c) {
    out[0] = a;
    out[1] = b;
    out[2] = c;
}
void set3(float* out, up::F3 v) { set3(out, v.x, v.y, v.z); }

// render_geometry() with the depth gradient of each render pixel from GRADIENT (row-major, render_w wide), or from
// the plane d4r_up_prepare kept (Params::geometry; GRADIENT is empty then).
void geometry_from(const up::Params& p, const std::vector<float>& gradient, float u, float v, float geo[4]) {
    if (p.geometry) {
        render_geometry(p, u, v, geo);
        return;
    }
    bilinear<4>(
        p, u, v,
        [&p, &gradient](int32_t px, int32_t py, float out[4]) {
            out[0] = gradient[size_t(py) * p.render_w + size_t(px)];
            out[1] = up::load_depth(p, px, py);
            up::load_motion(p, px, py, out[2], out[3]);
        },
        geo);
}

// features_at() for pixels FIRST.. FIRST + COUNT - 1 (patch order), COUNT <= kChunk: the linear values of the
// candidates (pixel_features() shows O again for H and Hc where nothing was reprojected: the same values), then
// all of them through the curve, then the features.
void features_chunk(const PixelParams& p, const std::vector<float>& gradient, float k, uint32_t first, uint32_t count) {
    float shown[kFeatureValues] = {};
    float geo[kChunk][4];
    Terms terms[kChunk];
    for (uint32_t n = 0; n < count; ++n) {
        uint32_t px, py;
        patch_pixel(p.grid_w, first + n, px, py);
        const int32_t x = static_cast<int32_t>(min_u(px, p.core.output_w - 1u));
        const int32_t y = static_cast<int32_t>(min_u(py, p.core.output_h - 1u));
        const uint16_t* o = up::at<uint16_t>(p.core.output, static_cast<uint64_t>(y) * p.core.output_pitch +
                                                                static_cast<uint32_t>(x) * 8u);
        float* lin = shown + n * kShown;
        set3(lin, kernels::half_to_float(o[0]), kernels::half_to_float(o[1]), kernels::half_to_float(o[2]));
        const Terms& t = terms[n] = terms_at(p.core, x, y);
        if (t.reprojected > 0.0f) {
            set3(lin + 3, up::from_working(p.core, up::F3{t.hist[0], t.hist[1], t.hist[2]}, k));
            set3(lin + 6, up::from_working(p.core, up::F3{t.clamped[0], t.clamped[1], t.clamped[2]}, k));
        } else {
            std::copy(lin, lin + 3, lin + 3);
            std::copy(lin, lin + 3, lin + 6);
        }
        set3(lin + 9, up::from_working(p.core, up::F3{t.current[0], t.current[1], t.current[2]}, k));
        float u, v;
        render_position(p.core, x, y, u, v);
        render_colour(p.core, u, v, lin + 12);
        geometry_from(p.core, gradient, u, v, geo[n]);
    }
    display_values(shown, kFeatureValues, k);
    for (uint32_t n = 0; n < count; ++n) {
        Candidates cand{};
        std::memcpy(cand.c, shown + n * kShown, sizeof(cand.c));
        float f[kFeatures];
        features_of(cand, terms[n], geo[n], f);
        const uint64_t i = first + n;
        uint16_t* fo = up::at_mut<uint16_t>(p.tokens, i * kFeatures * 2u);
        for (uint32_t j = 0; j < kFeatures; ++j) fo[j] = kernels::float_to_half(f[j]);
        uint16_t* co = up::at_mut<uint16_t>(p.candidates, i * kCandidateValues * 2u);
        for (uint32_t j = 0; j < kShown; ++j) co[j] = kernels::float_to_half(shown[n * kShown + j]);
        co[kCandidateValues - 1] = 0;
    }
}

void pixel_features(const runtime::CpuLaunch& l) {
    const PixelParams p = network::params_as<PixelParams>(l.params);
    const uint32_t pixels = p.grid_w * p.grid_h * kPatchPixels;
    const float k = up::exposure_factor(p.core);
    std::vector<float> gradient(p.core.geometry ? 0 : size_t(p.core.render_w) * p.core.render_h);
    if (!p.core.geometry)
        network::parallel_for(p.core.render_h, 0, [&](uint64_t y) {
            for (uint32_t x = 0; x < p.core.render_w; ++x)
                gradient[y * p.core.render_w + x] = depth_gradient(p.core, int32_t(x), int32_t(y));
        });
    network::parallel_for((pixels + kChunk - 1) / kChunk, 0, [&](uint64_t c) {
        const uint32_t first = static_cast<uint32_t>(c) * kChunk;
        features_chunk(p, gradient, k, first, std::min(kChunk, pixels - first));
    });
}

// blend_pixel() for the output pixels (X0 + n, Y), n < COUNT <= kChunk: each pixel's mix, then all of them back to
// linear through the curve.
void blend_chunk(const PixelParams& p, float k, uint32_t x0, uint32_t y, uint32_t count) {
    float mixed[kChunk * 3 + 8] = {}; // 3 values a pixel, padded to a multiple of 8
    for (uint32_t n = 0; n < count; ++n) {
        const uint32_t i = patch_index(p.grid_w, x0 + n, y);
        const uint16_t* a = up::at<uint16_t>(p.tokens, static_cast<uint64_t>(i) * kOutputs * 2u);
        const uint16_t* c = up::at<uint16_t>(p.candidates, static_cast<uint64_t>(i) * kCandidateValues * 2u);
        float z[kOutputs];
        for (uint32_t j = 0; j < kOutputs; ++j) z[j] = kernels::half_to_float(a[j]);
        float m = z[0];
        for (uint32_t j = 1; j < kCandidates; ++j) m = max_f(m, z[j]);
        float e[kCandidates], sum = 0.0f;
        for (uint32_t j = 0; j < kCandidates; ++j) {
            e[j] = refine::math::exp_neg(z[j] - m);
            sum = sum + e[j];
        }
        for (uint32_t ch = 0; ch < 3; ++ch) {
            float acc = 0.0f;
            for (uint32_t j = 0; j < kCandidates; ++j) acc = acc + e[j] * kernels::half_to_float(c[j * 3 + ch]);
            mixed[n * 3 + ch] = clamp_f(acc / sum + z[kCandidates + ch], 0.0f, 1.0f);
        }
    }
    linear_values(mixed, (count * 3 + 7) / 8 * 8, k);
    for (uint32_t n = 0; n < count; ++n) {
        uint16_t* o = up::at_mut<uint16_t>(p.core.output, static_cast<uint64_t>(y) * p.core.output_pitch +
                                                              static_cast<uint64_t>(x0 + n) * 8u);
        for (uint32_t ch = 0; ch < 3; ++ch) o[ch] = kernels::float_to_half(mixed[n * 3 + ch]);
    }
}

void pixel_blend(const runtime::CpuLaunch& l) {
    const PixelParams p = network::params_as<PixelParams>(l.params);
    const float k = up::exposure_factor(p.core);
    const uint32_t chunks_x = (p.core.output_w + kChunk - 1) / kChunk;
    network::parallel_for(uint64_t(chunks_x) * p.core.output_h, 0, [&](uint64_t c) {
        const uint32_t y = static_cast<uint32_t>(c / chunks_x), x0 = static_cast<uint32_t>(c % chunks_x) * kChunk;
        blend_chunk(p, k, x0, y, std::min(kChunk, p.core.output_w - x0));
    });
}

const FastKernels g_kernels{
    {"d4r_nn_pixel_features@fast", pixel_features},
    {"d4r_nn_pixel_blend@fast", pixel_blend},
};

} // namespace
} // namespace d4r::refine_cpu
