// d4r open NGX core, fast sm_90 set: the accumulate step's terms (upscaler_math.h's accumulate_terms) written for
// throughput where the PTX is written for exact reproduction: 32-bit element offsets with each row's and column's clamp
// computed once (the PTX clamps and multiplies in 64 bits per tap: 21 taps per pixel) and read-only loads through the
// non-coherent cache; with fast math (the including kernel's build flags) the results differ from the PTX path's in
// the last bits. Used by the fast d4r_up_accumulate (fast_accumulate.cu) and by the refine network's fast pixel
// kernels, which compute the same terms again for their features (src/kernels/refine/cuda/fast_pixel.cu).
#pragma once

#include "kernels/upscaler/ptx/upscaler_math.h"

namespace d4r::upscaler::math::fast {

__device__ __forceinline__ F4 fetch(const F4* __restrict__ base, uint32_t index) {
    const float4 v = __ldg(reinterpret_cast<const float4*>(base) + index);
    return {v.x, v.y, v.z, v.w};
}

// The 12-tap Catmull-Rom history of sample_history() (corners dropped, weights renormalised).
__device__ __forceinline__ F4 history(const Params& p, float hx, float hy, float& blur) {
    const float tx = hx - 0.5f, ty = hy - 0.5f;
    const int32_t ix = floor_i(tx), iy = floor_i(ty);
    const float fx = tx - static_cast<float>(ix), fy = ty - static_cast<float>(iy);
    blur = fx * (1.0f - fx) + fy * (1.0f - fy);
    float wx[4], wy[4];
    catmull_rom(fx, wx);
    catmull_rom(fy, wy);
    const int32_t w = static_cast<int32_t>(p.output_w) - 1, h = static_cast<int32_t>(p.output_h) - 1;
    const F4* __restrict__ hist = reinterpret_cast<const F4*>(p.history_in);
    uint32_t col[4], row[4];
#pragma unroll
    for (int32_t i = 0; i < 4; ++i) {
        col[i] = static_cast<uint32_t>(clamp_i(ix - 1 + i, 0, w));
        row[i] = static_cast<uint32_t>(clamp_i(iy - 1 + i, 0, h)) * p.output_stride;
    }
    F4 acc{0.0f, 0.0f, 0.0f, 0.0f};
    float wsum = 0.0f;
#pragma unroll
    for (int32_t j = 0; j < 4; ++j)
#pragma unroll
        for (int32_t i = 0; i < 4; ++i) {
            if ((i == 0 || i == 3) && (j == 0 || j == 3)) continue;
            const float wt = wx[i] * wy[j];
            const F4 v = fetch(hist, row[j] + col[i]);
            acc = {acc.x + v.x * wt, acc.y + v.y * wt, acc.z + v.z * wt, acc.w + v.w * wt};
            wsum += wt;
        }
    const float inv = 1.0f / wsum;
    return {acc.x * inv, acc.y * inv, acc.z * inv, acc.w * inv};
}

// accumulate_terms(P, OX, OY), the same algorithm.
__device__ __forceinline__ AccumulateTerms accumulate_terms(const Params& p, int32_t ox, int32_t oy) {
    const float scale_x = static_cast<float>(p.render_w) / static_cast<float>(p.output_w);
    const float scale_y = static_cast<float>(p.render_h) / static_cast<float>(p.output_h);
    const float px = (static_cast<float>(ox) + 0.5f) * scale_x, py = (static_cast<float>(oy) + 0.5f) * scale_y;
    const int32_t w = static_cast<int32_t>(p.render_w) - 1, h = static_cast<int32_t>(p.render_h) - 1;
    const int32_t cx = clamp_i(floor_i(px - p.jitter_x), 0, w), cy = clamp_i(floor_i(py - p.jitter_y), 0, h);

    const float up = min_f(1.0f / scale_x, 3.0f);
    const float inv_r2 = 1.0f / (0.35f + 0.15f * up);
    const F4* __restrict__ color = reinterpret_cast<const F4*>(p.prep_color);
    F3 sum{0.0f, 0.0f, 0.0f}, m1{0.0f, 0.0f, 0.0f}, m2{0.0f, 0.0f, 0.0f};
    float wsum = 0.0f, wmax = 0.0f;
    F4 centre{0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
    for (int32_t dy = -1; dy <= 1; ++dy) {
        const int32_t sy = clamp_i(cy + dy, 0, h);
        const uint32_t row = static_cast<uint32_t>(sy) * p.render_stride;
        const float ddy = static_cast<float>(sy) + 0.5f + p.jitter_y - py;
#pragma unroll
        for (int32_t dx = -1; dx <= 1; ++dx) {
            const int32_t sx = clamp_i(cx + dx, 0, w);
            const F4 c = fetch(color, row + static_cast<uint32_t>(sx));
            if (dx == 0 && dy == 0) centre = c;
            const float ddx = static_cast<float>(sx) + 0.5f + p.jitter_x - px;
            const float t = max_f(1.0f - (ddx * ddx + ddy * ddy) * inv_r2, 0.0f);
            const float wt = t * t;
            sum = {sum.x + c.x * wt, sum.y + c.y * wt, sum.z + c.z * wt};
            wsum += wt;
            wmax = max_f(wmax, wt);
            m1 = {m1.x + c.x, m1.y + c.y, m1.z + c.z};
            m2 = {m2.x + c.x * c.x, m2.y + c.y * c.y, m2.z + c.z * c.z};
        }
    }
    const float inv_w = 1.0f / wsum;
    const F3 cur = wsum > 1.0e-4f ? F3{sum.x * inv_w, sum.y * inv_w, sum.z * inv_w} : F3{centre.x, centre.y, centre.z};
    constexpr float kNinth = 1.0f / 9.0f;
    const F3 mean{m1.x * kNinth, m1.y * kNinth, m1.z * kNinth};
    const F3 extent{kClipGamma * sqrt_f(max_f(m2.x * kNinth - mean.x * mean.x, 0.0f)) + 1.0e-4f,
                    kClipGamma * sqrt_f(max_f(m2.y * kNinth - mean.y * mean.y, 0.0f)) + 1.0e-4f,
                    kClipGamma * sqrt_f(max_f(m2.z * kNinth - mean.z * mean.z, 0.0f)) + 1.0e-4f};

    const F4 mv = fetch(reinterpret_cast<const F4*>(p.motion_cur),
                        static_cast<uint32_t>(cy) * p.render_stride + static_cast<uint32_t>(cx));
    AccumulateTerms t;
    t.current = cur;
    t.coverage = wmax;
    if ((p.flags & kFlagHistory) && mv.w == 0.0f) {
        const float hx = static_cast<float>(ox) + 0.5f + mv.x / scale_x;
        const float hy = static_cast<float>(oy) + 0.5f + mv.y / scale_y;
        if (hx >= 0.0f && hy >= 0.0f && hx <= static_cast<float>(p.output_w) && hy <= static_cast<float>(p.output_h)) {
            float blur;
            t.history = history(p, hx, hy, blur);
            t.reprojected = true;
            t.clamped = clip_to_box(F3{t.history.x, t.history.y, t.history.z}, mean, extent);
            t.history_weight = clamp_f(t.history.w, 0.0f, kMaxHistoryWeight / (1.0f + kBlurPenalty * blur));
        }
    }
    t.alpha = blend_alpha(t.history_weight, t.coverage);
    return t;
}

} // namespace d4r::upscaler::math::fast
