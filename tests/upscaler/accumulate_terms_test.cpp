// accumulate_terms (src/upscaler/accumulate_terms.h): the accumulate step's terms, evaluated again over host
// memory after the kernel ran and blended, are the history the kernel stored, bit for bit at every pixel of
// frames with history, disocclusion (a moving object) and clipping; the frame-dump planes hold the same terms;
// and the reference hands out the same planes.
#include <gtest/gtest.h>

#include <bit>
#include <cstring>

#include "harness.h"
#include "upscaler/accumulate_terms.h"
#include "upscaler/frame_setup.h"

namespace d4r::upscaler {
namespace {

test::RunOptions moving_object_options() {
    test::RunOptions o;
    o.config.render_width = 64;
    o.config.render_height = 48;
    o.config.output_width = 128;
    o.config.output_height = 96;
    o.config.hdr = true;
    o.exposure_texture = 1.5f;
    o.frames = 5;
    o.scene.object = true;
    o.scene.object_size = 10.0f;
    o.scene.object_speed = 3.0f;
    return o;
}

bool same_bits(float a, float b) { return std::bit_cast<uint32_t>(a) == std::bit_cast<uint32_t>(b); }

template <typename T>
const T* host_pointer(uint64_t address) {
    return reinterpret_cast<const T*>(static_cast<uintptr_t>(address));
}

} // namespace

TEST(AccumulateTerms, BlendingTheTermsGivesTheStoredHistoryBitForBit) {
    test::RunOptions o = moving_object_options();
    BufferLayout layout = buffer_layout(o.config);
    std::vector<float> work(layout.total / sizeof(float) + 64, 0.0f);
    uint64_t base = (host_address(work.data()) + 255) & ~uint64_t(255);
    WorkBuffers buffers = work_buffers_at(base, layout);
    SequenceState state;
    size_t reprojected = 0, dropped = 0, clipped = 0;
    for (uint32_t t = 0; t < o.frames; ++t) {
        test::Staged s = test::stage_frame(o, t);
        FrameParams f = test::host_frame(o, s);
        ASSERT_TRUE(validate_frame(o.config, f));
        math::Params p = make_params(o.config, f, state, buffers);
        for (const PlannedLaunch& l : plan_launches(p)) run_host_kernel(l.kernel, p, l.shape, 1);
        std::vector<float> planes = accumulate_term_planes(p);
        ASSERT_EQ(planes.size(), size_t(p.output_w) * p.output_h * kAccumulateTermPlanes);
        for (uint32_t y = 0; y < p.output_h; ++y)
            for (uint32_t x = 0; x < p.output_w; ++x) {
                AccumulateTerms terms = accumulate_terms(p, int32_t(x), int32_t(y));
                math::F4 stored = math::load_f4(p.history_out, p.output_stride, int32_t(x), int32_t(y));
                math::F4 again = blend_terms(terms);
                ASSERT_TRUE(same_bits(stored.x, again.x) && same_bits(stored.y, again.y) &&
                            same_bits(stored.z, again.z) && same_bits(stored.w, again.w))
                    << "frame " << t << " pixel " << x << "," << y;
                const float* v = &planes[(size_t(y) * p.output_w + x) * kAccumulateTermPlanes];
                ASSERT_TRUE(same_bits(v[0], terms.history.x) && same_bits(v[3], terms.history.w) &&
                            v[4] == (terms.reprojected ? 1.0f : 0.0f) && same_bits(v[5], terms.clamped.x) &&
                            same_bits(v[8], terms.current.x) && same_bits(v[11], terms.coverage) &&
                            same_bits(v[12], terms.alpha));
                if (t == 0) {
                    ASSERT_FALSE(terms.reprojected);
                } else {
                    (terms.reprojected ? reprojected : dropped)++;
                }
                if (terms.reprojected && !same_bits(terms.clamped.x, terms.history.x)) ++clipped;
            }
        advance(state, f);
    }
    EXPECT_GT(reprojected, 0u);
    EXPECT_GT(dropped, 0u) << "the moving object should disocclude some pixels";
    EXPECT_GT(clipped, 0u) << "some history should be clipped";
}

// PipelineConfig::keep_network_inputs: d4r_up_accumulate also stores each pixel's terms as halves (math::store_terms)
// and d4r_up_prepare each render pixel's geometry (math::geometry_texel), what refine-v2's pixel kernels read instead
// of computing them again: at every pixel they are term_halves of the terms evaluated again, at every render pixel
// its geometry bit for bit, and keeping them changes neither the history nor the output.
TEST(AccumulateTerms, KeptTermsAndGeometryAreEachPixelsOwnAndChangeNothingElse) {
    test::RunOptions o = moving_object_options();
    test::RunOptions kept = o;
    kept.config.keep_network_inputs = true;
    const BufferLayout plain_layout = buffer_layout(o.config), layout = buffer_layout(kept.config);
    ASSERT_EQ(plain_layout.terms, 0u);
    ASSERT_GE(layout.total - plain_layout.total, uint64_t(o.config.output_width) * o.config.output_height * 32);
    std::vector<float> plain_work(plain_layout.total / sizeof(float) + 64, 0.0f),
        work(layout.total / sizeof(float) + 64);
    const WorkBuffers plain_buffers =
        work_buffers_at((host_address(plain_work.data()) + 255) & ~uint64_t(255), plain_layout);
    const WorkBuffers buffers = work_buffers_at((host_address(work.data()) + 255) & ~uint64_t(255), layout);
    ASSERT_NE(buffers.terms, 0u);
    ASSERT_NE(buffers.geometry, 0u);
    SequenceState plain_state, state;
    size_t reprojected = 0, edges = 0;
    for (uint32_t t = 0; t < o.frames; ++t) {
        test::Staged a = test::stage_frame(o, t), b = test::stage_frame(kept, t);
        FrameParams fa = test::host_frame(o, a), fb = test::host_frame(kept, b);
        math::Params pa = make_params(o.config, fa, plain_state, plain_buffers);
        math::Params pb = make_params(kept.config, fb, state, buffers);
        EXPECT_EQ(pa.terms, 0u);
        EXPECT_EQ(pa.geometry, 0u);
        ASSERT_EQ(pb.terms, buffers.terms);
        ASSERT_EQ(pb.geometry, buffers.geometry);
        for (const PlannedLaunch& l : plan_launches(pa)) run_host_kernel(l.kernel, pa, l.shape, 1);
        for (const PlannedLaunch& l : plan_launches(pb)) run_host_kernel(l.kernel, pb, l.shape, 1);
        EXPECT_EQ(a.output, b.output) << "frame " << t << ": keeping the terms changed the output";
        const size_t history_bytes = size_t(pb.output_w) * pb.output_h * 16;
        EXPECT_EQ(
            std::memcmp(host_pointer<uint8_t>(pa.history_out), host_pointer<uint8_t>(pb.history_out), history_bytes), 0)
            << "frame " << t << ": keeping the terms changed the history";
        for (uint32_t y = 0; y < pb.output_h; ++y)
            for (uint32_t x = 0; x < pb.output_w; ++x) {
                const AccumulateTerms terms = accumulate_terms(pb, int32_t(x), int32_t(y));
                uint16_t want[math::kTermHalves];
                math::term_halves(terms, want);
                const uint16_t* got = host_pointer<uint16_t>(pb.terms) + (size_t(y) * pb.output_stride + x) * 16;
                ASSERT_EQ(std::memcmp(got, want, sizeof want), 0) << "frame " << t << " pixel " << x << "," << y;
                reprojected += terms.reprojected;
            }
        for (uint32_t y = 0; y < pb.render_h; ++y)
            for (uint32_t x = 0; x < pb.render_w; ++x) {
                const math::F4 want = math::geometry_texel(pb, int32_t(x), int32_t(y));
                const math::F4& got = host_pointer<math::F4>(pb.geometry)[size_t(y) * pb.render_stride + x];
                ASSERT_TRUE(same_bits(got.x, want.x) && same_bits(got.y, want.y) && same_bits(got.z, want.z) &&
                            same_bits(got.w, want.w))
                    << "frame " << t << " render pixel " << x << "," << y;
                edges += want.x > 0.01f;
            }
        advance(plain_state, fa);
        advance(state, fb);
    }
    EXPECT_GT(reprojected, 0u);
    EXPECT_GT(edges, 0u) << "the moving object should give depth gradients";
}

TEST(AccumulateTerms, TheReferenceHandsOutTheSamePlanesAndOutput) {
    test::RunOptions o = moving_object_options();
    o.frames = 3;
    auto plain = ReferenceUpscaler::create(o.config);
    auto probed = ReferenceUpscaler::create(o.config);
    ASSERT_TRUE(plain && probed);
    for (uint32_t t = 0; t < o.frames; ++t) {
        test::Staged a = test::stage_frame(o, t), b = test::stage_frame(o, t);
        std::vector<float> planes;
        ASSERT_TRUE(plain->evaluate(test::host_frame(o, a)));
        ASSERT_TRUE(probed->evaluate(test::host_frame(o, b), 2, &planes));
        EXPECT_EQ(a.output, b.output) << "asking for the terms changed the output";
        ASSERT_EQ(planes.size(), size_t(o.config.output_width) * o.config.output_height * kAccumulateTermPlanes);
        size_t reprojected = 0;
        for (size_t i = 4; i < planes.size(); i += kAccumulateTermPlanes) reprojected += planes[i] == 1.0f;
        if (t == 0) {
            EXPECT_EQ(reprojected, 0u);
        } else {
            EXPECT_GT(reprojected, planes.size() / kAccumulateTermPlanes / 2);
        }
    }
}

} // namespace d4r::upscaler
