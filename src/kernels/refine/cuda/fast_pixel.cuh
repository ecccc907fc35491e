// d4r refine network, fast sm_90 set: what refine-v2's fast pixel kernels share (cuda/fast_pixel.cu: features and
// blend; cuda/fast_pixel_fused.cu: the fused embed and head). Their sources define D4R_REFINE_FAST_POWERS (the sRGB
// curve's powers from the special-function unit) before including it, and are built with -use_fast_math (cmake:
// FAST_MATH).
#pragma once

#include "fast_common.cuh"
#include "kernels/refine/ptx/pixel_inputs.h"
#include "kernels/upscaler/cuda/fast_accumulate_terms.cuh"

namespace d4r::refine::fast {

using namespace d4r::refine::pixel;

constexpr uint32_t kTokenBytes = kFeatures * 2, kCandidateBytes = kCandidateValues * 2;

// The 16 halves of two 16-byte words LO and HI, in memory order.
__device__ __forceinline__ void halves_of(const uint4& lo, const uint4& hi, uint16_t (&h)[16]) {
    const uint32_t w[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
    for (uint32_t i = 0; i < 8; ++i) {
        h[2 * i] = low(w[i]);
        h[2 * i + 1] = high(w[i]);
    }
}

// A pixel's stored terms (Params::terms) from their two 16-byte words.
__device__ __forceinline__ Terms terms_of_words(const uint4& lo, const uint4& hi) {
    static_assert(up::kTermHalves == 16, "two 16-byte words a pixel");
    uint16_t h[up::kTermHalves];
    halves_of(lo, hi, h);
    return terms_of_halves(h);
}
__device__ __forceinline__ const uint4* term_words(const up::Params& p, int32_t x, int32_t y) {
    return up::at<uint4>(p.terms, up::term_offset(p, x, y));
}

// The core's accumulate terms as the fast d4r_up_accumulate computes them (32-bit offsets, non-coherent loads).
struct FastTerms {
    __device__ up::AccumulateTerms operator()(const up::Params& p, int32_t x, int32_t y) const {
        return up::fast::accumulate_terms(p, x, y);
    }
    // The stored terms (Params::terms) as two 16-byte loads.
    __device__ Terms stored(const up::Params& p, int32_t x, int32_t y) const {
        const uint4* s = term_words(p, x, y);
        return terms_of_words(__ldg(s), __ldg(s + 1));
    }
};

// render_geometry's values (pixel_inputs.h) with each depth texel loaded once: the four bilinear taps' depth gradients
// read 20 depths, 8 of them twice, and their motion texels' rows and columns are two each (upscaler_math.h's
// load_motion, whose rule this repeats, maps each with a division). The texels around the taps
// are loaded with their coordinates clamped to the image; a clamped one is used only where render_geometry would not
// read it (depth_gradient's border rule, a tap left out), so the values are render_geometry's.
// Where the core kept the geometry (Params::geometry), render_geometry samples its plane.
struct FastGeometry {
    __device__ void operator()(const up::Params& p, float u, float v, float geo[4]) const {
        if (p.geometry) { // render_geometry's taps, each a 16-byte load through the read-only path
            bilinear<4>(
                p, u, v,
                [&p](int32_t px, int32_t py, float out[4]) {
                    const float4 g = __ldg(reinterpret_cast<const float4*>(
                        p.geometry + (static_cast<uint64_t>(py) * p.render_stride + static_cast<uint32_t>(px)) * 16u));
                    out[0] = g.x;
                    out[1] = g.y;
                    out[2] = g.z;
                    out[3] = g.w;
                },
                geo);
            return;
        }
        const int32_t w = static_cast<int32_t>(p.render_w), h = static_cast<int32_t>(p.render_h);
        u = up::clamp_f(u, 0.0f, static_cast<float>(w - 1));
        v = up::clamp_f(v, 0.0f, static_cast<float>(h - 1));
        const float fx = up::floor_f(u), fy = up::floor_f(v);
        const int32_t x0 = static_cast<int32_t>(fx), y0 = static_cast<int32_t>(fy);
        const float wx[2] = {(fx + 1.0f) - u, u - fx}, wy[2] = {(fy + 1.0f) - v, v - fy};
        // d[j][i]: the depth of texel (x0 + i - 1, y0 + j - 1), clamped; the corners are never used.
        float d[4][4];
#pragma unroll
        for (int32_t j = 0; j < 4; ++j)
#pragma unroll
            for (int32_t i = 0; i < 4; ++i)
                if ((i == 1 || i == 2) || (j == 1 || j == 2))
                    d[j][i] = up::load_depth(p, up::clamp_i(x0 + i - 1, 0, w - 1), up::clamp_i(y0 + j - 1, 0, h - 1));
        // load_motion's texels of columns x0, x0 + 1 and rows y0, y0 + 1 (one division each, not one a tap).
        uint32_t mx[2], my[2];
#pragma unroll
        for (int32_t k = 0; k < 2; ++k) {
            mx[k] = min_u(static_cast<uint32_t>(x0 + k), p.render_w - 1u); // (a tap beyond the image is left out)
            my[k] = min_u(static_cast<uint32_t>(y0 + k), p.render_h - 1u);
            if (!(p.flags & up::kFlagMvLowRes)) {
                mx[k] = min_u((2u * mx[k] + 1u) * p.motion_w / (2u * p.render_w), p.motion_w - 1u);
                my[k] = min_u((2u * my[k] + 1u) * p.motion_h / (2u * p.render_h), p.motion_h - 1u);
            }
        }
        for (int c = 0; c < 4; ++c) geo[c] = 0.0f;
#pragma unroll
        for (int32_t j = 0; j < 2; ++j)
#pragma unroll
            for (int32_t i = 0; i < 2; ++i) {
                const int32_t x = x0 + i, y = y0 + j;
                if (x >= w || y >= h) continue;
                float gx = 0.0f, gy = 0.0f;
                if (x > 0 && x < w - 1) gx = (d[j + 1][i + 2] - d[j + 1][i]) / 2.0f;
                if (y > 0 && y < h - 1) gy = (d[j + 2][i + 1] - d[j][i + 1]) / 2.0f;
                const float depth = d[j + 1][i + 1];
                float t[4];
                t[0] = up::min_f(up::sqrt_f(gx * gx + gy * gy) / up::max_f(depth, 1.0e-6f), 1.0f);
                t[1] = depth;
                const uint16_t* m =
                    up::at<uint16_t>(p.motion, static_cast<uint64_t>(my[j]) * p.motion_pitch + mx[i] * 4u);
                t[2] = d4r::kernels::half_to_float(m[0]) * p.mv_mul_x - p.mv_jitter_x;
                t[3] = d4r::kernels::half_to_float(m[1]) * p.mv_mul_y - p.mv_jitter_y;
                const float wt = wx[i] * wy[j];
                for (int c = 0; c < 4; ++c) geo[c] = geo[c] + t[c] * wt;
            }
    }
};

// render_colour's taps, each texel's four halves in one 8-byte load through the read-only path where the colour and
// its pitch allow (an 8-byte aligned texture, as every D3D12 and Vulkan one is), else render_colour's three loads.
struct FastColour {
    __device__ void operator()(const up::Params& p, float u, float v, float rgb[3]) const {
        if (((p.color | p.color_pitch) & 7u) != 0) {
            render_colour(p, u, v, rgb);
            return;
        }
        bilinear<3>(
            p, u, v,
            [&p](int32_t px, int32_t py, float out[3]) {
                const uint2 c = __ldg(reinterpret_cast<const uint2*>(
                    p.color + static_cast<uint64_t>(py) * p.color_pitch + static_cast<uint32_t>(px) * 8u));
                out[0] = d4r::kernels::half_to_float(low(c.x));
                out[1] = d4r::kernels::half_to_float(high(c.x));
                out[2] = d4r::kernels::half_to_float(low(c.y));
            },
            rgb);
    }
};

// What pixel_values_at() reads of a pixel from memory that is not near anything else it reads (the core's output and,
// where the core kept them, the terms: the render-resolution taps are shared by neighbours and come from the L1/L2),
// loaded ahead of their use by pixel_values_from() so that the loads' latency overlaps other work; with the pixel's
// place, so that its division by the grid's width is done once.
struct PixelLoads {
    uint2 output;         // the output pixel's four halves
    uint4 terms[2]{};     // its stored terms, where the core kept them
    int32_t x = 0, y = 0; // source_pixel()
};
__device__ __forceinline__ PixelLoads pixel_loads(const PixelParams& p, uint32_t i) {
    PixelLoads l;
    int32_t& x = l.x;
    int32_t& y = l.y;
    source_pixel(p, i, x, y);
    l.output = __ldg(reinterpret_cast<const uint2*>(p.core.output + static_cast<uint64_t>(y) * p.core.output_pitch +
                                                    static_cast<uint32_t>(x) * 8u));
    if (p.core.terms) {
        const uint4* s = term_words(p.core, x, y);
        l.terms[0] = __ldg(s);
        l.terms[1] = __ldg(s + 1);
    }
    return l;
}
// pixel_values_at(p, i, f, cand, FastTerms{}, FastGeometry{}) with the loads L pixel_loads() made for pixel I and the
// render colour by FastColour: the same values.
__device__ __forceinline__ void pixel_values_from(const PixelParams& p, const PixelLoads& l, float (&f)[kFeatures],
                                                  Candidates& cand) {
    const int32_t x = l.x, y = l.y;
    const float o_linear[3] = {d4r::kernels::half_to_float(low(l.output.x)),
                               d4r::kernels::half_to_float(high(l.output.x)),
                               d4r::kernels::half_to_float(low(l.output.y))};
    const Terms t = p.core.terms ? terms_of_words(l.terms[0], l.terms[1]) : rounded_terms(FastTerms{}(p.core, x, y));
    pixel_features(p.core, x, y, o_linear, t, up::exposure_factor(p.core), f, cand, FastGeometry{}, FastColour{});
}

// blend_answers (pixel_inputs.h) for the fast head, the same values and bytes with fewer memory instructions: the
// pixel's 16 candidate halves as two 16-byte loads (they were 15 two-byte loads 32 bytes apart across the warp, each
// touching eight 128-byte lines), loaded by the caller ahead (PixelCandidates, so that their latency overlaps other
// work), its answers A (kOutputs halves, 16-byte aligned, shared memory) as one load, the exposure factor K given
// (the caller's, once), and the output pixel as one 8-byte store with the alpha every d4r_up_accumulate wrote there
// (up::kOutputAlpha, so the same bytes): storing only the colour's six bytes left every 32-byte sector of the output
// partly written, which the memory must merge.
struct PixelCandidates {
    uint4 lo, hi;
};
__device__ __forceinline__ PixelCandidates load_candidates(const PixelParams& p, uint32_t i) {
    static_assert(kCandidateValues == 16, "two 16-byte loads a pixel");
    const uint4* c = reinterpret_cast<const uint4*>(p.candidates) + static_cast<uint64_t>(i) * 2u;
    return {__ldg(c), __ldg(c + 1)};
}
__device__ __forceinline__ void blend_answers_fast(const PixelParams& p, uint32_t x, uint32_t y,
                                                   const PixelCandidates& c, const uint16_t* a, float k) {
    static_assert(kOutputs == 8, "one 16-byte answer load");
    const uint4 an = *reinterpret_cast<const uint4*>(a);
    const uint32_t aw[4] = {an.x, an.y, an.z, an.w};
    float z[kOutputs];
    for (uint32_t j = 0; j < kOutputs / 2; ++j) {
        z[2 * j] = d4r::kernels::half_to_float(low(aw[j]));
        z[2 * j + 1] = d4r::kernels::half_to_float(high(aw[j]));
    }
    uint16_t ch[kCandidateValues];
    halves_of(c.lo, c.hi, ch);
    Candidates cand{};
    for (uint32_t j = 0; j < kCandidates * 3; ++j) cand.c[j / 3][j % 3] = d4r::kernels::half_to_float(ch[j]);
    float out[3];
    blend_pixel(z, cand, k, out);
    uint8_t* o = up::at_mut<uint8_t>(p.core.output, static_cast<uint64_t>(y) * p.core.output_pitch + x * 8u);
    *reinterpret_cast<uint2*>(o) =
        make_uint2(pack(d4r::kernels::float_to_half(out[0]), d4r::kernels::float_to_half(out[1])),
                   pack(d4r::kernels::float_to_half(out[2]), up::kOutputAlpha));
}

// Copies BYTES from shared S to global D, 16 bytes a thread a step when both are 16-byte aligned.
__device__ __forceinline__ void copy_out(const uint8_t* s, uint8_t* d, uint32_t bytes) {
    if ((reinterpret_cast<uintptr_t>(d) & 15u) == 0 && bytes % 16u == 0) {
        const uint4* s4 = reinterpret_cast<const uint4*>(s);
        uint4* d4 = reinterpret_cast<uint4*>(d);
        for (uint32_t k = threadIdx.x; k < bytes / 16u; k += blockDim.x) d4[k] = s4[k];
    } else {
        for (uint32_t k = threadIdx.x; k < bytes; k += blockDim.x) d[k] = s[k];
    }
}

} // namespace d4r::refine::fast
