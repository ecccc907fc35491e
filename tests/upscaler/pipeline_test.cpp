// The upscaler's PTX run by ptxsim through libd4rcuda (build/lib/libcuda.so.1, cpu backend) via Pipeline
// equals the CPU reference bit for bit, frame after frame, across the features (HDR and LDR, exposure
// texture / scale / auto, pre-exposure, MV scale, output-resolution and jittered motion vectors,
// inverted depth, subrects and pitches, dynamic render size, reset, sharpening); invalid frames are
// refused before anything runs.
#include <gtest/gtest.h>

#include "cuda_env.h"
#include "harness.h"

using namespace d4r;
using namespace d4r::upscaler;
using namespace d4r::upscaler::test;

namespace {

class PipelineOnPtxsim : public ::testing::Test {
protected:
    void SetUp() override {
        std::string why;
        m_cuda = cpu_backend_cuda(&why);
        ASSERT_NE(m_cuda, nullptr) << why;
        Status s = open_context(*m_cuda);
        ASSERT_TRUE(s) << s.error().text();
    }

    // Runs O through both and compares every frame's output.
    void expect_identical(const RunOptions& o) {
        std::vector<std::vector<uint16_t>> ref, dev;
        Status r = run_reference(o, [&](uint32_t, const std::vector<uint16_t>& out) { ref.push_back(out); }, 2);
        ASSERT_TRUE(r) << r.error().text();
        Status d = run_pipeline(*m_cuda, o, [&](uint32_t, const std::vector<uint16_t>& out) { dev.push_back(out); });
        ASSERT_TRUE(d) << d.error().text();
        ASSERT_EQ(ref.size(), o.frames);
        ASSERT_EQ(dev.size(), o.frames);
        for (uint32_t t = 0; t < o.frames; ++t) {
            size_t diffs = 0, first = 0;
            for (size_t i = 0; i < ref[t].size(); ++i)
                if (ref[t][i] != dev[t][i] && diffs++ == 0) first = i;
            EXPECT_EQ(diffs, 0u) << "frame " << t << ": first difference at half " << first << " (pixel " << first / 4
                                 << "): reference " << std::hex << ref[t][first] << " ptx " << dev[t][first];
        }
        // Not trivially equal: the output has content.
        size_t non_zero = 0;
        for (uint16_t v : ref.back()) non_zero += (v & 0x7fff) != 0;
        EXPECT_GT(non_zero, ref.back().size() / 2);
    }

    const CudaFunctions* m_cuda = nullptr;
};

PipelineConfig small_config() {
    PipelineConfig c;
    c.render_width = 48;
    c.render_height = 32;
    c.output_width = 96;
    c.output_height = 64;
    return c;
}

} // namespace

TEST_F(PipelineOnPtxsim, HdrWithExposureTextureSubrectsAndResetEqualsReference) {
    RunOptions o;
    o.config = small_config();
    o.config.hdr = true;
    o.scene.object = true;
    o.scene.hdr_gain = 3.0f;
    o.frames = 4;
    o.exposure_texture = 0.7f;
    o.pre_exposure = 2.0f;
    o.mv_scale = 2.0f;
    o.color_base = {3, 2};
    o.depth_base = {1, 0};
    o.motion_base = {0, 5};
    o.output_base = {7, 3};
    o.pad = 5;
    o.reset_frame = 2;
    expect_identical(o);
}

TEST_F(PipelineOnPtxsim, LdrOutputResolutionJitteredMotionInvertedDepthAndSharpeningEqualReference) {
    RunOptions o;
    o.config = small_config();
    o.config.mv_low_res = false;
    o.config.mv_jittered = true;
    o.config.depth_inverted = true;
    o.config.sharpening = true;
    o.scene.object = true;
    o.sharpness = 0.6f;
    o.frames = 3;
    expect_identical(o);
}

TEST_F(PipelineOnPtxsim, AutoExposureAndASmallerRenderSizeEqualReference) {
    RunOptions o;
    o.config = small_config();
    o.config.hdr = true;
    o.config.auto_exposure = true;
    o.scene.hdr_gain = 5.0f;
    o.render_w = 40;
    o.render_h = 27;
    o.frames = 3;
    expect_identical(o);
}

TEST_F(PipelineOnPtxsim, InvalidFramesAreRefusedWithoutTouchingTheOutput) {
    RunOptions o;
    o.config = small_config();
    auto pipeline = Pipeline::create(*m_cuda, o.config);
    ASSERT_TRUE(pipeline) << pipeline.error().text();
    Staged s = stage_frame(o, 0);
    ::d4r::abi::CUdeviceptr dc, dd, dm, dout;
    ASSERT_EQ(m_cuda->cuMemAlloc_v2(&dc, s.color.size()), ::d4r::abi::CUDA_SUCCESS);
    ASSERT_EQ(m_cuda->cuMemAlloc_v2(&dd, s.depth.size()), ::d4r::abi::CUDA_SUCCESS);
    ASSERT_EQ(m_cuda->cuMemAlloc_v2(&dm, s.motion.size()), ::d4r::abi::CUDA_SUCCESS);
    ASSERT_EQ(m_cuda->cuMemAlloc_v2(&dout, s.output.size()), ::d4r::abi::CUDA_SUCCESS);
    ASSERT_EQ(m_cuda->cuMemsetD8_v2(dout, 0x77, s.output.size()), ::d4r::abi::CUDA_SUCCESS);
    FrameParams good = s.params;
    good.color = dc;
    good.depth = dd;
    good.motion = dm;
    good.output = dout;
    std::vector<std::pair<const char*, FrameParams>> bad;
    auto add = [&](const char* what, auto mutate) {
        FrameParams f = good;
        mutate(f);
        bad.emplace_back(what, f);
    };
    add("render size above the config", [](FrameParams& f) { f.render_width = 49; });
    add("zero render size", [](FrameParams& f) { f.render_height = 0; });
    add("no colour", [](FrameParams& f) { f.color = 0; });
    add("no depth", [](FrameParams& f) { f.depth = 0; });
    add("no motion", [](FrameParams& f) { f.motion = 0; });
    add("no output", [](FrameParams& f) { f.output = 0; });
    add("pitch too small", [](FrameParams& f) { f.color_pitch = 47 * 8; });
    add("jitter out of range", [](FrameParams& f) { f.jitter_x = 3.0f; });
    add("NaN jitter", [](FrameParams& f) { f.jitter_y = NAN; });
    add("zero pre-exposure", [](FrameParams& f) { f.pre_exposure = 0.0f; });
    add("negative exposure scale", [](FrameParams& f) { f.exposure_scale = -1.0f; });
    add("sharpness out of range", [](FrameParams& f) { f.sharpness = 2.0f; });
    add("infinite MV scale", [](FrameParams& f) { f.mv_scale_x = INFINITY; });
    for (auto& [what, f] : bad) {
        Status st = (*pipeline)->evaluate(f, nullptr);
        ASSERT_FALSE(st) << what;
        EXPECT_EQ(st.error().code(), ErrorCode::Invalid) << what << ": " << st.error().text();
    }
    ASSERT_EQ(m_cuda->cuCtxSynchronize(), ::d4r::abi::CUDA_SUCCESS);
    std::vector<uint8_t> out(s.output.size());
    ASSERT_EQ(m_cuda->cuMemcpyDtoH_v2(out.data(), dout, out.size()), ::d4r::abi::CUDA_SUCCESS);
    for (uint8_t b : out) ASSERT_EQ(b, 0x77);
    // The good frame runs and writes.
    ASSERT_TRUE((*pipeline)->evaluate(good, nullptr));
    ASSERT_EQ(m_cuda->cuCtxSynchronize(), ::d4r::abi::CUDA_SUCCESS);
    ASSERT_EQ(m_cuda->cuMemcpyDtoH_v2(out.data(), dout, out.size()), ::d4r::abi::CUDA_SUCCESS);
    EXPECT_NE(out[0], 0x77);
    for (::d4r::abi::CUdeviceptr p : {dc, dd, dm, dout}) m_cuda->cuMemFree_v2(p);
}

TEST_F(PipelineOnPtxsim, CreationRefusesZeroSizes) {
    PipelineConfig c = small_config();
    c.output_width = 0;
    auto p = Pipeline::create(*m_cuda, c);
    ASSERT_FALSE(p);
    EXPECT_EQ(p.error().code(), ErrorCode::Invalid);
}

TEST(UpscalerCudaFunctions, ErrorsNameTheCallAndTheResult) {
    std::string why;
    const CudaFunctions* cuda = cpu_backend_cuda(&why);
    ASSERT_NE(cuda, nullptr) << why;
    Error e = cuda_error(*cuda, "cuLaunchKernel", ::d4r::abi::CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(e.message(), "cuLaunchKernel: CUDA_ERROR_INVALID_VALUE (1)");
    auto missing = load_cuda_functions("/nonexistent/libcuda.so.1");
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error().code(), ErrorCode::NotFound);
}
