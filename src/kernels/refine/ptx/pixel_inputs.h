// d4r refine network, version 2 (docs/network.md, "refine-v2"): what the network sees of each output pixel and how
// its answer becomes the pixel, shared by the CUDA kernels, the C++ reference and the CPU kernels.
//
// refine-v2 does not refine the core's output alone: it chooses, per pixel, between the core's own candidates
// (the output O, the reprojected history before and after the neighbourhood clamp H and Hc, this frame's
// reconstruction C, the render colour upsampled U) and adds a small residual. Its inputs per pixel are those
// candidates as display values (the core's linear colour times its exposure, Reinhard x / (1 + x), the sRGB curve),
// the accumulate step's weights and flags, and the geometry (depth, its gradient, motion) sampled at the pixel.
// tools/network/train_blend.py (frame_planes, features) computes the same values from frame dumps in PyTorch;
// tests/network/pixel_inputs_test.cpp holds the two together on a committed dump.
//
// Promise: like refine_math.h, only IEEE-exact operations (+ - * /, sqrt, comparisons, floor, f16 rounding), so a
// host compiler with -ffp-contract=off and nvcc with --fmad=false give the same bits; the sRGB curve's powers are
// Newton iterations of a fixed count, within a few ulp of powf.
#pragma once

#include <cstdint>

#include "kernels/common/f16.h"
#include "kernels/refine/ptx/refine_math.h"
#include "kernels/upscaler/ptx/upscaler_math.h"

namespace d4r::refine::pixel {

namespace up = upscaler::math;

inline constexpr uint32_t kFeatures = 23;        // per pixel: pixel_features()
inline constexpr uint32_t kCandidates = 5;       // O, H, Hc, C, U
inline constexpr uint32_t kOutputs = 8;          // blend logits of the candidates, then the residual R G B
inline constexpr float kDisplayMax = 0.999f;     // a blended display value is capped here before it goes back to linear
inline constexpr uint32_t kCandidateValues = 16; // per pixel in memory: the candidates' 15 display values and a 0
inline constexpr uint32_t kPatchPixels = 16;     // 4x4 pixels a fine token

// The parameter block of both pixel kernels. Pixels are stored in patch order (pixel (4 tx + dx, 4 ty + dy) of the
// padded grid of grid_w x grid_h tokens is number (ty * grid_w + tx) * 16 + dy * 4 + dx), so the features read as
// tokens of 16 * kFeatures channels are the network's patches, and the head's tokens of 16 * kOutputs are each
// pixel's answers.
//  * d4r_nn_pixel_features: one thread per pixel of the padded grid (beyond the image, the nearest edge pixel's
//    values); writes `tokens` (f16, kFeatures a pixel) and `candidates` (f16, kCandidateValues a pixel).
//  * d4r_nn_pixel_blend: one thread per output pixel; reads `tokens` (the head's answers, f16, kOutputs a pixel) and
//    `candidates`, writes the core's output image (core.output) in place.
struct alignas(8) PixelParams {
    up::Params core; // the frame's upscaler parameters: its buffers still hold this frame and the previous history
    uint64_t tokens, candidates;
    uint32_t grid_w, grid_h;
};

// d4r_nn_pixel_embed (fused plans, plan.h's PlanOptions::fuse_pixels): d4r_nn_pixel_features and the embed linear in
// one launch, so that the features (368 halves a token) never go to memory. A block of kEmbedTokens * kPatchPixels
// threads takes tokens kEmbedTokens b .. + kEmbedTokens - 1: each thread one pixel's features (`pixels.tokens` unused)
// and candidates, then the embed of those tokens (weight: out_ch x kFeatures * kPatchPixels, f16) into `out`
// (out_ch a token), with the bytes of the unfused launches.
inline constexpr uint32_t kEmbedTokens = 16;
inline constexpr uint32_t kEmbedThreads = kEmbedTokens * kPatchPixels;
struct alignas(8) PixelEmbedParams {
    PixelParams pixels;
    uint64_t weight, bias, out;
    uint32_t out_ch, reserved;
};

// d4r_nn_pixel_head (fused plans, PlanOptions::fuse_pixels): the head linear and d4r_nn_pixel_blend in one launch, so
// that the head's answers (kHeadOutputs halves a token) never go to memory. A block of kEmbedThreads threads takes
// tokens kEmbedTokens b .. + kEmbedTokens - 1: the head (weight: kHeadOutputs x in_ch, f16) of those tokens of `in`
// (in_ch a token), then each thread blends one pixel of them from its answers and its candidates
// (`pixels.tokens` unused), a pixel beyond the image left alone, with the bytes of the unfused launches.
inline constexpr uint32_t kHeadOutputs = kOutputs * kPatchPixels;
struct alignas(8) PixelHeadParams {
    PixelParams pixels;
    uint64_t weight, bias, in;
    uint32_t in_ch, reserved;
};

using up::clamp_f; // the core's selects (upscaler_math.h)
using up::max_f;
using up::min_f;
D4R_HD uint32_t min_u(uint32_t a, uint32_t b) { return a < b ? a : b; }

// a^(1/3) for a in [0, 1]: Newton's iteration from 1 (from above, monotone), a fixed count.
D4R_HD float cbrt_unit(float a) {
    if (!(a > 0.0f)) return 0.0f;
    float y = 1.0f;
    for (int i = 0; i < 12; ++i) y = y - (y * y * y - a) / (3.0f * y * y);
    return y;
}
// a^(1/5) for a in [0, 1], the same way.
D4R_HD float fifth_root_unit(float a) {
    if (!(a > 0.0f)) return 0.0f;
    float y = 1.0f;
    for (int i = 0; i < 14; ++i) {
        float y2 = y * y;
        y = y - (y2 * y2 * y - a) / (5.0f * y2 * y2);
    }
    return y;
}
// The sRGB curve's powers for x in (0, 1]: x^(1/2.4) = x^(1/4) x^(1/6) = sqrt(sqrt(x)) cbrt(sqrt(x)), and
// x^2.4 = x^2 (x^2)^(1/5). The fast sm_90 set (cuda/fast_pixel.cu defines D4R_REFINE_FAST_POWERS) takes them from
// the special-function unit instead (ex2.approx of lg2.approx: a few ulp, not these bits; within the fast set's
// 60 dB, tests/network/refine_v2_test.cpp), and so does the AMD fast set (hip/refine.hip: v_exp_f32 of v_log_f32,
// checked on rocjitsu); everything else, the host included, computes them as above.
#if defined(__CUDA_ARCH__) && defined(D4R_REFINE_FAST_POWERS)
D4R_HD float pow_inv_2_4(float x) { return __powf(x, 1.0f / 2.4f); }
D4R_HD float pow_2_4(float x) { return __powf(x, 2.4f); }
#elif defined(__HIP_DEVICE_COMPILE__) && defined(D4R_REFINE_FAST_POWERS)
D4R_HD float pow_inv_2_4(float x) { return __builtin_amdgcn_exp2f(__builtin_amdgcn_logf(x) * (1.0f / 2.4f)); }
D4R_HD float pow_2_4(float x) { return __builtin_amdgcn_exp2f(__builtin_amdgcn_logf(x) * 2.4f); }
#else
D4R_HD float pow_inv_2_4(float x) {
    float s = up::sqrt_f(x);
    return up::sqrt_f(s) * cbrt_unit(s);
}
D4R_HD float pow_2_4(float x) {
    float x2 = x * x;
    return x2 * fifth_root_unit(x2);
}
#endif
// The powers above as a policy: the curve's functions below take another (the CPU fast set's, pixel_fast.cpp) with
// everything else the same.
struct CurvePowers {
    static D4R_HD float inv_2_4(float x) { return pow_inv_2_4(x); }
    static D4R_HD float p_2_4(float x) { return pow_2_4(x); }
};
// The sRGB transfer curve on [0, 1] (input clamped): 12.92 x below 0.0031308, else 1.055 x^(1/2.4) - 0.055.
template <typename Powers = CurvePowers>
D4R_HD float srgb_encode(float x) {
    x = clamp_f(x, 0.0f, 1.0f);
    if (x <= 0.0031308f) return 12.92f * x;
    return 1.055f * Powers::inv_2_4(x) - 0.055f;
}
// Its inverse: x / 12.92 below 0.04045, else ((x + 0.055) / 1.055)^2.4.
template <typename Powers = CurvePowers>
D4R_HD float srgb_decode(float x) {
    x = clamp_f(x, 0.0f, 1.0f);
    if (x <= 0.04045f) return x / 12.92f;
    return Powers::p_2_4((x + 0.055f) / 1.055f);
}
// A linear colour value as displayed: srgb(r / (1 + r)), r = max(0, v k) (NaN counts as 0).
#if defined(__CUDA_ARCH__) && defined(D4R_REFINE_FAST_POWERS)
// The fast sm_90 set's, with fewer instructions (it runs fifteen times a pixel in the fused embed): r / (1 + r) as
// 1 - 1 / (1 + r), one reciprocal from the special-function unit (+inf gives 1, as the capped quotient does; NaN and
// negatives give 0 through max), and no clamps, the quotient being in [0, 1] already.
template <typename Powers = CurvePowers>
D4R_HD float display(float v, float k) {
    const float x = 1.0f - 1.0f / (1.0f + fmaxf(v * k, 0.0f));
    return x <= 0.0031308f ? 12.92f * x : 1.055f * Powers::inv_2_4(x) - 0.055f;
}
#else
template <typename Powers = CurvePowers>
D4R_HD float display(float v, float k) {
    float r = v * k;
    r = r > 0.0f ? min_f(r, 3.0e38f) : 0.0f;
    return srgb_encode<Powers>(clamp_f(r / (1.0f + r), 0.0f, 1.0f));
}
#endif
// Back to linear: the Reinhard value capped at kDisplayMax, divided by the exposure k.
template <typename Powers = CurvePowers>
D4R_HD float linear_of_display(float d, float k) {
    float t = min_f(srgb_decode<Powers>(d), kDisplayMax);
    return t / (1.0f - t) / k;
}

// The accumulate terms of one pixel as frame dumps hold them (f16, upscaler/accumulate_terms.h's planes): the
// runtime rounds its own terms the same way, so the network sees what it was trained on.
struct Terms {
    float hist[3], hist_weight, reprojected, clamped[3], current[3], coverage, alpha;
};
D4R_HD float round_half(float v) { return kernels::half_to_float(kernels::float_to_half(v)); }
D4R_HD Terms rounded_terms(const up::AccumulateTerms& t) {
    Terms r{};
    r.hist[0] = round_half(t.history.x);
    r.hist[1] = round_half(t.history.y);
    r.hist[2] = round_half(t.history.z);
    r.hist_weight = round_half(t.history.w);
    r.reprojected = t.reprojected ? 1.0f : 0.0f;
    r.clamped[0] = round_half(t.clamped.x);
    r.clamped[1] = round_half(t.clamped.y);
    r.clamped[2] = round_half(t.clamped.z);
    r.current[0] = round_half(t.current.x);
    r.current[1] = round_half(t.current.y);
    r.current[2] = round_half(t.current.z);
    r.coverage = round_half(t.coverage);
    r.alpha = round_half(t.alpha);
    return r;
}
// The same from the halves d4r_up_accumulate stored (upscaler_math.h's term_halves, where the core keeps its terms:
// Params::terms): the same values, as the store rounds each term as rounded_terms does.
D4R_HD Terms terms_of_halves(const uint16_t h[up::kTermHalves]) {
    Terms r{};
    for (int i = 0; i < 3; ++i) {
        r.hist[i] = kernels::half_to_float(h[i]);
        r.clamped[i] = kernels::half_to_float(h[5 + i]);
        r.current[i] = kernels::half_to_float(h[8 + i]);
    }
    r.hist_weight = kernels::half_to_float(h[3]);
    r.reprojected = kernels::half_to_float(h[4]);
    r.coverage = kernels::half_to_float(h[11]);
    r.alpha = kernels::half_to_float(h[12]);
    return r;
}
// Output pixel (x, y)'s stored terms (P.terms must be set).
D4R_HD Terms stored_terms(const up::Params& p, int32_t x, int32_t y) {
    return terms_of_halves(up::at<uint16_t>(p.terms, up::term_offset(p, x, y)));
}

// A working-space colour (tone-mapped YCoCg) as displayed: the core's own way back to linear (from_working), then
// display().
D4R_HD void display_working(const up::Params& p, const float w[3], float k, float out[3]) {
    up::F3 c = up::from_working(p, up::F3{w[0], w[1], w[2]}, k);
    out[0] = display(c.x, k);
    out[1] = display(c.y, k);
    out[2] = display(c.z, k);
}

// Bilinear sampling of a render-resolution quantity at render-pixel coordinate (u, v), texel centres at integers,
// the coordinate clamped to the image, as PyTorch's grid_sample computes it (align_corners=False, padding border):
// weights (x0 + 1 - u)(y0 + 1 - v) and so on, a tap beyond the last row or column left out. FETCH(x, y, out)
// writes N values of texel (x, y).
template <int N, typename Fetch>
D4R_HD void bilinear(const up::Params& p, float u, float v, Fetch fetch, float out[N]) {
    const int32_t w = static_cast<int32_t>(p.render_w), h = static_cast<int32_t>(p.render_h);
    u = clamp_f(u, 0.0f, static_cast<float>(w - 1));
    v = clamp_f(v, 0.0f, static_cast<float>(h - 1));
    const float fx = up::floor_f(u), fy = up::floor_f(v);
    const int32_t x0 = static_cast<int32_t>(fx), y0 = static_cast<int32_t>(fy);
    const float wx[2] = {(fx + 1.0f) - u, u - fx}, wy[2] = {(fy + 1.0f) - v, v - fy};
    for (int i = 0; i < N; ++i) out[i] = 0.0f;
    for (int j = 0; j < 2; ++j)
        for (int i = 0; i < 2; ++i) {
            if (x0 + i >= w || y0 + j >= h) continue;
            float t[N];
            fetch(x0 + i, y0 + j, t);
            const float wt = wx[i] * wy[j];
            for (int c = 0; c < N; ++c) out[c] = out[c] + t[c] * wt;
        }
}

// The depth gradient feature of render pixel (x, y): upscaler_math.h's (d4r_up_prepare keeps it with the rest of the
// geometry where the pipeline asks it to: Params::geometry).
using up::depth_gradient;

// What pixel_features() gives besides the features: the candidates as display values (what the blend mixes).
struct Candidates {
    float c[kCandidates][3]; // O, H, Hc, C, U
};

// Output pixel (x, y)'s jittered position in render pixels: ((x + 0.5) render_w / output_w - 0.5 - jitter_x,
// likewise y).
D4R_HD void render_position(const up::Params& p, int32_t x, int32_t y, float& u, float& v) {
    const float sx = static_cast<float>(p.render_w) / static_cast<float>(p.output_w);
    const float sy = static_cast<float>(p.render_h) / static_cast<float>(p.output_h);
    u = (static_cast<float>(x) + 0.5f) * sx - 0.5f - p.jitter_x;
    v = (static_cast<float>(y) + 0.5f) * sy - 0.5f - p.jitter_y;
}
// The render colour (linear RGB) at render position (u, v), bilinear.
D4R_HD void render_colour(const up::Params& p, float u, float v, float rgb[3]) {
    bilinear<3>(
        p, u, v,
        [&p](int32_t px, int32_t py, float out[3]) {
            const uint16_t* c =
                up::at<uint16_t>(p.color, static_cast<uint64_t>(py) * p.color_pitch + static_cast<uint32_t>(px) * 8u);
            out[0] = kernels::half_to_float(c[0]);
            out[1] = kernels::half_to_float(c[1]);
            out[2] = kernels::half_to_float(c[2]);
        },
        rgb);
}
// The geometry at render position (u, v), bilinear: depth gradient, depth, motion x and y of each tap's texel, read
// from the plane d4r_up_prepare kept (Params::geometry) or computed (geometry_texel: the same values).
D4R_HD void render_geometry(const up::Params& p, float u, float v, float geo[4]) {
    bilinear<4>(
        p, u, v,
        [&p](int32_t px, int32_t py, float out[4]) {
            const up::F4 g =
                p.geometry ? up::load_f4(p.geometry, p.render_stride, px, py) : up::geometry_texel(p, px, py);
            out[0] = g.x;
            out[1] = g.y;
            out[2] = g.z;
            out[3] = g.w;
        },
        geo);
}

// render_geometry and render_colour as pixel_features() takes them. A fast kernel may pass others that give the same
// values (cuda/fast_pixel.cuh: each depth texel loaded once for the four taps; a texel in one load).
struct RenderGeometry {
    D4R_HD void operator()(const up::Params& p, float u, float v, float geo[4]) const { render_geometry(p, u, v, geo); }
};
struct RenderColour {
    D4R_HD void operator()(const up::Params& p, float u, float v, float rgb[3]) const { render_colour(p, u, v, rgb); }
};

// The features from the candidates as display values, the rounded terms T and the samples GEO (pixel_features).
D4R_HD void features_of(const Candidates& cand, const Terms& t, const float geo[4], float f[kFeatures]) {
    const float* o = cand.c[0];
    for (int i = 0; i < 3; ++i) {
        f[i] = o[i] - 0.5f;
        for (int j = 1; j < 5; ++j) f[3 * j + i] = cand.c[j][i] - o[i];
    }
    f[15] = t.reprojected;
    f[16] = t.alpha;
    f[17] = t.coverage;
    f[18] = min_f(t.hist_weight, 12.0f) / 12.0f;
    f[19] = geo[0];
    f[20] = geo[1];
    f[21] = clamp_f(geo[2] / 8.0f, -4.0f, 4.0f);
    f[22] = clamp_f(geo[3] / 8.0f, -4.0f, 4.0f);
#if defined(__CUDA_ARCH__) && defined(D4R_REFINE_FAST_POWERS)
    // The fast sm_90 set checks only the features made of terms and samples: the candidates' display values are in
    // [0, 1] whatever the input (display() maps NaN to 0 and infinity to 1), so features 0-14 are finite already (the
    // check was 45 of the fused embed's instructions a pixel).
    constexpr uint32_t kFirstChecked = 15;
#else
    constexpr uint32_t kFirstChecked = 0;
#endif
    for (uint32_t i = kFirstChecked; i < kFeatures; ++i)
        if (!(f[i] - f[i] == 0.0f)) f[i] = 0.0f; // NaN or infinite
}

// The 23 features of output pixel (x, y), in train_blend.py's order (features() with the GEO inputs):
//   0-2 O - 0.5;  3-5 H - O;  6-8 Hc - O;  9-11 C - O;  12-14 U - O;  15 reprojected;  16 alpha;  17 coverage;
//   18 history weight / 12 (capped at 1);  19 depth gradient;  20 depth;  21-22 motion / 8 (render pixels,
//   capped at +-4)
// O is the core's output at the pixel (linear RGB), T its rounded terms, K the frame's exposure factor
// (up::exposure_factor). H and Hc are O where the history was not reprojected. U, the depth gradient, the depth
// and the motion are bilinear samples at the pixel's render_position(). Non-finite values become 0.
template <typename GeometryOf = RenderGeometry, typename ColourOf = RenderColour>
D4R_HD void pixel_features(const up::Params& p, int32_t x, int32_t y, const float o_linear[3], const Terms& t, float k,
                           float f[kFeatures], Candidates& cand, GeometryOf geometry_of = {}, ColourOf colour_of = {}) {
    float* o = cand.c[0];
    for (int i = 0; i < 3; ++i) o[i] = display(o_linear[i], k);
    if (t.reprojected > 0.0f) {
        display_working(p, t.hist, k, cand.c[1]);
        display_working(p, t.clamped, k, cand.c[2]);
    } else {
        for (int i = 0; i < 3; ++i) cand.c[1][i] = cand.c[2][i] = o[i];
    }
    display_working(p, t.current, k, cand.c[3]);
    float u, v, rgb[3], geo[4];
    render_position(p, x, y, u, v);
    colour_of(p, u, v, rgb);
    for (int i = 0; i < 3; ++i) cand.c[4][i] = display(rgb[i], k);
    geometry_of(p, u, v, geo);
    features_of(cand, t, geo, f);
}

// The network's answer for one pixel (kOutputs values: logits of O, H, Hc, C, U, then a display-space residual)
// applied: the softmax-weighted mix of the candidates plus the residual, clamped to [0, 1], back to linear
// (linear_of_display). exp by refine_math.h's exp_neg of (logit - largest logit) (the fast sm_90 set: blend_exp).
#if defined(__CUDA_ARCH__) && defined(D4R_REFINE_FAST_POWERS)
// exp(x), x <= 0, in the fast sm_90 set: the special-function unit's (ex2.approx: a few ulp, not exp_neg's bits).
D4R_HD float blend_exp(float x) { return __expf(max_f(x, -80.0f)); }
#else
D4R_HD float blend_exp(float x) { return math::exp_neg(x); }
#endif
D4R_HD void blend_pixel(const float z[kOutputs], const Candidates& cand, float k, float out[3]) {
    float m = z[0];
    for (uint32_t i = 1; i < kCandidates; ++i) m = max_f(m, z[i]);
    float e[kCandidates], sum = 0.0f;
    for (uint32_t i = 0; i < kCandidates; ++i) {
        e[i] = blend_exp(z[i] - m);
        sum = sum + e[i];
    }
    for (int c = 0; c < 3; ++c) {
        float acc = 0.0f;
        for (uint32_t i = 0; i < kCandidates; ++i) acc = acc + e[i] * cand.c[i][c];
        out[c] = linear_of_display(clamp_f(acc / sum + z[kCandidates + c], 0.0f, 1.0f), k);
    }
}

// Pixel number I of the patch order: its position in the padded grid.
D4R_HD void patch_pixel(uint32_t grid_w, uint32_t i, uint32_t& x, uint32_t& y) {
    const uint32_t token = i / kPatchPixels, sub = i % kPatchPixels;
    x = (token % grid_w) * 4u + sub % 4u;
    y = (token / grid_w) * 4u + sub / 4u;
}
D4R_HD uint32_t patch_index(uint32_t grid_w, uint32_t x, uint32_t y) {
    return ((y / 4u) * grid_w + x / 4u) * kPatchPixels + (y % 4u) * 4u + x % 4u;
}

// The core's accumulate terms of output pixel (x, y) as pixel_values_at() computes them: upscaler_math.h's, and
// `stored`, those d4r_up_accumulate kept (Params::terms). A fast kernel may pass another with the same algorithm and
// the same stored values (cuda/fast_pixel.cuh: the fast d4r_up_accumulate's, and 16-byte loads).
struct CoreTerms {
    D4R_HD up::AccumulateTerms operator()(const up::Params& p, int32_t x, int32_t y) const {
        return up::accumulate_terms(p, x, y);
    }
    D4R_HD Terms stored(const up::Params& p, int32_t x, int32_t y) const { return stored_terms(p, x, y); }
};

// The rounded terms of output pixel (x, y): those the core kept where it kept them (the pipeline does when refine-v2
// runs after it: read, not computed again), else TERMS_OF's computed and rounded.
template <typename TermsOf = CoreTerms>
D4R_HD Terms terms_at(const up::Params& p, int32_t x, int32_t y, TermsOf terms_of = {}) {
    return p.terms ? terms_of.stored(p, x, y) : rounded_terms(terms_of(p, x, y));
}

// The output pixel whose values pixel number I (patch order) takes: its place in the padded grid, clamped to the
// image.
D4R_HD void source_pixel(const PixelParams& p, uint32_t i, int32_t& x, int32_t& y) {
    uint32_t px, py;
    patch_pixel(p.grid_w, i, px, py);
    x = static_cast<int32_t>(min_u(px, p.core.output_w - 1u));
    y = static_cast<int32_t>(min_u(py, p.core.output_h - 1u));
}

// The features and candidates of pixel number I (patch order), before they are rounded and stored.
template <typename TermsOf = CoreTerms, typename GeometryOf = RenderGeometry>
D4R_HD void pixel_values_at(const PixelParams& p, uint32_t i, float f[kFeatures], Candidates& cand,
                            TermsOf terms_of = {}, GeometryOf geometry_of = {}) {
    int32_t x, y;
    source_pixel(p, i, x, y);
    const uint16_t* o =
        up::at<uint16_t>(p.core.output, static_cast<uint64_t>(y) * p.core.output_pitch + static_cast<uint32_t>(x) * 8u);
    const float o_linear[3] = {kernels::half_to_float(o[0]), kernels::half_to_float(o[1]),
                               kernels::half_to_float(o[2])};
    const Terms t = terms_at(p.core, x, y, terms_of);
    pixel_features(p.core, x, y, o_linear, t, up::exposure_factor(p.core), f, cand, geometry_of);
}

// The work of d4r_nn_pixel_features for pixel number I (patch order), its features stored at FO (kFeatures halves).
D4R_HD void features_into(const PixelParams& p, uint32_t i, uint16_t* fo) {
    float f[kFeatures];
    Candidates cand{};
    pixel_values_at(p, i, f, cand);
    for (uint32_t j = 0; j < kFeatures; ++j) fo[j] = kernels::float_to_half(f[j]);
    uint16_t* co = up::at_mut<uint16_t>(p.candidates, static_cast<uint64_t>(i) * kCandidateValues * 2u);
    for (uint32_t j = 0; j < kCandidates; ++j)
        for (uint32_t c = 0; c < 3; ++c) co[j * 3 + c] = kernels::float_to_half(cand.c[j][c]);
    co[kCandidateValues - 1] = 0;
}
// The work of d4r_nn_pixel_features for pixel number I: features_into() at the pixel's place in `tokens`.
D4R_HD void features_at(const PixelParams& p, uint32_t i) {
    features_into(p, i, up::at_mut<uint16_t>(p.tokens, static_cast<uint64_t>(i) * kFeatures * 2u));
}

// The blend of output pixel (x, y), pixel number I of the patch order, from its answers A (kOutputs halves): alpha is
// kept.
D4R_HD void blend_answers(const PixelParams& p, uint32_t x, uint32_t y, uint32_t i, const uint16_t* a) {
    const uint16_t* c = up::at<uint16_t>(p.candidates, static_cast<uint64_t>(i) * kCandidateValues * 2u);
    float z[kOutputs];
    for (uint32_t j = 0; j < kOutputs; ++j) z[j] = kernels::half_to_float(a[j]);
    Candidates cand{};
    for (uint32_t j = 0; j < kCandidates; ++j)
        for (uint32_t k = 0; k < 3; ++k) cand.c[j][k] = kernels::half_to_float(c[j * 3 + k]);
    float out[3];
    blend_pixel(z, cand, up::exposure_factor(p.core), out);
    uint16_t* o = up::at_mut<uint16_t>(p.core.output, static_cast<uint64_t>(y) * p.core.output_pitch + x * 8u);
    for (uint32_t k = 0; k < 3; ++k) o[k] = kernels::float_to_half(out[k]);
}
// The work of d4r_nn_pixel_blend for output pixel (x, y).
D4R_HD void blend_at(const PixelParams& p, uint32_t x, uint32_t y) {
    const uint32_t i = patch_index(p.grid_w, x, y);
    blend_answers(p, x, y, i, up::at<uint16_t>(p.tokens, static_cast<uint64_t>(i) * kOutputs * 2u));
}
// The blend of pixel number I of the patch order (d4r_nn_pixel_head) from its answers A, if it is in the image.
D4R_HD void blend_patch_pixel(const PixelParams& p, uint32_t i, const uint16_t* a) {
    uint32_t x, y;
    patch_pixel(p.grid_w, i, x, y);
    if (x < p.core.output_w && y < p.core.output_h) blend_answers(p, x, y, i, a);
}

} // namespace d4r::refine::pixel
