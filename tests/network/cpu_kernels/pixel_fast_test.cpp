// refine-v2's pixel kernels in the fast set (d4r_nn_pixel_features@fast, d4r_nn_pixel_blend@fast: the display curve
// on eight pixels at once) give the accuracy kernels' bytes, on the upscaler's CPU reference after each of three
// frames (the first without history, then reprojected), with an exposure texture as a game would give one.
#include <gtest/gtest.h>

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

// With the explicit vector paths and without them (simd.h).
class PixelFast : public refine_cpu::test::SimdSwitch {};
INSTANTIATE_TEST_SUITE_P(Simd, PixelFast, testing::Bool(), refine_cpu::test::simd_name);

TEST_P(PixelFast, FeaturesAndBlendGiveTheAccuracyKernelsBytesAfterEachFrame) {
    up::test::RunOptions o = up::test::probe_options(24, 16, 52, 36, 3); // not a multiple of the 4x4 patch
    o.exposure_texture = 1.25f;
    auto created = up::ReferenceUpscaler::create(o.config);
    ASSERT_TRUE(created) << created.error().text();
    up::ReferenceUpscaler& ref = *created;
    EXPECT_EQ(ref.frame_params(), nullptr);
    std::mt19937 rng(5);
    uint32_t reprojected_frames = 0;
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

        // The features, into two sets of buffers.
        std::vector<uint16_t> tokens[2], candidates[2];
        for (int i = 0; i < 2; ++i) {
            tokens[i].assign(size_t(pixels) * pixel::kFeatures, 0xffffu);
            candidates[i].assign(size_t(pixels) * pixel::kCandidateValues, 0xffffu);
            p.tokens = reinterpret_cast<uint64_t>(tokens[i].data());
            p.candidates = reinterpret_cast<uint64_t>(candidates[i].data());
            if (i == 0) {
                run_kernel(Kernel::PixelFeatures, {reinterpret_cast<const uint8_t*>(&p), sizeof(p)}, feature_grid, 2);
            } else {
                refine_cpu::test::run_registered("d4r_nn_pixel_features@fast", p, feature_grid);
            }
        }
        EXPECT_TRUE(tokens[0] == tokens[1]) << "features of frame " << t;
        EXPECT_TRUE(candidates[0] == candidates[1]) << "candidates of frame " << t;
        for (uint32_t i = 0; i < pixels; ++i)
            if (tokens[0][size_t(i) * pixel::kFeatures + 15] != 0) ++reprojected_frames, i = pixels;

        // The blend of random answers (logits and residuals as a trained head gives them) into two copies of the
        // core's output.
        std::vector<uint16_t> answers(size_t(pixels) * pixel::kOutputs);
        std::uniform_real_distribution<float> logit(-6.0f, 6.0f), residual(-0.2f, 0.2f);
        for (size_t i = 0; i < answers.size(); ++i)
            answers[i] = kernels::float_to_half(i % pixel::kOutputs < pixel::kCandidates ? logit(rng) : residual(rng));
        const size_t out_bytes = size_t(p.core.output_pitch) * p.core.output_h;
        const auto* core_out = reinterpret_cast<const uint8_t*>(p.core.output);
        std::vector<uint8_t> blended[2];
        for (int i = 0; i < 2; ++i) {
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
                refine_cpu::test::run_registered("d4r_nn_pixel_blend@fast", b, grid);
            }
        }
        EXPECT_TRUE(blended[0] == blended[1]) << "blend of frame " << t;
        EXPECT_FALSE(blended[0] == std::vector<uint8_t>(core_out, core_out + out_bytes)) << "the blend changed nothing";
    }
    EXPECT_EQ(reprojected_frames, o.frames - 1) << "every frame after the first reprojects its history";
}

} // namespace
} // namespace d4r::network
