// The accumulate step's intermediates (see accumulate_terms.h): accumulate_pixel's arithmetic, kept.
#include "upscaler/accumulate_terms.h"

namespace d4r::upscaler {

using namespace math;

// Mirrors accumulate_pixel statement for statement (same operations in the same order, so the same roundings).
AccumulateTerms accumulate_terms(const Params& p, int32_t ox, int32_t oy) {
    AccumulateTerms t;
    float scale_x = static_cast<float>(p.render_w) / static_cast<float>(p.output_w);
    float scale_y = static_cast<float>(p.render_h) / static_cast<float>(p.output_h);
    float px = (static_cast<float>(ox) + 0.5f) * scale_x, py = (static_cast<float>(oy) + 0.5f) * scale_y;
    int32_t w = static_cast<int32_t>(p.render_w) - 1, h = static_cast<int32_t>(p.render_h) - 1;
    int32_t cx = clamp_i(floor_i(px - p.jitter_x), 0, w), cy = clamp_i(floor_i(py - p.jitter_y), 0, h);

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
            t.history_weight = clamp_f(t.history.w, 0.0f, kMaxHistoryWeight / (1.0f + kBlurPenalty * blur));
        }
    }
    t.alpha = wmax / (t.history_weight + wmax);
    return t;
}

F4 blend_terms(const AccumulateTerms& t) {
    const F3& hist = t.clamped;
    const F3& cur = t.current;
    float total = t.history_weight + t.coverage;
    float a = t.coverage / total;
    F3 rgb =
        ycocg_to_rgb(F3{hist.x + (cur.x - hist.x) * a, hist.y + (cur.y - hist.y) * a, hist.z + (cur.z - hist.z) * a});
    F3 acc = rgb_to_ycocg(F3{clamp_f(rgb.x, 0.0f, 1.0f), clamp_f(rgb.y, 0.0f, 1.0f), clamp_f(rgb.z, 0.0f, 1.0f)});
    return F4{acc.x, acc.y, acc.z, min_f(total, kMaxHistoryWeight)};
}

std::vector<float> accumulate_term_planes(const Params& p) {
    std::vector<float> planes(size_t(p.output_w) * p.output_h * kAccumulateTermPlanes);
    float* at = planes.data();
    for (uint32_t y = 0; y < p.output_h; ++y)
        for (uint32_t x = 0; x < p.output_w; ++x) {
            AccumulateTerms t = accumulate_terms(p, int32_t(x), int32_t(y));
            const float v[kAccumulateTermPlanes] = {
                t.history.x, t.history.y, t.history.z, t.history.w, t.reprojected ? 1.0f : 0.0f,
                t.clamped.x, t.clamped.y, t.clamped.z, t.current.x, t.current.y,
                t.current.z, t.coverage,  t.alpha};
            for (float f : v) *at++ = f;
        }
    return planes;
}

} // namespace d4r::upscaler
