// The upscaler's fast sm_90 kernel (src/kernels/upscaler/cuda/fast_accumulate.cu, fast math), compiled to PTX by the
// build's nvcc, on ptxsim (cpu backend) in place of the PTX path's d4r_up_accumulate, frame after frame with history
// and motion, against the PTX path on the same frames: the output stays within 60 dB of the PTX path's (tone-mapped,
// as the demo scores; measured 96-118 dB) and differs from it somewhere (the fast kernel ran). The cubin of the same
// source runs on the H200 in tests/device/profile-4k.sh.
#include <gtest/gtest.h>

#include <cmath>

#include "cuda_env.h"
#include "harness.h"
#include "test_support.h"

using namespace d4r;
using namespace d4r::upscaler;
using namespace d4r::upscaler::test;

namespace {

std::string fast_ptx(std::string* why) {
#ifdef D4R_TEST_UPSCALER_FAST_SM90_PTX
    std::string text = d4r::test::read_file_text(D4R_TEST_UPSCALER_FAST_SM90_PTX);
    text.push_back('\0');
    return text;
#else
    *why = "NVIDIA's nvcc was not found when the build was configured: the fast sm_90 kernel was not compiled";
    return {};
#endif
}

// PSNR of two RGBA16F images after x / (1 + x) per colour channel (peak 1).
double tone_mapped_psnr(const std::vector<uint16_t>& a, const std::vector<uint16_t>& b) {
    double sum = 0;
    size_t n = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        if (i % 4 == 3) continue;
        auto tone = [](uint16_t h) {
            double v = std::max(0.0, static_cast<double>(math::half_to_float(h)));
            return v / (1 + v);
        };
        double d = tone(a[i]) - tone(b[i]);
        sum += d * d;
        ++n;
    }
    return sum == 0 ? INFINITY : 10 * std::log10(static_cast<double>(n) / sum);
}

} // namespace

struct FastCase {
    bool hdr, sharpening;
    uint32_t render_w, render_h, output_w, output_h;
};

// gtest would print the struct's bytes, padding included, which differ between builds (and the test lists of the
// default and asan presets must agree: scripts/check-unit-tests).
void PrintTo(const FastCase& c, std::ostream* os) {
    *os << (c.hdr ? "hdr" : "ldr") << (c.sharpening ? " sharpen " : " ") << c.render_w << "x" << c.render_h << " -> "
        << c.output_w << "x" << c.output_h;
}

// Each case needs the fast kernel's PTX (skipped without nvcc) and a context on the cpu backend.
class UpscalerFastSm90 : public ::testing::TestWithParam<FastCase> {
protected:
    void SetUp() override {
        std::string why;
        fast = fast_ptx(&why);
        if (fast.empty()) GTEST_SKIP() << why;
        cuda = cpu_backend_cuda(&why);
        ASSERT_NE(cuda, nullptr) << why;
        ASSERT_TRUE(open_context(*cuda));
    }
    std::string fast;
    const CudaFunctions* cuda = nullptr;
};

// The case's run over FRAMES frames (the probe's scene, the case's sizes and flags).
RunOptions options_of(const FastCase& c, uint32_t frames) {
    RunOptions o = probe_options(c.render_w, c.render_h, c.output_w, c.output_h, frames);
    o.config.hdr = c.hdr;
    o.config.sharpening = c.sharpening;
    return o;
}

TEST_P(UpscalerFastSm90, StaysWithin60DbOfThePtxPathOverFrames) {
    RunOptions o = options_of(GetParam(), 8);
    std::vector<std::vector<uint16_t>> ptx, native;
    Status r = run_pipeline(*cuda, o, [&](uint32_t, const std::vector<uint16_t>& out) { ptx.push_back(out); });
    ASSERT_TRUE(r) << r.error().text();
    o.replacement_ptx = fast;
    r = run_pipeline(*cuda, o, [&](uint32_t, const std::vector<uint16_t>& out) { native.push_back(out); });
    ASSERT_TRUE(r) << r.error().text();
    ASSERT_EQ(ptx.size(), native.size());
    size_t differ = 0;
    for (size_t t = 0; t < ptx.size(); ++t) {
        EXPECT_GE(tone_mapped_psnr(ptx[t], native[t]), 60.0) << "frame " << t;
        for (size_t i = 0; i < ptx[t].size(); ++i) differ += ptx[t][i] != native[t][i];
    }
    EXPECT_GT(differ, 0u) << "fast math gave the PTX path's bytes everywhere: not the fast kernel?";
}

// PipelineConfig::keep_network_inputs: the fast kernel stores the terms in store_terms' layout (two 16-byte stores a
// pixel), with fast math's last bits: each pixel's flag the same as the PTX path's and its values close.
TEST_P(UpscalerFastSm90, KeepsTheTermsInThePtxPathsLayout) {
    const FastCase c = GetParam();
    RunOptions o = options_of(c, 4);
    o.config.keep_network_inputs = true;
    const size_t halves = size_t(c.output_w) * c.output_h * math::kTermHalves;
    auto run = [&](std::vector<std::vector<uint16_t>>& terms) {
        return run_pipeline(
            *cuda, o, [](uint32_t, const std::vector<uint16_t>&) {}, nullptr,
            [&](uint32_t, const Pipeline& pipeline) -> Status {
                const math::Params* p = pipeline.frame_params();
                if (!p || !p->terms) return make_error(ErrorCode::Internal, "no terms kept");
                std::vector<uint16_t>& t = terms.emplace_back(halves);
                if (cuda->cuMemcpyDtoH_v2(t.data(), p->terms, halves * 2) != d4r::abi::CUDA_SUCCESS)
                    return make_error(ErrorCode::Internal, "cuMemcpyDtoH of the terms");
                return ok_status();
            });
    };
    std::vector<std::vector<uint16_t>> ptx, native;
    Status r = run(ptx);
    ASSERT_TRUE(r) << r.error().text();
    o.replacement_ptx = fast;
    r = run(native);
    ASSERT_TRUE(r) << r.error().text();
    ASSERT_EQ(ptx.size(), native.size());
    size_t flags_differ = 0, far = 0, reprojected = 0, pixels = 0, halves_differ = 0;
    for (size_t f = 0; f < ptx.size(); ++f)
        for (size_t i = 0; i < halves; i += math::kTermHalves, ++pixels) {
            const uint16_t* a = &ptx[f][i];
            const uint16_t* b = &native[f][i];
            EXPECT_TRUE(a[13] == 0 && a[14] == 0 && a[15] == 0 && b[13] == 0 && b[14] == 0 && b[15] == 0);
            reprojected += a[4] != 0;
            for (uint32_t k = 0; k < math::kTermHalves; ++k) halves_differ += a[k] != b[k];
            if (a[4] != b[4]) {
                ++flags_differ;
                continue;
            }
            for (uint32_t k = 0; k < 13; ++k) {
                const float x = math::half_to_float(a[k]), y = math::half_to_float(b[k]);
                far += std::fabs(x - y) > 0.01f * std::max(1.0f, std::fabs(x));
            }
        }
    EXPECT_GT(reprojected, 0u);
    EXPECT_GT(halves_differ, 0u) << "fast math gave the PTX path's terms everywhere: not the fast kernel?";
    EXPECT_LE(flags_differ, pixels / 1000) << "reprojected flags that differ from the PTX path's";
    EXPECT_LE(far, pixels / 1000) << "terms more than 1% from the PTX path's";
}

INSTANTIATE_TEST_SUITE_P(Scenes, UpscalerFastSm90,
                         ::testing::Values(FastCase{true, false, 48, 32, 96, 64}, FastCase{true, true, 40, 24, 100, 60},
                                           FastCase{false, false, 64, 36, 96, 54}),
                         [](const ::testing::TestParamInfo<FastCase>& info) {
                             const FastCase& c = info.param;
                             return fmt::format("{}{}_{}x{}_to_{}x{}", c.hdr ? "hdr" : "ldr",
                                                c.sharpening ? "_sharpen" : "", c.render_w, c.render_h, c.output_w,
                                                c.output_h);
                         });
