// refine-v2's per-pixel inputs and blend (src/kernels/refine/ptx/pixel_inputs.h): the sRGB curve from exact
// operations against libm, and the features against the training code's (tools/network/train_blend.py) on the
// committed frame tests/fixtures/network/pixel-inputs-24x16.bin (made by make-pixel-inputs.py beside it).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "kernels/common/f16.h"
#include "kernels/refine/ptx/pixel_inputs.h"
#include "kernels/refine/ptx/refine_math.h"

namespace d4r::refine::pixel {
namespace {

TEST(PixelInputs, TheSrgbCurveFromExactOperationsIsWithinAFewUlpOfPowf) {
    float worst_encode = 0, worst_decode = 0;
    for (int i = 0; i <= 100000; ++i) {
        const float x = static_cast<float>(i) / 100000.0f;
        const double want = x <= 0.0031308 ? 12.92 * x : 1.055 * std::pow(double(x), 1.0 / 2.4) - 0.055;
        worst_encode = std::max(worst_encode, float(std::abs(srgb_encode(x) - want) / std::max(want, 1e-30)));
        const double back = x <= 0.04045 ? x / 12.92 : std::pow((x + 0.055) / 1.055, 2.4);
        worst_decode = std::max(worst_decode, float(std::abs(srgb_decode(x) - back) / std::max(back, 1e-30)));
    }
    EXPECT_LT(worst_encode, 5e-7f) << "relative error of srgb_encode";
    EXPECT_LT(worst_decode, 5e-7f) << "relative error of srgb_decode";
    EXPECT_EQ(srgb_encode(-1.0f), 0.0f);
    EXPECT_EQ(srgb_encode(std::nanf("")), 0.0f);
    EXPECT_FLOAT_EQ(srgb_encode(2.0f), 1.0f);
}

TEST(PixelInputs, DisplayAndBackToLinearRoundTrip) {
    for (float v : {0.0f, 1e-4f, 0.01f, 0.18f, 1.0f, 7.5f, 200.0f})
        for (float k : {0.5f, 1.0f, 1.5f}) {
            const float back = linear_of_display(display(v, k), k);
            EXPECT_NEAR(back, v, 1e-4f + 2e-4f * v * (1.0f + v * k)) << v << " at exposure " << k;
        }
    EXPECT_EQ(display(std::nanf(""), 1.0f), 0.0f);
    EXPECT_EQ(display(-3.0f, 1.0f), 0.0f);
    EXPECT_FLOAT_EQ(display(INFINITY, 1.0f), 1.0f);
    // A display value of 1 is capped below: a finite linear value.
    EXPECT_TRUE(std::isfinite(linear_of_display(1.0f, 1.0f)));
}

TEST(PixelInputs, TheBlendMixesTheCandidatesByTheSoftmaxOfTheLogitsAndAddsTheResidual) {
    Candidates cand{};
    for (uint32_t i = 0; i < kCandidates; ++i)
        for (int c = 0; c < 3; ++c) cand.c[i][c] = 0.1f + 0.15f * float(i) + 0.01f * float(c);
    float out[3];
    // One logit far above the rest: that candidate alone.
    for (uint32_t pick = 0; pick < kCandidates; ++pick) {
        float z[kOutputs] = {};
        z[pick] = 40.0f;
        blend_pixel(z, cand, 1.5f, out);
        for (int c = 0; c < 3; ++c) EXPECT_FLOAT_EQ(out[c], linear_of_display(cand.c[pick][c], 1.5f));
    }
    // Equal logits: the mean; plus a residual.
    float z[kOutputs] = {0, 0, 0, 0, 0, 0.05f, 0.0f, -0.05f};
    blend_pixel(z, cand, 1.0f, out);
    for (int c = 0; c < 3; ++c) {
        float mean = 0;
        for (uint32_t i = 0; i < kCandidates; ++i) mean += cand.c[i][c] / kCandidates;
        EXPECT_NEAR(out[c], linear_of_display(mean + z[kCandidates + c], 1.0f), 1e-5f) << c;
    }
    // Clamped to [0, 1] before going back to linear.
    float big[kOutputs] = {0, 0, 0, 0, 0, 5.0f, -5.0f, 0.0f};
    blend_pixel(big, cand, 1.0f, out);
    EXPECT_EQ(out[0], linear_of_display(1.0f, 1.0f));
    EXPECT_EQ(out[1], 0.0f);
}

// The fixture (make-pixel-inputs.py's docstring has the layout).
struct Fixture {
    uint32_t width = 0, height = 0, rw = 0, rh = 0;
    float jitter_x = 0, jitter_y = 0, exposure = 0;
    std::vector<uint16_t> output, color, motion, terms;
    std::vector<float> depth, features, candidates;
};

bool read_fixture(Fixture& f, std::string& why) {
    const auto path = std::filesystem::path(D4R_TEST_FIXTURE_DIR) / "network" / "pixel-inputs-24x16.bin";
    std::ifstream in(path, std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    size_t at = 0;
    auto take = [&](void* dst, size_t n) {
        if (at + n > bytes.size()) return false;
        std::memcpy(dst, bytes.data() + at, n);
        at += n;
        return true;
    };
    char magic[4];
    if (!take(magic, 4) || std::memcmp(magic, "d4px", 4) != 0 || !take(&f.width, 4) || !take(&f.height, 4) ||
        !take(&f.rw, 4) || !take(&f.rh, 4) || !take(&f.jitter_x, 4) || !take(&f.jitter_y, 4) || !take(&f.exposure, 4)) {
        why = path.string() + ": not a pixel-inputs fixture";
        return false;
    }
    const size_t n = size_t(f.width) * f.height, r = size_t(f.rw) * f.rh;
    f.output.resize(n * 3);
    f.color.resize(r * 3);
    f.depth.resize(r);
    f.motion.resize(r * 2);
    f.terms.resize(n * 13);
    f.features.resize(n * kFeatures);
    f.candidates.resize(n * kCandidates * 3);
    bool ok = take(f.output.data(), n * 6) && take(f.color.data(), r * 6) && take(f.depth.data(), r * 4) &&
              take(f.motion.data(), r * 4) && take(f.terms.data(), n * 26) &&
              take(f.features.data(), n * kFeatures * 4) && take(f.candidates.data(), n * kCandidates * 12) &&
              at == bytes.size();
    if (!ok) why = path.string() + ": truncated or too long";
    return ok;
}

TEST(PixelInputs, TheFeaturesAreTheTrainingCodesOnACommittedFrame) {
    Fixture fx;
    std::string why;
    ASSERT_TRUE(read_fixture(fx, why)) << why;
    std::vector<uint16_t> rgba(size_t(fx.rw) * fx.rh * 4, 0x3c00u);
    for (size_t i = 0; i < size_t(fx.rw) * fx.rh; ++i)
        for (int c = 0; c < 3; ++c) rgba[i * 4 + c] = fx.color[i * 3 + c];
    up::Params p{};
    p.color = reinterpret_cast<uint64_t>(rgba.data());
    p.depth = reinterpret_cast<uint64_t>(fx.depth.data());
    p.motion = reinterpret_cast<uint64_t>(fx.motion.data());
    p.exposure_tex = reinterpret_cast<uint64_t>(&fx.exposure);
    p.color_pitch = fx.rw * 8;
    p.depth_pitch = fx.rw * 4;
    p.motion_pitch = fx.rw * 4;
    p.render_w = fx.rw;
    p.render_h = fx.rh;
    p.output_w = fx.width;
    p.output_h = fx.height;
    p.motion_w = fx.rw;
    p.motion_h = fx.rh;
    p.flags = up::kFlagHdr | up::kFlagMvLowRes;
    p.exposure_mode = up::kExposureTexture;
    p.mv_mul_x = p.mv_mul_y = 1.0f;
    p.jitter_x = fx.jitter_x;
    p.jitter_y = fx.jitter_y;
    p.pre_exposure = p.exposure_scale = 1.0f;
    const float k = up::exposure_factor(p);
    ASSERT_EQ(k, fx.exposure);

    float worst = 0;
    std::string where;
    for (uint32_t y = 0; y < fx.height; ++y)
        for (uint32_t x = 0; x < fx.width; ++x) {
            const size_t i = size_t(y) * fx.width + x;
            const uint16_t* t = &fx.terms[i * 13];
            auto h = [&](int j) { return kernels::half_to_float(t[j]); };
            Terms terms{{h(0), h(1), h(2)}, h(3), h(4), {h(5), h(6), h(7)}, {h(8), h(9), h(10)}, h(11), h(12)};
            float o[3];
            for (int c = 0; c < 3; ++c) o[c] = kernels::half_to_float(fx.output[i * 3 + c]);
            float f[kFeatures];
            Candidates cand{};
            pixel_features(p, int32_t(x), int32_t(y), o, terms, k, f, cand);
            for (uint32_t j = 0; j < kFeatures; ++j) {
                const float d = std::abs(f[j] - fx.features[i * kFeatures + j]);
                if (d > worst) {
                    worst = d;
                    where = "feature " + std::to_string(j) + " of pixel (" + std::to_string(x) + ", " +
                            std::to_string(y) + "): " + std::to_string(f[j]) + " against " +
                            std::to_string(fx.features[i * kFeatures + j]);
                }
            }
            for (uint32_t j = 0; j < kCandidates; ++j)
                for (int c = 0; c < 3; ++c)
                    EXPECT_NEAR(cand.c[j][c], fx.candidates[(i * kCandidates + j) * 3 + c], 2e-6f)
                        << "candidate " << j << " of pixel (" << x << ", " << y << ")";
        }
    EXPECT_LT(worst, 2e-6f) << where; // measured: 2.4e-7 (f32 rounding of the same formulas)
}

} // namespace
} // namespace d4r::refine::pixel
