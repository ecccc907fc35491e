// refine-v2's pixel kernels in the fast set (d4r_nn_pixel_features@fast, d4r_nn_pixel_blend@fast: the display curve
// on eight pixels at once, its powers from a cubic fit and a few Newton steps) on the upscaler's CPU reference after
// each of three frames (the first without history, then reprojected), with an exposure texture as a game would give
// one: the vector and scalar paths give the same bytes, within 80 dB of the accuracy kernels (the powers are within
// 1 ulp of theirs), and not their bytes everywhere (else the fast curve would not be what runs).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "cpu_kernel_test.h"
#include "harness.h"
#include "kernels/common/f16.h"
#include "kernels/refine/ptx/pixel_inputs.h"
#include "kernels/refine/ptx/refine_math.h"
#include "network/host_kernels.h"
#include "upscaler/reference.h"

namespace d4r::network {
namespace {

namespace up = upscaler;
namespace pixel = refine::pixel;

// PSNR of B against A (f16 values; peak: A's largest magnitude); 200 when identical.
double psnr_halves(const std::vector<uint16_t>& a, const std::vector<uint16_t>& b) {
    double se = 0, peak = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        const double x = kernels::half_to_float(a[i]), y = kernels::half_to_float(b[i]);
        se += (x - y) * (x - y);
        peak = std::max(peak, std::abs(x));
    }
    return se == 0 ? 200.0 : 10.0 * std::log10(peak * peak * double(a.size()) / se);
}
std::vector<uint16_t> rgb_halves(const std::vector<uint8_t>& image) {
    std::vector<uint16_t> v(image.size() / 2);
    std::memcpy(v.data(), image.data(), v.size() * 2);
    for (size_t i = 3; i < v.size(); i += 4) v[i] = 0; // alpha is kept, not blended
    return v;
}

TEST(PixelFast, FeaturesAndBlendAreCloseToTheAccuracyKernelsAndTheSameWithAndWithoutVectors) {
    up::test::RunOptions o = up::test::probe_options(24, 16, 52, 36, 3); // not a multiple of the 4x4 patch
    o.exposure_texture = 1.25f;
    auto created = up::ReferenceUpscaler::create(o.config);
    ASSERT_TRUE(created) << created.error().text();
    up::ReferenceUpscaler& ref = *created;
    EXPECT_EQ(ref.frame_params(), nullptr);
    std::mt19937 rng(5);
    uint32_t reprojected_frames = 0, differing = 0;
    for (uint32_t t = 0; t < o.frames; ++t) {
        up::test::Staged s = up::test::stage_frame(o, t);
        ASSERT_TRUE(ref.evaluate(up::test::host_frame(o, s), 2));
        ASSERT_NE(ref.frame_params(), nullptr);
        pixel::PixelParams p{};
        p.core = *ref.frame_params();
        p.grid_w = refine::math::div_up(p.core.output_w, 4);
        p.grid_h = refine::math::div_up(p.core.output_h, 4);
        const uint32_t pixels = p.grid_w * p.grid_h * pixel::kPatchPixels;
        const std::array<uint32_t, 3> feature_grid{refine::math::div_up(pixels, refine::math::kThreads), 1, 1};

        // The features, into three sets of buffers: the accuracy kernel, the fast one with vectors and without.
        std::vector<uint16_t> tokens[3], candidates[3];
        for (int i = 0; i < 3; ++i) {
            tokens[i].assign(size_t(pixels) * pixel::kFeatures, 0xffffu);
            candidates[i].assign(size_t(pixels) * pixel::kCandidateValues, 0xffffu);
            p.tokens = reinterpret_cast<uint64_t>(tokens[i].data());
            p.candidates = reinterpret_cast<uint64_t>(candidates[i].data());
            if (i == 0) {
                run_kernel(Kernel::PixelFeatures, {reinterpret_cast<const uint8_t*>(&p), sizeof(p)}, feature_grid, 2);
            } else {
                refine_cpu::set_simd_enabled(i == 1);
                refine_cpu::test::run_registered("d4r_nn_pixel_features@fast", p, feature_grid);
                refine_cpu::set_simd_enabled(true);
            }
        }
        EXPECT_TRUE(tokens[1] == tokens[2]) << "features of frame " << t << ": vector and scalar paths differ";
        EXPECT_TRUE(candidates[1] == candidates[2]) << "candidates of frame " << t << ": vector and scalar differ";
        EXPECT_GE(psnr_halves(tokens[0], tokens[1]), 80.0) << "features of frame " << t;
        EXPECT_GE(psnr_halves(candidates[0], candidates[1]), 80.0) << "candidates of frame " << t;
        differing += tokens[0] != tokens[1];
        for (uint32_t i = 0; i < pixels; ++i)
            if (tokens[0][size_t(i) * pixel::kFeatures + 15] != 0) ++reprojected_frames, i = pixels;

        // The blend of random answers (logits and residuals as a trained head gives them) into three copies of the
        // core's output, each from the accuracy kernel's candidates.
        std::vector<uint16_t> answers(size_t(pixels) * pixel::kOutputs);
        std::uniform_real_distribution<float> logit(-6.0f, 6.0f), residual(-0.2f, 0.2f);
        for (size_t i = 0; i < answers.size(); ++i)
            answers[i] = kernels::float_to_half(i % pixel::kOutputs < pixel::kCandidates ? logit(rng) : residual(rng));
        const size_t out_bytes = size_t(p.core.output_pitch) * p.core.output_h;
        const auto* core_out = reinterpret_cast<const uint8_t*>(p.core.output);
        std::vector<uint8_t> blended[3];
        for (int i = 0; i < 3; ++i) {
            blended[i].assign(core_out, core_out + out_bytes);
            pixel::PixelParams b = p;
            b.core.output = reinterpret_cast<uint64_t>(blended[i].data());
            b.tokens = reinterpret_cast<uint64_t>(answers.data());
            b.candidates = reinterpret_cast<uint64_t>(candidates[0].data());
            const std::array<uint32_t, 3> grid{refine::math::div_up(p.core.output_w, refine::math::kImageBlock),
                                               refine::math::div_up(p.core.output_h, refine::math::kImageBlock), 1};
            if (i == 0) {
                run_kernel(Kernel::PixelBlend, {reinterpret_cast<const uint8_t*>(&b), sizeof(b)}, grid, 2);
            } else {
                refine_cpu::set_simd_enabled(i == 1);
                refine_cpu::test::run_registered("d4r_nn_pixel_blend@fast", b, grid);
                refine_cpu::set_simd_enabled(true);
            }
        }
        EXPECT_TRUE(blended[1] == blended[2]) << "blend of frame " << t << ": vector and scalar paths differ";
        EXPECT_GE(psnr_halves(rgb_halves(blended[0]), rgb_halves(blended[1])), 80.0) << "blend of frame " << t;
        differing += blended[0] != blended[1];
        EXPECT_FALSE(blended[0] == std::vector<uint8_t>(core_out, core_out + out_bytes)) << "the blend changed nothing";
    }
    EXPECT_EQ(reprojected_frames, o.frames - 1) << "every frame after the first reprojects its history";
    EXPECT_GT(differing, 0u) << "the fast kernels gave the accuracy kernels' bytes everywhere: not the fast curve?";
}

} // namespace
} // namespace d4r::network
