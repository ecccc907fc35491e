// d4r open NGX core: the upscaler's per-pixel math, shared by the CUDA kernels (upscaler.cu, shipped as
// PTX), the CPU reference (src/upscaler/reference.h) and the native CPU kernels (src/kernels/upscaler/cpu).
//
// Promise: every function here compiles identically under nvcc and a host C++ compiler and uses only
// IEEE-exact operations (+ - * /, sqrt, comparisons, floor, f16<->f32 round-to-nearest-even), so with
// nvcc's --fmad=false and the host's -ffp-contract=off the three implementations agree bit for bit.
// No expf/powf/log: their device and host results differ.
//
// The algorithm (a temporal upscaler in the FSR2/TAAU family):
//   d4r_up_exposure    (optional, 1 block): auto exposure = key / mean luminance of the render image.
//   d4r_up_prepare     (render res): colour -> exposure-corrected, tone-mapped (x / (1 + max)) YCoCg;
//                      motion vector of the nearest-depth pixel of the 3x3 neighbourhood (dilation);
//                      disocclusion = this pixel's depth is clearly behind the previous frame's depth
//                      where it came from.
//   d4r_up_accumulate  (output res): jitter-aware reconstruction of the current frame from the 3x3
//                      render samples around the output pixel; history reprojected with a 12-tap
//                      Catmull-Rom filter and clipped toward the mean of the neighbourhood's variance
//                      box; blended with weight current / (history + current), history weight capped.
//   d4r_up_sharpen     (output res, optional): RCAS-like contrast-adaptive sharpening of luma.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "../../common/f16.h" // also D4R_HD: nvcc, a host compiler, clang -x hip (refine-v2's AMD pixel kernels)

namespace d4r::upscaler::math {

// Params::flags
inline constexpr uint32_t kFlagHdr = 1u;
inline constexpr uint32_t kFlagDepthInverted = 2u;
inline constexpr uint32_t kFlagMvLowRes = 4u;
inline constexpr uint32_t kFlagHistory = 8u;    // history_in holds the previous frame (not reset)
inline constexpr uint32_t kFlagPrevDepth = 16u; // motion_prev holds the previous frame's depth, same render size
inline constexpr uint32_t kFlagSharpen = 32u;   // accumulate leaves the output to d4r_up_sharpen
// Params::exposure_mode
inline constexpr uint32_t kExposureScale = 0u, kExposureTexture = 1u, kExposureAuto = 2u;

inline constexpr uint32_t kBlockX = 16, kBlockY = 16; // launch shape of the image kernels
inline constexpr uint32_t kExposureThreads = 256;     // d4r_up_exposure: one block of this many
inline constexpr float kMaxHistoryWeight = 12.0f;     // accumulated sample weight cap
inline constexpr float kBlurPenalty = 8.0f;           // history weight cap / (1 + this * resampling blur)
inline constexpr float kDepthTolerance = 0.01f;       // relative depth jump that means disocclusion
inline constexpr float kClipGamma = 1.25f;            // variance box half-width in standard deviations
inline constexpr float kAutoExposureKey = 0.25f;      // auto exposure: mean luminance maps to this
inline constexpr float kRcasLimit = 0.1875f;          // 0.25 - 1/16, as AMD's RCAS

// The single kernel parameter of every upscaler kernel (passed by value: the parameter block IS these
// bytes). Caller pointers already include the subrect base offsets.
struct alignas(8) Params {
    uint64_t color, depth, motion, exposure_tex, output; // caller buffers (RGBA16F, R32F, RG16F, R32F, RGBA16F)
    uint64_t prep_color;                                 // float4 render res: Y Co Cg 0 (tone-mapped)
    uint64_t motion_cur, motion_prev;                    // float4 render res: mv.x mv.y depth disocclusion
    uint64_t history_in, history_out;                    // float4 output res: Y Co Cg weight
    uint64_t exposure_auto;                              // float: d4r_up_exposure's result
    uint32_t color_pitch, depth_pitch, motion_pitch, output_pitch; // bytes
    uint32_t render_w, render_h, output_w, output_h;
    uint32_t render_stride, output_stride; // elements per row of the pipeline's own buffers
    uint32_t motion_w, motion_h;           // the resolution the motion vectors are given at
    uint32_t flags, exposure_mode;
    float mv_mul_x, mv_mul_y;       // input motion vector -> render pixels (MV.Scale and resolution)
    float mv_jitter_x, mv_jitter_y; // subtracted from the motion vector (MVJittered: jitter delta)
    float jitter_x, jitter_y;
    float pre_exposure, exposure_scale;
    float sharpness, reserved;
    // 0, or where d4r_up_accumulate also stores each output pixel's accumulate terms for the refine network (f16,
    // kTermHalves a pixel at (y * output_stride + x) * kTermHalves halves; store_terms), which its pixel kernels then
    // read instead of computing them again (refine/ptx/pixel_inputs.h, pixel_values_at).
    uint64_t terms;
    // 0, or where d4r_up_prepare also stores each render pixel's geometry for the refine network (float4 at
    // y * render_stride + x: depth gradient, depth, motion x and y; geometry_texel), which its pixel kernels then
    // sample instead of computing it again at every bilinear tap (refine/ptx/pixel_inputs.h, render_geometry).
    uint64_t geometry;
};
static_assert(sizeof(Params) == 200, "Params must have the same layout in every compiler");

struct alignas(16) F4 {
    float x, y, z, w;
};
struct F3 {
    float x, y, z;
};

// ---- scalar helpers (selects, not fminf/fmaxf: their signed-zero handling is not pinned down) ----
D4R_HD float min_f(float a, float b) { return a < b ? a : b; }
D4R_HD float max_f(float a, float b) { return a > b ? a : b; }
D4R_HD float clamp_f(float v, float lo, float hi) { return min_f(max_f(v, lo), hi); }
D4R_HD int32_t clamp_i(int32_t v, int32_t lo, int32_t hi) { return v < lo ? lo : (v > hi ? hi : v); }
D4R_HD float sqrt_f(float v) { return kernels::sqrt_f(v); }   // sqrtf, or clang's builtin on the HIP device
D4R_HD float floor_f(float v) { return kernels::floor_f(v); } // floorf, likewise
// floor to int for coordinates; the float is clamped first so the conversion never overflows.
D4R_HD int32_t floor_i(float v) { return static_cast<int32_t>(floor_f(clamp_f(v, -1.0e6f, 1.0e6f))); }

// ---- f16 <-> f32, round to nearest even (cvt.rn.f16.f32): kernels/common/f16.h, shared by every family ----
using kernels::float_to_half;
using kernels::half_to_float;

// ---- memory access (pointers are device addresses on the GPU and host addresses on the CPU) ----
template <typename T>
D4R_HD const T* at(uint64_t base, uint64_t byte_offset) {
    return reinterpret_cast<const T*>(base + byte_offset);
}
template <typename T>
D4R_HD T* at_mut(uint64_t base, uint64_t byte_offset) {
    return reinterpret_cast<T*>(base + byte_offset);
}
D4R_HD F4 load_f4(uint64_t base, uint32_t stride, int32_t x, int32_t y) {
    return *at<F4>(base, (static_cast<uint64_t>(y) * stride + static_cast<uint32_t>(x)) * 16u);
}
D4R_HD void store_f4(uint64_t base, uint32_t stride, int32_t x, int32_t y, F4 v) {
    *at_mut<F4>(base, (static_cast<uint64_t>(y) * stride + static_cast<uint32_t>(x)) * 16u) = v;
}

// ---- colour ----
D4R_HD float max3(float a, float b, float c) { return max_f(a, max_f(b, c)); }
D4R_HD F3 rgb_to_ycocg(F3 c) {
    return {c.x * 0.25f + c.y * 0.5f + c.z * 0.25f, c.x * 0.5f - c.z * 0.5f, c.y * 0.5f - c.x * 0.25f - c.z * 0.25f};
}
D4R_HD F3 ycocg_to_rgb(F3 c) {
    float t = c.x - c.z;
    return {t + c.y, c.x + c.z, t - c.y};
}
// The exposure-corrected factor applied to input colour: exposure / pre-exposure (HDR only).
D4R_HD float exposure_factor(const Params& p) {
    if (!(p.flags & kFlagHdr)) return 1.0f;
    float e = 1.0f;
    if (p.exposure_mode == kExposureTexture)
        e = *at<float>(p.exposure_tex, 0);
    else if (p.exposure_mode == kExposureAuto)
        e = *at<float>(p.exposure_auto, 0);
    e = e * p.exposure_scale;
    if (!(e > 1.0e-8f)) e = 1.0e-8f; // also catches NaN
    return e / p.pre_exposure;
}
// Input colour -> the perceptual working space (tone-mapped YCoCg).
inline constexpr float kMaxHalf = 65504.0f; // the largest finite f16
D4R_HD F3 to_working(const Params& p, F3 rgb, float k) {
    // Games hand over RGBA16F, which can hold infinities and NaNs (overflowed highlights): NaN counts as 0
    // and anything above the largest finite half as that value, so no texel can poison the history.
    F3 c{clamp_f(rgb.x * k, 0.0f, kMaxHalf), clamp_f(rgb.y * k, 0.0f, kMaxHalf), clamp_f(rgb.z * k, 0.0f, kMaxHalf)};
    if (p.flags & kFlagHdr) {
        float inv = 1.0f / (1.0f + max3(c.x, c.y, c.z));
        c = {c.x * inv, c.y * inv, c.z * inv};
    } else {
        c = {min_f(c.x, 1.0f), min_f(c.y, 1.0f), min_f(c.z, 1.0f)};
    }
    return rgb_to_ycocg(c);
}
// Working space -> output colour (inverse tone map, undo the exposure factor).
D4R_HD F3 from_working(const Params& p, F3 w, float k) {
    F3 c = ycocg_to_rgb(w);
    c = {clamp_f(c.x, 0.0f, 1.0f), clamp_f(c.y, 0.0f, 1.0f), clamp_f(c.z, 0.0f, 1.0f)};
    if (p.flags & kFlagHdr) {
        float inv = 1.0f / (max_f(1.0f - max3(c.x, c.y, c.z), 1.0f / 4096.0f) * k);
        c = {c.x * inv, c.y * inv, c.z * inv};
    }
    return c;
}
// The alpha of every output pixel the core writes (f16 1.0): the network's blend writes it again with the colour.
inline constexpr uint16_t kOutputAlpha = 0x3c00u;
D4R_HD void store_output(const Params& p, int32_t x, int32_t y, F3 rgb) {
    uint16_t* o = at_mut<uint16_t>(p.output, static_cast<uint64_t>(y) * p.output_pitch + static_cast<uint32_t>(x) * 8u);
    o[0] = float_to_half(rgb.x);
    o[1] = float_to_half(rgb.y);
    o[2] = float_to_half(rgb.z);
    o[3] = kOutputAlpha;
}

// ---- d4r_up_exposure ----
// Thread T of N sums the luminance (colour / pre-exposure) of rows T, T+N, ... left to right.
D4R_HD float exposure_partial(const Params& p, uint32_t t, uint32_t n) {
    float sum = 0.0f;
    for (uint32_t y = t; y < p.render_h; y += n) {
        float row = 0.0f;
        for (uint32_t x = 0; x < p.render_w; ++x) {
            const uint16_t* c = at<uint16_t>(p.color, static_cast<uint64_t>(y) * p.color_pitch + x * 8u);
            float l = clamp_f(half_to_float(c[0]) * 0.25f + half_to_float(c[1]) * 0.5f + half_to_float(c[2]) * 0.25f,
                              0.0f, kMaxHalf);
            row = row + max_f(l, 0.0f);
        }
        sum = sum + row;
    }
    return sum;
}
// The partials summed in thread order give the mean; exposure = key / mean.
D4R_HD void exposure_finish(const Params& p, float sum) {
    float count = static_cast<float>(p.render_w) * static_cast<float>(p.render_h);
    float mean = sum / count / p.pre_exposure;
    *at_mut<float>(p.exposure_auto, 0) = clamp_f(kAutoExposureKey / max_f(mean, 1.0e-6f), 1.0f / 256.0f, 256.0f);
}

// ---- d4r_up_prepare ----
D4R_HD float load_depth(const Params& p, int32_t x, int32_t y) {
    float d = *at<float>(p.depth, static_cast<uint64_t>(y) * p.depth_pitch + static_cast<uint32_t>(x) * 4u);
    return (p.flags & kFlagDepthInverted) ? 1.0f - d : d;
}
// The motion vector of render pixel (x, y), in render pixels, jitter delta removed.
D4R_HD void load_motion(const Params& p, int32_t x, int32_t y, float& mx, float& my) {
    uint32_t sx = static_cast<uint32_t>(x), sy = static_cast<uint32_t>(y);
    if (!(p.flags & kFlagMvLowRes)) { // given at output resolution: the texel over the pixel's centre
        sx = (2u * sx + 1u) * p.motion_w / (2u * p.render_w);
        sy = (2u * sy + 1u) * p.motion_h / (2u * p.render_h);
        if (sx >= p.motion_w) sx = p.motion_w - 1u;
        if (sy >= p.motion_h) sy = p.motion_h - 1u;
    }
    const uint16_t* m = at<uint16_t>(p.motion, static_cast<uint64_t>(sy) * p.motion_pitch + sx * 4u);
    mx = half_to_float(m[0]) * p.mv_mul_x - p.mv_jitter_x;
    my = half_to_float(m[1]) * p.mv_mul_y - p.mv_jitter_y;
}

// ---- the render geometry kept for the refine network (Params::geometry) ----
// The depth gradient of render pixel (x, y): |central difference| / depth, 0 on the border rows and columns of each
// direction, capped at 1.
D4R_HD float depth_gradient(const Params& p, int32_t x, int32_t y) {
    const int32_t w = static_cast<int32_t>(p.render_w), h = static_cast<int32_t>(p.render_h);
    float gx = 0.0f, gy = 0.0f;
    if (x > 0 && x < w - 1) gx = (load_depth(p, x + 1, y) - load_depth(p, x - 1, y)) / 2.0f;
    if (y > 0 && y < h - 1) gy = (load_depth(p, x, y + 1) - load_depth(p, x, y - 1)) / 2.0f;
    return min_f(sqrt_f(gx * gx + gy * gy) / max_f(load_depth(p, x, y), 1.0e-6f), 1.0f);
}
// Render pixel (x, y)'s geometry as the refine network samples it (bilinear, at each output pixel's render position):
// its depth gradient, depth and motion (render pixels, jitter delta removed).
D4R_HD F4 geometry_texel(const Params& p, int32_t x, int32_t y) {
    F4 g{depth_gradient(p, x, y), load_depth(p, x, y), 0.0f, 0.0f};
    load_motion(p, x, y, g.z, g.w);
    return g;
}

D4R_HD void prepare_pixel(const Params& p, int32_t x, int32_t y) {
    if (p.geometry) store_f4(p.geometry, p.render_stride, x, y, geometry_texel(p, x, y));
    int32_t w = static_cast<int32_t>(p.render_w) - 1, h = static_cast<int32_t>(p.render_h) - 1;
    const uint16_t* c = at<uint16_t>(p.color, static_cast<uint64_t>(y) * p.color_pitch + static_cast<uint32_t>(x) * 8u);
    float k = exposure_factor(p);
    F3 wc = to_working(p, F3{half_to_float(c[0]), half_to_float(c[1]), half_to_float(c[2])}, k);
    store_f4(p.prep_color, p.render_stride, x, y, F4{wc.x, wc.y, wc.z, 0.0f});

    // Dilation: the motion of the nearest surface in the 3x3 neighbourhood keeps edges of moving objects.
    float own = load_depth(p, x, y), best = own;
    int32_t bx = x, by = y;
    for (int32_t dy = -1; dy <= 1; ++dy)
        for (int32_t dx = -1; dx <= 1; ++dx) {
            int32_t nx = clamp_i(x + dx, 0, w), ny = clamp_i(y + dy, 0, h);
            float d = load_depth(p, nx, ny);
            if (d < best) {
                best = d;
                bx = nx;
                by = ny;
            }
        }
    float mx, my;
    load_motion(p, bx, by, mx, my);

    // Disocclusion: the previous frame's pixel where this sample was held a clearly nearer surface
    // (something covered it), or the sample came from outside the screen.
    float disocc = 0.0f;
    if (p.flags & kFlagPrevDepth) {
        float qx = static_cast<float>(x) + 0.5f + p.jitter_x + mx;
        float qy = static_cast<float>(y) + 0.5f + p.jitter_y + my;
        if (qx < 0.0f || qy < 0.0f || qx >= static_cast<float>(w + 1) || qy >= static_cast<float>(h + 1)) {
            disocc = 1.0f;
        } else {
            float prev =
                load_f4(p.motion_prev, p.render_stride, clamp_i(floor_i(qx), 0, w), clamp_i(floor_i(qy), 0, h)).z;
            if (own - prev > kDepthTolerance * own) disocc = 1.0f;
        }
    }
    store_f4(p.motion_cur, p.render_stride, x, y, F4{mx, my, own, disocc});
}

// ---- d4r_up_accumulate ----
// Catmull-Rom weights for fraction f of the taps at -1, 0, 1, 2.
D4R_HD void catmull_rom(float f, float wt[4]) {
    wt[0] = f * (-0.5f + f * (1.0f - 0.5f * f));
    wt[1] = 1.0f + f * f * (-2.5f + 1.5f * f);
    wt[2] = f * (0.5f + f * (2.0f - 1.5f * f));
    wt[3] = f * f * (-0.5f + 0.5f * f);
}
// History at output position (hx, hy) (pixel centres at i + 0.5): 12 taps of the 4x4 Catmull-Rom
// footprint (corners dropped, weights renormalised).
// BLUR receives fx(1-fx) + fy(1-fy) of the fractions: how much this resampling softens (0 = none).
D4R_HD F4 sample_history(const Params& p, float hx, float hy, float& blur) {
    float tx = hx - 0.5f, ty = hy - 0.5f;
    int32_t ix = floor_i(tx), iy = floor_i(ty);
    float fx = tx - static_cast<float>(ix), fy = ty - static_cast<float>(iy);
    blur = fx * (1.0f - fx) + fy * (1.0f - fy);
    float wx[4], wy[4];
    catmull_rom(fx, wx);
    catmull_rom(fy, wy);
    int32_t w = static_cast<int32_t>(p.output_w) - 1, h = static_cast<int32_t>(p.output_h) - 1;
    F4 acc{0.0f, 0.0f, 0.0f, 0.0f};
    float wsum = 0.0f;
    for (int32_t j = 0; j < 4; ++j)
        for (int32_t i = 0; i < 4; ++i) {
            if ((i == 0 || i == 3) && (j == 0 || j == 3)) continue;
            float wt = wx[i] * wy[j];
            F4 v = load_f4(p.history_in, p.output_stride, clamp_i(ix - 1 + i, 0, w), clamp_i(iy - 1 + j, 0, h));
            acc = {acc.x + v.x * wt, acc.y + v.y * wt, acc.z + v.z * wt, acc.w + v.w * wt};
            wsum = wsum + wt;
        }
    float inv = 1.0f / wsum;
    return {acc.x * inv, acc.y * inv, acc.z * inv, acc.w * inv};
}

// Moves H toward MEAN until it is inside the box MEAN +- EXTENT (variance clipping).
D4R_HD F3 clip_to_box(F3 hist, F3 mean, F3 extent) {
    F3 v{hist.x - mean.x, hist.y - mean.y, hist.z - mean.z};
    float ux = (v.x < 0.0f ? -v.x : v.x) / extent.x;
    float uy = (v.y < 0.0f ? -v.y : v.y) / extent.y;
    float uz = (v.z < 0.0f ? -v.z : v.z) / extent.z;
    float m = max3(ux, uy, uz);
    if (m <= 1.0f) return hist;
    float inv = 1.0f / m;
    return {mean.x + v.x * inv, mean.y + v.y * inv, mean.z + v.z * inv};
}

// The accumulate step's values for one output pixel before the blend. accumulate_pixel stores
// blend_terms(accumulate_terms(...)); frame dumps keep the terms themselves (src/upscaler/accumulate_terms.h).
struct AccumulateTerms {
    F4 history{0.0f, 0.0f, 0.0f, 0.0f}; // reprojected history before the clamp: Y Co Cg, weight as sampled
    bool reprojected = false;           // history was used (history on, not disoccluded, on screen); else all 0
    F3 clamped{0.0f, 0.0f, 0.0f};       // the history after variance clipping (what the blend uses)
    float history_weight = 0.0f;        // its weight in the blend (capped, blur penalty applied)
    F3 current{0.0f, 0.0f, 0.0f};       // this frame's jittered reconstruction (working space)
    float coverage = 0.0f;              // the largest single reconstruction weight, 0..1 (the current frame's weight)
    float alpha = 1.0f;                 // the current frame's share of the blend (blend_alpha)
};

// The current frame's share of the blend: coverage / (history weight + coverage). Where neither has any weight
// (no history kept, and every render sample beyond the reconstruction radius: the outer columns and rows when
// the jitter points away from them) the current reconstruction is all there is: 1, not 0/0.
D4R_HD float blend_alpha(float history_weight, float coverage) {
    float total = history_weight + coverage;
    return total > 0.0f ? coverage / total : 1.0f;
}

D4R_HD AccumulateTerms accumulate_terms(const Params& p, int32_t ox, int32_t oy) {
    AccumulateTerms t;
    float scale_x = static_cast<float>(p.render_w) / static_cast<float>(p.output_w);
    float scale_y = static_cast<float>(p.render_h) / static_cast<float>(p.output_h);
    // The output pixel's centre in render-pixel (scene) coordinates.
    float px = (static_cast<float>(ox) + 0.5f) * scale_x, py = (static_cast<float>(oy) + 0.5f) * scale_y;
    int32_t w = static_cast<int32_t>(p.render_w) - 1, h = static_cast<int32_t>(p.render_h) - 1;
    // Render sample i sits at i + 0.5 + jitter: the nearest one to px is floor(px - jitter).
    int32_t cx = clamp_i(floor_i(px - p.jitter_x), 0, w), cy = clamp_i(floor_i(py - p.jitter_y), 0, h);

    // Reconstruction kernel (1 - r^2/R^2)^2: wider when each render sample covers more output pixels.
    float up = min_f(1.0f / scale_x, 3.0f);
    float inv_r2 = 1.0f / (0.35f + 0.15f * up);
    F3 sum{0.0f, 0.0f, 0.0f}, m1{0.0f, 0.0f, 0.0f}, m2{0.0f, 0.0f, 0.0f};
    float wsum = 0.0f, wmax = 0.0f;
    F4 centre{0.0f, 0.0f, 0.0f, 0.0f};
    for (int32_t dy = -1; dy <= 1; ++dy)
        for (int32_t dx = -1; dx <= 1; ++dx) {
            int32_t sx = clamp_i(cx + dx, 0, w), sy = clamp_i(cy + dy, 0, h);
            F4 c = load_f4(p.prep_color, p.render_stride, sx, sy);
            if (dx == 0 && dy == 0) centre = c;
            float ddx = static_cast<float>(sx) + 0.5f + p.jitter_x - px;
            float ddy = static_cast<float>(sy) + 0.5f + p.jitter_y - py;
            float tt = max_f(1.0f - (ddx * ddx + ddy * ddy) * inv_r2, 0.0f);
            float wt = tt * tt;
            sum = {sum.x + c.x * wt, sum.y + c.y * wt, sum.z + c.z * wt};
            wsum = wsum + wt;
            wmax = max_f(wmax, wt);
            m1 = {m1.x + c.x, m1.y + c.y, m1.z + c.z};
            m2 = {m2.x + c.x * c.x, m2.y + c.y * c.y, m2.z + c.z * c.z};
        }
    float inv_w = 1.0f / wsum;
    t.current = wsum > 1.0e-4f ? F3{sum.x * inv_w, sum.y * inv_w, sum.z * inv_w} : F3{centre.x, centre.y, centre.z};
    t.coverage = wmax;
    constexpr float kNinth = 1.0f / 9.0f;
    F3 mean{m1.x * kNinth, m1.y * kNinth, m1.z * kNinth};
    F3 extent{kClipGamma * sqrt_f(max_f(m2.x * kNinth - mean.x * mean.x, 0.0f)) + 1.0e-4f,
              kClipGamma * sqrt_f(max_f(m2.y * kNinth - mean.y * mean.y, 0.0f)) + 1.0e-4f,
              kClipGamma * sqrt_f(max_f(m2.z * kNinth - mean.z * mean.z, 0.0f)) + 1.0e-4f};

    F4 mv = load_f4(p.motion_cur, p.render_stride, cx, cy);
    if ((p.flags & kFlagHistory) && mv.w == 0.0f) {
        float hx = static_cast<float>(ox) + 0.5f + mv.x / scale_x;
        float hy = static_cast<float>(oy) + 0.5f + mv.y / scale_y;
        if (hx >= 0.0f && hy >= 0.0f && hx <= static_cast<float>(p.output_w) && hy <= static_cast<float>(p.output_h)) {
            float blur;
            t.history = sample_history(p, hx, hy, blur);
            t.reprojected = true;
            t.clamped = clip_to_box(F3{t.history.x, t.history.y, t.history.z}, mean, extent);
            // Every fractional resampling softens the history a little: keep less of it then, or moving
            // content blurs away.
            t.history_weight = clamp_f(t.history.w, 0.0f, kMaxHistoryWeight / (1.0f + kBlurPenalty * blur));
        }
    }
    t.alpha = blend_alpha(t.history_weight, t.coverage);
    return t;
}

// The history value of the terms: Y Co Cg and the accumulated weight.
D4R_HD F4 blend_terms(const AccumulateTerms& t) {
    const F3& hist = t.clamped;
    const F3& cur = t.current;
    float a = t.alpha;
    // Back into the RGB gamut: a history clipped onto a corner of the YCoCg box can leave it, and
    // would then drift further every frame.
    F3 rgb =
        ycocg_to_rgb(F3{hist.x + (cur.x - hist.x) * a, hist.y + (cur.y - hist.y) * a, hist.z + (cur.z - hist.z) * a});
    F3 acc = rgb_to_ycocg(F3{clamp_f(rgb.x, 0.0f, 1.0f), clamp_f(rgb.y, 0.0f, 1.0f), clamp_f(rgb.z, 0.0f, 1.0f)});
    return F4{acc.x, acc.y, acc.z, min_f(t.history_weight + t.coverage, kMaxHistoryWeight)};
}

// ---- the accumulate terms kept for the refine network (Params::terms) ----
// A pixel's terms as halves, each rounded to nearest-even (what the refine network sees: it rounds them so): the
// sampled history Y Co Cg and weight, reprojected (1 or 0), the clamped history, the current colour, coverage and
// alpha; three zeros pad the record to 32 bytes.
inline constexpr uint32_t kTermHalves = 16;
D4R_HD void term_halves(const AccumulateTerms& t, uint16_t h[kTermHalves]) {
    const float v[13] = {t.history.x, t.history.y, t.history.z, t.history.w, t.reprojected ? 1.0f : 0.0f,
                         t.clamped.x, t.clamped.y, t.clamped.z, t.current.x, t.current.y,
                         t.current.z, t.coverage,  t.alpha};
    for (uint32_t i = 0; i < 13; ++i) h[i] = float_to_half(v[i]);
    for (uint32_t i = 13; i < kTermHalves; ++i) h[i] = 0;
}
// Where output pixel (x, y)'s record starts in Params::terms, in bytes (32-byte records, output_stride a row).
D4R_HD uint64_t term_offset(const Params& p, int32_t x, int32_t y) {
    return (static_cast<uint64_t>(y) * p.output_stride + static_cast<uint32_t>(x)) * (kTermHalves * 2u);
}
D4R_HD void store_terms(const Params& p, int32_t ox, int32_t oy, const AccumulateTerms& t) {
    uint16_t h[kTermHalves];
    term_halves(t, h);
    uint16_t* d = at_mut<uint16_t>(p.terms, term_offset(p, ox, oy));
    for (uint32_t i = 0; i < kTermHalves; ++i) d[i] = h[i];
}

D4R_HD void accumulate_pixel(const Params& p, int32_t ox, int32_t oy) {
    const AccumulateTerms t = accumulate_terms(p, ox, oy);
    if (p.terms) store_terms(p, ox, oy, t);
    F4 out = blend_terms(t);
    store_f4(p.history_out, p.output_stride, ox, oy, out);
    if (!(p.flags & kFlagSharpen))
        store_output(p, ox, oy, from_working(p, F3{out.x, out.y, out.z}, exposure_factor(p)));
}

// ---- d4r_up_sharpen ----
D4R_HD void sharpen_pixel(const Params& p, int32_t x, int32_t y) {
    int32_t w = static_cast<int32_t>(p.output_w) - 1, h = static_cast<int32_t>(p.output_h) - 1;
    F4 e = load_f4(p.history_out, p.output_stride, x, y);
    float b = load_f4(p.history_out, p.output_stride, x, clamp_i(y - 1, 0, h)).x;
    float d = load_f4(p.history_out, p.output_stride, clamp_i(x - 1, 0, w), y).x;
    float f = load_f4(p.history_out, p.output_stride, clamp_i(x + 1, 0, w), y).x;
    float hh = load_f4(p.history_out, p.output_stride, x, clamp_i(y + 1, 0, h)).x;
    float mn = min_f(min_f(b, d), min_f(f, hh)), mx = max_f(max_f(b, d), max_f(f, hh));
    // RCAS: the largest negative lobe that keeps the result inside the neighbourhood's range.
    float hit_min = min_f(mn, e.x) / max_f(4.0f * mx, 1.0e-6f);
    float hit_max = (1.0f - max_f(mx, e.x)) / min_f(4.0f * mn - 4.0f, -1.0e-6f);
    float lobe = max_f(-kRcasLimit, min_f(max_f(-hit_min, hit_max), 0.0f)) * p.sharpness;
    float luma = (lobe * (b + d + f + hh) + e.x) / (4.0f * lobe + 1.0f);
    store_output(p, x, y, from_working(p, F3{luma, e.y, e.z}, exposure_factor(p)));
}

} // namespace d4r::upscaler::math
