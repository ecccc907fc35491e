// The algorithm's quality on analytic scenes with known truth (CPU reference; the PTX and native kernels
// equal it, see pipeline_test and native_test): temporal accumulation of jittered frames beats a
// bicubic upscale of the same input, reset drops the history, a moving object leaves no ghost in the
// background it reveals.
#include <gtest/gtest.h>

#include <cmath>

#include "harness.h"

using namespace d4r;
using namespace d4r::upscaler;
using namespace d4r::upscaler::test;

namespace {

float clamp01(float v) { return v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v); }

// PSNR (dB) over RGB clamped to [0, 1]; MASK (optional) selects pixels.
double psnr(const std::vector<Rgb>& a, const std::vector<Rgb>& truth, const std::vector<bool>* mask = nullptr) {
    double se = 0;
    size_t n = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        if (mask && !(*mask)[i]) continue;
        double dr = clamp01(a[i].r) - clamp01(truth[i].r), dg = clamp01(a[i].g) - clamp01(truth[i].g),
               db = clamp01(a[i].b) - clamp01(truth[i].b);
        se += dr * dr + dg * dg + db * db;
        n += 3;
    }
    return 10.0 * std::log10(1.0 / std::max(se / double(n), 1e-12));
}

std::vector<Rgb> to_rgb(const std::vector<uint16_t>& half4) {
    std::vector<Rgb> out(half4.size() / 4);
    for (size_t i = 0; i < out.size(); ++i)
        out[i] = {math::half_to_float(half4[i * 4]), math::half_to_float(half4[i * 4 + 1]),
                  math::half_to_float(half4[i * 4 + 2])};
    return out;
}

// Keys bicubic (a = -0.5) of the render image at output resolution: the spatial baseline.
std::vector<Rgb> bicubic(const Frame& f, uint32_t ow, uint32_t oh) {
    auto w = [](float x) {
        x = std::fabs(x);
        if (x < 1.0f) return 1.5f * x * x * x - 2.5f * x * x + 1.0f;
        if (x < 2.0f) return -0.5f * x * x * x + 2.5f * x * x - 4.0f * x + 2.0f;
        return 0.0f;
    };
    std::vector<Rgb> out(size_t(ow) * oh);
    for (uint32_t y = 0; y < oh; ++y)
        for (uint32_t x = 0; x < ow; ++x) {
            float u = (float(x) + 0.5f) * float(f.w) / float(ow) - 0.5f,
                  v = (float(y) + 0.5f) * float(f.h) / float(oh) - 0.5f;
            int iu = int(std::floor(u)), iv = int(std::floor(v));
            Rgb acc{0, 0, 0};
            for (int j = -1; j <= 2; ++j)
                for (int i = -1; i <= 2; ++i) {
                    int sx = std::clamp(iu + i, 0, int(f.w) - 1), sy = std::clamp(iv + j, 0, int(f.h) - 1);
                    float wt = w(u - float(iu + i)) * w(v - float(iv + j));
                    const uint16_t* c = &f.color[(size_t(sy) * f.w + sx) * 4];
                    acc.r += wt * math::half_to_float(c[0]);
                    acc.g += wt * math::half_to_float(c[1]);
                    acc.b += wt * math::half_to_float(c[2]);
                }
            out[size_t(y) * ow + x] = acc;
        }
    return out;
}

RunOptions quality_options(uint32_t frames) {
    RunOptions o;
    o.config.render_width = 64;
    o.config.render_height = 48;
    o.config.output_width = 128;
    o.config.output_height = 96;
    o.frames = frames;
    return o;
}

std::vector<std::vector<uint16_t>> run_all(const RunOptions& o) {
    std::vector<std::vector<uint16_t>> frames;
    Status s = run_reference(o, [&](uint32_t, const std::vector<uint16_t>& f) { frames.push_back(f); }, 0);
    EXPECT_TRUE(s) << s.error().text();
    return frames;
}

} // namespace

TEST(UpscalerQuality, TemporalAccumulationBeatsBicubicOnAMovingFineTexture) {
    RunOptions o = quality_options(16);
    auto out = run_all(o);
    ASSERT_EQ(out.size(), 16u);
    double ours = 0, spatial = 0;
    for (uint32_t t = 8; t < 16; ++t) {
        auto truth = truth_frame(o.scene, t, 64, 48, 128, 96);
        ours += psnr(to_rgb(out[t]), truth) / 8.0;
        spatial += psnr(bicubic(render_frame(o.scene, t, 64, 48), 128, 96), truth) / 8.0;
    }
    RecordProperty("psnr_d4r", std::to_string(ours));
    RecordProperty("psnr_bicubic", std::to_string(spatial));
    std::printf("mean PSNR over frames 8-15: d4r %.2f dB, bicubic %.2f dB\n", ours, spatial);
    EXPECT_GT(ours, spatial + 2.0);
    // And accumulation is what helps: the first frame alone is not better than frame 15.
    EXPECT_LT(psnr(to_rgb(out[0]), truth_frame(o.scene, 0, 64, 48, 128, 96)),
              psnr(to_rgb(out[15]), truth_frame(o.scene, 15, 64, 48, 128, 96)));
}

TEST(UpscalerQuality, ResetDropsTheHistory) {
    RunOptions o = quality_options(6);
    o.reset_frame = 5;
    auto with_reset = run_all(o);
    RunOptions plain = quality_options(6);
    auto without = run_all(plain);
    // A fresh upscaler that sees only frame 5 (same jitter: its frame index is 5).
    RunOptions single = quality_options(6);
    std::vector<uint16_t> fresh;
    {
        auto ref = ReferenceUpscaler::create(single.config);
        ASSERT_TRUE(ref);
        Staged s = stage_frame(single, 5);
        FrameParams p = s.params;
        p.color = host_address(s.color.data());
        p.depth = host_address(s.depth.data());
        p.motion = host_address(s.motion.data());
        p.output = host_address(s.output.data());
        ASSERT_TRUE(ref->evaluate(p));
        fresh = extract_output(single, s);
    }
    EXPECT_TRUE(with_reset[5] == fresh) << "after Reset the output must not depend on earlier frames";
    EXPECT_FALSE(without[5] == fresh) << "without Reset the history must contribute";
    EXPECT_TRUE(with_reset[4] == without[4]);
}

TEST(UpscalerQuality, AMovingObjectLeavesNoGhostInTheRevealedBackground) {
    RunOptions o = quality_options(12);
    o.scene.object = true;
    o.scene.object_size = 10.0f;
    o.scene.object_speed = 3.0f;
    o.scene.vx = 0.0f; // static background: any error in the revealed area is ghosting
    o.scene.vy = 0.0f;
    auto out = run_all(o);
    const uint32_t t = 11, ow = 128, oh = 96;
    auto truth = truth_frame(o.scene, t, 64, 48, ow, oh);
    std::vector<Rgb> got = to_rgb(out[t]);
    // Output pixels the object covered 1-2 frames ago and no longer covers (2 output px margin).
    std::vector<bool> revealed(size_t(ow) * oh, false);
    size_t count = 0;
    for (uint32_t y = 0; y < oh; ++y)
        for (uint32_t x = 0; x < ow; ++x) {
            bool was = false, near_now = false;
            for (float dy = -1.0f; dy <= 1.0f; dy += 1.0f)
                for (float dx = -2.0f; dx <= 2.0f; dx += 1.0f) {
                    float sx = (float(x) + 0.5f + dx) / 2.0f, sy = (float(y) + 0.5f + dy) / 2.0f;
                    near_now |= o.scene.in_object(sx, sy, t);
                }
            float sx = (float(x) + 0.5f) / 2.0f, sy = (float(y) + 0.5f) / 2.0f;
            was = o.scene.in_object(sx, sy, t - 1) || o.scene.in_object(sx, sy, t - 2);
            size_t i = size_t(y) * ow + x;
            revealed[i] = was && !near_now;
            count += revealed[i];
        }
    ASSERT_GT(count, 50u);
    // The same frame from an upscaler without any history (reset): what the revealed area can be at
    // best without temporal data. A ghost of the red object (error ~0.5 per channel) would be far below.
    RunOptions fresh = o;
    fresh.reset_frame = static_cast<int>(t);
    auto fresh_out = run_all(fresh);
    double p_revealed = psnr(got, truth, &revealed), p_fresh = psnr(to_rgb(fresh_out[t]), truth, &revealed);
    double mean_red_excess = 0;
    for (size_t i = 0; i < got.size(); ++i)
        if (revealed[i]) mean_red_excess += (clamp01(got[i].r) - clamp01(truth[i].r)) / double(count);
    std::printf("revealed area: PSNR %.2f dB (history-free frame %.2f dB), mean red excess %.3f (%zu pixels)\n",
                p_revealed, p_fresh, mean_red_excess, count);
    EXPECT_GT(p_revealed, p_fresh - 1.5);
    EXPECT_LT(mean_red_excess, 0.05);
}

TEST(UpscalerQuality, InfiniteHdrTexelsNeverPoisonTheHistory) {
    // RGBA16F inputs can hold infinities (overflowed highlights): with this gain most of the background
    // and the whole object exceed the largest half. NaN would spread through the history and stay.
    RunOptions o = quality_options(6);
    o.config.hdr = true;
    o.scene.object = true;
    o.scene.hdr_gain = 1.0e5f;
    auto frames = run_all(o);
    ASSERT_EQ(frames.size(), 6u);
    size_t infinite_inputs = 0;
    for (uint16_t h : render_frame(o.scene, 5, 64, 48).color) infinite_inputs += (h & 0x7fffu) == 0x7c00u;
    EXPECT_GT(infinite_inputs, 100u) << "the test must feed infinities";
    for (size_t f = 0; f < frames.size(); ++f) {
        size_t bad = 0;
        double sum = 0;
        for (size_t i = 0; i < frames[f].size(); i += 4)
            for (size_t c = 0; c < 3; ++c) {
                uint16_t h = frames[f][i + c];
                bad += (h & 0x7c00u) == 0x7c00u; // NaN or infinity
                sum += math::half_to_float(h);
            }
        EXPECT_EQ(bad, 0u) << "frame " << f;
        EXPECT_GT(sum / double(frames[f].size() / 4 * 3), 100.0) << "frame " << f << ": a bright HDR image, not black";
    }
}
